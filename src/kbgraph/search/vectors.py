"""The vector signal: cosine similarity of the query's embedding to every chunk's (exact, numpy).

The matrix is read from the index once per process and kept until the vectors change. When the
index has no vectors, or they were made by another model, or the model cannot be loaded, the
signal is absent and a note says why: search goes on with the other signals.
"""

from __future__ import annotations

import numpy as np

from ..store.base import DocFilter
from .keyword import Ranked

_EMBEDDERS: dict[str, object] = {}


def vector_ranking(store, embedder_name: str, query: str, flt: DocFilter, depth: int,
                   min_similarity: float = 0.0) -> tuple[list[Ranked], str | None]:
    """Up to `depth` documents by the cosine of their best chunk, or ([], why not)."""
    if embedder_name == "none":
        return [], "vectors off ([search] embedder = \"none\"): text and graph signals only"
    stored_model = store.embedding_model()
    ids, docs, matrix = store.vector_matrix()
    if stored_model is None or len(ids) == 0:
        return [], "this index has no vectors yet: text and graph signals only until `kbg index` embeds the chunks"
    embedder, problem = _embedder(embedder_name)
    if embedder is None:
        return [], f"vectors unavailable, text and graph signals only: {problem}"
    model = f"{embedder.name}@{embedder.version}"
    if model != stored_model:
        return [], f"the vectors were made by {stored_model}, not {model}: run `kbg index` to re-embed"
    query_vector = np.asarray(embedder.embed([query])[0], dtype=np.float32)
    scores = matrix @ query_vector
    take = min(len(scores), depth * 6 + 20)
    top = np.argpartition(-scores, take - 1)[:take] if take < len(scores) else np.arange(len(scores))
    top = top[np.argsort(-scores[top], kind="stable")]
    top = top[scores[top] >= min_similarity]  # nearest is not near: a query about nothing finds nothing
    allowed = None if flt == DocFilter() else store.docs_passing(sorted({int(docs[i]) for i in top}), flt)
    best: dict[int, Ranked] = {}
    for i in top:
        doc_id = int(docs[i])
        if doc_id not in best and (allowed is None or doc_id in allowed):
            best[doc_id] = Ranked(doc_id, int(ids[i]), float(scores[i]))
            if len(best) >= depth:
                break
    uncovered = store.vector_counts()[1] - len(ids)
    note = f"{uncovered} chunks have no vector yet (run `kbg index`)" if uncovered else None
    return list(best.values()), note


def _embedder(name: str):
    """The embedder, loaded once per process (a model load costs far more than a query)."""
    from ..errors import ConfigError, ModelError
    from ..embed import load_embedder

    if name not in _EMBEDDERS:
        try:
            _EMBEDDERS[name] = load_embedder(name)
        except (ModelError, ConfigError) as exc:
            return None, str(exc)
    return _EMBEDDERS[name], None

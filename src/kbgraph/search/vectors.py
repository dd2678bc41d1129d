"""The vector signal: cosine similarity of the query's embedding to every document's centroid (exact, numpy).

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
    """Up to `depth` documents by the cosine of their centroid, or ([], why not)."""
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
    ranked = _document_ranking(store, ids, docs, matrix, query_vector, flt, depth, min_similarity)
    uncovered = store.vector_counts()[1] - len(ids)
    note = f"{uncovered} chunks have no vector yet (run `kbg index`)" if uncovered else None
    return ranked, note


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


_GROUPED: list[tuple[np.ndarray, tuple]] = []  # (the cached matrix, its rows grouped by document)


def _by_document(docs: np.ndarray, matrix: np.ndarray) -> tuple:
    """(row order grouped by document, document ids, group bounds, unit centroids), computed once
    per cached matrix: the store replaces the matrix, never changes it, when vectors change. Held
    with the matrix itself, so a new matrix can never be taken for the old one."""
    if _GROUPED and _GROUPED[0][0] is matrix:
        return _GROUPED[0][1]
    order = np.argsort(docs, kind="stable")
    doc_ids, starts = np.unique(docs[order], return_index=True)
    sums = np.add.reduceat(matrix[order], starts, axis=0) if len(order) else matrix[:0]
    norms = np.linalg.norm(sums, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    grouped = (order, doc_ids, np.append(starts, len(order)), (sums / norms).astype(np.float32))
    _GROUPED[:] = [(matrix, grouped)]
    return grouped


def _document_ranking(store, ids, docs, matrix, query_vector, flt: DocFilter, depth: int,
                      min_similarity: float) -> list[Ranked]:
    """Documents by the cosine of their centroid (the mean of their chunk vectors: what the whole
    note is about), each with its nearest chunk to show. A third of the rows of a chunk-level scan
    at three chunks a note, and on the KEP links it ranks whole notes as well as the best chunk did."""
    order, doc_ids, bounds, centroids = _by_document(docs, matrix)
    scores = centroids @ query_vector
    take = min(len(scores), depth * 2 + 20)
    top = np.argpartition(-scores, take - 1)[:take] if take < len(scores) else np.arange(len(scores))
    top = top[np.argsort(-scores[top], kind="stable")]
    top = top[scores[top] >= min_similarity]  # nearest is not near: a query about nothing finds nothing
    allowed = None if flt == DocFilter() else store.docs_passing(sorted(int(doc_ids[i]) for i in top), flt)
    out = []
    for i in top:
        doc_id = int(doc_ids[i])
        if allowed is not None and doc_id not in allowed:
            continue
        rows = order[bounds[i]:bounds[i + 1]]
        nearest = rows[int(np.argmax(matrix[rows] @ query_vector))]
        out.append(Ranked(doc_id, int(ids[nearest]), float(scores[i])))
        if len(out) >= depth:
            break
    return out

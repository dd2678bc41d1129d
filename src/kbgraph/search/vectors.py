"""The vector signal: cosine similarity of the query's embedding to every document's centroid (exact, numpy).

The matrix is read from the index once per process and kept until the vectors change. A store with a
vector index (PostgreSQL with pgvector) is read per query instead: it returns only the rows the top-k
needs (store.nearest_vectors, found by its HNSW indexes), scored here as the whole matrix would be. When
the index has no vectors, or they were made by another model, or the model cannot be loaded, the
signal is absent and a note says why: search goes on with the other signals.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Callable

from ..access import Access
from ..store.base import DocFilter, Store
from .keyword import Ranked

if TYPE_CHECKING:  # numpy and the embedders load in the functions that score: a text-only search never needs them
    import numpy as np

    from ..embed.base import Embedder

_EMBEDDERS: dict[str, object] = {}


@dataclass(frozen=True)
class VectorSearch:
    """What the vector signal needs, read from the store up front, so that embedding the query and
    scoring every document (numpy, which releases the GIL) can run beside the keyword query."""

    embedder: Embedder
    ids: np.ndarray
    docs: np.ndarray
    matrix: np.ndarray
    missing: int  # chunks without a vector
    sections: int = 0  # chunks, with a vector or not (counted only when some lack one)
    background: bool = False  # a background embedding is at work (checked only when some lack one)
    # The store's vector index (ids, docs and matrix then empty): (query vector, sections, documents) ->
    # the rows of the matrix those need, read in the thread that scores them.
    nearest: Callable[[np.ndarray, int, int], tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None


def prepare_vectors(store: Store, embedder_name: str, access: Access,
                    flt: DocFilter) -> tuple[VectorSearch | None, str | None]:
    """The vector signal ready to run over the chunks the access may read and the filter passes
    (the store selects them, so the top-k is taken among them only), or (None, why it cannot)."""
    if embedder_name == "none":
        return None, "vectors off ([search] embedder = \"none\"): text and graph signals only"
    stored_model = store.embedding_model()
    if stored_model is None or not store.has_vectors(access):
        if embedding_in_background(store):
            return None, f"this index has no vectors yet: text and graph signals only; {_RUNNING}"
        return None, "this index has no vectors yet: text and graph signals only; run `kbg embed` to make them"
    embedder, problem = _embedder(embedder_name)
    if embedder is None:
        return None, f"vectors unavailable, text and graph signals only: {problem}"
    model = f"{embedder.name}@{embedder.version}"
    if model != stored_model:
        return None, f"the vectors were made by {stored_model}, not {model}: run `kbg index` to re-embed"
    import numpy as np

    missing = store.chunks_missing_vectors()
    sections = 0
    if missing:  # a count of every chunk only while some lack vectors; a reader's, of the chunks it may read
        with_vectors, sections = store.vector_counts(access)
        missing = missing if access.sees_everything else sections - with_vectors
    background = bool(missing) and embedding_in_background(store)
    if store.has_vector_index():
        none = np.zeros(0, dtype=np.int64)
        return VectorSearch(embedder, none, none, np.zeros((0, 0), dtype=np.float32), missing,
                            sections=sections, background=background,
                            nearest=partial(store.nearest_vectors, access, flt)), None
    ids, docs, matrix = store.vector_matrix(access, flt)
    return VectorSearch(embedder, ids, docs, matrix, missing, sections=sections, background=background), None


PARAGRAPH_WORDS = 32  # "auto": a query longer than this is a pasted paragraph, compared with whole notes


def nearest_documents(prepared: VectorSearch, query: str, wanted: int, min_similarity: float,
                      by: str = "auto") -> list[Ranked]:
    """Documents by how near the query's embedding they are, best first, each with its nearest
    chunk to show. No store access but a vector index's (thread-safe): safe in another thread. `by`:
    - "centroid": the cosine of the document's centroid (the mean of its chunk vectors: what the
      whole note is about); a third of a chunk-level scan's rows, and it ranked whole KEPs best;
    - "best-section": the cosine of its nearest chunk: a note that answers in one section of many
      (one turn of a conversation whose sessions all look alike) is not averaged away;
    - "both": the mean of the two;
    - "auto" (the default): centroid for a query of more than PARAGRAPH_WORDS words (a pasted
      paragraph is about a whole note: on the KEP links centroid finds more), both for a question
      (on conversations and the sample vault's questions both finds more; bench/RESULTS.md §16)."""
    import numpy as np

    from ..embed.centroids import group_by_document

    if by == "auto":
        by = "centroid" if len(query.split()) > PARAGRAPH_WORDS else "both"
    query_vector = _embed_query(prepared, query)
    ids, docs, matrix = _rows(prepared, query_vector, wanted, wanted)
    order, doc_ids, bounds, centroids = _by_document(docs, matrix) if prepared.nearest is None else \
        group_by_document(docs, matrix)
    if not len(doc_ids):
        return []
    chunk_scores = matrix @ query_vector
    best = np.maximum.reduceat(chunk_scores[order], bounds[:-1]) if by != "centroid" else None
    if by == "centroid":
        scores = centroids @ query_vector
    elif by == "best-section":
        scores = best
    else:
        scores = (centroids @ query_vector + best) / 2
    out = []
    for i in _top(scores, wanted, min_similarity):
        rows = order[bounds[i]:bounds[i + 1]]
        nearest = rows[int(np.argmax(chunk_scores[rows]))]
        out.append(Ranked(int(doc_ids[i]), int(ids[nearest]), float(scores[i])))
    return out


def nearest_sections(prepared: VectorSearch, query: str, wanted: int, min_similarity: float) -> list[Ranked]:
    """Sections (chunks) by the cosine of their own vector to the query's, best first, several per
    document allowed: the passage unit's vector signal. Safe in another thread (as nearest_documents)."""
    query_vector = _embed_query(prepared, query)
    ids, docs, matrix = _rows(prepared, query_vector, wanted, 0)
    if not len(ids):
        return []
    scores = matrix @ query_vector
    return [Ranked(int(docs[i]), int(ids[i]), float(scores[i])) for i in _top(scores, wanted, min_similarity)]


def _rows(prepared: VectorSearch, query_vector: np.ndarray, sections: int,
          documents: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows to score: the whole matrix, or those a vector index finds for this query."""
    if prepared.nearest is None:
        return prepared.ids, prepared.docs, prepared.matrix
    return prepared.nearest(query_vector, sections, documents)


def _embed_query(prepared: VectorSearch, query: str) -> np.ndarray:
    import numpy as np

    return np.asarray(prepared.embedder.embed([query])[0], dtype=np.float32)


def _top(scores: np.ndarray, wanted: int, min_similarity: float) -> np.ndarray:
    """Indices of the `wanted` best scores, best first (ties by index), none below min_similarity:
    nearest is not near, a query about nothing finds nothing."""
    import numpy as np

    take = min(len(scores), wanted)
    if take <= 0:
        return np.zeros(0, dtype=np.int64)
    top = np.argpartition(-scores, take - 1)[:take] if take < len(scores) else np.arange(len(scores))
    top = top[np.lexsort((top, -scores[top]))]
    return top[scores[top] >= min_similarity]


def candidates_for(depth: int) -> int:
    """How many nearest documents to take for `depth` results (the rows scored are already filtered)."""
    return depth * 2 + 20


def missing_note(prepared: VectorSearch) -> str | None:
    """What search says while sections lack vectors (embedding running, interrupted or left for later)."""
    if not prepared.missing:
        return None
    then = _RUNNING if prepared.background else "run `kbg embed`"
    return (f"{prepared.missing:,} of {max(prepared.sections, prepared.missing):,} sections have no vectors yet: "
            f"hybrid search uses text for them; {then}")


_RUNNING = "an embedding is running in the background (`kbg embed --status`)"


def embedding_in_background(store: Store) -> bool:
    """Whether a background embedding is at work on this index (the lock its process holds, named in
    the index while it runs: a killed one leaves the name, but the kernel has freed its lock)."""
    lock = store.get_meta("embed_background")
    if not lock:
        return False
    from ..embed.background import lock_is_held

    return lock_is_held(lock)


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
    from ..embed.centroids import group_by_document

    held = _GROUPED[0] if _GROUPED else None  # read once: another thread may replace it meanwhile
    if held is not None and held[0] is matrix:
        return held[1]
    grouped = group_by_document(docs, matrix)
    _GROUPED[:] = [(matrix, grouped)]
    return grouped

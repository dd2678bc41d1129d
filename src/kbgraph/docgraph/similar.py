"""References by meaning: documents whose embeddings nearly agree.

Two documents whose embeddings are very close probably talk about the same thing even when neither
links to or names the other. That is a weaker signal than a link, so such references are kept only
above a high threshold and always score below 1.0. The similar stage (similar_stage.py) passes
document centroids; on the 654 KEPs, 16 pairs reach 0.92 (144 reach 0.85, the template's pull).
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from .edges import EMBEDDING_SCORE_CAP, Edge

SIMILAR_THRESHOLD = 0.92
EVIDENCE = "similar meaning"  # how these rows are told from references by link or name
BLOCK_ROWS = 512  # source vectors compared at once: memory stays BLOCK_ROWS x candidates


def similar_references(vectors: Mapping[int, Sequence[float]], candidates: Mapping[int, Sequence[float]] | None = None,
                       threshold: float = SIMILAR_THRESHOLD) -> list[Edge]:
    """references doc -> other for every candidate whose cosine similarity with doc's vector is at least
    threshold (candidates: every vector given when None). Score: the similarity, capped below 1."""
    candidates = vectors if candidates is None else candidates
    if not vectors or not candidates:
        return []
    q_ids, q = _unit_rows(vectors)
    c_ids, c = _unit_rows(candidates)
    out = []
    for start in range(0, len(q_ids), BLOCK_ROWS):
        similarity = q[start:start + BLOCK_ROWS] @ c.T
        for row, col in zip(*np.nonzero(similarity >= threshold)):
            source, target = int(q_ids[start + row]), int(c_ids[col])
            if source != target:
                value = float(similarity[row, col])
                out.append(Edge(source, target, "references", round(min(value, EMBEDDING_SCORE_CAP), 4),
                                f"{EVIDENCE} (cosine {value:.3f})"))
    return sorted(out, key=lambda e: (-e.score, e.source, e.target))


def _unit_rows(vectors: Mapping[int, Sequence[float]]) -> tuple[np.ndarray, np.ndarray]:
    ids = np.fromiter(vectors.keys(), dtype=np.int64, count=len(vectors))
    matrix = np.asarray([np.asarray(v, dtype=np.float32) for v in vectors.values()], dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return ids, matrix / np.where(norms == 0, 1, norms)

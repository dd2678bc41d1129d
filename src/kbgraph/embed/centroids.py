"""A document's centroid: the normalised mean of its chunks' vectors, what the whole note is about.
Search ranks documents by it; the similar stage relates documents whose centroids nearly agree."""

from __future__ import annotations

import numpy as np


def group_by_document(docs: np.ndarray, matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                      np.ndarray]:
    """(row order grouped by document, sorted document ids, each group's bounds in that order,
    unit centroids in document id order) for a matrix of chunk vectors and their document ids."""
    order = np.argsort(docs, kind="stable")
    doc_ids, starts = np.unique(docs[order], return_index=True)
    sums = np.add.reduceat(matrix[order], starts, axis=0) if len(order) else matrix[:0]
    norms = np.linalg.norm(sums, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return order, doc_ids, np.append(starts, len(order)), (sums / norms).astype(np.float32)

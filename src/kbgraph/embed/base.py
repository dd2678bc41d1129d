"""What every embedder is: a name, a version, a dimension and one `embed` method.

Vectors stored in an index carry the embedder's name and version, so a change of
either (other weights, other pooling, other truncation) is a reason to re-embed.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors; equal inputs give equal outputs."""

    name: str
    version: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """A (len(texts), dim) float32 array whose rows have L2 norm 1."""
        ...


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm, in place; an all-zero row stays zero rather than becoming NaN."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    np.maximum(norms, 1e-12, out=norms)  # the floor sentence-transformers' Normalize uses
    matrix /= norms
    return matrix


def empty_result(dim: int) -> np.ndarray:
    return np.zeros((0, dim), dtype=np.float32)

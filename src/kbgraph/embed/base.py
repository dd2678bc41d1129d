"""What every embedder is: a name, a version, a dimension and one `embed` method.

Vectors stored in an index carry the embedder's name and version, so a change of
either (other weights, other pooling, other truncation) is a reason to re-embed.
"""

from __future__ import annotations

from typing import Callable, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors; equal inputs give equal outputs.

    The model embedders give a blank (empty or whitespace-only) text an all-zero row: it has no
    meaning to place, and the vector a model makes of "[CLS] [SEP]" alone is the same for every
    blank text and says nothing about any of them. A zero row scores exactly 0 against every query.
    """

    name: str
    version: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """A (len(texts), dim) float32 array whose rows have L2 norm 1 (0 for a blank text)."""
        ...


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm, in place; an all-zero row stays zero rather than becoming NaN."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    np.maximum(norms, 1e-12, out=norms)  # the floor sentence-transformers' Normalize uses
    matrix /= norms
    return matrix


def empty_result(dim: int) -> np.ndarray:
    return np.zeros((0, dim), dtype=np.float32)


def embed_nonblank(texts: list[str], dim: int, embed: Callable[[list[str]], np.ndarray]) -> np.ndarray:
    """`embed` run on the texts that have any non-space character; blank texts get zero rows."""
    keep = [i for i, text in enumerate(texts) if text and not text.isspace()]
    if len(keep) == len(texts):
        return embed(texts)
    out = np.zeros((len(texts), dim), dtype=np.float32)
    if keep:
        out[keep] = embed([texts[i] for i in keep])
    return out

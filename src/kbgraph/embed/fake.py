"""A deterministic stand-in for a real model, for fast tests of code that ranks by vectors.

Each text becomes a bag of hashed features (lower-cased words, word pairs, and the
character trigrams of each word) folded into `dim` buckets with a hash-chosen sign,
then normalised. Texts that share words or word stems therefore point the same way,
which is all ranking tests need; meaning is not modelled at all. Hashes come from
blake2b, not `hash()`, so vectors are the same in every process and on every machine.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache

import numpy as np

from .base import empty_result, normalise_rows

_WORD = re.compile(r"\w+")
_EMPTY_FEATURE = "\x00empty"  # so that a text with no words still gets a unit vector

# Whole words count most; trigrams let "index" and "indexing" overlap a little.
_WORD_WEIGHT, _PAIR_WEIGHT, _TRIGRAM_WEIGHT = 1.0, 0.5, 0.25


class FakeEmbedder:
    name = "fake"
    version = "1"

    def __init__(self, dim: int = 384):
        if dim < 8:
            raise ValueError("a fake embedder needs at least 8 dimensions")
        self.dim = dim

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return empty_result(self.dim)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, weight in _features(text):
                bucket, sign = _bucket(feature, self.dim)
                out[row, bucket] += sign * weight
        return normalise_rows(out)


def _features(text: str) -> list[tuple[str, float]]:
    words = _WORD.findall(text.lower())
    if not words:
        return [(_EMPTY_FEATURE, 1.0)]
    features = [("w:" + w, _WORD_WEIGHT) for w in words]
    features += [(f"p:{a} {b}", _PAIR_WEIGHT) for a, b in zip(words, words[1:])]
    for word in words:
        padded = f"<{word}>"
        features += [("c:" + padded[i:i + 3], _TRIGRAM_WEIGHT) for i in range(len(padded) - 2)]
    return features


@lru_cache(maxsize=65536)
def _bucket(feature: str, dim: int) -> tuple[int, float]:
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    return value % dim, (1.0 if (value >> 63) else -1.0)

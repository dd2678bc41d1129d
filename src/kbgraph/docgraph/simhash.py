"""SimHash: a 64-bit fingerprint of a text whose Hamming distance tracks how much two texts differ.

Features are word 3-shingles (docgraph.words); bit b of the fingerprint is 1 when more than half
of the shingles have bit b set. Every hash is fixed arithmetic modulo 2**64 (the MurmurHash3
finaliser and odd multipliers derived from BLAKE2b of a label), never Python's salted hash(), so a
fingerprint is the same in every process and on every machine.

Near-duplicates are found without comparing every pair: the 64 bits are cut into 8 bands of 8;
two fingerprints within 7 bits of each other share at least one band's value (pigeonhole), so
comparing only fingerprints that share a band value finds every pair within MAX_DISTANCE.
"""

from __future__ import annotations

import hashlib

import numpy as np

from .words import Words, distinct, fmix, read_words

MASK = (1 << 64) - 1
BANDS = 8
BAND_BITS = 64 // BANDS


def _constant(label: str) -> int:
    """A fixed odd 64-bit constant derived from label."""
    return int.from_bytes(hashlib.blake2b(label.encode(), digest_size=8).digest(), "little") | 1


_K1 = np.uint64(_constant("kbgraph simhash shingle 1"))
_K2 = np.uint64(_constant("kbgraph simhash shingle 2"))
_BIT_TABLE = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(np.int64)  # byte value -> its 8 bits


def shingles(words: Words) -> tuple[np.ndarray, np.ndarray]:
    """(hash, owning text) of each run of 3 consecutive words within one text."""
    h, owner = words.hashes, words.owner
    keep = owner[:-2] == owner[2:]
    with np.errstate(over="ignore"):
        return fmix(h[:-2] * _K1 + h[1:-1] * _K2 + h[2:])[keep], owner[:-2][keep]


def simhashes(words: Words, texts: int) -> list[int]:
    """The SimHash of each of the texts words were read from (0 for a text of fewer than 3 words)."""
    features, owner = shingles(words)
    totals = np.bincount(owner, minlength=texts)
    columns = features.astype("<u8", copy=False).view(np.uint8).reshape(-1, 8)
    base = owner * 256
    counts = np.concatenate(  # (texts, 64): how many shingles have each bit set
        [np.bincount(base + columns[:, j], minlength=texts * 256).reshape(-1, 256) @ _BIT_TABLE for j in range(8)],
        axis=1)
    bits = np.packbits(counts * 2 > totals[:, None], axis=1, bitorder="little")
    return [int.from_bytes(row.tobytes(), "little") for row in bits]


def simhash(text: str) -> int:
    """The 64-bit SimHash of one text."""
    return simhashes(read_words([text.encode()]), 1)[0]


def shingle_set(text: bytes) -> np.ndarray:
    """The distinct shingle hashes of text (UTF-8; sorted uint64), for an exact Jaccard check of a pair."""
    return distinct(shingles(read_words([text]))[0])


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """|a ∩ b| / |a ∪ b| of two shingle sets (0.0 when both are empty)."""
    shared = np.intersect1d(a, b, assume_unique=True).size
    union = a.size + b.size - shared
    return shared / union if union else 0.0


def similarity(a: int, b: int) -> float:
    """1 - (differing bits) / 64: 1.0 for equal fingerprints, about 0.5 for unrelated texts."""
    return 1.0 - ((a ^ b) & MASK).bit_count() / 64


def to_signed(fingerprint: int) -> int:
    """As SQLite stores it (a signed 64-bit INTEGER)."""
    return fingerprint - (1 << 64) if fingerprint >= 1 << 63 else fingerprint


def near_pairs(query: dict[int, int], fingerprints: dict[int, int], max_distance: int) -> list[tuple[int, int, int]]:
    """(query id, other id, differing bits) for every other fingerprint within max_distance (< BANDS) of a
    query one. Only fingerprints that share a band value are compared: no pass over every pair."""
    if max_distance >= BANDS:
        raise ValueError(f"max_distance must be below {BANDS} for banding to find every pair")
    if not query or not fingerprints:
        return []
    q_ids, q_fps = _arrays(query)
    a_ids, a_fps = _arrays(fingerprints)
    found = set()
    for band in range(BANDS):
        shift, mask = np.uint64(band * BAND_BITS), np.uint64((1 << BAND_BITS) - 1)
        a_keys = (a_fps >> shift) & mask
        order = np.argsort(a_keys, kind="stable")
        sorted_keys = a_keys[order]
        q_keys = (q_fps >> shift) & mask
        lo = np.searchsorted(sorted_keys, q_keys, side="left")
        counts = np.searchsorted(sorted_keys, q_keys, side="right") - lo
        total = int(counts.sum())
        if not total:
            continue
        q_index = np.repeat(np.arange(q_ids.size), counts)
        a_index = order[np.repeat(lo - (np.cumsum(counts) - counts), counts) + np.arange(total)]
        distance = np.bitwise_count(q_fps[q_index] ^ a_fps[a_index])
        close = (distance <= max_distance) & (q_ids[q_index] != a_ids[a_index])
        found.update(zip(q_ids[q_index][close].tolist(), a_ids[a_index][close].tolist(), distance[close].tolist()))
    return sorted(found)


def _arrays(fingerprints: dict[int, int]) -> tuple[np.ndarray, np.ndarray]:
    ids = np.fromiter(fingerprints.keys(), dtype=np.int64, count=len(fingerprints))
    fps = np.fromiter((f & MASK for f in fingerprints.values()), dtype=np.uint64, count=len(fingerprints))
    return ids, fps

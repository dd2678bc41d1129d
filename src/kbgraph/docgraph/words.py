"""Words of many texts at once, vectorised: the input of SimHash and of finding names in text.

A word is a run of ASCII letters and digits (compared lower-case) or of other characters that are
not spaces or punctuation; U+0080-U+00BF (no-break space, «, », ·, ...) and U+2000-U+207F (dashes,
curly quotes, ellipsis, bullets, ...) separate words like ASCII punctuation does. Words are read
from the UTF-8 bytes of all the texts together, so the cost is a few numpy passes over the bytes
rather than Python work per word: indexing a vault of 20 MB must not pay a loop per word.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FMIX1, FMIX2 = 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53
_WORD_TABLE = bytes(int(48 <= b <= 57 or 97 <= b <= 122 or b >= 128) for b in range(256))  # after lower-casing


def fmix(x: np.ndarray) -> np.ndarray:
    """MurmurHash3's 64-bit finaliser: every input bit reaches every output bit (uint64 arrays)."""
    with np.errstate(over="ignore"):
        x = x ^ (x >> np.uint64(33))
        x = x * np.uint64(FMIX1)
        x = x ^ (x >> np.uint64(33))
        x = x * np.uint64(FMIX2)
        return x ^ (x >> np.uint64(33))


def distinct(values: np.ndarray) -> np.ndarray:
    """The sorted distinct values of a 1-D array: np.unique's answer without its masked-array check, which
    imports numpy.ma (~6-14 ms of a one-page write's start-up, numpy 2.x)."""
    ordered = np.sort(values, kind="stable")
    if ordered.size < 2:
        return ordered
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]


@dataclass(frozen=True)
class Words:
    """The words of texts[0..n): byte spans in data, owning text, and a 64-bit hash each."""

    data: bytes  # the texts' UTF-8, ASCII lower-cased, joined by b"\n", then 8 zero bytes
    offsets: np.ndarray  # where each text starts in data (n + 1 entries: the last is the end)
    starts: np.ndarray
    ends: np.ndarray
    owner: np.ndarray  # the text each word belongs to
    hashes: np.ndarray  # uint64: from the word's length and first 8 bytes (equal words, equal hashes)

    def token(self, index: int) -> bytes:
        return self.data[self.starts[index]:self.ends[index]]

    def count(self, texts: int) -> np.ndarray:
        return np.bincount(self.owner, minlength=texts)


def read_words(texts: list[bytes]) -> Words:
    """The words of texts (UTF-8)."""
    encoded = [t.lower() for t in texts]
    offsets = np.cumsum([0] + [len(e) + 1 for e in encoded])
    data = b"\n".join(encoded) + bytes(9)
    raw = np.frombuffer(data, dtype=np.uint8)
    word = np.frombuffer(data.translate(_WORD_TABLE), dtype=np.bool_).copy()
    _separate_unicode_punctuation(data, raw, word)
    edges = np.flatnonzero(word[1:] != word[:-1])  # alternately before a start and before an end
    if word[0]:
        edges = np.concatenate([[-1], edges])
    starts, ends = edges[0::2] + 1, edges[1::2] + 1  # the zero padding ends every word
    lengths = (ends - starts).astype(np.uint64)
    at = np.ndarray(shape=(len(data) - 7,), dtype="<u8", buffer=data, strides=(1,))  # 8 bytes from each offset
    head = at[starts] & (np.uint64(0xFFFFFFFFFFFFFFFF) >> (np.uint64(64) - np.uint64(8) * np.minimum(lengths, 8)))
    with np.errstate(over="ignore"):
        hashes = fmix(head ^ (lengths * np.uint64(FMIX2)))
    owner = np.repeat(np.arange(len(texts)), np.diff(np.searchsorted(starts, offsets)))
    return Words(data, offsets, starts, ends, owner, hashes)


def _separate_unicode_punctuation(data: bytes, raw: np.ndarray, word: np.ndarray) -> None:
    """Mark U+0080-U+00BF (bytes C2 80-BF) and U+2000-U+207F (E2 80-81 xx) as separators."""
    if b"\xc2" in data:
        lead = np.flatnonzero(raw == 0xC2)
        word[lead] = word[lead + 1] = False
    if b"\xe2\x80" in data or b"\xe2\x81" in data:
        lead = np.flatnonzero(raw == 0xE2)
        lead = lead[(raw[lead + 1] & 0xFE) == 0x80]
        word[lead] = word[lead + 1] = word[lead + 2] = False

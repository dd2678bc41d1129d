"""pg_trgm's trigram similarity, for SQLite: the same words, trigrams and score as PostgreSQL's
`similarity()`, so that a fuzzy name lookup finds the same candidates on both backends.

pg_trgm (PostgreSQL 15, trgm_op.c): a word is a run of letters and digits (anything else separates
words, `_` too), lower-cased and padded with two spaces before and one after; its trigrams are every
three consecutive characters of that; the similarity of two texts is shared / (all of both - shared)
over their sets of trigrams, 0 when either has none."""

from __future__ import annotations

import re
from functools import lru_cache

_WORD = re.compile(r"[^\W_]+")  # letters and digits of any script, as iswalnum under a UTF-8 locale


@lru_cache(maxsize=65536)
def trigrams(text: str) -> frozenset[str]:
    found: set[str] = set()
    for word in _WORD.findall(text.lower()):
        padded = f"  {word} "
        found.update(padded[i:i + 3] for i in range(len(padded) - 2))
    return frozenset(found)


def similarity(a: str | None, b: str | None) -> float:
    """pg_trgm's similarity(a, b), in [0, 1]."""
    if a is None or b is None:
        return 0.0
    ta, tb = trigrams(a), trigrams(b)
    if not ta or not tb:
        return 0.0
    shared = len(ta & tb)
    return shared / (len(ta) + len(tb) - shared)

"""A user's query as a TextQuery: words, phrases, prefixes and exclusions, safe for any text a user types.

User text never becomes query syntax: it is cut into words of letters and digits here, and the
store compiles the value to its backend's syntax (store/sqlite/fts5.py), so quotes, AND/OR/NEAR,
`*`, `-`, `:` and unbalanced parentheses are plain input. Supported on purpose: "exact phrases",
prefix* terms and -exclusions.
"""

from __future__ import annotations

import re

from ..model import Term, TextQuery

MAX_TERMS = 64
MAX_QUERY_CHARS = 10_000
_PIECE = re.compile(r'"([^"]*)"|([^\s"()]+)', re.UNICODE)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CONNECTORS = {"AND", "OR", "NOT", "NEAR"}


def parse_query(text: str) -> TextQuery:
    """User text -> a TextQuery requiring every term. Never raises for odd input; may have no terms.

    A piece is a whitespace-separated word: `-word` excludes (only at the start of a piece, so
    `kube-proxy` is the phrase "kube proxy"), `word*` is a prefix, and upper-case AND/OR/NOT/NEAR
    are connectors unless the query has nothing else. Only the first MAX_QUERY_CHARS characters
    are read, and at most MAX_TERMS terms and MAX_TERMS exclusions kept, each once.
    """
    pieces = [(m.group(1), m.group(2)) for m in _PIECE.finditer(text[:MAX_QUERY_CHARS])]
    only_connectors = all(word in _CONNECTORS for phrase, word in pieces if phrase is None)
    terms: dict[tuple[tuple[str, ...], bool], None] = {}  # (words, prefix), in order of first use
    exclusions: dict[tuple[tuple[str, ...], bool], None] = {}
    for phrase, word in pieces:
        if phrase is not None:
            words = tuple(_WORD.findall(phrase))
            if words:
                terms[(words, False)] = None
            continue
        if word in _CONNECTORS and not only_connectors:
            continue
        words = tuple(_WORD.findall(word))
        if words:
            target = exclusions if word.startswith("-") and len(word) > 1 else terms
            target[(words, word.endswith("*") and len(words) == 1)] = None
    return TextQuery(_terms(terms), _terms(exclusions))


def _terms(found: dict[tuple[tuple[str, ...], bool], None]) -> tuple[Term, ...]:
    return tuple(Term(words, prefix) for words, prefix in list(found)[:MAX_TERMS])

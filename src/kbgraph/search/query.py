"""A user's query as FTS5 terms, safe for any text a user types.

User text never reaches FTS5 syntax directly: it is tokenised here and every
term is quoted, so quotes, AND/OR/NEAR, `*`, `-` and unbalanced parentheses are
plain input. Supported on purpose: "exact phrases", prefix* terms and -exclusions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


MAX_TERMS = 64
MAX_QUERY_CHARS = 10_000
_PIECE = re.compile(r'"([^"]*)"|([^\s"()]+)', re.UNICODE)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CONNECTORS = {"AND", "OR", "NOT", "NEAR"}
_HIGHLIGHT = re.compile("\x02(.*?)\x03", re.DOTALL)


@dataclass(frozen=True)
class ParsedQuery:
    positives: tuple[str, ...]  # FTS5-quoted terms and phrases
    negatives: tuple[str, ...]

    def all_terms(self) -> str:
        return self._with_negatives(" AND ".join(self.positives))

    def any_term(self) -> str:
        return self._with_negatives(" OR ".join(self.positives))

    def _with_negatives(self, positive: str) -> str:
        if not self.negatives:
            return positive
        return f"({positive}) NOT ({' OR '.join(self.negatives)})"


def parse_query(text: str) -> ParsedQuery:
    """User text -> quoted FTS5 terms. Never raises for odd input; may return no terms.

    A piece is a whitespace-separated word: `-word` excludes (only at the start of a
    piece, so `kube-proxy` is the phrase "kube proxy"), `word*` is a prefix, and
    upper-case AND/OR/NOT/NEAR are connectors unless the query has nothing else.
    """
    pieces = [(m.group(1), m.group(2)) for m in _PIECE.finditer(text[:MAX_QUERY_CHARS])]
    only_connectors = all(word in _CONNECTORS for phrase, word in pieces if phrase is None)
    positives: list[str] = []
    negatives: list[str] = []
    for phrase, word in pieces:
        if phrase is not None:
            term = _quoted(_WORD.findall(phrase))
            if term and term not in positives:
                positives.append(term)
            continue
        if word in _CONNECTORS and not only_connectors:
            continue
        negative = word.startswith("-") and len(word) > 1
        words = _WORD.findall(word)
        term = _quoted(words)
        if not term:
            continue
        if word.endswith("*") and len(words) == 1:
            term += "*"
        target = negatives if negative else positives
        if term not in target:
            target.append(term)
    return ParsedQuery(tuple(positives[:MAX_TERMS]), tuple(negatives[:MAX_TERMS]))


def _quoted(words: list[str]) -> str:
    return '"' + " ".join(words) + '"' if words else ""


def markdown_highlight(snippet: str) -> str:
    text = _HIGHLIGHT.sub(lambda m: f"**{m.group(1)}**", snippet)
    return " ".join(text.split())

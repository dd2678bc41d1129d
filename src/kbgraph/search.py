"""Keyword search over chunks (FTS5 BM25), safe for any text a user types.

User text never reaches FTS5 syntax directly: it is tokenised here and every
term is quoted, so quotes, AND/OR/NEAR, `*`, `-` and unbalanced parentheses are
plain input. Supported on purpose: "exact phrases", prefix* terms and -exclusions.
Ranking: documents containing all terms first (BM25), then, to fill the limit,
documents containing any term. One hit per document: its best chunk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import InvalidInput
from .model import SearchHit, SearchResult
from .store.base import DocFilter

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


def search(store, query: str, flt: DocFilter | None = None, limit: int = 10) -> SearchResult:
    """The best-matching documents for query, one hit (its best chunk) per document."""
    if not query or not query.strip():
        raise InvalidInput("empty query: give one or more words to search for")
    if limit < 1:
        raise InvalidInput(f"--limit must be at least 1, got {limit}")
    flt = flt or DocFilter()
    parsed = parse_query(query)
    if not parsed.positives:
        return SearchResult(query, "", "empty", ())
    best: dict[int, dict] = {}  # document id -> its best chunk row
    mode = "all-terms"
    _collect(store, parsed.all_terms(), flt, limit, best)
    if len(best) < limit and len(parsed.positives) > 1:
        before = len(best)
        _collect(store, parsed.any_term(), flt, limit, best)
        if len(best) > before:
            mode = "any-term" if before == 0 else "all-terms+any-term"
    # Snippets only for what is returned; the any-term query highlights every word that is there.
    highlight = parsed.any_term()
    hits = tuple(
        SearchHit(
            doc_id=row["id"], path=row["path"], title=row["title"], kind=row["kind"], date=row["date"],
            chunk_id=row["chunk_id"], heading=row["heading"], line=row["line"],
            snippet=_markdown_highlight(store.snippet(highlight, row["chunk_id"])), score=round(row["score"], 4),
        )
        for row in list(best.values())[:limit]
    )
    return SearchResult(query, parsed.all_terms(), mode, hits)


def _collect(store, fts_query: str, flt: DocFilter, limit: int, best: dict[int, dict]) -> None:
    # Over-fetch chunks so that several chunks of one document still leave `limit` documents.
    for row in store.search_chunks(fts_query, flt, limit * 4 + 8):
        if len(best) >= limit:
            return
        best.setdefault(row["id"], row)


def _markdown_highlight(snippet: str) -> str:
    text = _HIGHLIGHT.sub(lambda m: f"**{m.group(1)}**", snippet)
    return " ".join(text.split())

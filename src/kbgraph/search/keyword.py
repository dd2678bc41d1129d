"""The keyword signal: BM25 over chunks (FTS5), documents with every term first, then any term."""

from __future__ import annotations

from dataclasses import dataclass

from ..store.base import DocFilter
from .query import ParsedQuery


@dataclass(frozen=True)
class Ranked:
    """One document in a signal's ranking: its best chunk there, and that signal's own score.
    Document details are read only for the hits finally shown."""

    doc_id: int
    chunk_id: int
    score: float


def bm25_ranking(store, parsed: ParsedQuery, flt: DocFilter, depth: int) -> tuple[list[Ranked], str]:
    """Up to `depth` documents by BM25 of their best chunk, and how they matched: "all-terms",
    "any-term" (no document has them all) or "all-terms+any-term" (filled up with partial matches)."""
    best: dict[int, Ranked] = {}
    _collect(store, parsed.all_terms(), flt, depth, best)
    mode = "all-terms"
    if len(best) < depth and len(parsed.positives) > 1:
        before = len(best)
        _collect(store, parsed.any_term(), flt, depth, best)
        if len(best) > before:
            mode = "any-term" if before == 0 else "all-terms+any-term"
    return list(best.values()), mode


def _collect(store, fts_query: str, flt: DocFilter, depth: int, best: dict[int, Ranked]) -> None:
    # Over-fetch chunks so that several chunks of one document still leave `depth` documents.
    for chunk_id, doc_id, score in store.ranked_chunks(fts_query, flt, depth * 4 + 8):
        if len(best) >= depth:
            return
        if doc_id not in best:
            best[doc_id] = Ranked(doc_id, chunk_id, score)

"""The keyword signal: BM25 over whole documents, documents with every term first, then any term.

Whole documents, not sections: a question's words are often spread over a note's sections, and a
pasted paragraph can match a document but no single section of it. On the KEP link benchmark
document-level BM25 found 0.55 of the links in the top 10 where the best section found 0.34
(bench/RESULTS.md). The section shown for a hit is picked afterwards, for the shown hits only.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..access import Access
from ..model import TextQuery
from ..store.base import DocFilter, Store


@dataclass(frozen=True)
class Ranked:
    """One document in a signal's ranking: its best chunk there (None: not placed yet, the keyword
    signal places only the hits shown), and that signal's own score."""

    doc_id: int
    chunk_id: int | None
    score: float


def bm25_ranking(store: Store, access: Access, parsed: TextQuery, flt: DocFilter,
                 depth: int) -> tuple[list[Ranked], str]:
    """Up to `depth` documents by BM25, and how they matched: "all-terms", "any-term" (no document
    has them all) or "all-terms+any-term" (filled up with partial matches)."""
    best: dict[int, Ranked] = {}
    _collect(store, access, parsed.requiring("all"), flt, depth, best)
    mode = "all-terms"
    if len(best) < depth and len(parsed.terms) > 1:
        before = len(best)
        _collect(store, access, parsed.requiring("any"), flt, depth, best)
        if len(best) > before:
            mode = "any-term" if before == 0 else "all-terms+any-term"
    return list(best.values()), mode


def _collect(store: Store, access: Access, query: TextQuery, flt: DocFilter, depth: int,
             best: dict[int, Ranked]) -> None:
    for doc_id, score in store.ranked_docs(access, query, flt, depth):
        if len(best) >= depth:
            return
        if doc_id not in best:
            best[doc_id] = Ranked(doc_id, None, score)


def section_bm25_ranking(store: Store, access: Access, parsed: TextQuery, flt: DocFilter,
                         depth: int) -> tuple[list[Ranked], str]:
    """Up to `depth` sections (the passage unit) by their own BM25, several per document allowed;
    sections with every term first, then any term, as for documents."""
    best: dict[int, Ranked] = {}
    for chunk_id, doc_id, score in store.ranked_chunks(access, parsed.requiring("all"), flt, depth):
        best.setdefault(chunk_id, Ranked(doc_id, chunk_id, score))
    mode = "all-terms"
    if len(best) < depth and len(parsed.terms) > 1:
        before = len(best)
        for chunk_id, doc_id, score in store.ranked_chunks(access, parsed.requiring("any"), flt, depth):
            if len(best) >= depth:
                break
            best.setdefault(chunk_id, Ranked(doc_id, chunk_id, score))
        if len(best) > before:
            mode = "any-term" if before == 0 else "all-terms+any-term"
    return list(best.values()), mode

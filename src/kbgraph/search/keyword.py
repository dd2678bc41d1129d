"""The keyword signal: BM25 over whole documents, documents with every term first, then any term.

Whole documents, not sections: a question's words are often spread over a note's sections, and a
pasted paragraph can match a document but no single section of it. On the KEP link benchmark
document-level BM25 found 0.55 of the links in the top 10 where the best section found 0.34
(bench/RESULTS.md). The section shown for a hit is picked afterwards, for the shown hits only.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..access import Access
from ..model import Term, TextQuery
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


# Words a question is made of, not what it is about: "what did Caroline say about the race" is about
# Caroline and the race. Chat turns are full of them ("What did you do?"), so as BM25 terms they rank
# small talk over the answer (issue 30: dropping them was +3.7 recall@10 on LoCoMo's dev questions).
QUESTION_WORDS = frozenset("""
a an the and or but if of to in on at by for with from as into onto over about after before during since until
up down out off again then once so than too very just also only even still yet ever
is are was were be been being am do does did doing done have has had having get got gets
i me my mine myself you your yours yourself he him his himself she her hers herself it its itself we us our ours
they them their theirs themselves one ones
what which who whom whose when where why how that this these those there here
not no nor any all both each few more most other some such own same
can could will would shall should may might must s t d ll m re ve
""".split())
_CLITICS = frozenset({"s", "t", "d", "ll", "m", "re", "ve"})


def section_terms(parsed: TextQuery, exact: bool) -> TextQuery:
    """The terms BM25 scores a section by: the query's, less its question words (kept when nothing else is
    left), and a word joined to a clitic ("Caroline's": the phrase "caroline s") as the word alone, so a
    possessive matches the name wherever it stands. A query asking for exact matching (a "phrase" or an
    -exclusion) keeps its terms as typed."""
    if exact:
        return parsed
    terms: list[Term] = []
    for term in parsed.terms:
        words = term.words
        if len(words) > 1 and not term.prefix and words[-1].lower() in _CLITICS:
            terms += [Term((w,)) for w in words if w.lower() not in _CLITICS]
        else:
            terms.append(term)
    content = [t for t in terms if t.prefix or len(t.words) > 1 or t.words[0].lower() not in QUESTION_WORDS]
    kept = content or terms or list(parsed.terms)
    return replace(parsed, terms=tuple(dict.fromkeys(kept)))


def section_bm25_ranking(store: Store, access: Access, parsed: TextQuery, flt: DocFilter,
                         depth: int, exact: bool = False) -> tuple[list[Ranked], str]:
    """Up to `depth` sections (the passage unit) by their own BM25, several per document allowed.

    A question's sections are ranked by BM25 alone, every term optional: no term is required, so a section
    holding the rare words of a question is not put below one that also holds its common words (on LoCoMo,
    requiring every term first ranked as requiring none: a section rarely holds a whole question). The
    mode says how the best sections matched: "all-terms" (some section has every term), "any-term" (none
    has) or "all-terms+any-term". With `exact` (a "phrase" or -exclusion), sections with every term first,
    then any term, as for documents."""
    query = section_terms(parsed, exact)
    if exact:
        best: dict[int, Ranked] = {}
        for chunk_id, doc_id, score in store.ranked_chunks(access, query.requiring("all"), flt, depth):
            best.setdefault(chunk_id, Ranked(doc_id, chunk_id, score))
        mode = "all-terms"
        if len(best) < depth and len(query.terms) > 1:
            before = len(best)
            for chunk_id, doc_id, score in store.ranked_chunks(access, query.requiring("any"), flt, depth):
                if len(best) >= depth:
                    break
                best.setdefault(chunk_id, Ranked(doc_id, chunk_id, score))
            if len(best) > before:
                mode = "any-term" if before == 0 else "all-terms+any-term"
        return list(best.values()), mode
    ranked = [Ranked(doc_id, chunk_id, score)
              for chunk_id, doc_id, score in store.ranked_chunks(access, query.requiring("any"), flt, depth)]
    if len(query.terms) == 1:
        return ranked, "all-terms"
    every = {chunk_id for chunk_id, _, _ in store.ranked_chunks(access, query.requiring("all"), flt, depth)}
    shown = {r.chunk_id for r in ranked}
    mode = "any-term" if not every else "all-terms" if shown <= every else "all-terms+any-term"
    return ranked, mode

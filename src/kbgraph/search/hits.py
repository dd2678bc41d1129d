"""The hits shown: near-duplicates folded, each hit placed on a section, its details and snippet read.

Ranked items are keyed by document id (the document unit) or by chunk id (the passage unit); the
functions here read the store for the shown items only.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..access import Access
from ..model import HitExplain, SearchHit, TextQuery
from ..store.base import DocFilter, Store
from .fusion import FORMULA, PASSAGE_FORMULA, explain_signals, fusion_k
from .graph import GraphHit, describe
from .keyword import Ranked
from .snippets import opening, tidy

FTS_PLACING_TERMS = 8  # up to this many terms, FTS5 says which sections match
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True)
class Scored:
    """One ranked item's score: final, fused (before boosts), each signal's part, the boosts."""

    score: float
    fused: float
    signals: tuple
    boosts: tuple


def collapse_duplicates(store: Store, order: list, limit: int) -> tuple[list, dict[int, tuple[str, ...]]]:
    """A near-duplicate (or copy) of a better-ranked document is folded into it: one hit, the other
    paths under `duplicates`. Reads the document graph's duplicate-of pairs among the top results."""
    window = [doc_id for doc_id, _ in order[:limit * 3]]
    pairs = store.duplicate_pairs(window)
    if not pairs:
        return order, {}
    partners: dict[int, set[int]] = {}
    for a, b in pairs:
        partners.setdefault(a, set()).add(b)
        partners.setdefault(b, set()).add(a)
    kept, folded, into = [], {}, {}
    for item in order:
        doc_id = item[0]
        better = next((k for k in partners.get(doc_id, ()) if k in into), None)
        if better is not None:
            folded.setdefault(better, []).append(doc_id)
            continue
        into[doc_id] = True
        kept.append(item)
    paths = store.doc_paths(sorted({d for ids in folded.values() for d in ids}))
    return kept, {k: tuple(paths[d] for d in ids if d in paths) for k, ids in folded.items()}


def collapse_same_text(store: Store, order: list, limit: int,
                       doc_of: dict[int, int]) -> tuple[list, dict[int, tuple[str, ...]]]:
    """Passages: a section whose text (whitespace aside) is that of a better-ranked one, in a copied
    note or a pasted paragraph, is folded into it, its document's path under `duplicates`."""
    window = [chunk_id for chunk_id, _ in order[:limit * 3]]
    texts = store.chunk_texts(window)
    first: dict[str, int] = {}
    folded: dict[int, list[int]] = {}
    for chunk_id in window:
        text = " ".join(texts.get(chunk_id, "").split()).casefold()
        if not text:
            continue
        if text in first:
            folded.setdefault(first[text], []).append(chunk_id)
        else:
            first[text] = chunk_id
    if not folded:
        return order, {}
    gone = {c for ids in folded.values() for c in ids}
    paths = store.doc_paths(sorted({doc_of[c] for c in gone}))
    return ([item for item in order if item[0] not in gone],
            {k: tuple(paths[doc_of[c]] for c in ids if doc_of[c] in paths) for k, ids in folded.items()})


def place_documents(store: Store, parsed: TextQuery, chosen: list, rows: dict) -> dict[int, int | None]:
    """Document unit: each shown document's section to point at (keyword, else vector, else graph
    placement; a document ranked whole is placed by its best matching section)."""
    picks = {}
    for doc_id, _ in chosen:
        found = [rows[doc_id][s] for s in ("bm25", "vector", "graph") if s in rows[doc_id]]
        picks[doc_id] = next((r for r in found if r.chunk_id is not None), found[0])
    unplaced = [doc_id for doc_id, r in picks.items() if r.chunk_id is None]  # keyword or graph ranked it whole
    out = {doc_id: r.chunk_id for doc_id, r in picks.items()}
    if unplaced:
        out.update({d: c for d, c in _best_chunks(store, parsed, unplaced).items()})
        out.update({d: None for d in unplaced if d not in out})  # no section at all
    return out


def build_hits(store: Store, access: Access, parsed: TextQuery, chosen: list, placed: dict[int, int | None],
               doc_of: dict[int, int], ties: dict[int, GraphHit], config, explain: bool,
               collapsed: dict[int, tuple[str, ...]], unit: str) -> tuple[SearchHit, ...]:
    """The hits of the chosen (key, Scored) items, each at its placed section, details and snippets
    read in one query each. `ties`: the graph tie that explains an item, by key."""
    chunk_ids = [c for c in placed.values() if c is not None]
    details = store.chunk_rows(access, chunk_ids, DocFilter())
    snippets = {c: found for c, found in store.snippets(parsed.requiring("any"), chunk_ids).items() if found.text}
    texts = store.chunk_texts([c for c in chunk_ids if c not in snippets])
    formula = FORMULA if unit == "document" else PASSAGE_FORMULA
    out = []
    for key, scored in chosen:
        chunk_id = placed.get(key)
        row = details.get(chunk_id) if chunk_id is not None else None
        if row is None:
            continue  # deleted between ranking and reading: not worth a hit
        snippet = tidy(snippets[chunk_id]) if chunk_id in snippets else opening(texts.get(chunk_id, ""))
        tie = ties.get(key)
        via = describe(tie.reach, row["path"]) if tie is not None else None
        trace = HitExplain(explain_signals(scored.signals), fusion_k(config, unit), round(scored.fused, 6),
                           tuple((name, round(factor, 4)) for name, factor in scored.boosts), round(scored.score, 6),
                           via, formula) if explain else None
        out.append(SearchHit(doc_id=doc_of.get(key, key), path=row["path"], title=row["title"], kind=row["kind"],
                             date=row["date"], chunk_id=chunk_id, heading=row["heading"], line=row["line"],
                             snippet=snippet.text, score=round(scored.score, 6), via=via,
                             duplicates=collapsed.get(key, ()), explain=trace, highlights=snippet.highlights))
    return tuple(out)


def _best_chunks(store: Store, parsed: TextQuery, doc_ids: list[int]) -> dict[int, int]:
    """Each document's section that best matches the query, to show: among the sections FTS5 says
    match (stemming and phrases honoured; skipped for a query of many terms, a pasted paragraph,
    where that test costs milliseconds per section), the one holding the most of the query's
    rarer words (rarer among these documents' sections), the earlier one on a tie."""
    words = {w.casefold() for term in parsed.terms for w in term.words}
    sections = store.doc_chunk_texts(doc_ids)  # (chunk id, doc id, text), each document in reading order
    testable = parsed.terms and len(parsed.terms) <= FTS_PLACING_TERMS
    matching = store.matching_chunks(parsed.requiring("any"), doc_ids) if testable \
        else {chunk_id for chunk_id, _, _ in sections}
    alone = standing_alone(words)
    present = [(chunk_id, doc_id, _query_words_in(text, alone)) for chunk_id, doc_id, text in sections]
    spread: dict[str, int] = {}
    for _, _, found in present:
        for word in found:
            spread[word] = spread.get(word, 0) + 1
    best: dict[int, tuple[bool, float, int]] = {}
    for chunk_id, doc_id, found in present:
        key = (chunk_id in matching, sum(math.log(1 + len(present) / spread[w]) for w in found))
        if doc_id not in best or key > best[doc_id][:2]:
            best[doc_id] = (*key, chunk_id)
    return {doc_id: chunk_id for doc_id, (_, _, chunk_id) in best.items()}


def standing_alone(words: set[str]) -> dict[str, re.Pattern]:
    """Each word -> a pattern that finds it standing alone: no letter or digit on either side (how
    _WORD cuts text, an underscore included as a cut). The word comes first and the look-behind after
    it, so the regex engine scans for the literal word (~10x faster than a pattern that starts with
    the look-behind, which is tried at every character)."""
    return {word: re.compile(rf"{re.escape(word)}(?<![^\W_]{re.escape(word)})(?![^\W_])") for word in words}


def _query_words_in(text: str, alone: dict[str, re.Pattern]) -> set[str]:
    """The query's words (alone: each casefolded word -> the pattern of it standing alone) that are words
    of text, casefolded. Cutting every section into words was ~90% of placing 50 KEP notes; instead a
    word is looked for where it can be: it is a substring of the casefolded text wherever it is one of
    its words, and in ASCII text (casefold is lower(), letter for letter) it is one of its words exactly
    where it stands alone. Other text is cut into words as before."""
    folded = text.casefold()
    here = [word for word in alone if word in folded]
    if not here:
        return set()
    if text.isascii():
        return {word for word in here if alone[word].search(folded)}
    return set(here).intersection(w.casefold() for w in _WORD.findall(text))


def ranked_key(r: Ranked, unit: str) -> int:
    """What a signal's item is ranked as: its document, or (passages) its section (every passage
    ranking places its items)."""
    if unit == "document" or r.chunk_id is None:
        return r.doc_id
    return r.chunk_id

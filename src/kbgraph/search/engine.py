"""Two-pass, graph-aware hybrid search, and the explanation of every result.

Pass 1 finds the entities the query names (or the one `entity=` pins) and, with expand_relations,
the entities related to them up to two hops. Pass 2 ranks documents by three signals (BM25 over
whole documents, vector similarity of document centroids, the graph: documents tied to those
entities), fuses them by reciprocal rank (k = 60) and applies the boosts (see fusion.py). One hit
per document, pointing at its best section.
With `entity=`, only documents that mention the entity (or, expanded, a related one) are returned,
each weighted by its distance.
"""

from __future__ import annotations

import math
import re
from concurrent.futures import ThreadPoolExecutor

from ..access import LOCAL, Access
from ..config import Config, config_from_dict
from ..errors import InvalidInput
from ..model import HitExplain, SearchHit, SearchResult
from ..relations.history import as_of_date
from ..store.base import DocFilter, Store
from .fusion import FORMULA, explain_signals, recency_boost, rrf, tier_boost
from .graph import GraphHit, Reach, describe, expand, graph_ranking, recognise
from .keyword import Ranked, bm25_ranking
from .passages import widen as widen_hits
from .query import parse_query
from .snippets import opening, tidy
from .vectors import candidates_for, missing_note, nearest_documents, prepare_vectors

MODES = ("hybrid", "bm25", "vector")
PINNED_DEPTH = 5000  # documents of a pinned entity (and, expanded, its neighbours) read for their ties
SPARE_HITS = 5  # documents read past those still wanted: one with no text to show is passed over
MIN_TIES = 2  # unpinned, a document the query's words did not find needs this many graph ties
FTS_PLACING_TERMS = 8  # up to this many terms, FTS5 says which sections match
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_POOL: ThreadPoolExecutor | None = None


def search(store: Store, query: str, flt: DocFilter | None = None, limit: int = 10, *, config: Config | None = None,
           mode: str = "hybrid", entity: str | None = None, expand_relations: bool = False, explain: bool = False,
           why_not: str | None = None, widen: bool = False, access: Access = LOCAL,
           as_of: str | None = None) -> SearchResult:
    """The best documents for query, one hit (its best chunk) per document, best first. With widen,
    each hit also carries its passage: the whole section its chunk was split from. Every signal
    reads only what the access may read (documents, entities, relations), filtered in the store
    before any ranking is cut. as_of (a date): the graph signal follows the relations true that day."""
    if not query or not query.strip():
        raise InvalidInput("empty query: give one or more words to search for")
    if limit < 1:
        raise InvalidInput(f"`limit` must be at least 1, got {limit}", param="limit")
    if mode not in MODES:
        raise InvalidInput(f"`mode` {mode!r}: use {', '.join(MODES)}", param="mode")
    config, flt = config or config_from_dict({}), flt or DocFilter()  # defaults, with KBG_EMBEDDER
    day = as_of_date(as_of) if as_of else None
    parsed = parse_query(query)
    pinned = _pinned(store, entity, access)
    if not parsed.terms and pinned is None:
        return SearchResult(query, parsed, "empty", (), notes=("no searchable words in the query",))
    depth = max(limit * 5, 50)
    rankings, notes, rows = {}, [], {}
    keyword_mode = "empty" if not parsed.terms else "all-terms"
    exact = bool(parsed.exclusions) or '"' in query
    if mode == "hybrid" and exact:
        notes.append("a \"phrase\" or -exclusion asks for keyword matching: vectors not used")
    nearest = None
    if mode == "vector" or (mode == "hybrid" and not exact):
        prepared, why = prepare_vectors(store, config.search.embedder, access, flt)
        note = why or missing_note(prepared)
        if note:
            notes.append(note)
        if prepared is not None:  # embedding the query and the matmul run while SQLite ranks keywords
            wanted = candidates_for(depth)
            nearest = _worker().submit(nearest_documents, prepared, query, wanted, config.search.min_similarity)
    if mode in ("hybrid", "bm25") and parsed.terms:
        ranked, keyword_mode = bm25_ranking(store, access, parsed, flt, depth)
        rankings["bm25"] = ranked
    if nearest is not None:
        ranked = nearest.result()[:depth]
        if ranked:
            rankings["vector"] = ranked
    recognised = recognise(store, query, access) if pinned is None else None
    seeds = [(pinned.id, pinned.name)] if pinned else [(e[0], e[1]) for e in recognised.entities]
    reach: dict[int, Reach] = {}
    graph: dict[int, GraphHit] = {}
    if seeds:
        hops = 2 if expand_relations else 0
        reach = expand(store, access, seeds, hops, config.search.hop_decay, config.vocabulary, day)
        # Pinned, every document that mentions the entity may be a result; otherwise the graph only boosts.
        if pinned is None:
            ranked_graph = _corroborated(graph_ranking(store, access, reach, flt, depth * 4, day=day), rankings,
                                         depth)
        else:  # ranks the best tied documents, and says which text hits are tied at all
            text_hits = {r.doc_id for ranked in rankings.values() for r in ranked}
            ranked_graph = graph_ranking(store, access, reach, flt, depth * 4, text_hits, PINNED_DEPTH, day=day)
        rankings["graph"] = [hit.ranked for hit in ranked_graph]
        graph = {hit.ranked.doc_id: hit for hit in ranked_graph}
    if pinned is not None:  # only what mentions the entity (or, expanded, a related one)
        rankings = {s: [r for r in ranked if r.doc_id in graph] for s, ranked in rankings.items()}
    for signal, ranked in rankings.items():
        for r in ranked:
            rows.setdefault(r.doc_id, {})[signal] = r
    scored = _score(store, config, rankings, graph, pinned is not None)
    order = sorted(scored.items(), key=lambda item: (-item[1][0], item[0]))
    order, collapsed = _collapse_duplicates(store, order, limit)
    hits, start = (), 0
    while len(hits) < limit and start < len(order):  # a document with no text to show is passed over
        batch = order[start:start + limit - len(hits) + SPARE_HITS]
        start += len(batch)
        hits += _hits(store, access, parsed, batch, rows, graph, config, explain, collapsed)
    hits = hits[:limit]
    if widen:
        hits = widen_hits(store, hits, access)
    entities = _entities(pinned, recognised)
    result = SearchResult(query, parsed, keyword_mode, hits, tuple(rankings), entities,
                          recognised.ambiguous if recognised else (), tuple(notes))
    if why_not is not None:
        from .why_not import why_not as explain_absence

        return _with(result, explain_absence(store, why_not, flt, parsed, order, limit, rankings, seeds, pinned,
                                             access))
    return result


def _worker() -> ThreadPoolExecutor:
    """One thread beside the caller's, kept for the process: numpy and SQLite both release the GIL,
    so the query's embedding and the vector scan overlap the keyword query on a second core."""
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kbg-vectors")
    return _POOL


def _corroborated(ranked_graph: list[GraphHit], rankings: dict, depth: int) -> list[GraphHit]:
    """Unpinned, the graph re-ranks what the query's words found, and adds only documents tied to the
    query through two or more entities: a note that merely names the person is no answer to the rest
    of the query, but a proposal sharing its authors and its SIG is related whatever its words."""
    text_rank: dict[int, int] = {}
    for ranked in rankings.values():
        for rank, r in enumerate(ranked):
            text_rank[r.doc_id] = min(rank, text_rank.get(r.doc_id, rank))
    kept = [hit for hit in ranked_graph if hit.ranked.doc_id in text_rank or hit.entities >= MIN_TIES]
    kept.sort(key=lambda hit: (-hit.ranked.score, text_rank.get(hit.ranked.doc_id, depth)))
    return kept[:depth]


def _pinned(store: Store, entity: str | None, access: Access):
    if entity is None:
        return None
    from ..entities.lookup import find_entity

    return find_entity(store, entity, access=access)  # Ambiguous: the candidates are the answer, never a blend


def _score(store: Store, config: Config, rankings: dict[str, list[Ranked]], graph: dict[int, GraphHit],
           pinned: bool) -> dict[int, tuple[float, float, tuple, tuple]]:
    """doc id -> (score, fused, signals, boosts)."""
    weights = dict(config.search.weights)
    # Pinned, a document's graph term carries its distance decay; unpinned, the graph ranking has
    # already weighed distance (activations decay by hop), so its rank alone counts.
    graph_weight = {doc_id: hit.nearest.weight if pinned else 1.0 for doc_id, hit in graph.items()}
    fused = rrf({s: [(r.doc_id, r.score) for r in ranked] for s, ranked in rankings.items()}, weights,
                config.search.rrf_k, graph_weight)
    tiers = store.entity_tiers(sorted({hit.nearest.entity_id for hit in graph.values()}))
    dates = store.doc_dates(sorted(fused)) if config.search.recency_half_life_days else {}
    out = {}
    for doc_id, (value, signals) in fused.items():
        boosts = []
        if pinned and doc_id in graph:
            boosts.append(("distance", graph[doc_id].nearest.weight))
        if doc_id in graph and config.search.tier_boost:
            boosts.append(("tier", tier_boost(tiers.get(graph[doc_id].nearest.entity_id, 1), config.search.tier_boost)))
        if config.search.recency_half_life_days:
            boosts.append(("recency", recency_boost(dates.get(doc_id), config.search.recency_half_life_days)))
        score = value
        for _, factor in boosts:
            score *= factor
        out[doc_id] = (score, value, signals, boosts)  # rounded for the hits shown only
    return out


def _collapse_duplicates(store: Store, order: list, limit: int) -> tuple[list, dict[int, tuple[str, ...]]]:
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


def _hits(store: Store, access: Access, parsed, chosen: list, rows: dict, graph: dict[int, GraphHit], config, explain: bool,
          collapsed: dict[int, tuple[str, ...]]) -> tuple:
    """The hits shown: each document's best chunk (keyword, else vector, else graph), its details and
    snippet read in one query each, for these documents only."""
    picks = {}
    for doc_id, _ in chosen:
        found = [rows[doc_id][s] for s in ("bm25", "vector", "graph") if s in rows[doc_id]]
        picks[doc_id] = next((r for r in found if r.chunk_id is not None), found[0])
    unplaced = [doc_id for doc_id, r in picks.items() if r.chunk_id is None]  # keyword or graph ranked it whole
    if unplaced:
        placed = _best_chunks(store, parsed, unplaced)
        picks.update({d: Ranked(d, placed.get(d), picks[d].score) for d in unplaced})  # None: no section
    chunk_ids = [r.chunk_id for r in picks.values() if r.chunk_id is not None]
    details = store.chunk_rows(access, chunk_ids, DocFilter())
    snippets = {c: found for c, found in store.snippets(parsed.requiring("any"), chunk_ids).items() if found.text}
    texts = store.chunk_texts([c for c in chunk_ids if c not in snippets])
    out = []
    for doc_id, (score, fused, signals, boosts) in chosen:
        chunk_id = picks[doc_id].chunk_id
        row = details.get(chunk_id) if chunk_id is not None else None
        if row is None:
            continue  # deleted between ranking and reading: not worth a hit
        snippet = tidy(snippets[chunk_id]) if chunk_id in snippets else opening(texts.get(chunk_id, ""))
        tie = graph.get(doc_id)
        via = describe(tie.reach, row["path"]) if tie is not None else None
        trace = HitExplain(explain_signals(signals), config.search.rrf_k, round(fused, 6),
                           tuple((name, round(factor, 4)) for name, factor in boosts), round(score, 6), via,
                           FORMULA) if explain else None
        out.append(SearchHit(doc_id=doc_id, path=row["path"], title=row["title"], kind=row["kind"],
                             date=row["date"], chunk_id=chunk_id, heading=row["heading"], line=row["line"],
                             snippet=snippet.text, score=round(score, 6), via=via,
                             duplicates=collapsed.get(doc_id, ()), explain=trace, highlights=snippet.highlights))
    return tuple(out)


def _best_chunks(store: Store, parsed, doc_ids: list[int]) -> dict[int, int]:
    """Each document's section that best matches the query, to show: among the sections FTS5 says
    match (stemming and phrases honoured; skipped for a query of many terms, a pasted paragraph,
    where that test costs milliseconds per section), the one holding the most of the query's
    rarer words (rarer among these documents' sections), the earlier one on a tie."""
    words = {w.casefold() for term in parsed.terms for w in term.words}
    sections = store.doc_chunk_texts(doc_ids)  # (chunk id, doc id, text), each document in reading order
    testable = parsed.terms and len(parsed.terms) <= FTS_PLACING_TERMS
    matching = store.matching_chunks(parsed.requiring("any"), doc_ids) if testable \
        else {chunk_id for chunk_id, _, _ in sections}
    present = [(chunk_id, doc_id, words.intersection(w.casefold() for w in _WORD.findall(text)))
               for chunk_id, doc_id, text in sections]
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


def _entities(pinned, recognised) -> tuple[dict, ...]:
    if pinned is not None:
        return ({"id": pinned.id, "name": pinned.name, "type": pinned.type, "surface": pinned.name},)
    return tuple({"id": i, "name": n, "type": t, "surface": s} for i, n, t, s in recognised.entities)


def _with(result: SearchResult, why: dict) -> SearchResult:
    from dataclasses import replace

    return replace(result, why_not=why)

"""Two-pass, graph-aware hybrid search, and the explanation of every result.

Pass 1 finds the entities the query names (or the one `entity=` pins) and, with expand_relations,
the entities related to them up to two hops. Pass 2 ranks by three signals (BM25, vector
similarity, the graph: ties to those entities), fuses them by reciprocal rank (k = 60) and applies
the boosts (see fusion.py). Two units:
- "document": one hit per document, pointing at its best section; BM25 over whole documents,
  vectors by `[search] document_vectors` (centroid, best section, both, or by the query's length);
- "passage": sections ranked across all documents, several per document allowed; each signal
  ranks sections (BM25 per section, each section's own vector, the entities a section mentions).
With `entity=`, only documents that mention the entity (or, expanded, a related one) are returned
(passages: sections of those documents), each weighted by its distance.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..access import Access
from ..config import Config, config_from_dict
from ..errors import InvalidInput, NotFound
from ..model import SearchResult
from ..relations.history import as_of_date
from ..store.base import DocFilter, Store
from .dates import DATE_BOOST, month_asked
from .fusion import fusion_k, neighbour_scores, recency_boost, rrf, tier_boost
from .graph import GraphHit, Reach, expand, graph_ranking, recognise
from .hits import (Scored, build_hits, collapse_duplicates, collapse_same_text, place_documents, ranked_key)
from .keyword import Ranked, bm25_ranking, section_bm25_ranking
from .passages import widen as widen_hits
from .query import parse_query
from .vectors import candidates_for, missing_note, nearest_documents, nearest_sections, prepare_vectors

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

MODES = ("hybrid", "bm25", "vector")
UNITS = ("document", "passage")
PINNED_DEPTH = 5000  # documents of a pinned entity (and, expanded, its neighbours) read for their ties
SPARE_HITS = 5  # documents read past those still wanted: one with no text to show is passed over
MIN_TIES = 2  # unpinned, a document the query's words did not find needs this many graph ties
# Passages, unpinned and unexpanded: the graph does not rank sections. A section that names the person a
# question names is no answer to the rest of it: on LoCoMo's dev questions the section graph signal took
# passage recall@10 from 63.9 to 41.7 (bm25) and 61.8 to 48.7 (hybrid); pinned (restricts and weighs) and
# expanded (the related entities are the point) it still does (bench/RESULTS.md, dialogue recall).
_POOL: ThreadPoolExecutor | None = None


def search(store: Store, query: str, flt: DocFilter | None = None, limit: int = 10, *, config: Config | None = None,
           mode: str = "hybrid", entity: str | int | None = None, expand_relations: bool = False, explain: bool = False,
           why_not: str | None = None, widen: bool = False, access: Access,
           as_of: str | None = None, unit: str = "document") -> SearchResult:
    """The best documents for query, one hit (its best chunk) per document, best first; with
    unit="passage", the best sections across all documents, several per document allowed. With
    widen, each hit also carries its passage: the whole section its chunk was split from. Every
    signal reads only what the access may read (documents, entities, relations), filtered in the
    store before any ranking is cut. as_of (a date): the graph signal follows the relations true that day."""
    if not query or not query.strip():
        raise InvalidInput("empty query: give one or more words to search for")
    if limit < 1:
        raise InvalidInput(f"`limit` must be at least 1, got {limit}", param="limit")
    if mode not in MODES:
        raise InvalidInput(f"`mode` {mode!r}: use {', '.join(MODES)}", param="mode")
    if unit not in UNITS:
        raise InvalidInput(f"`unit` {unit!r}: use {', '.join(UNITS)}", param="unit")
    config, flt = config or config_from_dict({}), flt or DocFilter()  # defaults, with KBG_EMBEDDER
    day = as_of_date(as_of) if as_of else None
    parsed = parse_query(query)
    pinned = _pinned(store, entity, access)
    if not parsed.terms and pinned is None:
        return SearchResult(query, parsed, "empty", (), notes=("no searchable words in the query",), unit=unit)
    passages = unit == "passage"
    depth = max(limit * 5, 50)
    rankings: dict[str, list[Ranked]] = {}
    notes: list[str] = []
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
            wanted, floor = candidates_for(depth), config.search.min_similarity
            nearest = _worker().submit(nearest_sections, prepared, query, wanted, floor) if passages else \
                _worker().submit(nearest_documents, prepared, query, wanted, floor, config.search.document_vectors)
    if mode in ("hybrid", "bm25") and parsed.terms:
        rankings["bm25"], keyword_mode = section_bm25_ranking(store, access, parsed, flt, depth, exact) if passages \
            else bm25_ranking(store, access, parsed, flt, depth)
    if nearest is not None:
        ranked = nearest.result()[:depth]
        if ranked:
            rankings["vector"] = ranked
    recognised = recognise(store, query, access) if pinned is None else None
    seeds = [(pinned.id, pinned.name)] if pinned else [(e[0], e[1]) for e in recognised.entities]
    ties: dict[int, GraphHit] = {}  # key -> the graph tie that explains it
    doc_ties: dict[int, GraphHit] = {}  # pinned: document id -> its tie to the entity (restricts, weighs)
    if seeds and (pinned is not None or not passages or expand_relations):
        hops = 2 if expand_relations else 0
        reach = expand(store, access, seeds, hops, config.search.hop_decay, config.vocabulary, day)
        ranked_graph = _graph_signal(store, access, reach, flt, depth, rankings, pinned is not None, unit, day)
        rankings["graph"] = [hit.ranked for hit in ranked_graph]
        ties = {ranked_key(hit.ranked, unit): hit for hit in ranked_graph}
        if pinned is not None:
            doc_ties = ties if not passages else {hit.ranked.doc_id: hit for hit in graph_ranking(
                store, access, reach, flt, depth * 4, _text_docs(rankings), PINNED_DEPTH, day=day)}
    if pinned is not None:  # only what mentions the entity (or, expanded, a related one)
        rankings = {s: [r for r in ranked if r.doc_id in doc_ties] for s, ranked in rankings.items()}
    rows: dict[int, dict[str, Ranked]] = {}
    doc_of: dict[int, int] = {}
    for signal, ranked in rankings.items():
        for r in ranked:
            rows.setdefault(ranked_key(r, unit), {})[signal] = r
            doc_of[ranked_key(r, unit)] = r.doc_id
    scored = _score(store, config, rankings, unit, doc_of, ties, doc_ties if pinned is not None else None, access,
                    query)
    order = sorted(scored.items(), key=lambda item: (-item[1].score, item[0]))
    order, collapsed = collapse_same_text(store, order, limit, doc_of) if passages else \
        collapse_duplicates(store, order, limit)
    shown_ties = {k: ties.get(k) or doc_ties.get(doc_of[k]) for k in doc_of if k in ties or doc_of[k] in doc_ties}
    hits, start = (), 0
    while len(hits) < limit and start < len(order):  # an item with no text to show is passed over
        batch = order[start:start + limit - len(hits) + SPARE_HITS]
        start += len(batch)
        placed = {key: key for key, _ in batch} if passages else place_documents(store, parsed, batch, rows)
        hits += build_hits(store, access, parsed, batch, placed, doc_of, shown_ties, config, explain, collapsed,
                           unit)
    hits = hits[:limit]
    if widen:
        hits = widen_hits(store, hits, access)
    entities = _entities(pinned, recognised)
    result = SearchResult(query, parsed, keyword_mode, hits, tuple(rankings), entities,
                          recognised.ambiguous if recognised else (), tuple(notes), unit=unit)
    if why_not is not None:
        from .why_not import why_not as explain_absence

        doc_order = _document_order(order, doc_of) if passages else [(k, (s.score,)) for k, s in order]
        return _with(result, explain_absence(store, why_not, flt, parsed, doc_order, limit, rankings, seeds, pinned,
                                             access, config))
    return result


def _worker() -> ThreadPoolExecutor:
    """One thread beside the caller's, kept for the process: numpy and SQLite both release the GIL,
    so the query's embedding and the vector scan overlap the keyword query on a second core."""
    global _POOL
    if _POOL is None:
        from concurrent.futures import ThreadPoolExecutor  # only a search with vectors starts the thread

        _POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kbg-vectors")
    return _POOL


def _graph_signal(store: Store, access: Access, reach: dict[int, Reach], flt: DocFilter, depth: int,
                  rankings: dict[str, list[Ranked]], pinned: bool, unit: str, day: str | None) -> list[GraphHit]:
    """The graph's ranking of documents (or sections). Pinned, every item tied to the entity may be
    a result; otherwise the graph only re-ranks what the words found, plus strongly tied items."""
    sections = unit == "passage"
    if not pinned:
        ranked = graph_ranking(store, access, reach, flt, depth * 4, day=day, sections=sections)
        return _corroborated(ranked, rankings, depth, unit)
    text_hits = {ranked_key(r, unit) for ranked in rankings.values() for r in ranked}
    return graph_ranking(store, access, reach, flt, depth * 4, text_hits, PINNED_DEPTH, day=day, sections=sections)


def _text_docs(rankings: dict[str, list[Ranked]]) -> set[int]:
    return {r.doc_id for ranked in rankings.values() for r in ranked}


def _corroborated(ranked_graph: list[GraphHit], rankings: dict, depth: int, unit: str) -> list[GraphHit]:
    """Unpinned, the graph re-ranks what the query's words found, and adds only items tied to the
    query through two or more entities: a note that merely names the person is no answer to the rest
    of the query, but a proposal sharing its authors and its SIG is related whatever its words."""
    text_rank: dict[int, int] = {}
    for ranked in rankings.values():
        for rank, r in enumerate(ranked):
            key = ranked_key(r, unit)
            text_rank[key] = min(rank, text_rank.get(key, rank))
    kept = [hit for hit in ranked_graph
            if ranked_key(hit.ranked, unit) in text_rank or hit.entities >= MIN_TIES]
    kept.sort(key=lambda hit: (-hit.ranked.score, text_rank.get(ranked_key(hit.ranked, unit), depth)))
    return kept[:depth]


def _pinned(store: Store, entity: str | int | None, access: Access):
    if entity is None:
        return None
    if isinstance(entity, int):  # an entity already resolved (governed recall pins the one person it found)
        found = store.get_entity(access, entity)
        if found is None:
            raise NotFound(f"no entity with id {entity}", param="entity")
        return found
    from ..entities.lookup import find_entity

    return find_entity(store, entity, access=access)  # Ambiguous: the candidates are the answer, never a blend


def _score(store: Store, config: Config, rankings: dict[str, list[Ranked]], unit: str, doc_of: dict[int, int],
           ties: dict[int, GraphHit], doc_ties: dict[int, GraphHit] | None, access: Access,
           query: str = "") -> dict[int, Scored]:
    """key -> its Scored. doc_ties (pinned only): each document's tie to the pinned entity, whose
    distance decay weighs the graph term and the score of the document (or its sections)."""
    weights = dict(config.search.weights)
    # Pinned, an item's graph term carries its distance decay; unpinned, the graph ranking has
    # already weighed distance (activations decay by hop), so its rank alone counts.
    distance = {key: doc_ties[doc_id].nearest.weight for key, doc_id in doc_of.items()
                if doc_ties is not None and doc_id in doc_ties}
    graph_weight = distance if doc_ties is not None else {key: 1.0 for key in ties}
    fused = rrf({s: [(ranked_key(r, unit), r.score) for r in ranked] for s, ranked in rankings.items()}, weights,
                fusion_k(config, unit), graph_weight)
    tiers = store.entity_tiers(access, sorted({hit.nearest.entity_id for hit in ties.values()}))
    asked = month_asked(query) if unit == "passage" else None
    dates = store.doc_dates(sorted(set(doc_of.values()))) if config.search.recency_half_life_days or asked else {}
    out = {}
    for key, (value, signals) in fused.items():
        boosts = []
        if key in distance:
            boosts.append(("distance", distance[key]))
        if key in ties and config.search.tier_boost:
            boosts.append(("tier", tier_boost(tiers.get(ties[key].nearest.entity_id, 1), config.search.tier_boost)))
        if config.search.recency_half_life_days:
            boosts.append(("recency", recency_boost(dates.get(doc_of[key]), config.search.recency_half_life_days)))
        if asked is not None and asked.holds(dates.get(doc_of[key])):
            boosts.append(("date", 1.0 + DATE_BOOST))
        score = value
        for _, factor in boosts:
            score *= factor
        out[key] = Scored(score, value, signals, tuple(boosts))  # rounded for the hits shown only
    if unit == "passage":
        added = neighbour_scores({key: s.score for key, s in out.items()}, doc_of)
        out = {key: s if not added.get(key) or not s.score else
               Scored(s.score + added[key], s.fused, s.signals, s.boosts + (("neighbour", 1 + added[key] / s.score),))
               for key, s in out.items()}
    return out


def _document_order(order: list, doc_of: dict[int, int]) -> list:
    """Passages ranked -> their documents in order of their best section: why-not speaks of documents."""
    out, seen = [], set()
    for key, scored in order:
        if doc_of[key] not in seen:
            seen.add(doc_of[key])
            out.append((doc_of[key], (scored.score,)))
    return out


def _entities(pinned, recognised) -> tuple[dict, ...]:
    if pinned is not None:
        return ({"id": pinned.id, "name": pinned.name, "type": pinned.type, "surface": pinned.name},)
    return tuple({"id": i, "name": n, "type": t, "surface": s} for i, n, t, s in recognised.entities)


def _with(result: SearchResult, why: dict) -> SearchResult:
    from dataclasses import replace

    return replace(result, why_not=why)

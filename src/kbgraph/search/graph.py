"""The graph signal: entities named in the query (pass 1), the entities related to them, and the
documents that mention any of them, weighted by distance in the graph.

Pass 1 reads the query's word n-grams (longest first) against entity names and aliases. A name that
fits several entities equally (a shared first name) is reported as ambiguous with its candidates and
used for none of them: search abstains rather than blend two people.
Expansion walks active (not expired) relations breadth-first, up to two hops; a document's graph
weight is the decay of the nearest entity it mentions (direct 1.0, one hop 0.7, two hops 0.4).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from ..common_words import COMMON_WORDS
from ..names import name_key
from ..store.base import DocFilter
from .keyword import Ranked

MAX_NGRAM = 5
PER_ENTITY = 200  # relations followed per entity and direction: a hub's thousands say little each
MAX_REACHED = 2000
_WORDS = re.compile(r"[\w@][\w@.'’&+-]*", re.UNICODE)
_POSSESSIVE = re.compile(r"['’]s?$|[.,;:!?]+$")


@dataclass(frozen=True)
class Step:
    source: str
    type: str  # as read from `source` (an inverse name for an incoming relation)
    target: str


@dataclass(frozen=True)
class Reach:
    entity_id: int
    name: str
    distance: int
    weight: float
    path: tuple[Step, ...]  # from a query entity to this one


@dataclass(frozen=True)
class Recognition:
    entities: tuple[tuple[int, str, str, str], ...]  # (id, name, type, as written in the query)
    ambiguous: tuple[dict, ...]  # {"surface", "candidates": [{"id", "name", "type"}]}


def recognise(store, query: str) -> Recognition:
    """Entities the query names, longest n-gram first; ambiguous names are set aside."""
    words = [(m.start(), m.end()) for m in _WORDS.finditer(query[:2000])][:200]
    taken: set[int] = set()
    found, ambiguous = [], []
    for size in range(min(MAX_NGRAM, len(words)), 0, -1):
        for i in range(len(words) - size + 1):
            span = range(i, i + size)
            if taken.intersection(span):
                continue
            surface = _POSSESSIVE.sub("", query[words[i][0]:words[i + size - 1][1]])  # "Ben's reports"
            if size == 1 and (surface.lower() in COMMON_WORDS or len(surface) < 2) and not surface[:1].isupper():
                continue
            matches = _matches(store, surface)
            if not matches:
                continue
            taken.update(span)
            if len(matches) == 1:
                entity = matches[0]
                found.append((entity.id, entity.name, entity.type, surface))
            else:
                ambiguous.append({"surface": surface, "candidates": [
                    {"id": e.id, "name": e.name, "type": e.type} for e in matches]})
    return Recognition(tuple(dict.fromkeys(found)), tuple(ambiguous))


def _matches(store, surface: str) -> list:
    from ..lookup import entities_named

    key = name_key(surface)
    return entities_named(store, key) if key else []


def expand(store, seeds: list[tuple[int, str]], hops: int, decay: tuple[float, ...], vocab) -> dict[int, Reach]:
    """Every entity within `hops` active relations of the seeds, nearest first."""
    today = date.today().isoformat()
    reached = {eid: Reach(eid, name, 0, decay[0], ()) for eid, name in seeds}
    frontier = list(reached)
    names = dict(seeds)
    for distance in range(1, hops + 1):
        if not frontier or len(reached) >= MAX_REACHED:
            break
        edges = store.active_neighbours(frontier, today, PER_ENTITY)
        unknown = {n for _, n, _, _ in edges if n not in names}
        names.update(store.entity_names(sorted(unknown)))
        next_frontier = []
        for entity_id, neighbour, rtype, direction in edges:
            if neighbour in reached or len(reached) >= MAX_REACHED:
                continue
            shown = rtype if direction == "out" else _inverse(vocab, rtype)
            step = Step(names.get(entity_id, "?"), shown, names.get(neighbour, "?"))
            reached[neighbour] = Reach(neighbour, names.get(neighbour, "?"), distance, decay[distance],
                                       reached[entity_id].path + (step,))
            next_frontier.append(neighbour)
        frontier = next_frontier
    return reached


def _inverse(vocab, type_name: str) -> str:
    rtype = vocab.types.get(type_name)
    return rtype.inverse if rtype is not None and rtype.inverse else type_name


def graph_ranking(store, reach: dict[int, Reach], flt: DocFilter, depth: int) -> list[tuple[Ranked, Reach]]:
    """Documents that mention (or are the page of) a reached entity, by weight then mentions."""
    rows = store.docs_mentioning(list(reach), flt, limit=max(depth * 4, 200))
    best: dict[int, tuple[float, int, int, Reach]] = {}
    for doc_id, entity_id, count, chunk_id in rows:
        r = reach[entity_id]
        key = (r.weight, count)
        if doc_id not in best or key > best[doc_id][:2]:
            best[doc_id] = (r.weight, count, chunk_id, r)
    ordered = sorted(best.items(), key=lambda item: (-item[1][0], -item[1][1], item[0]))[:depth]
    out = []
    for doc_id, (weight, _count, chunk_id, r) in ordered:
        chunk_id = chunk_id or store.first_chunk(doc_id)
        if chunk_id is not None:  # a page with no text has nothing to show
            out.append((Ranked(doc_id, chunk_id, weight), r))
    return out


def describe(reach: Reach, doc_path: str) -> str:
    """"Ben Okafor --manages--> Ana Lima ← mentioned in meetings/…": how the graph brought a document in."""
    if not reach.path:
        return f"{reach.name} ← mentioned in {doc_path}"
    first = reach.path[0].source
    hops = "".join(f" --{s.type}--> {s.target}" for s in reach.path)
    return f"{first}{hops} ← mentioned in {doc_path}"

"""The graph signal: entities named in the query (pass 1), the entities related to them, and the
documents that mention any of them, scored by how strongly the graph ties them to the query.

Pass 1 reads the query's word n-grams (longest first, up to a title's length) against entity names
and aliases, compared by loose key ("KEP 950" names KEP-950). A name that fits several entities
equally (a shared first name) is reported as ambiguous with its candidates and used for none of
them: search abstains rather than blend two people.

Expansion walks active (not expired) relations breadth-first, up to two hops. Each entity reached
keeps its distance decay (the entity named 1.0, one hop 0.7, two hops 0.4) and gets an activation:
the decay summed over every path that reaches it, a path damped by 1/sqrt(degree) of each entity it
passes through, because a hub (a SIG with 150 proposals, a team of fifty) ties little together.
A document scores the sum of its ties, like a walk that goes on from the entities into the notes:
- the page of a reached entity, or a note that mentions an entity the query names: its activation;
- a note that mentions another reached entity: its activation / sqrt(that entity's relations plus
  the notes that mention it): passing through a hub into its crowd of notes says little.
So a proposal that shares two authors and a SIG with the one the query names outranks one that
shares only the SIG, and many weak ties add up where one path through a crowd does not.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date

from ..access import Access
from ..entities.common_words import COMMON_WORDS
from ..entities.names import loose_key, name_key
from ..store.base import DocFilter, Store
from .keyword import Ranked

MAX_NGRAM = 16  # a proposal's title is a name too
MAX_WORDS = 200
MAX_QUERY_CHARS = 2000
PER_ENTITY = 200  # relations followed per entity and direction: a hub's thousands say little each
MAX_REACHED = 2000
_WORDS = re.compile(r"[\w@][\w@.'’&+-]*", re.UNICODE)
_BREAK = re.compile(r"[,;:!?]|\.\s")  # no name is read across these
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
    weight: float  # the distance decay of its nearest path: 1.0, 0.7 or 0.4 by default
    path: tuple[Step, ...]  # from a query entity to this one, the path that contributes most
    activation: float = 0.0  # decay summed over all paths, each damped by the hubs it passes


@dataclass(frozen=True)
class Recognition:
    entities: tuple[tuple[int, str, str, str], ...]  # (id, name, type, as written in the query)
    ambiguous: tuple[dict, ...]  # {"surface", "candidates": [{"id", "name", "type"}]}


def recognise(store: Store, query: str, access: Access) -> Recognition:
    """Entities the query names that the access may read, longest n-gram first; ambiguous names are set aside. A span is
    read by its exact name key first ("C++" is C++); only when no name is spelled so, by its loose
    key, punctuation as space ("KEP 950" names KEP-950, "pod startup" a "pod-startup"), and never
    across a comma or a sentence's end ("Sam, Li" is not Sam Li)."""
    words = [(m.start(), m.end()) for m in _WORDS.finditer(query[:MAX_QUERY_CHARS])][:MAX_WORDS]
    spans: dict[tuple[int, int], tuple[str, str, str | None]] = {}  # (first word, size) -> (surface, key, loose)
    for size in range(min(MAX_NGRAM, len(words)), 0, -1):
        for i in range(len(words) - size + 1):
            surface = _POSSESSIVE.sub("", query[words[i][0]:words[i + size - 1][1]])  # "Ben's reports"
            if size == 1 and (surface.lower() in COMMON_WORDS or len(surface) < 2) and not surface[:1].isupper():
                continue
            loose = None if _BREAK.search(surface) else loose_key(surface)
            spans[(i, size)] = (surface, name_key(surface), loose if loose and len(loose) >= 2 else None)
    exact = store.known_name_keys(sorted({key for _, key, _ in spans.values()}))  # one probe each for all
    loosely = store.keys_by_loose_key(sorted({loose for _, _, loose in spans.values() if loose}))
    taken: set[int] = set()
    found, ambiguous = [], []
    for (i, size), (surface, key, loose) in spans.items():  # longest first: dicts keep insertion order
        keys = {key} if key in exact else loosely.get(loose, set()) if loose else set()
        if not keys or taken.intersection(range(i, i + size)):
            continue
        matches = _matches(store, keys, access)
        if not matches:
            continue
        taken.update(range(i, i + size))
        if len(matches) == 1:
            entity = matches[0]
            found.append((entity.id, entity.name, entity.type, surface))
        else:
            ambiguous.append({"surface": surface, "candidates": [
                {"id": e.id, "name": e.name, "type": e.type} for e in matches]})
    unique = {}
    for entity in found:  # named twice ("KEP 950", its title): one entity
        unique.setdefault(entity[0], entity)
    return Recognition(tuple(unique.values()), tuple(ambiguous))


def _matches(store: Store, keys: set[str], access: Access) -> list:
    """The entities the name keys name; names in both spellings ("kep-950", "kep 950") are one set.
    Within each key, an explicit name or alias wins over a derived first name (entities_named)."""
    from ..entities.lookup import entities_named

    found = {e.id: e for key in sorted(keys) for e in entities_named(store, key, access=access)}
    return list(found.values())


def expand(store: Store, access: Access, seeds: list[tuple[int, str]], hops: int, decay: tuple[float, ...],
           vocab, day: str | None = None) -> dict[int, Reach]:
    """Every entity within `hops` relations active today (or on day) of the seeds, nearest first, with
    its activation, over the relations and entities the access may read."""
    today = day or date.today().isoformat()
    reached = {eid: Reach(eid, name, 0, decay[0], (), decay[0]) for eid, name in seeds}
    frontier = list(reached)
    names = dict(seeds)
    for distance in range(1, hops + 1):
        if not frontier or len(reached) >= MAX_REACHED:
            break
        edges = store.active_neighbours(access, frontier, today, PER_ENTITY)
        unknown = {n for _, n, _, _ in edges if n not in names}
        names.update(store.entity_names(sorted(unknown)))
        degree: dict[int, int] = {}
        for entity_id, *_ in edges:
            degree[entity_id] = degree.get(entity_id, 0) + 1
        step_decay = decay[distance] / decay[distance - 1] if decay[distance - 1] else 0.0
        arriving: dict[int, dict[int, tuple[float, Step]]] = {}  # neighbour -> source -> path
        for entity_id, neighbour, rtype, direction in edges:
            if neighbour in reached:
                continue
            source = reached[entity_id]
            damp = 1.0 if source.distance == 0 else 1.0 / math.sqrt(degree[entity_id])
            shown = rtype if direction == "out" else _inverse(vocab, rtype)
            step = Step(names.get(entity_id, "?"), shown, names.get(neighbour, "?"))
            paths = arriving.setdefault(neighbour, {})
            strength = source.activation * step_decay * damp
            if entity_id not in paths or strength > paths[entity_id][0]:  # two relations, one tie
                paths[entity_id] = (strength, step)
        next_frontier = []
        for neighbour, paths in arriving.items():
            if len(reached) >= MAX_REACHED:
                break
            via = max(paths, key=lambda source: paths[source][0])
            reached[neighbour] = Reach(neighbour, names.get(neighbour, "?"), distance, decay[distance],
                                       reached[via].path + (paths[via][1],), sum(p[0] for p in paths.values()))
            next_frontier.append(neighbour)
        frontier = next_frontier
    return reached


def _inverse(vocab, type_name: str) -> str:
    rtype = vocab.types.get(type_name)
    return rtype.inverse if rtype is not None and rtype.inverse else type_name


@dataclass(frozen=True)
class GraphHit:
    """A document the graph reaches: its score (damped activations summed), the entity that gave the
    most, how many distinct reached entities it is tied to, and the nearest of them."""

    ranked: Ranked
    reach: Reach  # the tie that gave the most: its path explains the hit
    entities: int
    nearest: Reach  # the closest tie: its distance decay weighs a pinned search


def graph_ranking(store: Store, access: Access, reach: dict[int, Reach], flt: DocFilter, depth: int, include=frozenset(),
                  read_docs: int | None = None, day: str | None = None, sections: bool = False) -> list[GraphHit]:
    """The `depth` documents that mention (or are the page of) a reached entity best, by graph score,
    then those of `include` that are tied at all (a pinned search keeps text hits tied to the entity).
    read_docs: how many documents' ties to read (default: depth). sections: rank sections instead
    (the passage unit), each by the entities it mentions itself, or its page's; `include` then
    holds section ids."""
    read = store.chunks_mentioning if sections else store.docs_mentioning
    rows = read(access, list(reach), flt, limit=max((read_docs or depth) * 20, 2000))
    spread = store.entity_doc_counts(access, sorted({row[1] for row in rows}))
    degree = store.entity_degrees(access, sorted({row[1] for row in rows if reach[row[1]].distance}),
                                  day or date.today().isoformat())
    score: dict[int, float] = {}
    best: dict[int, tuple[float, int, Reach]] = {}
    nearest: dict[int, tuple[Reach, float]] = {}
    seen: dict[int, set[int]] = {}
    doc_of: dict[int, int] = {}
    for doc_id, entity_id, _count, chunk_id, is_page in sorted(rows, key=lambda row: -row[4]):
        key = chunk_id if sections else doc_id  # what is ranked: the section, or the document
        doc_of[key] = doc_id
        if entity_id in seen.setdefault(key, set()):
            continue  # mentioned and the page of it: one tie (the page, the closer one), not two
        seen[key].add(entity_id)
        r = reach[entity_id]
        part = r.activation if is_page or r.distance == 0 else \
            r.activation / math.sqrt(max(1, degree.get(entity_id, 0) + spread.get(entity_id, 1)))
        score[key] = score.get(key, 0.0) + part
        if key not in best or part > best[key][0]:
            best[key] = (part, chunk_id, r)
        if key not in nearest or (r.distance, -part) < (nearest[key][0].distance, -nearest[key][1]):
            nearest[key] = (r, part)
    ordered = sorted(score, key=lambda d: (-score[d], d))
    ordered = ordered[:depth] + [d for d in ordered[depth:] if d in include]
    # A tie without a chunk (a frontmatter mention, a page) is placed later, for the hits shown only.
    return [GraphHit(Ranked(doc_of[key], best[key][1], round(score[key], 6)), best[key][2], len(seen[key]),
                     nearest[key][0]) for key in ordered]


def describe(reach: Reach, doc_path: str) -> str:
    """"Ben Okafor --manages--> Ana Lima ← mentioned in meetings/…": how the graph brought a document in."""
    if not reach.path:
        return f"{reach.name} ← mentioned in {doc_path}"
    first = reach.path[0].source
    hops = "".join(f" --{s.type}--> {s.target}" for s in reach.path)
    return f"{first}{hops} ← mentioned in {doc_path}"

"""How two entities are connected: the shortest path (or every shortest path) over relations, in
either direction, each hop read the way it is walked.

Breadth first from both ends at once, growing the smaller frontier each time: on a graph where an
entity has d neighbours this reads about 2·d^(k/2) relations for a path of k hops instead of d^k.
A level is always finished before the two sides are compared, so every shortest path is seen.
"""

from __future__ import annotations

from ..access import Access
from ..errors import InvalidInput, NotFound
from ..model import Entity
from ..vocabulary import Vocabulary
from ..store.base import GraphStep, Store
from .cache import cache_for
from .neighbours import check_depth
from .view import GraphView, hop, plan, stepper

MAX_PATHS = 50  # shortest paths listed at most with all_paths; "truncated" says when there were more


def path(store: Store, vocab: Vocabulary, start: Entity, end: Entity, all_paths: bool = False, max_hops: int = 6,
         view: GraphView = GraphView(), *, access: Access) -> dict:
    """The shortest path(s) from start to end within max_hops; NotFound when there is none."""
    check_depth(max_hops, "max_hops")
    if start.id == end.id:
        raise InvalidInput(f"{start.name!r} is both ends of the path; give two different entities")
    read = plan(vocab, view)
    key = ("path", access, start.id, end.id, all_paths, max_hops, read)
    found = cache_for(store).get(store, key, lambda: _search(store, vocab, start, end, all_paths, max_hops,
                                                             read, access))
    if not found["paths"]:
        raise NotFound(found["why"], hint="read more of the graph: a larger max_hops, more types, or expired ones")
    return found


def _search(store, vocab, start, end, all_paths, max_hops, read, access) -> dict:
    steps = stepper(store, access, read)
    # For each side: entity -> its distance from that side's end, and the steps that reached it there.
    dist = ({start.id: 0}, {end.id: 0})
    came = ({start.id: []}, {end.id: []})
    frontier = ([start.id], [end.id])
    meet: set[int] = set()
    while not meet:
        if not frontier[0] or not frontier[1]:
            return _none(start, end, max_hops, disconnected=True)
        if dist[0][frontier[0][0]] + dist[1][frontier[1][0]] >= max_hops:
            return _none(start, end, max_hops, disconnected=False)
        side = 0 if len(frontier[0]) <= len(frontier[1]) else 1
        level = dist[side][frontier[side][0]] + 1
        grown: list[int] = []
        for step in steps(frontier[side], "both"):
            seen = dist[side].get(step.to_id)
            if seen is None:
                dist[side][step.to_id] = level
                came[side][step.to_id] = [step]
                grown.append(step.to_id)
            elif seen == level:
                came[side][step.to_id].append(step)
        frontier = (grown, frontier[1]) if side == 0 else (frontier[0], grown)
        meet = set(grown) & set(dist[1 - side])
    best = min(dist[0][n] + dist[1][n] for n in meet)
    middles = sorted(n for n in meet if dist[0][n] + dist[1][n] == best)
    names = {start.id: start.name, end.id: end.name}
    for side_came in came:
        for reached in side_came.values():
            names.update((step.to_id, step.to_name) for step in reached)
    routes: list[list[GraphStep]] = []
    seen_routes: set[tuple[int, ...]] = set()
    limit = MAX_PATHS if all_paths else 1
    truncated = False
    for middle in middles:
        for head in _routes(came[0], middle, limit + 1):
            for tail in _routes(came[1], middle, limit + 1):
                route = head + _reversed(tail, names)
                ids = tuple(s.relation_id for s in route)
                if ids in seen_routes:
                    continue
                if len(routes) == limit:
                    truncated = all_paths
                    break
                seen_routes.add(ids)
                routes.append(route)
    paths = [[hop(vocab, step, names[step.from_id]) for step in route] for route in routes]
    paths.sort(key=lambda p: [(h["to"], h["type"]) for h in p])
    return {"source": start.name, "source_id": start.id, "target": end.name, "target_id": end.id,
            "hops": best, "paths": paths, "count": len(paths), "truncated": truncated,
            "types": list(read.scope.types), "as_of": read.as_of}


def _routes(came: dict[int, list[GraphStep]], node: int, limit: int) -> list[list[GraphStep]]:
    """Up to limit step sequences from this side's end to node, each step in the order walked."""
    if not came[node]:
        return [[]]
    out: list[list[GraphStep]] = []
    for step in came[node]:
        for before in _routes(came, step.from_id, limit):
            out.append(before + [step])
            if len(out) >= limit:
                return out
    return out


def _reversed(route: list[GraphStep], names: dict[int, str]) -> list[GraphStep]:
    """Steps walked from the far end, turned to read from the middle towards it."""
    return [GraphStep(step.to_id, step.from_id, names[step.from_id], "", step.relation_id, step.type,
                      not step.outgoing, step.inferred) for step in reversed(route)]


def _none(start: Entity, end: Entity, max_hops: int, disconnected: bool) -> dict:
    why = (f"{start.name!r} and {end.name!r} are not connected by any relation read" if disconnected
           else f"no path from {start.name!r} to {end.name!r} within {max_hops} hops")
    return {"source": start.name, "target": end.name, "paths": [], "why": why}

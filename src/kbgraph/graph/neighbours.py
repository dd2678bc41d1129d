"""Everything within N hops of an entity: breadth first, grouped by distance, each entity with the
relation path that first reached it ("what does the billing service depend on, two hops out?")."""

from __future__ import annotations

from ..access import Access
from ..errors import InvalidInput
from ..model import Entity
from ..vocabulary import Vocabulary
from ..store.base import Store
from .cache import cache_for
from .view import GraphView, check_direction, hop, plan, stepper

MAX_DEPTH = 6


def check_depth(depth: int, param: str = "depth") -> int:
    if not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
        raise InvalidInput(f"`{param}` must be between 1 and {MAX_DEPTH}, not {depth!r}", param=param,
                           hint="1 is the direct relations; each more reaches one relation further")
    return depth


def neighbours(store: Store, vocab: Vocabulary, entity: Entity, depth: int = 1, direction: str = "both",
               view: GraphView = GraphView(), limit: int | None = None, *, access: Access) -> dict:
    """Entities within depth hops of entity, nearest first. limit caps the entities listed (the walk
    stops after the level that reaches it; "truncated" says so)."""
    check_depth(depth)
    if limit is not None and limit < 1:
        raise InvalidInput("`limit` must be at least 1", param="limit")
    read = plan(vocab, view)
    walk = check_direction(direction, read)
    key = ("neighbours", access, entity.id, depth, walk, read, limit)
    return cache_for(store).get(store, key, lambda: _walk(store, vocab, entity, depth, walk, read, limit, access,
                                                          direction))


def _walk(store, vocab, entity, depth, walk, read, limit, access, direction) -> dict:
    steps = stepper(store, access, read)
    paths: dict[int, list[dict]] = {entity.id: []}
    names = {entity.id: entity.name}
    levels: list[dict] = []
    frontier = [entity.id]
    truncated = False
    for distance in range(1, depth + 1):
        reached: dict[int, dict] = {}
        for step in sorted(steps(frontier, walk), key=lambda s: (s.to_name, s.type, s.relation_id)):
            if step.to_id in paths:
                if step.to_id in reached:
                    reached[step.to_id]["relations"] += 1
                continue
            names[step.to_id] = step.to_name
            paths[step.to_id] = [*paths[step.from_id], hop(vocab, step, names[step.from_id])]
            reached[step.to_id] = {"id": step.to_id, "name": step.to_name, "type": step.to_type,
                                   "path": paths[step.to_id], "relations": 1}
        if not reached:
            break
        listed = sorted(reached.values(), key=lambda e: (e["type"], e["name"].lower(), e["id"]))
        total = sum(len(level["entities"]) for level in levels)
        if limit is not None and total + len(listed) > limit:
            listed, truncated = listed[:limit - total], True
        levels.append({"distance": distance, "entities": listed})
        if truncated:
            break
        frontier = list(reached)
    return {"entity": entity.name, "entity_id": entity.id, "entity_type": entity.type, "depth": depth,
            "direction": direction, "types": list(read.scope.types), "as_of": read.as_of,
            "levels": levels, "count": sum(len(level["entities"]) for level in levels), "truncated": truncated}

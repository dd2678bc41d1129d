"""Which graph a question reads: relation types, a date to read it as of, inferred and expired
relations; and the one way every graph operation steps from entities to their neighbours.

Today's graph is read from the store a frontier at a time (a traversal reads only what it reaches).
The graph as of a past date is read whole from the relation history once, then walked in memory.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from ..access import Access
from ..errors import InvalidInput
from ..relations.history import as_of_date
from ..relations.reading import read_from
from ..vocabulary import Vocabulary
from ..store.base import GraphScope, GraphStep, Store

DIRECTIONS = ("out", "in", "both")

Steps = Callable[[list[int], str], list[GraphStep]]


@dataclass(frozen=True)
class GraphView:
    """What a graph question reads, as the user gave it: types in either direction's name; as_of a date
    (None: today); inferred relations only when asked; expired ones only when asked."""

    types: tuple[str, ...] = ()
    as_of: str | None = None
    include_inferred: bool = False
    include_expired: bool = False


@dataclass(frozen=True)
class ReadPlan:
    """A view checked against the vocabulary: the scope the store reads, the as-of date (or None),
    and whether every type was named from its target's side (so a direction reads flipped)."""

    scope: GraphScope
    as_of: str | None
    inverse_names: bool


def plan(vocab: Vocabulary, view: GraphView, today: str | None = None) -> ReadPlan:
    today = today or dt.date.today().isoformat()
    normals = [vocab.normalise(name) for name in view.types]
    as_of = as_of_date(view.as_of, today) if view.as_of else None
    types = tuple(sorted({n.type.name for n in normals}))
    inverse = bool(normals) and all(n.swapped and not n.type.symmetric for n in normals)
    active_on = None if view.include_expired and as_of is None else (as_of or today)
    return ReadPlan(GraphScope(types, active_on, view.include_inferred), as_of, inverse)


def check_direction(direction: str, read: ReadPlan) -> str:
    """The direction to walk: as given, flipped when the types were named from their target's side
    ("--type manages --direction out" follows whom the entity manages, stored as reports-to in)."""
    if direction not in DIRECTIONS:
        raise InvalidInput(f"`direction` {direction!r}: use one of {', '.join(DIRECTIONS)}", param="direction")
    if read.inverse_names and direction != "both":
        return "in" if direction == "out" else "out"
    return direction


def stepper(store: Store, access: Access, read: ReadPlan) -> Steps:
    """A function from (entity ids, direction) to the steps out of them, for the plan's graph."""
    if read.as_of is None:
        return lambda ids, direction: store.relation_steps(access, ids, direction, read.scope)
    return _steps_as_of(store, access, read)


def _steps_as_of(store: Store, access: Access, read: ReadPlan) -> Steps:
    """The graph as it was on read.as_of, from every relation version true then; an end that no longer
    exists as an entity is left out (there is nothing to show or walk to)."""
    ids = store.entity_ids_by_key()
    wanted = set(read.scope.types)
    out: dict[int, list[GraphStep]] = defaultdict(list)
    into: dict[int, list[GraphStep]] = defaultdict(list)
    for version in store.relations_as_of(access, None, "out", None, read.as_of or "", None):
        if wanted and version.type not in wanted:
            continue
        source, target = ids.get(version.source_key), ids.get(version.target_key)
        if source is None or target is None:
            continue
        out[source].append(GraphStep(source, target, version.target, version.target_type, version.relation_id,
                                     version.type, True, False))
        into[target].append(GraphStep(target, source, version.source, version.source_type, version.relation_id,
                                      version.type, False, False))

    def steps(entity_ids: list[int], direction: str) -> list[GraphStep]:
        found: list[GraphStep] = []
        for entity_id in entity_ids:
            if direction in ("out", "both"):
                found += out.get(entity_id, ())
            if direction in ("in", "both"):
                found += into.get(entity_id, ())
        return found

    return steps


def hop(vocab: Vocabulary, step: GraphStep, from_name: str) -> dict:
    """A step as read by the one who takes it: "Ana --reports-to--> Ben", or "Ben --manages--> Ana".
    from and to are the walk's order; subject, type and object the relation's sentence (the same
    ends unless a type has no name to read it backwards by)."""
    source, target = (from_name, step.to_name) if step.outgoing else (step.to_name, from_name)
    reading = read_from(vocab, step.type, source, target, step.outgoing)
    return {"from": from_name, "type": reading.type, "to": step.to_name, "subject": reading.subject,
            "object": reading.object, "relation_id": step.relation_id, **({"inferred": True} if step.inferred else {})}


def all_edges(store: Store, access: Access, read: ReadPlan) -> list[tuple[int, int, int, str, bool]]:
    """Every relation of the plan's graph as (source id, target id, relation id, type, inferred)."""
    if read.as_of is None:
        return store.relation_edges(access, read.scope)
    steps = stepper(store, access, read)
    ids = list(store.entity_ids_by_key().values())
    return sorted((s.from_id, s.to_id, s.relation_id, s.type, s.inferred) for s in steps(ids, "out"))

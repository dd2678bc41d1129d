"""GET /relations, POST /relations (relate), POST /relations/remove (unrelate), and the contradictions
relating can make: GET /relations/conflicts, POST /relations/conflicts/{id}/resolve."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query

from ...errors import InvalidInput
from ..deps import WS
from ..models import JSON, ConflictResolveBody, RelateBody, UnrelateBody
from . import Date

router = APIRouter(tags=["relations"])
ConflictId = Annotated[int, Path(ge=1, le=2**62)]
Settled = Annotated[bool, Query(alias="all", description="Also the conflicts already settled, and how.")]


# Before any /relations/{...} route a later change might add, so that "conflicts" is never read as a parameter.
@router.get("/relations/conflicts")
def conflicts(ws: WS, include_resolved: Settled = False) -> JSON:
    """`kbg graph conflicts [--all]`: contradictions between relations allowed one at a time, newest first."""
    from ...relations.conflict_resolution import list_conflicts

    rows = list_conflicts(ws, include_resolved)
    return {"count": len(rows), "conflicts": rows}


@router.post("/relations/conflicts/{conflict_id}/resolve")
def resolve_conflict(ws: WS, conflict_id: ConflictId, body: ConflictResolveBody) -> JSON:
    """`kbg graph resolve ID --keep old|new|both`: the relation not kept is true until yesterday (history stays)."""
    from ...relations.conflict_resolution import resolve

    return resolve(ws, conflict_id, body.keep)


@router.get("/relations")
def list_relations(ws: WS, name: Annotated[str | None, Query(max_length=500)] = None,
                   type: Annotated[str | None, Query(max_length=100)] = None, include_expired: bool = False,
                   as_of: Date = None, limit: Annotated[int, Query(ge=0, le=100_000)] = 100) -> JSON:
    """`kbg entity relations`: an entity's relations and inverse relations; without name, every relation of type."""
    from ...entities.lookup import find_entity
    from ...relations.history import relations_as_of
    from ...relations.records import entity_relations, relations_of_type

    vocab = ws.config.vocabulary
    if name is None:
        if not type:
            raise InvalidInput("give an entity `name`, or a `type` to list every relation of that type", param="name")
        rows = relations_of_type(ws.store, vocab, type, include_expired, access=ws.access)
        return {"type": type.strip().lower(), "count": len(rows), "relations": rows}
    entity = find_entity(ws.store, name, access=ws.access)
    if as_of:
        return relations_as_of(ws.store, vocab, entity, as_of, type, access=ws.access)
    return entity_relations(ws.store, vocab, entity, type, include_expired, limit=limit or None, access=ws.access)


@router.post("/relations")
def relate(ws: WS, body: RelateBody) -> JSON:
    """`kbg entity relate`: stored once and mirrored into the source entity's page under ## Relations."""
    from ...relations.edits import relate as run

    return run(ws, body.source, body.type, body.target, body.reason, body.source_doc, body.valid_until, body.create,
               body.since, body.context)


@router.post("/relations/remove")
def unrelate(ws: WS, body: UnrelateBody) -> JSON:
    """`kbg entity unrelate`: removes the relation and its page line (its history stays)."""
    from ...relations.edits import unrelate as run

    return run(ws, body.source, body.type, body.target)

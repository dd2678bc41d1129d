"""GET /relations, POST /relations (relate), POST /relations/remove (unrelate)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ...errors import InvalidInput
from ..deps import WS
from ..models import JSON, RelateBody, UnrelateBody
from . import Date

router = APIRouter(tags=["relations"])


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

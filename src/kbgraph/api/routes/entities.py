"""GET /entities, /entities/profile, /entities/timeline."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ...model import as_dict
from ..deps import WS
from ..models import JSON, EntityProfile
from . import Date, Name

router = APIRouter(tags=["entities"])
EntityType = Annotated[str | None, Query(max_length=100, description="Only entities of this type.")]


@router.get("/entities")
def list_entities(ws: WS, type: EntityType = None, limit: Annotated[int, Query(ge=0, le=100_000)] = 0) -> JSON:
    """`kbg entity list`: most mentioned first within each type (limit 0: all)."""
    rows = [as_dict(e) for e in ws.store.list_entities(ws.access, type, limit or None)]
    return {"count": len(rows), "entities": rows}


@router.get("/entities/profile", response_model=EntityProfile)
def profile(ws: WS, name: Name, type: EntityType = None, as_of: Date = None) -> JSON:
    """`kbg entity find`: relations, everything within two hops, where it is mentioned. An ambiguous name
    answers 409 with the candidates."""
    from ...documents.views import profile as run
    from ...entities.lookup import find_entity

    entity = find_entity(ws.store, name, type, access=ws.access, questions=True)
    return run(ws.store, entity, ws.config.vocabulary, access=ws.access, as_of=as_of)


@router.get("/entities/timeline")
def timeline(ws: WS, name: Name, type: EntityType = None) -> JSON:
    """`kbg entity timeline`: documents mentioning the entity, oldest first."""
    from ...documents.views import timeline as run
    from ...entities.lookup import find_entity

    entity = find_entity(ws.store, name, type, access=ws.access)
    docs = run(ws.store, entity, access=ws.access)
    return {"entity": {k: as_dict(entity)[k] for k in ("id", "type", "name")}, "count": len(docs), "documents": docs}

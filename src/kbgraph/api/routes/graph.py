"""GET /graph/neighbours, /graph/path, /graph/hubs."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query

from ..deps import WS
from ..models import JSON
from . import Date, Many, Name

router = APIRouter(prefix="/graph", tags=["graph"])


def _view(types: list[str], as_of: str | None, include_inferred: bool, include_expired: bool):
    from ...graph.view import GraphView

    return GraphView(tuple(types), as_of, include_inferred, include_expired)


@router.get("/neighbours")
def neighbours(ws: WS, entity: Name, depth: Annotated[int, Query(ge=1, le=6)] = 1,
               direction: Literal["out", "in", "both"] = "both", limit: Annotated[int, Query(ge=0, le=100_000)] = 200,
               type: Many = [], as_of: Date = None, include_inferred: bool = False,  # noqa: B006
               include_expired: bool = False) -> JSON:
    """`kbg graph neighbours`: entities within depth hops, nearest first, each with its path."""
    from ...entities.lookup import find_entity
    from ...graph.neighbours import neighbours as walk

    start = find_entity(ws.store, entity, access=ws.access)
    return walk(ws.store, ws.config.vocabulary, start, depth, direction,
                _view(type, as_of, include_inferred, include_expired), limit or None, access=ws.access)


@router.get("/path")
def path(ws: WS, source: Name, target: Name, all: bool = False, max_hops: Annotated[int, Query(ge=1, le=6)] = 6,
         type: Many = [], as_of: Date = None, include_inferred: bool = False,  # noqa: B006
         include_expired: bool = False) -> JSON:
    """`kbg graph path`: the shortest chain of relations between two entities, either direction."""
    from ...entities.lookup import find_entity
    from ...graph.paths import path as shortest

    return shortest(ws.store, ws.config.vocabulary, find_entity(ws.store, source, access=ws.access),
                    find_entity(ws.store, target, access=ws.access), all, max_hops,
                    _view(type, as_of, include_inferred, include_expired), access=ws.access)


@router.get("/hubs")
def hubs(ws: WS, limit: Annotated[int, Query(ge=1, le=1000)] = 10, by: Literal["degree", "pagerank"] = "degree",
         type: Many = [], as_of: Date = None, include_inferred: bool = False,  # noqa: B006
         include_expired: bool = False) -> JSON:
    """`kbg graph hubs`: the entities the graph turns on."""
    from ...graph.hubs import hubs as rank

    return rank(ws.store, ws.config.vocabulary, limit, by, _view(type, as_of, include_inferred, include_expired),
                access=ws.access)

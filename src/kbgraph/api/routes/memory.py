"""Agent context and memory: context, slice, facts, loops, brief, quick capture."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query

from ...errors import InvalidInput
from ...model import as_dict
from ..deps import WS
from ..models import JSON, FactBody, LoopBody, LoopResolveBody, NoteBody, SupersedeBody
from ...shapes import captured_json, context_json, loop_json, recorded_json, slice_json

router = APIRouter(tags=["memory"])
Id = Annotated[int, Path(ge=1, le=2**62)]
Entity = Annotated[str | None, Query(max_length=500)]


@router.get("/context")
def context(ws: WS, topic: Annotated[str | None, Query(alias="for", max_length=2000)] = None,
            budget: Annotated[int, Query(ge=1, le=100_000)] = 2000, items: Annotated[int, Query(ge=1, le=1000)] = 20
            ) -> JSON:
    """`kbg context`: entities, key relations and the best passages for a topic, under a token budget."""
    from ...context.agent import build_context

    return context_json(build_context(ws.store, ws.config, topic, budget, items, access=ws.access))


@router.get("/slice")
def slice_(ws: WS, name: Annotated[list[str], Query(min_length=1, max_length=10)],
           include_expired: bool = False, include_inferred: bool = False) -> JSON:
    """`kbg slice`: short lines on one to three entities (repeat name)."""
    from ...context.slice import slice_entities

    return slice_json(slice_entities(ws.store, ws.config, name, access=ws.access, include_expired=include_expired,
                                     include_inferred=include_inferred))


@router.get("/facts")
def facts(ws: WS, entity: Entity = None, all: bool = False) -> JSON:
    """`kbg fact list`: current facts of an entity (or every entity); all=true adds history."""
    from ...context.facts import list_facts

    rows = [as_dict(f) for f in list_facts(ws.store, ws.access, entity, all)]
    return {"entity": entity, "count": len(rows), "facts": rows}


@router.post("/facts")
def add_fact(ws: WS, body: FactBody) -> JSON:
    """`kbg fact add`: a `## Facts` line on the entity's page, when it has one."""
    from ...context.facts import add_fact as run

    return recorded_json(run(ws, body.entity, body.kind, body.text, body.date, body.source), "fact")


@router.post("/facts/{fact_id}/supersede")
def supersede_fact(ws: WS, body: SupersedeBody, fact_id: Id) -> JSON:
    """`kbg fact supersede`: a new fact replaces this one; the old one stays in history."""
    from ...context.facts import supersede_fact as run

    return recorded_json(run(ws, fact_id, body.text, body.kind, body.date, body.source), "fact")


@router.get("/loops")
def loops(ws: WS, entity: Entity = None, due: Annotated[str | None, Query(max_length=40)] = None,
          all: bool = False) -> JSON:
    """`kbg loop list`: open loops, soonest due first (due: DATE, today or overdue; all=true adds closed ones)."""
    from ...context.loops import list_loops
    from ...context.memory import today_iso

    today = today_iso()
    rows = [loop_json(x, today) for x in list_loops(ws.store, ws.access, entity, due, all)]
    return {"entity": entity, "due": due, "count": len(rows), "loops": rows}


@router.post("/loops")
def add_loop(ws: WS, body: LoopBody) -> JSON:
    """`kbg loop add`: an open loop about an entity ("ask about the surgery @2026-08-15")."""
    from ...context.loops import add_loop as run

    return recorded_json(run(ws, body.entity, body.text, body.due, body.source), "loop")


@router.post("/loops/{loop_id}/resolve")
def resolve_loop(ws: WS, body: LoopResolveBody, loop_id: Id) -> JSON:
    """`kbg loop resolve`: its page line is ticked; it stays in history."""
    from ...context.loops import resolve_loop as run

    return recorded_json(run(ws, loop_id, body.on), "loop")


@router.get("/brief")
def brief(ws: WS, entity: Entity = None, today: bool = False) -> JSON:
    """`kbg brief`: at most three things worth knowing about an entity, or (today=true) across entities."""
    from ...context.brief import brief_entity, brief_today

    if bool(entity) == today:
        raise InvalidInput("give an `entity` or `today`, not both", param="entity")
    result = brief_today(ws.store, ws.access) if today else brief_entity(ws.store, ws.access, ws.config.vocabulary,
                                                                           entity or "")
    return as_dict(result)


@router.post("/note")
def note(ws: WS, body: NoteBody) -> JSON:
    """`kbg note`: "person: Arjun; int: fountain pens; loop: ask about surgery @2026-08-15" stores facts and
    loops about one entity (all or nothing); free text goes to today's daily note. A name kbgraph is not sure
    of comes back as `questions` with `stored: false` and nothing stored: send it again with confirm=true."""
    from ...context.capture import capture

    return captured_json(capture(ws, body.text, body.confirm))

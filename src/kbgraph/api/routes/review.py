"""The review queues: relation suggestions and resolution questions, with their answers."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path

from ..deps import WS
from ..models import JSON

router = APIRouter(tags=["review"])
Id = Annotated[int, Path(ge=1, le=2**62)]


@router.get("/suggestions")
def suggestions(ws: WS, status: Literal["pending", "accepted", "rejected"] = "pending") -> JSON:
    """`kbg entity suggestions`: suggested relations with the sentence that states each."""
    from ...relations.suggestions import list_suggestions

    rows = list_suggestions(ws.store, status, access=ws.access)
    return {"status": status, "count": len(rows), "suggestions": rows}


@router.post("/suggestions/{suggestion_id}/accept")
def accept(ws: WS, suggestion_id: Id) -> JSON:
    """`kbg entity accept`: the suggestion becomes a relation (mirrored to the source's page)."""
    from ...relations.suggestions import accept as run

    return run(ws, suggestion_id)


@router.post("/suggestions/{suggestion_id}/reject")
def reject(ws: WS, suggestion_id: Id) -> JSON:
    """`kbg entity reject`: remembered, and not suggested again."""
    from ...relations.suggestions import reject as run

    return run(ws, suggestion_id)


@router.get("/resolve/pending")
def pending(ws: WS) -> JSON:
    """`kbg resolve pending`: is this name that entity?"""
    from ...resolve.answers import pending as run

    rows = run(ws.store, access=ws.access)
    return {"count": len(rows), "questions": rows}


@router.post("/resolve/{question_id}/confirm")
def confirm(ws: WS, question_id: Id) -> JSON:
    """`kbg resolve confirm`: yes, the name is that entity."""
    from ...resolve.answers import confirm as run

    return run(ws, question_id)


@router.post("/resolve/{question_id}/reject")
def reject_question(ws: WS, question_id: Id) -> JSON:
    """`kbg resolve reject`: no; the pair is never asked about again."""
    from ...resolve.answers import reject as run

    return run(ws, question_id)

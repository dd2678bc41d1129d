"""The review queues: relation suggestions and resolution questions, with their answers."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query

from ..deps import WS
from ..models import JSON

router = APIRouter(tags=["review"])
Id = Annotated[int, Path(ge=1, le=2**62)]


@router.get("/suggestions")
def suggestions(ws: WS, status: Literal["pending", "accepted", "rejected"] = "pending",
                from_doc: Annotated[str | None, Query(max_length=1000, description="Only what this document states.")]
                = None, min_confidence: Literal["high", "low"] = "low") -> JSON:
    """`kbg entity suggestions` (and `suggest-relations --from-doc --min-confidence`): suggested relations
    with the sentence that states each."""
    from ...relations.suggestions import list_suggestions

    rows = list_suggestions(ws.store, status, from_doc, min_confidence, access=ws.access)
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
    from ...resolve.explain import with_reasons

    rows = with_reasons(run(ws.store, access=ws.access))
    return {"count": len(rows), "questions": rows}


@router.get("/resolve/log")
def log(ws: WS, outcome: Literal["auto-linked", "asked", "confirmed", "rejected", "new"] | None = None) -> JSON:
    """`kbg resolve log`: every resolution decision, oldest first."""
    from ...resolve.explain import with_reasons

    rows = with_reasons(ws.store.decisions(ws.access, outcome))
    return {"count": len(rows), "decisions": rows}


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

"""Answering a question about a name in running text (resolve/prose.py): no entity stands behind the
name, so a yes is remembered in the log, not merged; every document is scanned again, and the
resolver links the name wherever it is written (a short name, only where the note's context agrees)."""

from __future__ import annotations

from ..base.workspace import Workspace


def confirm_prose(ws: Workspace, decision_id: int, question: dict) -> dict:
    """Redoable like the other answers: the answer and the re-scan flag in one transaction, then the
    re-index (a run killed before it leaves the flag set for the next index)."""
    from .decisions import answered_at

    with ws.store.transaction():
        if question["outcome"] != "confirmed":
            ws.store.decide(decision_id, "confirmed", "user", answered_at(question))
        ws.store.set_meta("mentions_rescan_all", "1")
    ws.refresh()
    return {"id": decision_id, "outcome": "confirmed", "surface": question["surface"],
            "entity": question["candidate_name"], "aliases": [],
            "documents": [question["doc_path"]] if question["doc_path"] else []}

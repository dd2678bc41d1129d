"""Reviewing what extraction suggests: list, accept (it becomes a relation), reject (never asked again)."""

from __future__ import annotations

from .errors import InvalidInput, NotFound
from .relations import now_iso

CONFIDENCE_LEVELS = {"high": ("auto-high",), "low": ("auto-high", "auto-low")}


def list_suggestions(store, status: str | None = "pending", doc_path: str | None = None,
                     min_confidence: str = "low") -> list[dict]:
    if status not in (None, "pending", "accepted", "rejected"):
        raise InvalidInput(f"--status {status!r}: use pending, accepted or rejected")
    if min_confidence not in CONFIDENCE_LEVELS:
        raise InvalidInput(f"--min-confidence {min_confidence!r}: use high or low")
    if doc_path is not None and store.get_document(path=doc_path.removeprefix("./")) is None:
        raise NotFound(f"--from-doc {doc_path!r} is not in the index; give a vault-relative path (`kbg list`)")
    return store.suggestions(status, doc_path and doc_path.removeprefix("./"), CONFIDENCE_LEVELS[min_confidence])


def accept(ws, suggestion_id: int) -> dict:
    """Make a pending suggestion a relation (its evidence document kept as the source doc)."""
    from .relation_edits import relate_entities

    store = ws.store
    suggestion = _pending(store, suggestion_id)
    evidence = store.suggestion_evidence(suggestion_id)
    # The note may have changed or gone since the suggestion was made: keep only evidence still on disk.
    docs = (store.get_document(doc_id=e["doc_id"]) for e in evidence if e["doc_id"] is not None)
    doc = next((d for d in docs if d is not None and (ws.root / d["path"]).is_file()), None)
    relation = relate_entities(ws, store.get_entity(suggestion["source_id"]), suggestion["type"],
                               store.get_entity(suggestion["target_id"]), None, doc, None, False,
                               suggestion["confidence"])
    with store.transaction():
        store.decide_suggestion(suggestion_id, "accepted", now_iso())
    note = None if doc else "the document that stated it is gone; its sentence is kept as evidence"
    return {"id": suggestion_id, "status": "accepted", "relation": relation, "evidence": evidence, "note": note}


def reject(ws, suggestion_id: int) -> dict:
    """Remember that a suggestion is wrong: it is not suggested again, whatever the text says."""
    _pending(ws.store, suggestion_id)
    with ws.store.transaction():
        ws.store.decide_suggestion(suggestion_id, "rejected", now_iso())
    return {"id": suggestion_id, "status": "rejected"}


def _pending(store, suggestion_id: int) -> dict:
    suggestion = store.get_suggestion(suggestion_id)
    if suggestion is None:
        raise NotFound(f"no suggestion {suggestion_id}; `kbg entity suggestions` lists them")
    if suggestion["status"] != "pending":
        raise InvalidInput(f"suggestion {suggestion_id} was {suggestion['status']} already")
    return suggestion

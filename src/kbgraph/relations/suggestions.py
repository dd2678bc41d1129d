"""Reviewing what extraction suggests: list, accept (it becomes a relation), reject (never asked again)."""

from __future__ import annotations

from ..access import LOCAL, Access
from ..errors import InvalidInput, NotFound
from .records import now_iso
from ..store.base import Store
from ..base.workspace import Workspace

CONFIDENCE_LEVELS = {"high": ("auto-high",), "low": ("auto-high", "auto-low")}


def list_suggestions(store: Store, status: str | None = "pending", doc_path: str | None = None,
                     min_confidence: str = "low", *, access: Access) -> list[dict]:
    if status not in (None, "pending", "accepted", "rejected"):
        raise InvalidInput(f"`status` {status!r}: use pending, accepted or rejected", param="status")
    if min_confidence not in CONFIDENCE_LEVELS:
        raise InvalidInput(f"`min_confidence` {min_confidence!r}: use high or low", param="min_confidence")
    if doc_path is not None and store.get_document(access, path=doc_path.removeprefix("./")) is None:
        raise NotFound(f"`doc_path` {doc_path!r} is not in the index", param="doc_path",
                       hint="give a vault-relative path")
    return store.suggestions(access, status, doc_path and doc_path.removeprefix("./"), CONFIDENCE_LEVELS[min_confidence])


def extract_now(ws: Workspace, paths: list[str], progress=None) -> dict:
    """Run extraction again, now, on these documents (all of them if none are given): the pattern rules
    and, when kbgraph.toml configures one, the LLM extractor. Returns what the index run reported and
    the pending suggestions of those documents."""
    store = ws.store
    docs = []
    for path in paths:
        doc = store.get_document(ws.access, path=path.removeprefix("./"))
        if doc is None:
            raise NotFound(f"{path!r} is not in the index", param="paths", hint="give a vault-relative path")
        docs.append(doc)
    with store.transaction():
        store.mark_for_rescan([d["id"] for d in docs] if docs else None)
    report = ws.reindex(progress=progress)
    by_id = {s["id"]: s for d in docs for s in store.suggestions(ws.access, "pending", d["path"])}
    pending = sorted(by_id.values(), key=lambda s: s["id"]) if docs else store.suggestions(ws.access, "pending")
    return {"documents": len(docs) if docs else store.stats()["documents"], "report": report, "pending": pending}


def accept(ws: Workspace, suggestion_id: int) -> dict:
    """Make a pending suggestion a relation (its evidence document kept as the source doc).

    Redoable: the suggestion is marked accepted before anything else, under its own number. Creating
    a new end re-indexes, and a re-scan drops pending suggestions no text states in their old form
    (the end is known now), so a run killed after that lost the suggestion ("no suggestion 2"); an
    accepted one is kept. Accepted again, a suggestion whose relation is missing is related now, and
    one whose relation exists is reported as it is."""
    from .edits import relate_entities

    store = ws.store
    suggestion = _answerable(store, ws.access, suggestion_id, "accepted")
    evidence = store.suggestion_evidence(suggestion_id)
    redo = suggestion["status"] == "accepted"
    if not redo:
        with store.transaction():
            store.decide_suggestion(suggestion_id, "accepted", now_iso())
    source, target = (_end_entity(ws, suggestion, end) for end in ("source", "target"))
    successor = _restated_id(store, suggestion, source, target)
    if not evidence and successor is not None:  # the re-scan moved the sentences to the restated one
        evidence = store.suggestion_evidence(successor)
    evidence = _readable_evidence(store, ws.access, evidence)
    # The note may have changed or gone since the suggestion was made: keep only evidence still on disk.
    docs = [d for d in (store.get_document(ws.access, doc_id=e["doc_id"]) for e in evidence if e["doc_id"] is not None)
            if d is not None]
    doc = next((d for d in docs if (ws.root / d["path"]).is_file()), None)
    # It was true when the notes said it: from the earliest dated note that states it, not the day of review.
    # A start the relation has already (one the user wrote) is kept.
    since = None if _start_known(ws, suggestion, source, target) else min(
        (d["date"][:10] for d in docs if d.get("date")), default=None)
    relation = _related_already(ws, suggestion, source, target) if redo else None
    if relation is not None:  # a first run killed after writing it may not have re-read the page it wrote
        ws.reread({page for page in (source.page_path, target.page_path) if page})
    if relation is None:
        relation = relate_entities(ws, source, suggestion["type"], target, None, doc, None, False,
                                   suggestion["confidence"], since=since)
    if successor is not None:
        with store.transaction():
            store.decide_suggestion(successor, "accepted", now_iso())
    note = None if doc else "the document that stated it is gone; its sentence is kept as evidence"
    created = [e.name for e, end in ((source, "source"), (target, "target")) if suggestion[f"new_{end}"]]
    return {"id": suggestion_id, "status": "accepted", "relation": relation, "evidence": evidence, "note": note,
            "created": created}


def _readable_evidence(store: Store, access: Access, evidence: list[dict]) -> list[dict]:
    """The evidence in notes the access may read (all of it for a reader of every row): a reader who
    accepts a suggestion is shown, and relates from, only the support it may read."""
    if access.sees_everything:
        return evidence
    return [e for e in evidence if e["doc_id"] is not None and store.get_document(access, doc_id=e["doc_id"])]


def _end_entity(ws: Workspace, suggestion: dict, end: str):
    """The entity at one end; a new one (a technology of the bundled list, an @handle) is created now
    (or found: a run killed after creating it)."""
    from .edits import create_entity

    if suggestion[f"new_{end}"]:
        return create_entity(ws, suggestion[f"{end}_type"], suggestion[end])
    return ws.store.get_entity(LOCAL, suggestion[f"{end}_id"])


def _restated_id(store: Store, suggestion: dict, source, target) -> int | None:
    """Creating an entity re-indexes, and the re-scan states the same relation between known entities
    as a suggestion of its own: the same assertion, accepted with this one. Read from every status: the
    pending list leaves out a suggestion whose relation exists, as it does once a first run that was
    killed after relating is run again."""
    if not (suggestion["new_source"] or suggestion["new_target"]):
        return None
    same = [s for s in store.suggestions(LOCAL) if s["status"] == "pending" and s["source_id"] == source.id
            and s["target_id"] == target.id and s["type"] == suggestion["type"]]
    return same[0]["id"] if same else None


def _related_already(ws: Workspace, suggestion: dict, source, target) -> dict | None:
    """The relation an accepted suggestion made, as relate_entities reports it; None if it is missing."""
    from .records import canonical, today_iso, view_row

    vocab = ws.config.vocabulary
    rtype, src, tgt = canonical(vocab, source, suggestion["type"], target)
    row = ws.store.get_relation(src.id, tgt.id, rtype.name)
    if row is None:
        return None
    _, data = view_row(row, vocab, src.id, today_iso())
    return {"source": src.name, "target": tgt.name, **data, "origin": row["origin"],
            "mirrored_to": row["origin_doc"] if row["origin"] == "page" else None, "conflicts": []}


def _start_known(ws: Workspace, suggestion: dict, source, target) -> bool:
    from .records import canonical

    rtype, src, tgt = canonical(ws.config.vocabulary, source, suggestion["type"], target)
    row = ws.store.get_relation(src.id, tgt.id, rtype.name)
    return row is not None and row["valid_from"] is not None


def reject(ws: Workspace, suggestion_id: int) -> dict:
    """Remember that a suggestion is wrong: it is not suggested again, whatever the text says.
    Rejecting it again (a run whose answer was lost) says the same, not an error."""
    suggestion = _answerable(ws.store, ws.access, suggestion_id, "rejected")
    if suggestion["status"] == "pending":
        with ws.store.transaction():
            ws.store.decide_suggestion(suggestion_id, "rejected", now_iso())
    return {"id": suggestion_id, "status": "rejected"}


def _answerable(store: Store, access: Access, suggestion_id: int, answer: str) -> dict:
    """A pending suggestion, or one given this same answer before (a run to redo); the other answer
    given already is refused."""
    suggestion = store.get_suggestion(access, suggestion_id)
    if suggestion is None:
        raise NotFound(f"no suggestion {suggestion_id}", param="suggestion_id", hint="list the suggestions to see them")
    if suggestion["status"] not in ("pending", answer):
        raise InvalidInput(f"suggestion {suggestion_id} was {suggestion['status']} already")
    return suggestion

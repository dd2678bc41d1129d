"""Answers to the resolver's questions (confirm, reject) and calibration from them: user actions
that change the entity set and re-index, so they sit above the pipeline, not inside it."""

from __future__ import annotations

import json

from ..access import LOCAL, Access
from ..errors import InvalidInput, NotFound
from .decisions import WEIGHTS_META, current_weights, thresholds
from ..store.base import Store
from ..base.workspace import Workspace


def pending(store: Store, access: Access) -> list[dict]:
    return store.decisions(access, "asked")


def confirm(ws: Workspace, decision_id: int) -> dict:
    """The name is that entity. A name that says enough ("Arjoon Mehta") becomes the entity's alias
    everywhere: a recorded merge (undo: `kbg entity unmerge`). A name that says little ("Sam", "AJ",
    "T. Becker") is linked in the documents that use it now, and becomes a confirmed name of the
    entity: a lookup, a search and the mention scan find the entity by it, as by a first name (where
    another entity shares it, both are listed, never one picked); a reference to it in another note's
    frontmatter means the entity too, as a lookup does, while a "Sam" another entity also goes by is
    asked about again (resolve/references.py). Either way the answer is in the decision log, which
    `kbg index --full` keeps and `kbg export` carries. The result reports what the name now finds.

    An answer about an entity that no longer exists (its page was deleted since the question was
    asked) is refused with nothing changed; the question stays open until the next index, which
    withdraws it (nothing raises it any more).

    Redoable: the answer is saved before it is applied, so a question already confirmed is applied
    again rather than refused; a run killed between the two (or confirming twice) completes the
    merge, or the links' re-index, on the next run. Each application is idempotent."""
    from ..curation.merging import merge_entities
    from .decisions import answered_at

    question = _question(ws.store, ws.access, decision_id, answering="confirmed")
    _require_candidate(ws.store, decision_id, question)
    from .duplicate_pages import confirm_duplicate
    from .duplicate_questions import is_duplicate_question

    if is_duplicate_question(question):  # two pages of one entity: linked in the page, never merged in the index
        return confirm_duplicate(ws, decision_id, question)
    from .prose import is_prose_question

    if is_prose_question(question):  # a name in running text: no entity to merge; linked where written
        from .prose_answers import confirm_prose

        with ws.store.transaction():  # like any confirmed name, it joins its entity when the set is rebuilt
            ws.store.set_meta("entities_dirty", "1")
        return {**confirm_prose(ws, decision_id, question),
                **_findable(ws, question["surface"], question["candidate_key"])}
    if _low_information(question) or _namesakes_name(ws.store, question):
        return _link_in_documents(ws, decision_id, question)
    redo = question["outcome"] == "confirmed"
    if not redo:
        # Answered first: the merge re-indexes, and a question nothing raises any more would be withdrawn.
        with ws.store.transaction():
            ws.store.decide(decision_id, "confirmed", "user", answered_at(question))
    try:
        result = merge_entities(ws, question["surface"], question["candidate_name"])
    except Exception:
        if not redo:  # a merge refused (or failed) with nothing done: the question is open again
            with ws.store.transaction():
                ws.store.decide(decision_id, "asked", question["decided_by"], question["decided_at"])
        raise
    return {"id": decision_id, "outcome": "confirmed", "surface": question["surface"], "entity": result["into"],
            "documents": [], **_findable(ws, question["surface"], question["candidate_key"])}


def _require_candidate(store: Store, decision_id: int, question: dict) -> None:
    """The entity the question is about exists (or was merged into one that does)."""
    key, merged = question["candidate_key"], {m.from_key: m.into_key for m in store.merges()}
    seen = set()
    while key in merged and key not in seen:
        seen.add(key)
        key = merged[key]
    if not key or key not in store.entity_ids_by_key():
        raise InvalidInput(f"question {decision_id}: {question['candidate_name'] or '?'} is no longer an entity "
                           "(its page was removed or renamed); nothing was changed", param="decision_id",
                           hint="reject it, or index again: the question is withdrawn when nothing raises it")


def _findable(ws: Workspace, surface: str, candidate_key: str) -> dict:
    """What the answer made findable: the entity's aliases and confirmed names, and what a lookup of
    the name now gives ("unique": that entity; "ambiguous": it among others, listed in also_named)."""
    from ..entities.lookup import find_entity
    from ..entities.names import name_key
    from ..errors import Ambiguous

    entity_type = candidate_key.split(":", 1)[0]
    candidate_id = ws.store.entity_ids_by_key().get(candidate_key)
    others: list[str] = []
    try:
        found = find_entity(ws.store, surface, entity_type, access=ws.access, questions=True)
        lookup = "unique" if found.id == candidate_id else "another entity"
        others = [] if lookup == "unique" else [found.name]
    except Ambiguous as exc:
        lookup = "ambiguous"
        listed = [c for c in exc.candidates if c["id"] is None or c["id"] != candidate_id]
        names = [c["name"] for c in exc.candidates]
        others = [_shown(c) if names.count(c["name"]) > 1 else c["name"] for c in listed]
    except NotFound:
        lookup = "not found"
    entity = next((e for e in ws.store.entities_by_name_key(ws.access, name_key(surface))
                   if e.id == candidate_id), None)
    return {"aliases": list(entity.aliases) if entity else [],
            "confirmed_names": ws.store.entity_surfaces(entity.id, "confirmed") if entity else [],
            "lookup": lookup, "also_named": others}


def _namesakes_name(store: Store, question: dict) -> bool:
    """The name is the own name of several entities with a page (namesakes: pages whose identifiers
    disagree, entities/namesakes.py): an answer says who it is in the notes asked about, never in all."""
    from ..entities.names import name_key

    named = [e for e in store.entities_by_name_key(LOCAL, name_key(question["surface"]))
             if e.type == question["surface_type"] and e.page_path and name_key(e.name) == name_key(question["surface"])]
    return len(named) > 1


def _shown(candidate: dict) -> str:
    """A candidate's name with its page: for namesakes, whose names alone say nothing."""
    page = candidate.get("page_path")
    return f"{candidate['name']} ({page})" if page else candidate["name"]


def _low_information(question: dict) -> bool:
    from .features import Features

    try:
        features = Features.from_dict(question["features"])
        return features.low_info and features.email != 1.0  # an address names one person everywhere
    except (KeyError, TypeError, ValueError):
        return len(question["surface"].split()) < 2


def _link_in_documents(ws: Workspace, decision_id: int, question: dict) -> dict:
    from ..entities.names import name_key
    from ..relations.records import now_iso

    store, now = ws.store, now_iso()
    docs = store.docs_claiming(question["surface_type"], question["surface"])
    # The links and the answer in one transaction: answered means linked. Confirmed again (a run killed
    # before its re-index), the links are written again (each is one row per document and name).
    with store.transaction():
        for path in docs:
            store.add_reference_link(path, question["surface_type"], name_key(question["surface"]),
                                     question["candidate_key"], question["candidate_name"], now)
        if question["outcome"] != "confirmed":
            store.decide(decision_id, "confirmed", "user", now)
        store.set_meta("entities_dirty", "1")
    ws.refresh()
    return {"id": decision_id, "outcome": "confirmed", "surface": question["surface"],
            "entity": question["candidate_name"], "documents": docs,
            **_findable(ws, question["surface"], question["candidate_key"])}


def reject(ws: Workspace, decision_id: int) -> dict:
    """The name is not that entity: never asked again for this pair. A short name or a name in prose
    confirmed earlier (no merge was made) is taken back so too: its links in documents are removed and
    it is no longer a confirmed name of the entity. A confirmed merge is undone by unmerging instead."""
    from ..entities.names import name_key
    from .decisions import answered_at
    from .prose import is_prose_question

    question = _question(ws.store, ws.access, decision_id, answering="rejected")
    with ws.store.transaction():
        if question["outcome"] == "confirmed" and question["candidate_key"]:
            ws.store.remove_reference_links(question["surface_type"], name_key(question["surface"]),
                                            question["candidate_key"])
        if question["outcome"] != "rejected":  # rejected again (a run killed before its re-index): re-index
            ws.store.decide(decision_id, "rejected", "user", answered_at(question))
        ws.store.set_meta("entities_dirty", "1")  # the next best candidate, if any, may be asked about
        if is_prose_question(question):  # asked by the mention scan, which only a re-scan runs again
            ws.store.set_meta("mentions_rescan_all", "1")
    ws.refresh()
    return {"id": decision_id, "outcome": "rejected", "surface": question["surface"],
            "entity": question["candidate_name"]}


def _question(store: Store, access: Access, decision_id: int, answering: str) -> dict:
    """The question, open or given this same answer before (to be applied again); another answer given
    already is refused."""
    question = store.get_decision(access, decision_id)
    if question is None:
        raise NotFound(f"no question {decision_id}", param="decision_id", hint="list the pending questions to see them")
    if question["outcome"] not in ("asked", answering) and not (answering == "rejected" and _taken_back(question)):
        raise InvalidInput(f"question {decision_id} was answered already ({question['outcome']})",
                           hint="unmerging the entity undoes a confirmed merge; removing the same_as line of "
                                "a page undoes a confirmed duplicate")
    return question


def _taken_back(question: dict) -> bool:
    """A confirmation that made no merge and wrote no page (a short name, a name in prose) may be
    rejected after all: nothing else could undo it."""
    from .duplicate_questions import is_duplicate_question
    from .prose import is_prose_question

    if question["outcome"] != "confirmed" or is_duplicate_question(question):
        return False
    return is_prose_question(question) or _low_information(question)


def calibrate(store: Store, config, dry_run: bool = False) -> dict:
    """Refit the weights from confirmed and rejected decisions; report both models on those answers."""
    from ..relations.records import now_iso
    from .duplicate_questions import is_duplicate_question
    from .features import Features
    from .scoring import Example, calibration_report, fit

    examples = [Example(Features.from_dict(d["features"]), d["outcome"] == "confirmed")
                for d in store.decisions(LOCAL) if d["outcome"] in ("confirmed", "rejected") and d["features"]
                and not d["features"].get("unmerged")
                and not is_duplicate_question(d)]  # two pages compared by another model (resolve/duplicates.py)
    labels = {e.same for e in examples}
    if len(examples) < 2 or labels != {True, False}:
        raise InvalidInput(f"calibration needs confirmed and rejected answers; the log has {len(examples)} "
                           "usable ones", hint="confirm or reject some of its questions")
    before = current_weights(store)
    after = fit(examples, before)
    report = calibration_report(examples, before, after, thresholds(config))
    if not dry_run:
        with store.transaction():
            store.set_meta(WEIGHTS_META, json.dumps({"version": after.version, "weights": after.as_dict(),
                                                     "fitted_at": now_iso(), "examples": len(examples)}))
            store.set_meta("entities_dirty", "1")
    return {"examples": len(examples), "same": report.positives, "saved": not dry_run,
            "before": {"version": before.version, **_metrics(report.before)},
            "after": {"version": after.version, **_metrics(report.after)}, "weights": after.as_dict()}


def _metrics(metrics) -> dict:
    from dataclasses import asdict

    return {k: round(v, 4) if isinstance(v, float) else v for k, v in asdict(metrics).items()}

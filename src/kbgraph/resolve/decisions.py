"""The decision log and the questions it holds: write what the resolver decided, answer a question,
and refit the weights from the answers (`kbg resolve pending|confirm|reject|calibrate`)."""

from __future__ import annotations

import json

from ..errors import InvalidInput, NotFound
from ..model import Merge
from .references import ReferenceDecision
from .scoring import DEFAULT_WEIGHTS, Thresholds, Weights

WEIGHTS_META = "resolve_weights"


def current_weights(store) -> Weights:
    """The weights `kbg resolve calibrate` last saved, else the hand-set defaults."""
    raw = store.get_meta(WEIGHTS_META)
    if not raw:
        return DEFAULT_WEIGHTS
    data = json.loads(raw)
    return Weights.from_dict(data["version"], data["weights"])


def thresholds(config) -> Thresholds:
    return Thresholds(auto=config.resolve.auto, ask=config.resolve.ask)


def record_reference_decisions(store, decisions: list[ReferenceDecision], now: str) -> int:
    """Log the decisions (inside the caller's transaction). An auto-link becomes a recorded merge, or,
    for a name that says little ("Sam" linked by its company in the note), a link in the documents
    that use it, never an alias everywhere. Returns how many links or merges were added. Questions
    nothing raises any more are withdrawn."""
    from ..entities.names import name_key

    decided = store.decided_pairs()
    logged_new = store.logged_new_keys()
    merged_away = {m.from_key for m in store.merges()}
    asked, merges = set(), 0
    for d in decisions:
        for entity_key, name, candidate in d.candidates:
            pair = (d.surface_key, entity_key)
            if d.outcome == "auto-link" and candidate.features.low_info and candidate.features.email != 1.0:
                for path in d.doc_paths:
                    store.add_reference_link(path, d.type, name_key(d.surface), entity_key, name, now)
                merges += 1
                _log(store, d, entity_key, name, candidate, "auto-linked", now)
            elif d.outcome == "auto-link":
                if d.record_key in merged_away:
                    continue
                entity_type = entity_key.split(":", 1)[0]
                store.add_merge(Merge(d.record_key, d.type, d.surface, entity_key, entity_type, name),
                                {"moved": [], "collapsed": [], "dropped": [], "resolved": True}, now)
                merged_away.add(d.record_key)
                merges += 1
                _log(store, d, entity_key, name, candidate, "auto-linked", now)
            elif d.outcome == "ask":
                asked.add(pair)
                if decided.get(pair) not in ("asked", "rejected"):  # a confirmation elsewhere: ask here too
                    _log(store, d, entity_key, name, candidate, "asked", now)
        if d.outcome == "new" and d.surface_key not in logged_new:
            best = d.candidates[0] if d.candidates else (None, None, None)
            _log(store, d, best[0], best[1], best[2], "new", now)
            logged_new.add(d.surface_key)
    store.drop_open_questions(asked)
    return merges


def _log(store, d: ReferenceDecision, entity_key, name, candidate, outcome: str, now: str) -> None:
    store.add_decision({
        "surface": d.surface, "surface_key": d.surface_key, "surface_type": d.type, "candidate_key": entity_key,
        "candidate_name": name, "score": round(candidate.score, 6) if candidate else None,
        "features": candidate.features.as_dict() if candidate else {}, "outcome": outcome,
        "decided_by": "kbgraph", "doc_path": d.doc_path, "created_at": now,
        "decided_at": None if outcome == "asked" else now,
    })


def pending(store) -> list[dict]:
    return store.decisions("asked")


def confirm(ws, decision_id: int) -> dict:
    """The name is that entity. A name that says enough ("Arjoon Mehta") becomes the entity's alias
    everywhere: a recorded merge (undo: `kbg entity unmerge`). A name that says little ("Sam", "AJ")
    is linked only in the documents that use it now: a "Sam" in another note is asked about again."""
    from ..entities.merging import merge_entities
    from ..relations.records import now_iso

    question = _open(ws.store, decision_id)
    if _low_information(question):
        return _link_in_documents(ws, decision_id, question)
    # Answered first: the merge re-indexes, and a question nothing raises any more would be withdrawn.
    with ws.store.transaction():
        ws.store.decide(decision_id, "confirmed", "user", now_iso())
    try:
        result = merge_entities(ws, question["surface"], question["candidate_name"])
    except BaseException:
        with ws.store.transaction():
            ws.store.decide(decision_id, "asked", question["decided_by"], question["decided_at"])
        raise
    return {"id": decision_id, "outcome": "confirmed", "surface": question["surface"],
            "entity": result["into"], "aliases": result["aliases"], "documents": []}


def _low_information(question: dict) -> bool:
    from .features import Features

    try:
        features = Features.from_dict(question["features"])
        return features.low_info and features.email != 1.0  # an address names one person everywhere
    except (KeyError, TypeError, ValueError):
        return len(question["surface"].split()) < 2


def _link_in_documents(ws, decision_id: int, question: dict) -> dict:
    from ..entities.names import name_key
    from ..ingest.pipeline import refresh_index
    from ..relations.records import now_iso

    store, now = ws.store, now_iso()
    docs = store.docs_claiming(question["surface_type"], question["surface"])
    with store.transaction():
        for path in docs:
            store.add_reference_link(path, question["surface_type"], name_key(question["surface"]),
                                     question["candidate_key"], question["candidate_name"], now)
        store.decide(decision_id, "confirmed", "user", now)
        store.set_meta("entities_dirty", "1")
    refresh_index(ws)
    return {"id": decision_id, "outcome": "confirmed", "surface": question["surface"],
            "entity": question["candidate_name"], "aliases": [], "documents": docs}


def reject(ws, decision_id: int) -> dict:
    """The name is not that entity: never asked again for this pair."""
    from ..relations.records import now_iso

    question = _open(ws.store, decision_id)
    with ws.store.transaction():
        ws.store.decide(decision_id, "rejected", "user", now_iso())
        ws.store.set_meta("entities_dirty", "1")  # the next best candidate, if any, may be asked about
    from ..ingest.pipeline import refresh_index

    refresh_index(ws)
    return {"id": decision_id, "outcome": "rejected", "surface": question["surface"],
            "entity": question["candidate_name"]}


def _open(store, decision_id: int) -> dict:
    question = store.get_decision(decision_id)
    if question is None:
        raise NotFound(f"no question {decision_id}; `kbg resolve pending` lists them")
    if question["outcome"] != "asked":
        raise InvalidInput(f"question {decision_id} was answered already ({question['outcome']})")
    return question


def calibrate(store, config, dry_run: bool = False) -> dict:
    """Refit the weights from confirmed and rejected decisions; report both models on those answers."""
    from ..relations.records import now_iso
    from .features import Features
    from .scoring import Example, calibration_report, fit

    examples = [Example(Features.from_dict(d["features"]), d["outcome"] == "confirmed")
                for d in store.decisions() if d["outcome"] in ("confirmed", "rejected") and d["features"]
                and not d["features"].get("unmerged")]
    labels = {e.same for e in examples}
    if len(examples) < 2 or labels != {True, False}:
        raise InvalidInput(f"calibration needs confirmed and rejected answers; the log has {len(examples)} "
                           "usable ones (answer questions with `kbg resolve confirm|reject ID`)")
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

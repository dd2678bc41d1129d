"""The decision log the pipeline writes: what the resolver decided, with the weights and thresholds it
decided by. Answering the questions in it is resolve/answers.py, above the pipeline."""

from __future__ import annotations

import json

from ..access import LOCAL
from ..model import Merge
from .references import ReferenceDecision
from .scoring import DEFAULT_WEIGHTS, Thresholds, Weights
from ..store.base import Store

WEIGHTS_META = "resolve_weights"


def current_weights(store: Store) -> Weights:
    """The weights `kbg resolve calibrate` last saved, else the hand-set defaults."""
    raw = store.get_meta(WEIGHTS_META)
    if not raw:
        return DEFAULT_WEIGHTS
    data = json.loads(raw)
    return Weights.from_dict(data["version"], data["weights"])


def thresholds(config) -> Thresholds:
    return Thresholds(auto=config.resolve.auto, ask=config.resolve.ask)


def record_reference_decisions(store: Store, decisions: list[ReferenceDecision], now: str) -> int:
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
    from .duplicate_questions import open_duplicate_pairs

    from .prose import open_prose_questions

    store.drop_open_questions(asked | open_duplicate_pairs(store)  # `kbg resolve duplicates` asked those
                              | open_prose_questions(store))  # and the mention scan these (resolve/prose.py)
    return merges


def _log(store: Store, d: ReferenceDecision, entity_key, name, candidate, outcome: str, now: str) -> None:
    store.add_decision({
        "surface": d.surface, "surface_key": d.surface_key, "surface_type": d.type, "candidate_key": entity_key,
        "candidate_name": name, "score": round(candidate.score, 6) if candidate else None,
        "features": candidate.features.as_dict() if candidate else {}, "outcome": outcome,
        "decided_by": "kbgraph", "doc_path": d.doc_path, "created_at": now,
        "decided_at": None if outcome == "asked" else now,
    })


def confirmed_names(store: Store) -> list[tuple[str, str]]:
    """(surface, entity key) for each name the user confirmed and has not taken back since (a later
    rejection of the same pair, or `kbg entity unmerge`): the entity set gives each to its entity as
    a confirmed name (entities/assemble.py)."""
    latest = store.decided_pairs()
    return sorted({(d["surface"], d["candidate_key"]) for d in store.decisions(LOCAL, "confirmed")
                   if d["candidate_key"] and latest.get((d["surface_key"], d["candidate_key"])) == "confirmed"})


def answered_at(question: dict) -> str:
    """When the user answers a question: never before it was asked, nor before an earlier answer (a
    clock set back would log the answer first)."""
    from .. import clock

    return clock.after(question.get("created_at"), question.get("decided_at"))

"""Transitive inference: relations that follow from two others by a rule (uses + depends-on gives
indirectly-depends-on; reports-to twice gives skip-level-reports-to; defaults in config.py).

Inferred relations are kept apart from asserted ones, carry their rule and the two relations they
come from, and are never shown unless asked for (`--include-inferred`). They are recomputed from
the asserted relations whenever those change (an index stage), so one goes when a premise goes.
"""

from __future__ import annotations

import json

from .. import clock
from ..access import Access
from ..config import InferenceRule
from ..store.base import Store

CONFIDENCE = "inferred"  # below every asserted or extracted confidence


def infer(store: Store, rules: tuple[InferenceRule, ...], today: str | None = None) -> dict:
    """Recompute every inferred relation from today's asserted relations. Returns how many each rule
    gives and how many were added and removed. A relation two rules (or two paths) give is kept once,
    from the first rule and the first path; an asserted relation of the same type is never repeated."""
    today = today or clock.today_iso()
    rows: dict[tuple[int, int, str], tuple[int, int, str, str, str]] = {}
    per_rule: dict[str, int] = {}
    for rule in rules:
        given = 0
        for a, c, first, second in store.relation_chains(rule.path[0], rule.path[1], today):
            key = (a, c, rule.gives)
            if key in rows or store.get_relation(a, c, rule.gives) is not None:
                continue
            rows[key] = (a, c, rule.gives, rule.name, json.dumps([first, second]))
            given += 1
        per_rule[rule.name] = given
    now = clock.now_iso()
    with store.transaction():
        added, removed = store.replace_inferred(list(rows.values()), now)
        store.set_meta("inferred_generation", _inferred_key(store, rules, today))
    return {"rules": [{"name": r.name, "path": list(r.path), "gives": r.gives, "count": per_rule[r.name]}
                      for r in rules],
            "count": len(rows), "added": added, "removed": removed}


def infer_if_changed(store: Store, rules: tuple[InferenceRule, ...], today: str | None = None) -> dict | None:
    """infer() unless nothing it reads changed since the last inference: the relations (their
    generation), the rules ([graph.rules] edited) and the day (a premise may have expired since).
    The index stage, cheap when all three stand still."""
    today = today or clock.today_iso()
    if store.get_meta("inferred_generation") == _inferred_key(store, rules, today):
        return None
    return infer(store, rules, today)


def _inferred_key(store: Store, rules: tuple[InferenceRule, ...], today: str) -> str:
    import hashlib

    spelled = json.dumps([[r.name, list(r.path), r.gives] for r in rules])
    return f"{store.relation_generation()}|{hashlib.sha256(spelled.encode()).hexdigest()[:12]}|{today}"


def inferred_relations(store: Store, access: Access) -> list[dict]:
    """Every inferred relation, with the path that derived it ("Atlas --uses--> Kafka --depends-on--> ZooKeeper")."""
    out = []
    for row in store.inferred_relations(access):
        premises = [store.relation_by_id(relation_id) for relation_id in json.loads(row["premises"])]
        via = [{"from": p["source"], "type": p["type"], "to": p["target"], "relation_id": p["id"]}
               for p in premises if p is not None]
        out.append({"source": row["source"], "type": row["type"], "target": row["target"], "rule": row["rule"],
                    "confidence": CONFIDENCE, "via": via, "since": row["created_at"][:10]})
    return out

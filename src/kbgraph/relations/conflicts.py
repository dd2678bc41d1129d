"""Contradictions between relations of a one-at-a-time type, found and classified when one is made.

A type is functional on one end (vocabulary: a person reports to one manager at a time, a project
has one lead, a thing is replaced by one thing). A new relation conflicts only with the current
relations of the same type on that same end: never across types, never across entities, so
nothing unrelated is ever retired. Each conflict is one of:

- temporal: the new one is dated (since, or its evidence note's date) and the old one is undated or
  dated otherwise: the later wins (an undated old one is the earlier), the earlier gets valid_until
  the day before the later began, and history keeps it;
- contextual: they hold in different contexts ("dotted line"): both stay, each with its context;
- factual: an undated new one that disagrees: both stay and the user decides (`kbg graph resolve`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from ..access import Access
from ..entities.assemble import entity_key
from ..model import Entity
from ..store.base import Store
from .vocabulary import RelationType

KINDS = ("temporal", "contextual", "factual")


@dataclass(frozen=True)
class Claim:
    """What one relation says about the functional end: who or what the other end is, since when, in
    which context."""

    other_id: int
    other: str
    since: str | None = None
    context: str | None = None
    relation_id: int | None = None


def classify(old: Claim, new: Claim) -> str | None:
    """The kind of contradiction between two claims on one subject and type, or None if they agree."""
    if old.other_id == new.other_id:
        return None
    if _folded(old.context) != _folded(new.context):
        return "contextual"
    if new.since and old.since != new.since:
        return "temporal"  # the new one says when it began: it is a change, not a disagreement
    return "factual"


def _folded(text: str | None) -> str:
    return " ".join((text or "").split()).casefold()


@dataclass(frozen=True)
class Conflict:
    kind: str
    subject: Entity
    rtype: RelationType
    old_row: dict
    old: Claim
    new: Claim

    @property
    def new_wins(self) -> bool:
        """For a temporal conflict: whether the new relation is the later one."""
        return bool(self.new.since and (self.old.since is None or self.new.since > self.old.since))

    def loser_until(self) -> str:
        """The day before the winner began: the last day the loser was true."""
        winner = self.new.since if self.new_wins else self.old.since
        return (dt.date.fromisoformat(winner or "") - dt.timedelta(days=1)).isoformat()


def claim_of(row: dict, subject_id: int) -> Claim:
    """A stored relation row as a claim about the end subject_id."""
    outgoing = row["source_id"] == subject_id
    since = row.get("valid_from") or (row.get("source_doc_date") or None)
    return Claim(row["target_id"] if outgoing else row["source_id"], row["target"] if outgoing else row["source"],
                 since[:10] if since else None, row.get("context"), row["id"])


def find_conflicts(store: Store, access: Access, rtype: RelationType, src: Entity, tgt: Entity, since: str | None,
                   context: str | None, today: str) -> list[Conflict]:
    """The current relations a new src --rtype--> tgt contradicts, each classified."""
    if rtype.functional not in ("source", "target") or rtype.symmetric:
        return []
    subject, other = (src, tgt) if rtype.functional == "source" else (tgt, src)
    direction = "out" if rtype.functional == "source" else "in"
    new = Claim(other.id, other.name, since, context)
    out = []
    for row in store.relations_from(access, subject.id, direction, rtype.name, today, None):
        old = claim_of(row, subject.id)
        kind = classify(old, new)
        if kind is not None:
            out.append(Conflict(kind, subject, rtype, row, old, new))
    return out


def record(store: Store, conflict: Conflict, new_relation_id: int | None, status: str, resolution: str | None,
           note: str | None, now: str) -> dict:
    """Store a conflict as found and as handled; returns it as the library shows it."""
    data = {"kind": conflict.kind, "type": conflict.rtype.name,
            "subject_key": entity_key(conflict.subject.type, conflict.subject.name),
            "subject_name": conflict.subject.name, "old_relation_id": conflict.old.relation_id,
            "old_other": conflict.old.other, "new_relation_id": new_relation_id, "new_other": conflict.new.other,
            "status": status, "resolution": resolution, "note": note}
    with store.transaction():
        data["id"] = store.add_conflict(data, now)
    return view(data)


def view(row: dict) -> dict:
    """A recorded conflict as commands show it."""
    return {"id": row["id"], "kind": row["kind"], "type": row["type"], "subject": row["subject_name"],
            "old": {"other": row["old_other"], "relation_id": row["old_relation_id"]},
            "new": {"other": row["new_other"], "relation_id": row["new_relation_id"]},
            "status": row["status"], "resolution": row["resolution"], "note": row["note"]}

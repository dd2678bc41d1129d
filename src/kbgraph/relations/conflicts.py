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

A hierarchical type (reports-to, part-of) also contradicts itself round a loop, whatever the ends:

- inverse: the new one states the type the other way round from a current one (Ana reports to Ben,
  and now Ben reports to Ana, as "Ana manages Ben" says);
- cycle: the new one closes a longer chain (Ana -> Ben -> Cara, and now Cara reports to Ana).

Both stay and the user decides. The old side is the chain's last link, the one into the new
relation's source: keeping the new one ends that link.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from ..access import Access
from ..entities.assemble import entity_key
from ..model import Entity
from ..store.base import Store
from ..vocabulary import RelationType, Vocabulary

KINDS = ("temporal", "contextual", "factual", "inverse", "cycle")
LOOP_KINDS = ("inverse", "cycle")
# How far a loop is looked for: deeper than any org chart or parts list, short enough to stay cheap.
MAX_CHAIN = 64


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
    chain: tuple[str, ...] = ()  # for a loop: the names round it, from the new relation's target back to its source

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


def find_loops(store: Store, access: Access, rtype: RelationType, src: Entity, tgt: Entity,
               today: str) -> list[Conflict]:
    """The loop a new src --rtype--> tgt of a hierarchical type would close: the shortest current chain
    tgt -> ... -> src of that type, as one conflict (none if there is no such chain)."""
    if not rtype.hierarchical or rtype.symmetric or src.id == tgt.id:
        return []
    chain = shortest_chain(lambda node: store.relations_from(access, node, "out", rtype.name, today, None),
                           tgt.id, src.id)
    return [] if chain is None else [loop_conflict(rtype, src, tgt, chain)]


def loop_conflict(rtype: RelationType, src: Entity, tgt: Entity, chain: list[dict],
                  new_relation_id: int | None = None) -> Conflict:
    """src --rtype--> tgt against the chain tgt -> ... -> src it closes."""
    last = chain[-1]  # the link into src: the one keeping the new relation ends
    names = (tgt.name, *(row["target"] for row in chain))
    kind = "inverse" if len(chain) == 1 else "cycle"
    return Conflict(kind, src, rtype, last, Claim(last["source_id"], last["source"], relation_id=last["id"]),
                    Claim(tgt.id, tgt.name, relation_id=new_relation_id), names)


def shortest_chain(links, start: int, goal: int) -> list[dict] | None:
    """The rows of the shortest chain start -> ... -> goal, following links(node) breadth first."""
    parents: dict[int, dict | None] = {start: None}
    frontier = [start]
    for _ in range(MAX_CHAIN):
        following = []
        for node in frontier:
            for row in links(node):
                if row["target_id"] in parents:
                    continue
                parents[row["target_id"]] = row
                if row["target_id"] == goal:
                    path = []
                    step: dict | None = row
                    while step is not None:
                        path.append(step)
                        step = parents[step["source_id"]]
                    return path[::-1]
                following.append(row["target_id"])
        if not following:
            return None
        frontier = following
    return None


def loop_note(conflict: Conflict) -> str:
    """What an open loop needs, in one line, naming every relation round it."""
    arrow = f" --{conflict.rtype.name}--> "
    chain = arrow.join((*conflict.chain, conflict.new.other))
    return (f"{chain} loops; keep old ends {conflict.subject.name}{arrow}{conflict.new.other}, "
            f"keep new ends {conflict.old.other}{arrow}{conflict.subject.name}")


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
    return view(data, Vocabulary((conflict.rtype,)))


def view(row: dict, vocab: Vocabulary | None = None) -> dict:
    """A recorded conflict as commands show it, each side also as the sentence it states."""
    old, new = sentences(row, vocab or Vocabulary())
    return {"id": row["id"], "kind": row["kind"], "type": row["type"], "subject": row["subject_name"],
            "old": {"other": row["old_other"], "relation_id": row["old_relation_id"], "relation": old},
            "new": {"other": row["new_other"], "relation_id": row["new_relation_id"], "relation": new},
            "status": row["status"], "resolution": row["resolution"], "note": row["note"]}


def sentences(row: dict, vocab: Vocabulary) -> tuple[str, str]:
    """The old and the new relation of a recorded conflict, each as `source --type--> target`. A loop's
    new one leaves its subject and its old one enters it; a one-at-a-time type's both leave the subject,
    except where the target end is the one held one at a time (a project is led by one person)."""
    arrow, subject = f" --{row['type']}--> ", row["subject_name"]
    if row["kind"] in LOOP_KINDS:
        return f"{row['old_other']}{arrow}{subject}", f"{subject}{arrow}{row['new_other']}"
    rtype = vocab.types.get(row["type"])
    if rtype is not None and rtype.functional == "target":
        return f"{row['old_other']}{arrow}{subject}", f"{row['new_other']}{arrow}{subject}"
    return f"{subject}{arrow}{row['old_other']}", f"{subject}{arrow}{row['new_other']}"

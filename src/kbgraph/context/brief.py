"""Briefings: the three things worth knowing about an entity (or about today), by a documented score.

The score (docs/memory.md), for an item dated d, with age = today - d in days:
- recency(age) = 0.5 ** (age / 45): a 45-day half-life, exactly 0.5 at 45 days (1.0 today or later);
- a fact, a dated note that mentions the entity, or a relation: recency of its date;
- an open loop: 3 x urgency(due), where urgency is 1 + min(days overdue, 30) / 30 when overdue (up to
  2), 1 when due today, 0.5 ** (days until due / 14) when ahead, and 0.25 without a due date.
Resolved and dropped loops are not items. Ties go to the later date, then to the item's words.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from ..access import Access
from ..entities.lookup import find_entity
from ..store.base import DocFilter, Store
from .facts import entity_facts
from .loops import entity_loops
from .memory import as_merged, today_iso

HALF_LIFE_DAYS = 45.0
LOOP_WEIGHT = 3.0
MAX_ITEMS = 3
NOTE_WINDOW_DAYS = 365  # notes older than this are not read for a briefing


@dataclass(frozen=True)
class BriefItem:
    kind: str  # fact | loop | note | relation | meeting
    text: str
    date: str | None
    score: float
    entity: str
    ref: str  # what it points at: "fact 3", "loop 2", a note's path


@dataclass(frozen=True)
class Brief:
    about: str  # the entity's name, or "today"
    today: str
    items: tuple[BriefItem, ...]


def _days(a: str, b: str) -> int:
    return (dt.date.fromisoformat(b[:10]) - dt.date.fromisoformat(a[:10])).days


def recency(age_days: float) -> float:
    """0.5 ** (age / 45): 1.0 today, exactly 0.5 at 45 days; a future date counts as today."""
    return 0.5 ** (max(age_days, 0.0) / HALF_LIFE_DAYS)


def urgency(due: str | None, today: str) -> float:
    if due is None:
        return 0.25
    ahead = _days(today, due)
    if ahead < 0:
        return 1.0 + min(-ahead, 30) / 30
    return 0.5 ** (ahead / 14) if ahead else 1.0


def loop_score(due: str | None, today: str) -> float:
    return LOOP_WEIGHT * urgency(due, today)


def dated_score(date: str | None, today: str) -> float:
    return recency(_days(date, today)) if date else 0.0


def top(items: list[BriefItem], limit: int = MAX_ITEMS) -> tuple[BriefItem, ...]:
    return tuple(sorted(items, key=lambda i: (-i.score, -(_ordinal(i.date)), i.text))[:limit])


def _ordinal(date: str | None) -> int:
    return dt.date.fromisoformat(date[:10]).toordinal() if date else 0


def brief_entity(store: Store, access: Access, vocab, name: str, today: str | None = None) -> Brief:
    """At most three items about the entity: its facts, open loops, recent notes and relations, best first."""
    today = today or today_iso()
    entity = find_entity(store, name, access=access)
    key = store.entity_keys([entity.id])[entity.id]
    items = [BriefItem("fact", f"{f.kind}: {f.text}", f.date or f.recorded_at[:10],
                       dated_score(f.date or f.recorded_at, today), entity.name, f"fact {f.id}")
             for f in entity_facts(store, access, key)]
    items += [BriefItem("loop", f.text + (f" (due {f.due})" if f.due else ""), f.due, loop_score(f.due, today),
                        entity.name, f"loop {f.id}") for f in entity_loops(store, access, key)]
    since = (dt.date.fromisoformat(today) - dt.timedelta(days=NOTE_WINDOW_DAYS)).isoformat()
    flt = DocFilter(date_from=since, date_to=today)
    rows = [r for r in store.docs_mentioning(access, [entity.id], flt, limit=200) if not r[4]]
    dates = store.doc_dates([r[0] for r in rows])
    paths = store.doc_paths([r[0] for r in rows])
    items += [BriefItem("note", f"mentioned in {paths[r[0]]}", dates[r[0]], dated_score(dates[r[0]], today),
                        entity.name, paths[r[0]]) for r in rows if dates.get(r[0])]
    for direction, other in (("out", "target"), ("in", "source")):  # relations dated by when they began
        for row in store.relations_from(access, entity.id, direction, None, today, 100):
            if row.get("valid_from"):
                text = f"{row['type']} {row[other]}" if direction == "out" else f"{row[other]} {row['type']} it"
                items.append(BriefItem("relation", text, row["valid_from"], dated_score(row["valid_from"], today),
                                       entity.name, text))
    return Brief(entity.name, today, top(items))


def brief_today(store: Store, access: Access, today: str | None = None) -> Brief:
    """At most three items across entities: loops due today or overdue, and the people in today's meetings."""
    today = today or today_iso()
    items = [BriefItem("loop", f"{x.text} (due {x.due})", x.due, loop_score(x.due, today), x.entity, f"loop {x.id}")
             for x in as_merged(store, store.loops(access, due_by=today))]
    for doc in store.list_documents(access, DocFilter(kinds=("meeting",), date_from=today, date_to=today)):
        full = store.get_document(access, doc_id=doc["id"]) or {}
        people = full.get("frontmatter", {}).get("attendees") or full.get("frontmatter", {}).get("participants") or []
        people = [people] if isinstance(people, str) else [str(p) for p in people]
        who = ", ".join(p.strip("[]") for p in people) or "no attendees listed"
        items.append(BriefItem("meeting", f"{doc['title']} with {who}", today, LOOP_WEIGHT, who, doc["path"]))
    return Brief("today", today, top(items))

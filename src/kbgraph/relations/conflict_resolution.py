"""The user's side of contradictions: list them, and settle an open one by keeping the old relation,
the new one, or both (they hold in different contexts). Nothing is deleted: the one not kept was
true until yesterday (so it is no longer current today), and its history stays."""

from __future__ import annotations

import datetime as dt

from ..access import LOCAL
from ..errors import InvalidInput, NotFound
from ..base.workspace import Workspace
from .conflicts import LOOP_KINDS, sentences, view
from .edits import relate_entities
from .records import now_iso, today_iso

KEEP = ("old", "new", "both")


def list_conflicts(ws: Workspace, include_resolved: bool = False) -> list[dict]:
    vocab = ws.config.vocabulary
    rows = ws.store.conflicts(ws.access, None if include_resolved else "open")
    return [view(row, vocab) for row in _readable(ws, rows)]


def _readable(ws: Workspace, rows: list[dict]) -> list[dict]:
    """The conflicts whose every relation the reader may read. The store keeps those about a subject it
    may read, but a side (or, in a loop's note, a link) can be a relation it may not: its other end a
    private entity that is a 404 everywhere else. An index of only its notes would have no such conflict."""
    if ws.access.sees_everything:
        return rows
    readable: dict[str, tuple[set[int], set[tuple[str, str]]]] = {}
    out = []
    for row in rows:
        if row["type"] not in readable:
            relations = ws.store.relations_of_type(ws.access, row["type"])
            readable[row["type"]] = ({r["id"] for r in relations}, {(r["source"], r["target"]) for r in relations})
        ids, pairs = readable[row["type"]]
        if any(rid is not None and rid not in ids for rid in (row["old_relation_id"], row["new_relation_id"])):
            continue
        if row["kind"] in LOOP_KINDS and row["note"]:  # "A --t--> B --t--> A loops; ...": every link named
            names = row["note"].split(" loops; ")[0].split(f" --{row['type']}--> ")
            if any(pair not in pairs for pair in zip(names, names[1:])):
                continue
        out.append(row)
    return out


def resolve(ws: Workspace, conflict_id: int, keep: str) -> dict:
    """Settle conflict conflict_id by keeping old, new, or both."""
    if keep not in KEEP:
        raise InvalidInput(f"`keep` {keep!r}: use old, new or both", param="keep")
    store = ws.store
    row = store.get_conflict(ws.access, conflict_id)
    if row is not None and not _readable(ws, [row]):
        row = None
    if row is None:
        raise NotFound(f"no conflict {conflict_id}", param="conflict_id", hint="list the conflicts to see them")
    if row["status"] != "open":
        raise InvalidInput(f"conflict {conflict_id} was resolved already ({row['resolution']})")
    resolution = "both kept"
    if keep != "both":
        ended_id = row["new_relation_id"] if keep == "old" else row["old_relation_id"]
        ended = store.relation_by_id(ended_id) if ended_id is not None else None
        # Ids are reused once a relation is gone: end only the relation the conflict is about.
        dropped_name = row["new_other"] if keep == "old" else row["old_other"]
        if ended is not None and (ended["type"] != row["type"]
                                  or {ended["source"], ended["target"]} != {row["subject_name"], dropped_name}):
            ended = None
        yesterday = (dt.date.fromisoformat(today_iso()) - dt.timedelta(days=1)).isoformat()
        if ended is not None and (ended["valid_until"] is None or ended["valid_until"] >= today_iso()):
            relate_entities(ws, store.get_entity(LOCAL, ended["source_id"]), ended["type"],
                            store.get_entity(LOCAL, ended["target_id"]), None, None, yesterday, True,
                            ended["confidence"], check_conflicts=False)
        kept, dropped = (row["old_other"], row["new_other"]) if keep == "old" else (row["new_other"], row["old_other"])
        if row["kind"] in LOOP_KINDS:  # both sides name the same people: say which relation
            old, new = sentences(row, ws.config.vocabulary)
            kept, dropped = (old, new) if keep == "old" else (new, old)
        resolution = f"kept {kept}; {dropped} true until {yesterday}"
    with store.transaction():
        store.resolve_conflict(conflict_id, resolution, now_iso())
    return view(store.get_conflict(ws.access, conflict_id) or row, ws.config.vocabulary)

"""Moving an entity's relations onto another (a merge, or a name a page took as its alias).

The rules are the library's, not a backend's: duplicates collapse into their twin (strengths add up,
the earliest creation date stays), what would relate an entity to itself is dropped, a symmetric type
keeps its lower id first, and every change is recorded so that an unmerge can give it back.
"""

from __future__ import annotations

from ..store.base import Store

_UNDO_KEYS = ("source_id", "target_id", "type", "reason", "confidence", "origin", "origin_doc_id", "created_at",
              "updated_at", "valid_until", "strength", "inferred", "owner", "visibility")


def undo_row(row: dict) -> dict:
    """A relation row as Store.restore_relation() takes it back."""
    return {**{k: row.get(k) for k in _UNDO_KEYS}, "source_doc_path": row.get("source_doc")}


def move_relations(store: Store, from_id: int, into_id: int, now: str,
                   symmetric: frozenset[str] = frozenset()) -> dict:
    """Re-point every relation of from_id at into_id. Returns moved (ids), collapsed (count),
    self_loops_dropped (rows), and undo: which ends of each moved row were from_id, and the rows that
    collapsed into a twin or were dropped, as they were."""
    moved: list[int] = []
    collapsed = 0
    dropped: list[dict] = []
    undo: dict[str, list] = {"moved": [], "collapsed": [], "dropped": []}
    for row in store.relations_touching(from_id):
        ends = [end for end in ("source", "target") if row[f"{end}_id"] == from_id]
        source = into_id if row["source_id"] == from_id else row["source_id"]
        target = into_id if row["target_id"] == from_id else row["target_id"]
        if row["type"] in symmetric and source > target:
            source, target = target, source  # one row for both directions, lower id first
        if source == target:
            dropped.append(row)
            undo["dropped"].append({**undo_row(row), "ends": ends})
            store.end_relation(row["id"], now, "merged")
            continue
        twin = store.get_relation(source, target, row["type"])
        if twin is not None:
            store.absorb_relation(twin["id"], row["strength"], row["created_at"], row["reason"], now)
            undo["collapsed"].append({**undo_row(row), "ends": ends, "twin": twin["id"]})
            store.end_relation(row["id"], now, "merged")
            collapsed += 1
            continue
        store.repoint_relation(row["id"], source, target, now)
        moved.append(row["id"])
        undo["moved"].append({"id": row["id"], "ends": ends})
    return {"moved": moved, "collapsed": collapsed, "self_loops_dropped": dropped, "undo": undo}

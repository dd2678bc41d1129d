"""`kbg entity merge A B`: A and B are one entity, by the user's decision.

The decision is recorded and replayed whenever the entity set is rebuilt (so it
survives `kbg index --full` and travels in exports); A's name and aliases become
aliases of B, its pages and mentions count for B, and its relations move to B,
duplicates collapsing and self-relations dropped.
"""

from __future__ import annotations

from dataclasses import asdict

from ..access import LOCAL
from ..errors import InvalidInput
from ..entities.lookup import find_entity, key_of
from ..model import Merge
from ..entities.moving import move_relations
from ..pages.files import write_lock
from ..relations.records import now_iso, today_iso
from ..relations.stated_conflicts import record_conflicts_of
from ..store.base import Store
from ..base.workspace import Workspace


def merge_entities(ws: Workspace, merged_name: str, into_name: str) -> dict:
    """Merge one entity into another. Redoable: a merge recorded already (a run killed before its
    re-index, or the same merge asked twice) is finished and reported, not refused."""
    store = ws.store
    merged = find_entity(store, merged_name, access=ws.access)
    into = find_entity(store, into_name, access=ws.access)
    recorded = _recorded_merge(store, merged_name, merged)
    if recorded is not None and recorded.into_key == key_of(store, into):
        return _finish_recorded(ws, recorded)
    if merged.id == into.id:
        raise InvalidInput(f"{merged_name!r} and {into_name!r} are the same entity ({merged.name}); nothing to merge")
    if merged.type != into.type:
        raise InvalidInput(f"cannot merge {merged.type} {merged.name!r} into {into.type} {into.name!r}: "
                           "only entities of one type can be merged")
    for entity in (merged, into):
        if entity.status != "active":
            raise InvalidInput(f"{entity.name!r} was merged away already; merge into the entity it became")
    _refuse_a_cycle(store, merged, into)
    now = now_iso()
    with write_lock(ws.root):
        with store.transaction():
            outcome = move_relations(store, merged.id, into.id, now, ws.config.vocabulary.symmetric_names())
            store.add_merge(
                Merge(key_of(store, merged), merged.type, merged.name, key_of(store, into), into.type, into.name),
                outcome["undo"], now,
            )
            if key_of(store, merged) in _all_pending(store):  # an unmerge killed, then merged again:
                _save_pending(store, key_of(store, merged), None)  # this merge is what to undo now
            store.set_meta("entities_dirty", "1")
        edited = _remove_self_lines(ws, outcome["self_loops_dropped"], {merged.id: merged, into.id: into})
        ws.reindex(edited)
    result = find_entity(store, into.name, into.type, access=ws.access)
    # Each had a manager, or one managed the other: the merged entity now states both, which is a conflict.
    conflicts = record_conflicts_of(store, ws.config.vocabulary, result.id, today_iso(), now_iso())
    return {
        "merged": merged.name, "into": result.name, "type": result.type, "aliases": list(result.aliases),
        "relations_moved": len(outcome["moved"]), "duplicates_collapsed": outcome["collapsed"],
        "self_relations_dropped": [f"{r['source']} --{r['type']}--> {r['target']}"
                                   for r in outcome["self_loops_dropped"]],
        "pages_edited": sorted(edited), "conflicts": conflicts,
    }


def _refuse_a_cycle(store: Store, merged, into) -> None:
    """A merge of A into B, where B (or the entity B was merged into, and so on) was merged into A already,
    would close a cycle: the recorded merges say so even before a re-index (a merge killed before its
    re-index leaves B its own entity in the index, which the name lookup alone would not catch)."""
    recorded = {m.from_key: m for m in store.merges()}
    merged_key, key, seen = key_of(store, merged), key_of(store, into), set()
    if merged_key in recorded:
        raise InvalidInput(f"{merged.name!r} was merged into {recorded[merged_key].into_name!r} already; "
                           "unmerge it first to merge it elsewhere", param="merged_name")
    while key in recorded and key not in seen:
        seen.add(key)
        if recorded[key].into_key == merged_key:
            raise InvalidInput(f"{into.name!r} was merged into {merged.name!r} already: they are one entity; "
                               f"merging {merged.name!r} into it would make a cycle", param="into_name",
                               hint="unmerge it first to reverse the merge")
        key = recorded[key].into_key


def _recorded_merge(store: Store, merged_name: str, merged) -> Merge | None:
    """The merge recorded of the entity merged_name names (as the entity set has it, which a merge
    not yet re-indexed leaves as it was), or of merged_name itself (once re-indexed, it is an alias)."""
    from ..entities.names import name_key

    keys = {key_of(store, merged)}
    for merge in store.merges():
        if merge.from_key in keys or name_key(merge.from_name) == name_key(merged_name):
            return merge
    return None


def _finish_recorded(ws: Workspace, merge: Merge) -> dict:
    """What is left of a recorded merge: the entity set rebuilt with it (the re-index a killed run did
    not get to; nothing when it did). The relations moved with the record, in its transaction."""
    with write_lock(ws.root):
        if ws.store.get_meta("entities_dirty") == "1":
            ws.refresh()
    result = find_entity(ws.store, merge.into_name, merge.into_type, access=ws.access)
    return {"merged": merge.from_name, "into": result.name, "type": result.type, "aliases": list(result.aliases),
            "relations_moved": 0, "duplicates_collapsed": 0, "self_relations_dropped": [], "pages_edited": [],
            "conflicts": [], "already": True}


def unmerge_entity(ws: Workspace, merged_name: str) -> dict:
    """Undo `kbg entity merge MERGED INTO`: MERGED is its own entity again, with its aliases, its
    mentions and the relations that came from it. Its page's relation lines are re-read on the
    re-index; relations that live only in the index move back as the merge recorded them.
    The pair is remembered as "not the same", so entity resolution never merges them again.

    Redoable: the merge's undo data is moved, in the transaction that deletes the merge, to a pending
    unmerge (meta UNMERGING), which says how far the steps got and is cleared by the last one; run
    again after a kill at any point, the unmerge resumes there (each step is idempotent) instead of
    saying the entity was not merged."""
    store = ws.store
    pending = _pending_unmerge(store, merged_name)
    if pending is None:
        record = _merge_record(store, merged_name)
        merge, now = record["merge"], now_iso()
        with write_lock(ws.root):
            with store.transaction():
                pending = {"merge": asdict(merge), "undo": record["undo"], "at": now,
                           "into_id": store.entity_ids_by_key().get(merge.into_key)}
                store.delete_merge(merge.from_key)
                store.add_decision({"surface": merge.from_name, "surface_key": _surface_key(merge.from_name),
                                    "surface_type": merge.from_type, "candidate_key": merge.into_key,
                                    "candidate_name": merge.into_name, "outcome": "rejected", "decided_by": "user",
                                    "features": {"unmerged": True}, "created_at": now, "decided_at": now})
                store.set_meta("entities_dirty", "1")
                _save_pending(store, merge.from_key, pending)
    merge, into = Merge(**pending["merge"]), pending["into_id"]
    with write_lock(ws.root):
        if "to_page" in pending:  # resumed past the give-back: a page may hold a line restated and not re-read,
            # which a refresh alone (no file read) would take for a line removed, and end its relation
            ws.reindex(_pages_of(store, pending["to_page"]))
        else:
            ws.refresh()
        from_id = store.entity_ids_by_key().get(merge.from_key)
        if "to_page" not in pending:
            with store.transaction():
                restored, to_page = _give_relations_back(store, pending["undo"], into, from_id,
                                                         ws.config.vocabulary.symmetric_names(), pending["at"])
                pending = {**pending, "restored": restored, "to_page": to_page}
                _save_pending(store, merge.from_key, pending)
    restored = pending["restored"] + _restate_on_pages(ws, pending["to_page"], into, from_id)
    with store.transaction():
        _save_pending(store, merge.from_key, None)
    return {"unmerged": merge.from_name, "from": merge.into_name, "type": merge.from_type,
            "relations_restored": restored}


def _pages_of(store: Store, items: list[dict]) -> set[str]:
    """The paths of the pages the relations came from (those a restated line goes back to)."""
    docs = (store.get_document(LOCAL, doc_id=d["origin_doc_id"]) for d in items if d.get("origin_doc_id"))
    return {doc["path"] for doc in docs if doc is not None}


UNMERGING = "unmerging"  # meta: from key -> an unmerge begun and not finished (its merge, undo data, progress)


def _pending_unmerge(store: Store, name: str) -> dict | None:
    from ..entities.names import name_key

    wanted = name_key(name)
    return next((p for p in _all_pending(store).values() if name_key(p["merge"]["from_name"]) == wanted), None)


def _all_pending(store: Store) -> dict[str, dict]:
    import json

    return json.loads(store.get_meta(UNMERGING) or "{}")


def _save_pending(store: Store, from_key: str, pending: dict | None) -> None:
    """Inside the caller's transaction: record (or, with None, clear) the pending unmerge of from_key."""
    import json

    everything = _all_pending(store)
    if pending is None:
        everything.pop(from_key, None)
    else:
        everything[from_key] = pending
    store.set_meta(UNMERGING, json.dumps(everything, sort_keys=True))


def _surface_key(name: str) -> str:
    """The key entity resolution remembers answers under (see kbgraph.entities.keys.surface_key)."""
    from ..errors import InvalidInput as Invalid
    from ..entities.names import name_key
    from ..entities.keys import surface_key

    try:
        return surface_key(name)
    except Invalid:
        return name_key(name)


def _merge_record(store: Store, name: str) -> dict:
    from ..entities.names import name_key

    wanted = name_key(name)
    for merge in store.merges():
        if name_key(merge.from_name) == wanted:
            return store.merge_record(merge.from_key)
    raise InvalidInput(f"{name!r} was not merged into another entity", param="merged_name",
                       hint="give the name of the entity that was merged away")


def _give_relations_back(store: Store, undo: dict, into_id: int | None, from_id: int | None, symmetric,
                         now: str) -> tuple[int, list[dict]]:
    """Inside the caller's transaction: re-point the index-only relations the merge moved; re-create those
    it collapsed or dropped (each only if not done already, so running it again changes nothing).
    Page relations the merge left on a page come back with the re-index; the lines it took out of a
    page (they would have related the entity to itself) are returned, to be written back."""
    if into_id is None or from_id is None:
        return 0, []
    restored, to_page = 0, [d for d in undo["dropped"] if d["origin"] == "page"]

    def ends_of(row: dict, ends) -> tuple[int, int]:
        source = from_id if "source" in ends else row["source_id"]
        target = from_id if "target" in ends else row["target_id"]
        if row["type"] in symmetric and source > target:
            source, target = target, source
        return source, target

    for item in undo["moved"]:
        row = store.relation_by_id(item["id"])
        if row is None or row["origin"] == "page" or item["ends"] is None:
            continue
        ends = [e for e in ("source", "target") if row[f"{e}_id"] == into_id]  # the end that was merged
        source, target = ends_of(row, ends)
        if len(ends) == 1 and store.get_relation(source, target, row["type"]) is None:
            store.repoint_relation(row["id"], source, target, now)
            restored += 1
    for item in undo["collapsed"] + undo["dropped"]:
        if item["origin"] == "page":
            continue
        source, target = ends_of(item, item["ends"])
        if source == target or store.get_relation(source, target, item["type"]) is not None:
            continue
        store.restore_relation({**item, "source_id": source, "target_id": target})
        if item.get("twin"):
            store.reduce_strength(item["twin"], item["strength"] or 1)
        restored += 1
    return restored, to_page


def _restate_on_pages(ws: Workspace, dropped: list[dict], into_id: int | None, from_id: int | None) -> int:
    from ..relations.edits import relate_entities
    from ..relations.records import canonical

    restated = 0
    for item in dropped:
        ends = [from_id if end in item["ends"] else into_id for end in ("source", "target")]
        source, target = (ws.store.get_entity(LOCAL, i) for i in ends)
        if source is None or target is None or source.id == target.id:
            continue
        rtype, src, tgt = canonical(ws.config.vocabulary, source, item["type"], target)
        if ws.store.get_relation(src.id, tgt.id, rtype.name) is not None:
            # Stated again already: by a page the re-index read (a frontmatter key, which no edit took out),
            # or by this step in a run killed after it. Stating it once more would count it twice (strength).
            continue
        relate_entities(ws, source, item["type"], target, item["reason"], None, item["valid_until"], True,
                        item["confidence"] or "manual")
        restated += 1
    return restated


def _remove_self_lines(ws: Workspace, dropped: list[dict], entities: dict) -> set[str]:
    """Take out of their pages the ## Relations lines that would now relate the entity to itself."""
    from ..pages.files import edit_page
    from ..pages.relation_lines import remove_lines
    from ..relations.records import line_matcher

    vocab, edited = ws.config.vocabulary, set()
    for row in dropped:
        if row["origin"] != "page" or not row["origin_doc"]:
            continue
        page_owner = ws.store.page_entity_ids().get(row["origin_doc_id"])
        rtype = vocab.types.get(row["type"])
        if page_owner is None or rtype is None or page_owner[0] not in entities:
            continue
        src, tgt = entities[row["source_id"]], entities[row["target_id"]]
        matches = line_matcher(vocab, entities[page_owner[0]], rtype, src, tgt)
        if edit_page(ws.root, row["origin_doc"], lambda text, off: remove_lines(text, off, matches)[0]):
            edited.add(row["origin_doc"])
    return edited

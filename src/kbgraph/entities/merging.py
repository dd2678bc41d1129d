"""`kbg entity merge A B`: A and B are one entity, by the user's decision.

The decision is recorded and replayed whenever the entity set is rebuilt (so it
survives `kbg index --full` and travels in exports); A's name and aliases become
aliases of B, its pages and mentions count for B, and its relations move to B,
duplicates collapsing and self-relations dropped.
"""

from __future__ import annotations

from pathlib import Path

from ..access import LOCAL
from .assemble import entity_key
from ..errors import InvalidInput
from .lookup import find_entity
from ..model import Merge
from ..relations.moving import move_relations
from ..pages.files import write_lock
from ..relations.records import now_iso
from ..store.base import Store
from ..workspace import Workspace


def merge_entities(ws: Workspace, merged_name: str, into_name: str) -> dict:
    """Merge one entity into another. Redoable: a merge recorded already (a run killed before its
    re-index, or the same merge asked twice) is finished and reported, not refused."""
    store = ws.store
    merged = find_entity(store, merged_name, access=ws.access)
    into = find_entity(store, into_name, access=ws.access)
    recorded = _recorded_merge(store, merged_name, merged)
    if recorded is not None and recorded.into_key == entity_key(into.type, into.name):
        return _finish_recorded(ws, recorded)
    if merged.id == into.id:
        raise InvalidInput(f"{merged_name!r} and {into_name!r} are the same entity ({merged.name}); nothing to merge")
    if merged.type != into.type:
        raise InvalidInput(f"cannot merge {merged.type} {merged.name!r} into {into.type} {into.name!r}: "
                           "only entities of one type can be merged")
    for entity in (merged, into):
        if entity.status != "active":
            raise InvalidInput(f"{entity.name!r} was merged away already; merge into the entity it became")
    now = now_iso()
    with write_lock(ws.root):
        with store.transaction():
            outcome = move_relations(store, merged.id, into.id, now, ws.config.vocabulary.symmetric_names())
            store.add_merge(
                Merge(entity_key(merged.type, merged.name), merged.type, merged.name,
                      entity_key(into.type, into.name), into.type, into.name),
                outcome["undo"], now,
            )
            store.set_meta("entities_dirty", "1")
        edited = _remove_self_lines(ws, outcome["self_loops_dropped"], {merged.id: merged, into.id: into})
        from ..ingest.pipeline import index_vault

        index_vault(Path(ws.root), store=ws.store, only=set(edited), lock_wait=30)
    result = find_entity(store, into.name, into.type)
    return {
        "merged": merged.name, "into": result.name, "type": result.type, "aliases": list(result.aliases),
        "relations_moved": len(outcome["moved"]), "duplicates_collapsed": outcome["collapsed"],
        "self_relations_dropped": [f"{r['source']} --{r['type']}--> {r['target']}"
                                   for r in outcome["self_loops_dropped"]],
        "pages_edited": sorted(edited),
    }


def _recorded_merge(store: Store, merged_name: str, merged) -> Merge | None:
    """The merge recorded of the entity merged_name names (as the entity set has it, which a merge
    not yet re-indexed leaves as it was), or of merged_name itself (once re-indexed, it is an alias)."""
    from .names import name_key

    keys = {entity_key(merged.type, merged.name)}
    for merge in store.merges():
        if merge.from_key in keys or name_key(merge.from_name) == name_key(merged_name):
            return merge
    return None


def _finish_recorded(ws: Workspace, merge: Merge) -> dict:
    """What is left of a recorded merge: the entity set rebuilt with it (the re-index a killed run did
    not get to; nothing when it did). The relations moved with the record, in its transaction."""
    from ..ingest.pipeline import refresh_index

    with write_lock(ws.root):
        if ws.store.get_meta("entities_dirty") == "1":
            refresh_index(ws)
    result = find_entity(ws.store, merge.into_name, merge.into_type)
    return {"merged": merge.from_name, "into": result.name, "type": result.type, "aliases": list(result.aliases),
            "relations_moved": 0, "duplicates_collapsed": 0, "self_relations_dropped": [], "pages_edited": [],
            "already": True}


def unmerge_entity(ws: Workspace, merged_name: str) -> dict:
    """Undo `kbg entity merge MERGED INTO`: MERGED is its own entity again, with its aliases, its
    mentions and the relations that came from it. Its page's relation lines are re-read on the
    re-index; relations that live only in the index move back as the merge recorded them.
    The pair is remembered as "not the same", so entity resolution never merges them again."""
    from ..ingest.pipeline import refresh_index

    store = ws.store
    record = _merge_record(store, merged_name)
    merge, undo = record["merge"], record["undo"]
    now = now_iso()
    with write_lock(ws.root):
        with store.transaction():
            into = store.entity_ids_by_key().get(merge.into_key)
            store.delete_merge(merge.from_key)
            store.add_decision({"surface": merge.from_name, "surface_key": _surface_key(merge.from_name),
                                "surface_type": merge.from_type, "candidate_key": merge.into_key,
                                "candidate_name": merge.into_name, "outcome": "rejected", "decided_by": "user",
                                "features": {"unmerged": True}, "created_at": now, "decided_at": now})
            store.set_meta("entities_dirty", "1")
        refresh_index(ws)
        from_id = store.entity_ids_by_key().get(merge.from_key)
        restored, to_page = _give_relations_back(store, undo, into, from_id, ws.config.vocabulary.symmetric_names(),
                                                 now)
    restored += _restate_on_pages(ws, to_page, into, from_id)
    return {"unmerged": merge.from_name, "from": merge.into_name, "type": merge.from_type,
            "relations_restored": restored}


def _surface_key(name: str) -> str:
    """The key entity resolution remembers answers under (see kbgraph.resolve.keys.surface_key)."""
    from ..errors import InvalidInput as Invalid
    from .names import name_key
    from ..resolve.keys import surface_key

    try:
        return surface_key(name)
    except Invalid:
        return name_key(name)


def _merge_record(store: Store, name: str) -> dict:
    from .names import name_key

    wanted = name_key(name)
    for merge in store.merges():
        if name_key(merge.from_name) == wanted:
            return store.merge_record(merge.from_key)
    raise InvalidInput(f"{name!r} was not merged into another entity", param="merged_name",
                       hint="give the name of the entity that was merged away")


def _give_relations_back(store: Store, undo: dict, into_id: int | None, from_id: int | None, symmetric,
                         now: str) -> tuple[int, list[dict]]:
    """Re-point the index-only relations the merge moved; re-create those it collapsed or dropped.
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

    with store.transaction():
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

    restated = 0
    for item in dropped:
        ends = [from_id if end in item["ends"] else into_id for end in ("source", "target")]
        source, target = (ws.store.get_entity(LOCAL, i) for i in ends)
        if source is None or target is None or source.id == target.id:
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

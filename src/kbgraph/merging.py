"""`kbg entity merge A B`: A and B are one entity, by the user's decision.

The decision is recorded and replayed whenever the entity set is rebuilt (so it
survives `kbg index --full` and travels in exports); A's name and aliases become
aliases of B, its pages and mentions count for B, and its relations move to B,
duplicates collapsing and self-relations dropped.
"""

from __future__ import annotations

from pathlib import Path

from .entities import entity_key
from .errors import InvalidInput
from .lookup import find_entity
from .model import Merge
from .page_files import write_lock
from .relations import now_iso


def merge_entities(ws, merged_name: str, into_name: str) -> dict:
    store = ws.store
    merged = find_entity(store, merged_name)
    into = find_entity(store, into_name)
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
            outcome = store.move_relations(merged.id, into.id, now, ws.config.vocabulary.symmetric_names())
            store.add_merge(
                Merge(entity_key(merged.type, merged.name), merged.type, merged.name,
                      entity_key(into.type, into.name), into.type, into.name),
                outcome["moved"], now,
            )
            store.set_meta("entities_dirty", "1")
        edited = _remove_self_lines(ws, outcome["self_loops_dropped"], {merged.id: merged, into.id: into})
        from .pipeline import index_vault

        index_vault(Path(ws.root), store=ws.store, only=set(edited), lock_wait=30)
    result = find_entity(store, into.name, into.type)
    return {
        "merged": merged.name, "into": result.name, "type": result.type, "aliases": list(result.aliases),
        "relations_moved": len(outcome["moved"]), "duplicates_collapsed": outcome["collapsed"],
        "self_relations_dropped": [f"{r['source']} --{r['type']}--> {r['target']}"
                                   for r in outcome["self_loops_dropped"]],
        "pages_edited": sorted(edited),
    }


def _remove_self_lines(ws, dropped: list[dict], entities: dict) -> set[str]:
    """Take out of their pages the ## Relations lines that would now relate the entity to itself."""
    from .page_files import edit_page
    from .relation_lines import remove_lines
    from .relations import line_matcher

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

"""Writing an assembled entity set: names keyed here (a rule of names, not of storage), relations of an
entity that disappears handed to where its name went, then the entities nothing keeps removed."""

from __future__ import annotations

from ..model import EntityRecord
from ..relations.moving import move_relations
from ..store.base import EntityName, Store
from .names import loose_key, name_key


def entity_names(records: list[EntityRecord]) -> list[EntityName]:
    return [EntityName(rec.key, surface, kind, name_key(surface), loose_key(surface))
            for rec in records for surface, kind in rec.forms]


def sync_entities(store: Store, records: list[EntityRecord], now: str, redirects: dict[str, str] | None = None,
                  symmetric: frozenset[str] = frozenset()) -> dict[str, int]:
    """Make the stored entities equal to records (ids kept by key); returns key -> id.

    redirects (old key -> key) says where an entity that disappears went (its name now belongs to
    another entity): its relations move there instead of being deleted with it."""
    synced = store.sync_entities(records, entity_names(records), now)
    for key, old_id in synced.gone.items():
        target = (redirects or {}).get(key)
        if target in synced.ids and synced.ids[target] != old_id:
            move_relations(store, old_id, synced.ids[target], now, symmetric)
    store.delete_entities(list(synced.gone.values()), now)
    return synced.ids

"""Writing an assembled entity set: names keyed here (a rule of names, not of storage), relations of an
entity that disappears handed to where its name went, then the entities nothing keeps removed."""

from __future__ import annotations

from collections.abc import Callable

from ..model import EntityClaim, EntityRecord
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




def renamed_entities(pages_before: dict[int, tuple[int, str, str]], claims: list[EntityClaim],
                     primary_page: Callable[[int], str | None]) -> dict[str, tuple[str, str]]:
    """old key -> (new key, new name) of each entity whose page now names it otherwise (`name: Tom Becker`
    edited to Thomas Becker): the same page, so the same entity, under a key made from its new name.

    pages_before: the stored page -> (entity id, name, type) of the last sync; primary_page: an entity
    id -> the path of its own page, asked only when the entity had several pages (one merged into it)
    that all name something else now. Read from the pages' own claims, not the assembled set, where
    an old merge may still give the page its old name. An old key some page still names (this page
    was merged into that one's entity) is no rename, nor is a change of type; a key only a note's
    reference keeps (`attendees: [Tom Becker]`) is."""
    from .assemble import entity_key

    pages = [c for c in claims if c.role == "page"]
    named = {entity_key(c.type, c.name) for c in pages}
    found: dict[str, list[tuple[EntityClaim, int]]] = {}
    for claim in pages:
        before = pages_before.get(claim.doc_id)
        if before is None or before[2] != claim.type:
            continue
        old = entity_key(before[2], before[1])
        if old != entity_key(claim.type, claim.name) and old not in named:
            found.setdefault(old, []).append((claim, before[0]))
    out = {}
    for old, renamed in found.items():
        if len(renamed) > 1:
            renamed = [(c, i) for c, i in renamed if c.doc_path == primary_page(i)]
        if len(renamed) == 1:
            out[old] = (entity_key(renamed[0][0].type, renamed[0][0].name), renamed[0][0].name)
    return out

"""Writing an assembled entity set: names keyed here (a rule of names, not of storage), relations of an
entity that disappears handed to where its name went, then the entities nothing keeps removed."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..model import EntityClaim, EntityRecord, Merge
from .moving import move_relations
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
                     primary_page: Callable[[int], str | None], merges: Sequence[Merge] = (),
                     auto_linked: Callable[[str], bool] = lambda key: False) -> dict[str, tuple[str, str]]:
    """old key -> (new key, new name) of each entity whose page now names it otherwise (`name: Tom Becker`
    edited to Thomas Becker): the same page, so the same entity, under a key made from its new name.

    pages_before: the stored page -> (entity id, name, type) of the last sync; primary_page: an entity
    id -> the path of its own page, asked only when the entity had several pages (one merged into it)
    that all name something else now. Read from the pages' own claims, not the assembled set, where
    an old merge may still give the page its old name. An old key some page still names (this page
    was merged into that one's entity) is no rename, nor is a change of type; a key only a note's
    reference keeps (`attendees: [Tom Becker]`) is.

    merges: the recorded merges. A page the user merged into an entity without a page of its own (`kbg
    entity merge "Tom Becker" "Jon Smith"`) is that entity's page under the merge's name, not a rename:
    taken for one, its merge was dropped at the next index. Only a merge the resolver made of a name in
    a note (auto_linked: "Thomas Becker" in a meeting, linked to Tom Becker) is no obstacle: the page
    renamed to that name is a rename, and that merge is what the rename replaces."""
    from .assemble import entity_key

    pages = [c for c in claims if c.role == "page"]
    named = {entity_key(c.type, c.name) for c in pages}
    found: dict[str, list[tuple[EntityClaim, int]]] = {}
    for claim in pages:
        before = pages_before.get(claim.doc_id)
        if before is None or before[2] != claim.type:
            continue
        old = entity_key(before[2], before[1])
        new = entity_key(claim.type, claim.name)
        if old != new and old not in named and not _merged_by_user(new, old, merges, auto_linked):
            found.setdefault(old, []).append((claim, before[0]))
    out = {}
    for old, renamed in found.items():
        if len(renamed) > 1:
            renamed = [(c, i) for c, i in renamed if c.doc_path == primary_page(i)]
        if len(renamed) == 1:
            out[old] = (entity_key(renamed[0][0].type, renamed[0][0].name), renamed[0][0].name)
    return out


def _merged_by_user(key: str, into: str, merges: Sequence[Merge], auto_linked: Callable[[str], bool]) -> bool:
    """Whether key's recorded merge leads to into (through later merges too), and was not the resolver's."""
    redirect = {m.from_key: m.into_key for m in merges}
    at, seen = key, {key}
    while at in redirect and redirect[at] not in seen:
        at = redirect[at]
        seen.add(at)
    return at == into and key in redirect and not auto_linked(key)

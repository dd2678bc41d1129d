"""An entity's pages on every backend: its own and those linked to it (`same_as:`, merges), read through access."""

from __future__ import annotations

from kbgraph.access import LOCAL, Access
from kbgraph.model import EntityRecord
from kbgraph.store.base import EntityName

from .core_builders import NOW, parsed, write


def test_entity_page_paths_lists_every_page_the_reader_may_see(store):
    own = write(store, parsed("people/jonathan-smith.md", "Jonathan", visibility="public"))
    linked = write(store, parsed("people/jon-smith.md", "Jon", visibility="private"))
    other = write(store, parsed("people/ana.md", "Ana", visibility="public"))
    records = [EntityRecord("person:jonathan smith", "person", "Jonathan Smith", ("Jon Smith",), own,
                            (("Jonathan Smith", "name"),), {}, (own, linked)),
               EntityRecord("person:ana", "person", "Ana", (), other, (("Ana", "name"),), {}, (other,))]
    names = [EntityName("person:jonathan smith", "Jonathan Smith", "name", "jonathan smith", "jonathansmith"),
             EntityName("person:ana", "Ana", "name", "ana", "ana")]
    with store.transaction():
        ids = store.sync_entities(records, names, NOW).ids
    jonathan = ids["person:jonathan smith"]
    assert store.entity_page_paths(LOCAL, jonathan) == ["people/jon-smith.md", "people/jonathan-smith.md"]
    assert store.entity_page_paths(Access.of("ben", ("public",)), jonathan) == ["people/jonathan-smith.md"]
    assert store.entity_page_paths(LOCAL, ids["person:ana"]) == ["people/ana.md"]
    assert store.entity_page_paths(LOCAL, 10_000) == []

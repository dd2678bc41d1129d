"""Memory beyond the basics on every backend: a merged entity's facts, provenance, the revision that
moves with every change, the pages facts and loops are read from, and facts with no page."""

from __future__ import annotations

from kbgraph.access import LOCAL, Access
from kbgraph.entities.sync import sync_entities
from kbgraph.model import EntityRecord, Merge

from .builders import NOW, document, entities
from .test_memory import LATER, _fact, _loop


def test_a_fact_of_a_merged_entity_is_read_with_the_entity_it_became(store):
    ids = entities(store, [("person", "Ana Lima")])
    with store.transaction():
        store.add_merge(Merge("person:ana", "person", "Ana", "person:al", "person", "Al"), [], NOW)
        store.add_merge(Merge("person:al", "person", "Al", "person:ana lima", "person", "Ana Lima"), [], NOW)
        fact = store.add_fact(_fact("person:ana", visibility="public"))
        lost = store.add_fact(_fact("person:nobody", visibility="public"))  # no entity at all: nobody reads it
    guest = Access.of("guest")
    assert store.get_fact(guest, fact) is None  # Ana Lima is private
    assert {f.id for f in store.facts(LOCAL)} == {fact}
    assert store.get_fact(LOCAL, lost) is None
    with store.transaction():
        store.set_entity_governance(ids["Ana Lima"], None, "public", "normal")
    assert [f.id for f in store.facts(guest, "person:ana")] == [fact]


def test_a_merge_cycle_does_not_stop_a_read(store):
    entities(store, [("person", "Ana")])
    with store.transaction():
        store.add_merge(Merge("person:x", "person", "X", "person:y", "person", "Y"), [], NOW)
        store.add_merge(Merge("person:y", "person", "Y", "person:x", "person", "X"), [], NOW)
        looped = store.add_fact(_fact("person:x"))
    assert store.get_fact(LOCAL, looped) is None


def test_facts_are_ordered_by_entity_then_date_then_id(store):
    entities(store, [("person", "Ana"), ("person", "Ben")])
    with store.transaction():
        ben = store.add_fact(_fact("person:ben", date="2026-01-01"))
        late = store.add_fact(_fact(date="2026-05-01"))
        undated = store.add_fact(_fact(date=None, recorded_at="2026-02-01T10:00:00+00:00"))  # read as its day
        early = store.add_fact(_fact(date="2026-01-01"))
    assert [f.id for f in store.facts(LOCAL)] == [early, undated, late, ben]


def test_provenance_can_be_rewritten_on_facts_and_loops_only(store):
    entities(store, [("person", "Ana")])
    with store.transaction():
        fact = store.add_fact(_fact())
        loop = store.add_loop(_loop())
        store.set_memory_provenance("facts", fact, "notes/import.md", LATER)
        store.set_memory_provenance("loops", loop, "notes/other.md", LATER)
    assert (store.get_fact(LOCAL, fact).source, store.get_fact(LOCAL, fact).recorded_at) == ("notes/import.md", LATER)
    assert (store.get_loop(LOCAL, loop).source, store.get_loop(LOCAL, loop).recorded_at) == ("notes/other.md", LATER)
    try:
        store.set_memory_provenance("entities", 1, "x", LATER)
    except ValueError:
        pass
    else:
        raise AssertionError("a table other than facts or loops was accepted")


def test_entity_keys_by_id(store):
    ids = entities(store, [("person", "Ana"), ("team", "Core")])
    assert store.entity_keys([ids["Ana"], ids["Core"], 999]) == {ids["Ana"]: "person:ana", ids["Core"]: "team:core"}
    assert store.entity_keys([]) == {}


def test_the_memory_revision_moves_with_every_change_and_not_on_a_read(store):
    entities(store, [("person", "Ana")])
    seen = [store.memory_revision()]

    def moved() -> bool:
        seen.append(store.memory_revision())
        return seen[-1] != seen[-2]

    with store.transaction():
        fact = store.add_fact(_fact())
    assert moved()
    with store.transaction():
        store.supersede_fact(fact, None, "removed", LATER)
    assert moved()
    with store.transaction():
        loop = store.add_loop(_loop())
    assert moved()
    with store.transaction():
        store.set_loop_status(loop, "resolved", "2026-03-02", LATER)
    assert moved()
    with store.transaction():
        store.set_loop_status(loop, "open", None, "2026-03-03T09:00:00+00:00")
    assert moved()
    assert not moved()


def test_an_entity_page_is_listed_with_what_was_last_read_from_it(store):
    doc_id = document(store, "people/ana.md", owner="ana", visibility="team")
    document(store, "notes/other.md")
    record = EntityRecord(key="person:ana", type="person", name="Ana", aliases=(), page_doc_id=doc_id,
                          forms=(("Ana", "name"),), attributes={}, page_docs=(doc_id,))
    with store.transaction():
        sync_entities(store, [record], NOW)
    [state] = store.memory_page_states()
    assert state == {"doc_id": doc_id, "path": "people/ana.md", "content_hash": "hash-people/ana.md",
                     "synced_hash": None, "entity_key": "person:ana", "entity_name": "Ana", "owner": "ana",
                     "visibility": "team", "sensitivity": "normal", "rehome": False}
    with store.transaction():  # a line of the page, read when the page was another entity's (before a merge)
        store.add_fact(_fact("person:anna", origin="page", origin_doc_id=doc_id, origin_path="people/ana.md"))
    assert store.memory_page_states()[0]["rehome"]
    with store.transaction():
        store.rehome_memory(doc_id, "people/ana.md", "person:ana", "Ana", ("ana", "team", "normal"))
    assert not store.memory_page_states()[0]["rehome"]
    with store.transaction():
        store.save_memory_page(doc_id, "hash-people/ana.md", [])
        store.save_memory_page(doc_id, "hash-2", [(3, "no date"), (7, "no text")])  # saved again: replaced
    assert store.memory_page_states()[0]["synced_hash"] == "hash-2"
    assert store.memory_problems() == [("people/ana.md", 3, "no date"), ("people/ana.md", 7, "no text")]


def test_facts_and_loops_whose_page_is_gone_are_found_by_no_page(store):
    entities(store, [("person", "Ana")])
    with store.transaction():
        orphan = store.add_fact(_fact(origin="page", origin_doc_id=None, origin_path="people/gone.md"))
        store.add_fact(_fact())  # the user's own: no page, but not a page line either
        loop = store.add_loop(_loop(origin="page", origin_doc_id=None, origin_path="people/gone.md"))
        dropped = store.add_loop(_loop(origin="page", origin_doc_id=None, origin_path="people/gone.md"))
        store.set_loop_status(dropped, "dropped", None, LATER)
    assert [f.id for f in store.page_facts(None)] == [orphan]
    assert [loop_.id for loop_ in store.page_loops(None)] == [loop]
    assert store.memory_homes() == {None}

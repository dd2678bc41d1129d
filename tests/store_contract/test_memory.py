"""Facts and loops on every backend: append-only facts, loops by status and due date, access with the entity."""

from __future__ import annotations

from kbgraph.access import LOCAL, Access

from .builders import NOW, document, entities

LATER = "2026-03-02T09:00:00+00:00"


def _fact(key: str = "person:ana", **fields) -> dict:
    return {"entity_key": key, "entity_name": key.split(":")[1].title(), "kind": "interest", "text": "fountain pens",
            "date": "2026-03-01", "source": "manual", "origin": "user", "recorded_at": NOW, **fields}


def _loop(key: str = "person:ana", **fields) -> dict:
    return {"entity_key": key, "entity_name": key.split(":")[1].title(), "text": "ask about the surgery",
            "due": "2026-08-15", "status": "open", "resolved_on": None, "source": "manual", "origin": "user",
            "recorded_at": NOW, "updated_at": NOW, **fields}


def test_a_superseded_fact_stays_readable_with_what_superseded_it(store):
    entities(store, [("person", "Ana")])
    with store.transaction():
        old = store.add_fact(_fact())
        new = store.add_fact(_fact(text="calligraphy", date=None, recorded_at=LATER))
        store.supersede_fact(old, new, "superseded", LATER)
    assert [f.text for f in store.facts(LOCAL, "person:ana")] == ["calligraphy"]
    history = {f.id: f for f in store.facts(LOCAL, "person:ana", include_superseded=True)}
    assert history[old].superseded_by == new and history[old].change == "superseded"
    assert history[old].superseded_at == LATER and history[new].superseded_at is None
    with store.transaction():  # superseding again changes nothing: the first correction stands
        store.supersede_fact(old, None, "removed", "2027-01-01T00:00:00+00:00")
    assert store.get_fact(LOCAL, old).superseded_by == new
    assert store.get_fact(LOCAL, 999) is None


def test_loops_by_status_and_due_date(store):
    entities(store, [("person", "Ana"), ("person", "Ben")])
    with store.transaction():
        soon = store.add_loop(_loop(due="2026-03-01"))
        later = store.add_loop(_loop(text="send the book", due="2026-09-01"))
        undated = store.add_loop(_loop("person:ben", text="call back", due=None))
        store.set_loop_status(soon, "resolved", "2026-03-02", LATER)
    assert [loop.id for loop in store.loops(LOCAL)] == [later, undated]
    assert [loop.id for loop in store.loops(LOCAL, due_by="2026-12-31")] == [later]
    assert [loop.id for loop in store.loops(LOCAL, "person:ana", ("open", "resolved"))] == [soon, later]
    done = store.get_loop(LOCAL, soon)
    assert (done.status, done.resolved_on, done.updated_at) == ("resolved", "2026-03-02", LATER)


def test_a_fact_or_loop_is_read_only_where_it_and_its_entity_may_be(store):
    ids = entities(store, [("person", "Ana"), ("person", "Ben")])
    with store.transaction():
        store.set_entity_governance(ids["Ana"], None, "public", "normal")
        store.set_entity_governance(ids["Ben"], "ben", "private", "normal")
        public = store.add_fact(_fact(visibility="public"))
        private = store.add_fact(_fact(text="secret", visibility="private", owner="ana"))
        hidden_entity = store.add_fact(_fact("person:ben", visibility="public"))
        loop = store.add_loop(_loop(visibility="public", sensitivity="confidential"))
    reader = Access.of("cy", ("public",))
    assert [f.id for f in store.facts(reader)] == [public]
    assert {f.id for f in store.facts(Access.of("ana", ("public",)))} == {public, private}
    assert store.get_fact(reader, hidden_entity) is None and store.get_loop(reader, loop) is None
    assert store.get_loop(Access.of("cy", ("public",), "confidential"), loop) is not None
    assert {f.id for f in store.facts(LOCAL)} == {public, private, hidden_entity}


def test_page_lines_bookkeeping(store):
    doc_id = document(store, "people/ana.md")
    with store.transaction():
        fact = store.add_fact(_fact(origin="page", origin_doc_id=doc_id, origin_path="people/ana.md"))
        store.add_loop(_loop(origin="page", origin_doc_id=doc_id, origin_path="people/ana.md"))
        store.save_memory_page(doc_id, "hash-1", [(12, "not a fact line")])
        store.rehome_memory(doc_id, "people/ana-lima.md", "person:ana lima", "Ana Lima", ("ana", "team", "normal"))
    assert [f.id for f in store.page_facts(doc_id)] == [fact]
    assert store.page_facts(doc_id)[0].page == "people/ana-lima.md"
    assert store.page_loops(doc_id)[0].entity_key == "person:ana lima"
    assert store.memory_homes() == {doc_id}
    assert store.memory_problems() == [("people/ana.md", 12, "not a fact line")]
    assert store.memory_page_states() == []  # the document is nobody's page

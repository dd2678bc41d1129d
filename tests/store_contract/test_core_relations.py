"""Relations on every backend: upsert, page origin, restore, repoint, strength, absorb, and merges; each
change that supersedes a version leaves it in history."""

from __future__ import annotations

from kbgraph.access import LOCAL
from kbgraph.model import Merge

from .builders import NOW, entities, relation
from .core_builders import parsed, write

LATER = "2026-04-02T10:00:00+00:00"


def _changes(store) -> list[str]:
    return [v.change for v in store.relation_history(LOCAL)]


def test_upsert_creates_then_updates_and_bumps_strength(store):
    ids = entities(store, [("person", "Ana"), ("person", "Ben")])
    created = relation(store, ids["Ana"], ids["Ben"], "works-with", reason="pairs", context="ops")
    assert (created["source"], created["target"], created["strength"], created["origin"], created["confidence"],
            created["created_at"], created["reason"], created["context"]) == (
        "Ana", "Ben", 1, "user", "manual", NOW, "pairs", "ops")
    with store.transaction():
        bumped = store.upsert_relation({"source_id": ids["Ana"], "target_id": ids["Ben"], "type": "works-with"},
                                       LATER, bump=True)
    assert (bumped["id"], bumped["strength"], bumped["reason"], bumped["updated_at"]) == (
        created["id"], 2, "pairs", LATER)
    assert _changes(store) == []  # nothing a reader sees changed
    with store.transaction():
        store.upsert_relation({"source_id": ids["Ana"], "target_id": ids["Ben"], "type": "works-with",
                               "reason": "mentors", "valid_until": "2026-12-31"}, LATER, bump=False)
    assert _changes(store) == ["edited"]
    assert store.relation_by_id(created["id"])["valid_until"] == "2026-12-31"
    assert [r["id"] for r in store.relations_touching(ids["Ben"])] == [created["id"]]


def test_a_page_origin_is_recorded_only_when_something_differs(store):
    ids = entities(store, [("person", "Ana"), ("person", "Ben")])
    page = write(store, parsed("people/ana.md", "page"))
    rel = relation(store, ids["Ana"], ids["Ben"], "works-with")
    with store.transaction():
        store.set_page_origin(rel["id"], None, None, page, LATER)
    assert _changes(store) == ["edited"]  # the origin changed, the empty fields did not
    with store.transaction():
        store.set_page_origin(rel["id"], None, None, page, LATER)
    assert _changes(store) == ["edited"]  # the same again: no new version
    with store.transaction():
        store.set_page_origin(rel["id"], "because", None, page, LATER, valid_from="2026-01-01", context="x")
    got = store.relation_by_id(rel["id"])
    assert _changes(store) == ["edited", "edited"]
    assert (got["origin"], got["origin_doc"], got["reason"], got["valid_from"], got["context"]) == (
        "page", "people/ana.md", "because", "2026-01-01", "x")
    assert [r["id"] for r in store.page_relations()] == [rel["id"]]
    with store.transaction():
        store.set_page_origin(rel["id"], None, None, page, LATER)  # a field emptied is a change too
    assert _changes(store) == ["edited", "edited", "edited"]


def test_restore_replaces_and_repoint_moves(store):
    ids = entities(store, [("person", "Ana"), ("person", "Ben"), ("person", "Cy")])
    rel = relation(store, ids["Ana"], ids["Ben"], "works-with", reason="old")
    exported = {**rel, "reason": "restored", "strength": 4, "created_at": "2025-01-01T00:00:00+00:00",
                "updated_at": "2025-02-01T00:00:00+00:00", "inferred": 0}
    with store.transaction():
        store.restore_relation(exported)
    got = store.get_relation(ids["Ana"], ids["Ben"], "works-with")
    assert (got["id"], got["reason"], got["strength"], got["created_at"]) == (
        rel["id"], "restored", 4, "2025-01-01T00:00:00+00:00")
    assert store.first_relation_record() == "2025-01-01T00:00:00+00:00"
    with store.transaction():
        store.repoint_relation(rel["id"], ids["Cy"], ids["Ben"], LATER)
    assert store.get_relation(ids["Ana"], ids["Ben"], "works-with") is None
    assert store.relation_by_id(rel["id"])["source"] == "Cy"
    assert _changes(store) == ["moved"]


def test_strength_never_falls_below_one_and_absorbing_keeps_the_earlier_creation(store):
    ids = entities(store, [("person", "Ana"), ("person", "Ben")])
    rel = relation(store, ids["Ana"], ids["Ben"], "works-with", strength=3)
    with store.transaction():
        store.reduce_strength(rel["id"], 1)
    assert store.relation_by_id(rel["id"])["strength"] == 2
    with store.transaction():
        store.reduce_strength(rel["id"], 5)
    assert store.relation_by_id(rel["id"])["strength"] == 1
    with store.transaction():
        store.absorb_relation(rel["id"], 2, "2026-05-01T00:00:00+00:00", "twin's reason", LATER)
    got = store.relation_by_id(rel["id"])
    assert (got["strength"], got["created_at"], got["reason"]) == (3, NOW, "twin's reason")
    with store.transaction():
        store.absorb_relation(rel["id"], 1, "2025-06-01T00:00:00+00:00", "ignored", LATER)
    got = store.relation_by_id(rel["id"])
    assert (got["strength"], got["created_at"], got["reason"]) == (4, "2025-06-01T00:00:00+00:00", "twin's reason")


def test_an_ended_relation_ends_no_later_than_it_was_due(store):
    ids = entities(store, [("person", "Ana"), ("person", "Ben"), ("person", "Cy")])
    due = relation(store, ids["Ana"], ids["Ben"], "works-with", valid_until="2026-01-31")
    open_ = relation(store, ids["Ana"], ids["Cy"], "works-with")
    with store.transaction():
        store.end_relation(due["id"], LATER)
        store.end_relation(open_["id"], LATER)
    until = {v.target: v.valid_until for v in store.relation_history(LOCAL)}
    assert until == {"Ben": "2026-01-31", "Cy": "2026-04-02"}


def test_merges_are_recorded_read_and_deleted(store):
    first = Merge("person:annie", "person", "Annie", "person:ana", "person", "Ana")
    second = Merge("person:b", "person", "B", "person:ben", "person", "Ben")
    undo = {"moved": [{"id": 7, "ends": [1, 2]}], "collapsed": [], "dropped": []}
    with store.transaction():
        store.add_merge(first, undo, NOW)
        store.add_merge(second, [3, 4], LATER)
    assert store.merges() == [first, second]
    assert store.merge_record("person:annie") == {"merge": first, "undo": undo, "created_at": NOW}
    assert store.merge_record("person:b")["undo"] == {  # an older index kept the moved ids only
        "moved": [{"id": 3, "ends": None}, {"id": 4, "ends": None}], "collapsed": [], "dropped": []}
    assert store.merge_rows()[1] == {"from": {"type": "person", "name": "B"},
                                     "into": {"type": "person", "name": "Ben"}, "created_at": LATER}
    with store.transaction():
        store.delete_merge("person:annie")
    assert store.merges() == [second] and store.merge_record("person:annie") is None

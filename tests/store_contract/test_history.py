"""Relation history: nothing asserted is hard-deleted; reads default to current and can read as of a date."""

from __future__ import annotations

from kbgraph.access import LOCAL
from kbgraph.entities.moving import move_relations

from .builders import entities, relation

MARCH, JUNE, SEPT = "2026-03-10T09:00:00+00:00", "2026-06-01T09:00:00+00:00", "2026-09-01T09:00:00+00:00"


def _names(versions):
    return sorted((v.source, v.type, v.target) for v in versions)


def test_ending_a_relation_keeps_it_in_history_with_both_times(store):
    ids = entities(store, [("person", "Dana"), ("person", "Ana"), ("person", "Ben")])
    row = relation(store, ids["Dana"], ids["Ana"], "reports-to", now=MARCH, reason="team lead")
    with store.transaction():
        store.end_relation(row["id"], JUNE)
    relation(store, ids["Dana"], ids["Ben"], "reports-to", now=JUNE)

    assert store.get_relation(ids["Dana"], ids["Ana"], "reports-to") is None  # not current any more
    (old,) = store.relation_history(LOCAL, ids["Dana"])
    assert (old.source, old.target, old.change, old.reason) == ("Dana", "Ana", "ended", "team lead")
    assert (old.valid_until, old.superseded_at) == ("2026-06-01", JUNE)
    assert old.recorded_at == MARCH

    in_april = store.relations_as_of(LOCAL, ids["Dana"], "out", "reports-to", "2026-04-15")
    in_july = store.relations_as_of(LOCAL, ids["Dana"], "out", "reports-to", "2026-07-15")
    assert _names(in_april) == [("Dana", "reports-to", "Ana")]
    assert _names(in_july) == [("Dana", "reports-to", "Ben")]
    assert [v.change for v in in_july] == ["current"]


def test_an_ended_relation_was_open_as_known_before_it_ended(store):
    ids = entities(store, [("person", "Dana"), ("person", "Ana")])
    row = relation(store, ids["Dana"], ids["Ana"], "reports-to", now=MARCH)
    with store.transaction():
        store.end_relation(row["id"], JUNE)
    may = "2026-05-01T00:00:00+00:00"
    assert _names(store.relations_as_of(LOCAL, ids["Dana"], "out", None, "2026-08-01", known_at=may)) == [
        ("Dana", "reports-to", "Ana")]  # in May nobody knew it would end
    assert store.relations_as_of(LOCAL, ids["Dana"], "out", None, "2026-08-01") == []
    assert store.relations_as_of(LOCAL, ids["Dana"], "out", None, "2026-04-01", known_at="2026-03-01") == []


def test_as_known_at_a_time_reads_the_version_recorded_then(store):
    ids = entities(store, [("person", "Dana"), ("person", "Ana")])
    relation(store, ids["Dana"], ids["Ana"], "reports-to", now=MARCH, reason="first")
    relation(store, ids["Dana"], ids["Ana"], "reports-to", now=JUNE, reason="second", updated_at=JUNE)
    then = store.relations_as_of(LOCAL, ids["Dana"], "out", None, "2026-08-01", known_at="2026-04-01T00:00:00+00:00")
    now = store.relations_as_of(LOCAL, ids["Dana"], "out", None, "2026-08-01")
    assert [v.reason for v in then] == ["first"]
    assert [v.reason for v in now] == ["second"]
    assert [v.change for v in store.relation_history(LOCAL)] == ["edited"]


def test_a_merge_records_what_it_collapsed_and_moved(store):
    ids = entities(store, [("person", "Dana"), ("person", "D. Smith"), ("person", "Ana")])
    relation(store, ids["D. Smith"], ids["Ana"], "reports-to", now=MARCH)
    relation(store, ids["Dana"], ids["Ana"], "reports-to", now=MARCH)
    relation(store, ids["D. Smith"], ids["Dana"], "mentors", now=MARCH)
    with store.transaction():
        outcome = move_relations(store, ids["D. Smith"], ids["Dana"], JUNE)
    assert outcome["collapsed"] == 1 and len(outcome["self_loops_dropped"]) == 1
    assert sorted(v.change for v in store.relation_history(LOCAL)) == ["merged", "merged"]
    twin = store.get_relation(ids["Dana"], ids["Ana"], "reports-to")
    assert twin is not None and twin["strength"] == 2


def test_removing_an_entity_keeps_its_relations_in_history(store):
    ids = entities(store, [("person", "Dana"), ("person", "Ana")])
    relation(store, ids["Dana"], ids["Ana"], "reports-to", now=MARCH)
    entities(store, [("person", "Dana")], now=JUNE)  # Ana's page is gone: the entity set no longer has her
    (gone,) = store.relation_history(LOCAL)
    assert (gone.source, gone.target, gone.change) == ("Dana", "Ana", "removed")


def test_history_round_trips_through_its_rows(store, backend):
    from .conftest import open_backend

    ids = entities(store, [("person", "Dana"), ("person", "Ana")])
    row = relation(store, ids["Dana"], ids["Ana"], "reports-to", now=MARCH)
    with store.transaction():
        store.end_relation(row["id"], JUNE)
    exported = store.history_rows()
    other = open_backend(backend)
    try:
        with other.transaction():
            assert other.restore_history(exported) == 1
            assert other.restore_history(exported) == 0  # importing twice adds nothing
        strip = [{k: v for k, v in r.items() if k != "id"} for r in exported]
        assert [{k: v for k, v in r.items() if k != "id"} for r in other.history_rows()] == strip
    finally:
        other.close()


def test_valid_from_bounds_a_relation_in_time(store):
    ids = entities(store, [("person", "Dana"), ("person", "Ana")])
    relation(store, ids["Dana"], ids["Ana"], "reports-to", now=SEPT, valid_from="2025-01-01")
    assert _names(store.relations_as_of(LOCAL, ids["Dana"], "out", None, "2026-03-01")) == [
        ("Dana", "reports-to", "Ana")]
    assert store.relations_as_of(LOCAL, ids["Dana"], "out", None, "2024-12-31") == []

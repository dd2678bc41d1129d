"""The relation-history feature: reads as of a date, in both directions, with clear errors."""

from __future__ import annotations

import pytest

from kbgraph.access import LOCAL
from kbgraph.errors import InvalidInput
from kbgraph.relations.history import parse_as_of, relation_history, relations_as_of
from kbgraph.vocabulary import Vocabulary
from kbgraph.store.sqlite.store import SqliteStore

from .store_contract.builders import entities, relation

MARCH, JUNE = "2026-03-10T09:00:00+00:00", "2026-06-01T09:00:00+00:00"


@pytest.fixture
def dana():
    store = SqliteStore.open(":memory:")
    ids = entities(store, [("person", "Dana"), ("person", "Ana"), ("person", "Ben")])
    old = relation(store, ids["Dana"], ids["Ana"], "reports-to", now=MARCH)
    with store.transaction():
        store.end_relation(old["id"], JUNE)
    relation(store, ids["Dana"], ids["Ben"], "reports-to", now=JUNE)
    yield store, {name: store.get_entity(LOCAL, i) for name, i in ids.items()}
    store.close()


def test_who_dana_reported_to_in_april_and_who_reported_to_ana(dana):
    store, people = dana
    april = relations_as_of(store, Vocabulary(), people["Dana"], "2026-04-15", type_name="reports-to", access=LOCAL)
    assert [(r["target"], r["current"]) for r in april["relations"]] == [("Ana", False)]
    ana = relations_as_of(store, Vocabulary(), people["Ana"], "2026-04-15", access=LOCAL)
    assert [r["source"] for r in ana["inverse_relations"]] == ["Dana"]
    now = relations_as_of(store, Vocabulary(), people["Dana"], "2026-07-01T12:00:00", access=LOCAL)
    assert [(r["target"], r["current"]) for r in now["relations"]] == [("Ben", True)]


def test_the_inverse_name_of_a_type_reads_the_same_relations(dana):
    store, people = dana
    managed = relations_as_of(store, Vocabulary(), people["Ana"], "2026-04-15", type_name="manages", access=LOCAL)
    assert [r["source"] for r in managed["inverse_relations"]] == ["Dana"]


def test_a_date_before_anything_was_recorded_is_refused_with_the_first_date(dana):
    store, people = dana
    with pytest.raises(InvalidInput, match="before any relation kbgraph recorded.*2026-03-10") as caught:
        relations_as_of(store, Vocabulary(), people["Dana"], "2020-01-01", access=LOCAL)
    assert caught.value.param == "as_of"


@pytest.mark.parametrize("bad", ["", "March", "2026-13-01", "01/03/2026"])
def test_a_date_that_is_not_a_date_names_the_parameter(bad):
    with pytest.raises(InvalidInput, match="is not a date") as caught:
        parse_as_of(bad)
    assert caught.value.param == "as_of" and "YYYY-MM-DD" in caught.value.hint


def test_history_lists_the_ended_version(dana):
    store, people = dana
    (ended,) = relation_history(store, people["Dana"], access=LOCAL)
    assert (ended["target"], ended["change"], ended["valid_until"]) == ("Ana", "ended", "2026-06-01")

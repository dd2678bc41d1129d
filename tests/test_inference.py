"""Transitive inference: derived relations kept apart, marked, explained by their premises, shown
only when asked for, and gone when a premise goes."""

from __future__ import annotations

import pytest

from kbgraph.access import LOCAL
from kbgraph.config import DEFAULT_INFERENCE_RULES, config_from_dict
from kbgraph.errors import ConfigError
from kbgraph.graph.inference import infer, infer_if_changed, inferred_relations
from kbgraph.graph.neighbours import neighbours
from kbgraph.graph.paths import path
from kbgraph.graph.view import GraphView
from kbgraph.vocabulary import Vocabulary
from kbgraph.store.base import GraphScope
from kbgraph.store.sqlite.store import SqliteStore

from .conftest import kbg, run_kbg
from .store_contract.builders import entities, relation

VOCAB = Vocabulary()


@pytest.fixture
def stack():
    store = SqliteStore.open(":memory:")
    ids = entities(store, [("person", "Dana"), ("person", "Ana"), ("person", "Ben"), ("project", "Atlas"),
                           ("technology", "Kafka"), ("technology", "ZooKeeper")])
    relation(store, ids["Dana"], ids["Ana"], "reports-to")
    relation(store, ids["Ana"], ids["Ben"], "reports-to")
    relation(store, ids["Atlas"], ids["Kafka"], "uses")
    relation(store, ids["Kafka"], ids["ZooKeeper"], "depends-on")
    yield store, {n: store.get_entity(LOCAL, i) for n, i in ids.items()}
    store.close()


def test_rules_give_marked_relations_with_the_path_that_derived_them(stack):
    store, e = stack
    summary = infer(store, DEFAULT_INFERENCE_RULES)
    assert summary["added"] == 2 and summary["count"] == 2
    rows = {(r["source"], r["type"], r["target"]): r for r in inferred_relations(store, access=LOCAL)}
    assert set(rows) == {("Dana", "skip-level-reports-to", "Ben"), ("Atlas", "indirectly-depends-on", "ZooKeeper")}
    atlas = rows[("Atlas", "indirectly-depends-on", "ZooKeeper")]
    assert [(h["from"], h["type"], h["to"]) for h in atlas["via"]] == [("Atlas", "uses", "Kafka"),
                                                                      ("Kafka", "depends-on", "ZooKeeper")]
    assert atlas["confidence"] == "inferred" and atlas["rule"] == "uses-then-depends-on"


def test_inferred_relations_show_only_when_asked_for(stack):
    store, e = stack
    infer(store, DEFAULT_INFERENCE_RULES)
    plain = neighbours(store, VOCAB, e["Dana"], access=LOCAL)
    assert [x["name"] for x in plain["levels"][0]["entities"]] == ["Ana"]
    asked = neighbours(store, VOCAB, e["Dana"], view=GraphView(include_inferred=True), access=LOCAL)
    names = {x["name"]: x for x in asked["levels"][0]["entities"]}
    assert set(names) == {"Ana", "Ben"}
    assert names["Ben"]["path"][0]["inferred"] is True
    assert path(store, VOCAB, e["Dana"], e["Ben"], view=GraphView(include_inferred=True), access=LOCAL)["hops"] == 1
    assert path(store, VOCAB, e["Dana"], e["Ben"], access=LOCAL)["hops"] == 2


def test_an_inferred_relation_goes_when_a_premise_goes(stack):
    store, e = stack
    infer(store, DEFAULT_INFERENCE_RULES)
    assert infer_if_changed(store, DEFAULT_INFERENCE_RULES) is None  # nothing changed: nothing to do
    premise = store.get_relation(e["Kafka"].id, e["ZooKeeper"].id, "depends-on")
    with store.transaction():
        store.end_relation(premise["id"], "2026-06-01T09:00:00+00:00")
    summary = infer_if_changed(store, DEFAULT_INFERENCE_RULES)
    assert summary is not None and summary["removed"] == 1
    assert [r["type"] for r in inferred_relations(store, access=LOCAL)] == ["skip-level-reports-to"]


def test_an_asserted_relation_is_not_inferred_again(stack):
    store, e = stack
    relation(store, e["Dana"].id, e["Ben"].id, "skip-level-reports-to")
    infer(store, DEFAULT_INFERENCE_RULES)
    assert [r["type"] for r in inferred_relations(store, access=LOCAL)] == ["indirectly-depends-on"]


def test_an_expired_premise_infers_nothing(stack):
    store, e = stack
    relation(store, e["Ana"].id, e["Ben"].id, "reports-to", valid_until="2020-01-01", now="2019-01-01T00:00:00+00:00")
    infer(store, DEFAULT_INFERENCE_RULES)
    assert all(r["type"] != "skip-level-reports-to" for r in inferred_relations(store, access=LOCAL))


@pytest.mark.parametrize("rules, message", [
    ({"x": {"path": ["uses", "nope"], "gives": "indirectly-depends-on"}}, "unknown relation type 'nope'"),
    ({"x": {"path": ["depends-on", "depends-on"], "gives": "depends-on"}}, "forms a cycle"),
    ({"x": {"path": ["uses", "depends-on"], "gives": "part-of"},
      "y": {"path": ["part-of", "uses"], "gives": "uses"}}, "forms a cycle"),
    ({"x": {"path": ["manages", "reports-to"], "gives": "works-with"}}, "name 'manages' as 'reports-to'"),
    ({"x": {"path": ["uses"], "gives": "works-with"}}, "path must name two relation types"),
    ({"x": {"gives": "works-with"}}, "needs path"),
])
def test_bad_rules_are_config_errors(rules, message):
    with pytest.raises(ConfigError, match=message):
        config_from_dict({"graph": {"rules": rules}})


def test_rules_can_be_turned_off_and_added():
    assert config_from_dict({"graph": {"rules": {"defaults": False}}}).inference_rules == ()
    names = [r.name for r in config_from_dict({"graph": {"rules": {"skip-level": False}}}).inference_rules]
    assert "skip-level" not in names and "uses-then-depends-on" in names
    custom = config_from_dict({"graph": {"rules": {"defaults": False, "mentor-chain": {
        "path": ["mentors", "mentors"], "gives": "works-with"}}}}).inference_rules
    assert [(r.path, r.gives) for r in custom] == [(("mentors", "mentors"), "works-with")]


def test_kbg_graph_infer_and_the_index_keep_them_current(indexed_vault):
    data = kbg(indexed_vault, "graph", "infer")
    skip = {(r["source"], r["target"]) for r in data["inferred"] if r["type"] == "skip-level-reports-to"}
    assert ("Arjun Mehta", "Ben Okafor") in skip  # Arjun reports_to Ana, Ana reports_to Ben (frontmatter)
    kbg(indexed_vault, "entity", "relate", "Ben Okafor", "--type", "reports-to", "--target", "María García")
    again = kbg(indexed_vault, "graph", "neighbours", "Ana Lima", "--include-inferred", "--type",
                "skip-level-reports-to")
    assert [x["name"] for x in again["levels"][0]["entities"]] == ["María García"]  # kept current by relate
    kbg(indexed_vault, "entity", "unrelate", "Ben Okafor", "--type", "reports-to", "--target", "María García")
    gone = kbg(indexed_vault, "graph", "neighbours", "Ana Lima", "--include-inferred", "--type",
               "skip-level-reports-to")
    assert gone["levels"] == []
    assert run_kbg("graph", "infer", "--vault", str(indexed_vault)).returncode == 0


def test_a_reader_who_does_not_see_everything_gets_no_inferred_relation(stack):
    from kbgraph.access import Access

    store, e = stack
    infer(store, DEFAULT_INFERENCE_RULES)
    guest = Access.of("guest", ("public",))
    assert inferred_relations(store, guest) == []
    assert store.relation_steps(guest, [e["Dana"].id], "both", GraphScope(include_inferred=True)) == []


def test_inference_reruns_when_the_rules_change_or_a_premise_expires_with_the_date(store_with_expiry):
    store, ids = store_with_expiry
    assert infer_if_changed(store, DEFAULT_INFERENCE_RULES, today="2026-05-01")["count"] == 2
    assert infer_if_changed(store, DEFAULT_INFERENCE_RULES, today="2026-05-01") is None  # nothing moved
    only_skip = tuple(r for r in DEFAULT_INFERENCE_RULES if r.gives == "skip-level-reports-to")
    rerun = infer_if_changed(store, only_skip, today="2026-05-01")  # [graph.rules] edited: no relation moved
    assert rerun is not None and rerun["count"] == 1
    assert {r["type"] for r in inferred_relations(store, access=LOCAL)} == {"skip-level-reports-to"}
    later = infer_if_changed(store, only_skip, today="2026-07-01")  # Ana's reports-to Ben ended 2026-06-30
    assert later is not None and later["count"] == 0 and inferred_relations(store, access=LOCAL) == []


@pytest.fixture
def store_with_expiry():
    store = SqliteStore.open(":memory:")
    ids = entities(store, [("person", "Dana"), ("person", "Ana"), ("person", "Ben"), ("project", "Atlas"),
                           ("technology", "Kafka"), ("technology", "ZooKeeper")])
    relation(store, ids["Dana"], ids["Ana"], "reports-to")
    relation(store, ids["Ana"], ids["Ben"], "reports-to", valid_until="2026-06-30")
    relation(store, ids["Atlas"], ids["Kafka"], "uses")
    relation(store, ids["Kafka"], ids["ZooKeeper"], "depends-on")
    yield store, ids
    store.close()

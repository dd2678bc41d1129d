"""Graph operations: neighbours, paths, hubs and exports, on a real SQLite store; shortest paths
checked against networkx on random graphs; the answer cache checked against relation changes."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbgraph.access import LOCAL
from kbgraph.errors import InvalidInput, NotFound
from kbgraph.graph.cache import cache_for
from kbgraph.graph.export import export_graph
from kbgraph.graph.hubs import hubs
from kbgraph.graph.neighbours import neighbours
from kbgraph.graph.paths import path
from kbgraph.graph.view import GraphView
from kbgraph.vocabulary import Vocabulary
from kbgraph.store.sqlite.store import SqliteStore

from .conftest import fast
from .store_contract.builders import entities, relation

VOCAB = Vocabulary()
MARCH, JUNE = "2026-03-10T09:00:00+00:00", "2026-06-01T09:00:00+00:00"


@pytest.fixture
def org():
    """Dana reported to Ana until June, then to Ben; Ben and Ana report to Cy; Cy leads Atlas, which
    depends on Kafka; Eve stands alone."""
    store = SqliteStore.open(":memory:")
    ids = entities(store, [("person", n) for n in ("Ana", "Ben", "Cy", "Dana", "Eve")]
                   + [("project", "Atlas"), ("technology", "Kafka")])
    old = relation(store, ids["Dana"], ids["Ana"], "reports-to", now=MARCH)
    with store.transaction():
        store.end_relation(old["id"], JUNE)
    relation(store, ids["Dana"], ids["Ben"], "reports-to", now=JUNE)
    relation(store, ids["Ben"], ids["Cy"], "reports-to", now=MARCH)
    relation(store, ids["Ana"], ids["Cy"], "reports-to", now=MARCH)
    relation(store, ids["Cy"], ids["Atlas"], "leads", now=MARCH)
    relation(store, ids["Atlas"], ids["Kafka"], "depends-on", now=MARCH)
    yield store, {name: store.get_entity(LOCAL, i) for name, i in ids.items()}
    store.close()


def _names(result, distance):
    level = next(lvl for lvl in result["levels"] if lvl["distance"] == distance)
    return [e["name"] for e in level["entities"]]


def test_neighbours_by_distance_with_the_path_that_reached_each(org):
    store, e = org
    result = neighbours(store, VOCAB, e["Dana"], depth=2, access=LOCAL)
    assert _names(result, 1) == ["Ben"]
    assert _names(result, 2) == ["Cy"]
    cy = result["levels"][1]["entities"][0]
    assert [(h["from"], h["type"], h["to"]) for h in cy["path"]] == [("Dana", "reports-to", "Ben"),
                                                                    ("Ben", "reports-to", "Cy")]
    three = neighbours(store, VOCAB, e["Dana"], depth=3, access=LOCAL)
    assert sorted(_names(three, 3)) == ["Ana", "Atlas"]


def test_a_direction_reads_in_the_words_of_the_type_named(org):
    store, e = org
    reports = neighbours(store, VOCAB, e["Cy"], direction="in", view=GraphView(types=("reports-to",)), access=LOCAL)
    managed = neighbours(store, VOCAB, e["Cy"], direction="out", view=GraphView(types=("manages",)), access=LOCAL)
    assert _names(reports, 1) == _names(managed, 1) == ["Ana", "Ben"]
    assert [h["type"] for h in managed["levels"][0]["entities"][0]["path"]] == ["manages"]
    assert neighbours(store, VOCAB, e["Cy"], direction="out", view=GraphView(types=("reports-to",)), access=LOCAL)["levels"] == []


def test_neighbours_as_of_a_date_read_the_graph_as_it_was(org):
    store, e = org
    april = neighbours(store, VOCAB, e["Dana"], view=GraphView(as_of="2026-04-15"), access=LOCAL)
    assert _names(april, 1) == ["Ana"]
    assert april["as_of"] == "2026-04-15"
    july = neighbours(store, VOCAB, e["Dana"], view=GraphView(as_of="2026-07-01"), access=LOCAL)
    assert _names(july, 1) == ["Ben"]


def test_the_limit_stops_the_walk_and_says_so(org):
    store, e = org
    result = neighbours(store, VOCAB, e["Cy"], depth=3, limit=2, access=LOCAL)
    assert result["count"] == 2 and result["truncated"]


@pytest.mark.parametrize("depth", [0, 7, 50, -1])
def test_a_depth_out_of_range_is_refused(org, depth):
    store, e = org
    with pytest.raises(InvalidInput, match="`depth` must be between 1 and 6"):
        neighbours(store, VOCAB, e["Cy"], depth=depth, access=LOCAL)


@pytest.mark.parametrize("as_of, message", [("2999-01-01", "in the future"), ("March", "is not a date")])
def test_a_bad_as_of_is_refused(org, as_of, message):
    store, e = org
    with pytest.raises(InvalidInput, match=message):
        neighbours(store, VOCAB, e["Cy"], view=GraphView(as_of=as_of), access=LOCAL)


def test_the_shortest_path_reads_each_hop_the_way_it_is_walked(org):
    store, e = org
    result = path(store, VOCAB, e["Dana"], e["Kafka"], access=LOCAL)
    assert result["hops"] == 4
    assert [(h["from"], h["type"], h["to"]) for h in result["paths"][0]] == [
        ("Dana", "reports-to", "Ben"), ("Ben", "reports-to", "Cy"), ("Cy", "leads", "Atlas"),
        ("Atlas", "depends-on", "Kafka")]
    back = path(store, VOCAB, e["Kafka"], e["Ben"], access=LOCAL)
    assert [h["type"] for h in back["paths"][0]] == ["depended-on-by", "led-by", "manages"]


def test_every_shortest_path_with_all(org):
    store, e = org
    relation(store, e["Ana"].id, e["Atlas"].id, "contributes-to")
    result = path(store, VOCAB, e["Ben"], e["Atlas"], all_paths=True, access=LOCAL)
    assert result["hops"] == 2 and result["count"] == 1  # via Cy; via Ana is 3 hops
    relation(store, e["Ben"].id, e["Ana"].id, "collaborates-with")
    result = path(store, VOCAB, e["Ben"], e["Atlas"], all_paths=True, access=LOCAL)
    assert sorted(p[0]["to"] for p in result["paths"]) == ["Ana", "Cy"]


def test_no_path_says_whether_they_are_unconnected_or_too_far(org):
    store, e = org
    with pytest.raises(NotFound, match="not connected"):
        path(store, VOCAB, e["Eve"], e["Cy"], access=LOCAL)
    with pytest.raises(NotFound, match="within 2 hops"):
        path(store, VOCAB, e["Dana"], e["Kafka"], max_hops=2, access=LOCAL)
    with pytest.raises(InvalidInput, match="both ends"):
        path(store, VOCAB, e["Cy"], e["Cy"], access=LOCAL)


def test_a_path_as_of_a_date(org):
    store, e = org
    assert path(store, VOCAB, e["Dana"], e["Ana"], view=GraphView(as_of="2026-04-15"), access=LOCAL)["hops"] == 1
    assert path(store, VOCAB, e["Dana"], e["Ana"], access=LOCAL)["hops"] == 3


def test_a_relation_change_invalidates_cached_answers(org):
    store, e = org
    cache = cache_for(store)
    with pytest.raises(NotFound):
        path(store, VOCAB, e["Eve"], e["Ana"], access=LOCAL)
    hits = cache.hits
    with pytest.raises(NotFound):
        path(store, VOCAB, e["Eve"], e["Ana"], access=LOCAL)
    assert cache.hits == hits + 1  # the second ask was answered from the cache
    relation(store, e["Eve"].id, e["Ana"].id, "mentors")
    assert path(store, VOCAB, e["Eve"], e["Ana"], access=LOCAL)["hops"] == 1
    assert cache.hits == hits + 1
    answer = path(store, VOCAB, e["Eve"], e["Ana"], access=LOCAL)
    answer["paths"].clear()  # a caller's change to its answer does not reach the cache
    assert path(store, VOCAB, e["Eve"], e["Ana"], access=LOCAL)["count"] == 1


def test_a_change_made_through_another_connection_invalidates_too(tmp_path):
    first = SqliteStore.open(str(tmp_path / "g.db"))
    ids = entities(first, [("person", "Ana"), ("person", "Ben")])
    ana, ben = (first.get_entity(LOCAL, ids[n]) for n in ("Ana", "Ben"))
    with pytest.raises(NotFound):
        path(first, VOCAB, ana, ben, access=LOCAL)
    other = SqliteStore.open(str(tmp_path / "g.db"))
    relation(other, ids["Ana"], ids["Ben"], "mentors")
    other.close()
    assert path(first, VOCAB, ana, ben, access=LOCAL)["hops"] == 1
    first.close()


@st.composite
def _random_graphs(draw):
    n = draw(st.integers(2, 9))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1]),
                          max_size=20, unique_by=lambda p: (min(p), max(p))))
    pair = draw(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1]))
    return n, edges, pair


@fast(60)
@given(_random_graphs())
def test_shortest_paths_agree_with_networkx(graph):
    n, edges, (a, b) = graph
    store = SqliteStore.open(":memory:")
    ids = entities(store, [("person", f"P{i}") for i in range(n)])
    reference = nx.MultiGraph()
    reference.add_nodes_from(range(n))
    for s, t in edges:
        relation(store, ids[f"P{s}"], ids[f"P{t}"], "mentors")
        reference.add_edge(s, t)
    start, end = (store.get_entity(LOCAL, ids[f"P{i}"]) for i in (a, b))
    if not nx.has_path(reference, a, b):
        with pytest.raises(NotFound):
            path(store, VOCAB, start, end, all_paths=True, access=LOCAL)
    else:
        result = path(store, VOCAB, start, end, all_paths=True, access=LOCAL)
        expected = list(nx.all_shortest_paths(reference, a, b))
        assert result["hops"] == len(expected[0]) - 1
        assert sorted([e["to"] for e in p] for p in result["paths"]) == sorted(
            [f"P{i}" for i in p[1:]] for p in expected)
    store.close()


def test_hubs_by_degree_and_by_pagerank(org):
    store, e = org
    by_degree = hubs(store, VOCAB, limit=2, access=LOCAL)
    assert [(h["name"], h["degree"]) for h in by_degree["hubs"]] == [("Cy", 3), ("Ben", 2)]
    ranked = hubs(store, VOCAB, limit=10, by="pagerank", access=LOCAL)
    scores = {h["name"]: h["score"] for h in ranked["hubs"]}
    assert scores["Kafka"] == max(scores.values())  # everything flows down to what is depended on
    assert sum(scores.values()) == pytest.approx(1.0, abs=1e-4)
    # networkx's pure-Python PageRank (its public one needs scipy), same damping and dangling rule.
    from networkx.algorithms.link_analysis.pagerank_alg import _pagerank_python

    reference = _pagerank_python(nx.DiGraph([("Dana", "Ben"), ("Ben", "Cy"), ("Ana", "Cy"), ("Cy", "Atlas"),
                                        ("Atlas", "Kafka")]), alpha=0.85, tol=1e-12)
    assert scores == pytest.approx({k: round(v, 6) for k, v in reference.items()}, abs=1e-5)
    with pytest.raises(InvalidInput, match="`by`"):
        hubs(store, VOCAB, by="fame", access=LOCAL)


def test_graphml_opens_in_networkx_with_names_types_and_labels(org):
    store, e = org
    text = "\n".join(export_graph(store, VOCAB, "graphml", connected_only=True, access=LOCAL))
    ET.fromstring(text)  # well-formed XML
    graph = nx.read_graphml(io.BytesIO(text.encode()))
    names = nx.get_node_attributes(graph, "name")
    assert sorted(names.values()) == ["Ana", "Atlas", "Ben", "Cy", "Dana", "Kafka"]  # Eve has no relation
    labelled = {(names[s], d["label"], names[t]) for s, t, d in graph.edges(data=True)}
    assert ("Cy", "leads", "Atlas") in labelled and len(labelled) == 5


def test_names_that_break_xml_or_dot_are_escaped():
    store = SqliteStore.open(":memory:")
    ids = entities(store, [("person", 'Ann "A&B" <x>\x07'), ("person", "Bo\\b")])
    relation(store, *ids.values(), "mentors")
    graph = nx.read_graphml(io.BytesIO("\n".join(export_graph(store, VOCAB, "graphml", access=LOCAL)).encode()))
    assert 'Ann "A&B" <x>' in nx.get_node_attributes(graph, "name").values()
    dot = "\n".join(export_graph(store, VOCAB, "dot", access=LOCAL))
    assert r'label="Ann \"A&B\" <x>' in dot and r'"Bo\\b"' in dot
    data = json.loads("\n".join(export_graph(store, VOCAB, "json", access=LOCAL)))
    assert [edge["data"]["type"] for edge in data["elements"]["edges"]] == ["mentors"]
    with pytest.raises(InvalidInput, match="`format`"):
        export_graph(store, VOCAB, "gexf", access=LOCAL)

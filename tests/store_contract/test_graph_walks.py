"""Bounded-depth walks on every backend (graph/neighbours.py over relation_steps, one query per hop: the
way kept for PostgreSQL too, bench/RESULTS.md §26): a cycle is walked once, each entity is listed at its
shortest distance, and nothing beyond the depth asked for is read."""

from __future__ import annotations

from kbgraph.access import LOCAL
from kbgraph.config import Config
from kbgraph.graph.neighbours import neighbours
from kbgraph.graph.view import GraphView

from .builders import entities, relation

VIEW = GraphView((), None, False, False)


def _levels(answer) -> list[list[str]]:
    return [[e["name"] for e in level["entities"]] for level in answer["levels"]]


def test_a_cycle_is_walked_once_each_entity_at_its_distance_and_the_depth_bounds_the_walk(store):
    ids = entities(store, [("person", n) for n in ("Ana", "Ben", "Cy", "Dee", "Eve")])
    for source, target in (("Ana", "Ben"), ("Ben", "Cy"), ("Cy", "Ana"), ("Cy", "Dee"), ("Dee", "Eve")):
        relation(store, ids[source], ids[target], "works-with")
    vocab = Config().vocabulary
    ana = store.get_entity(LOCAL, ids["Ana"])
    two = neighbours(store, vocab, ana, 2, "both", VIEW, None, access=LOCAL)
    assert _levels(two) == [["Ben", "Cy"], ["Dee"]]  # Eve is three relations away; Ana is never her own neighbour
    assert [e["relations"] for e in two["levels"][0]["entities"]] == [1, 1]
    assert [h["to"] for h in two["levels"][1]["entities"][0]["path"]] == ["Cy", "Dee"]  # the shortest way there
    assert _levels(neighbours(store, vocab, ana, 6, "both", VIEW, None, access=LOCAL)) == [["Ben", "Cy"], ["Dee"], ["Eve"]]
    assert _levels(neighbours(store, vocab, ana, 6, "out", VIEW, None, access=LOCAL)) == [["Ben"], ["Cy"], ["Dee"], ["Eve"]]

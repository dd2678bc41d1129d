"""The graph reads of the contract: steps out of a frontier, degrees, edges, and the generation
counter that moves with every change a graph answer could depend on."""

from __future__ import annotations

from kbgraph.access import LOCAL, Access
from kbgraph.store.base import GraphScope

from .builders import entities, relation

TODAY = "2026-06-01"


def _graph(store):
    ids = entities(store, [("person", "Ana"), ("person", "Ben"), ("person", "Cy"), ("project", "Atlas")])
    relation(store, ids["Ana"], ids["Ben"], "reports-to", visibility="public")
    relation(store, ids["Ben"], ids["Cy"], "reports-to", valid_until="2026-01-31", visibility="public")
    relation(store, ids["Cy"], ids["Atlas"], "leads", inferred=True, visibility="public")
    return ids


def _pairs(steps):
    return sorted((s.from_id, s.to_id, s.type, s.outgoing) for s in steps)


def test_steps_follow_the_direction_asked_and_name_the_neighbour(store):
    ids = _graph(store)
    scope = GraphScope(active_on=TODAY)
    out = store.relation_steps(LOCAL, [ids["Ana"]], "out", scope)
    assert _pairs(out) == [(ids["Ana"], ids["Ben"], "reports-to", True)]
    assert (out[0].to_name, out[0].to_type) == ("Ben", "person")
    into = store.relation_steps(LOCAL, [ids["Ben"]], "in", scope)
    assert _pairs(into) == [(ids["Ben"], ids["Ana"], "reports-to", False)]
    both = store.relation_steps(LOCAL, [ids["Ben"]], "both", GraphScope())
    assert _pairs(both) == sorted([(ids["Ben"], ids["Ana"], "reports-to", False),
                                   (ids["Ben"], ids["Cy"], "reports-to", True)])


def test_scope_leaves_out_expired_inferred_and_other_types(store):
    ids = _graph(store)
    assert store.relation_steps(LOCAL, [ids["Ben"]], "out", GraphScope(active_on=TODAY)) == []
    assert len(store.relation_steps(LOCAL, [ids["Ben"]], "out", GraphScope(active_on="2026-01-15"))) == 1
    assert store.relation_steps(LOCAL, [ids["Cy"]], "out", GraphScope()) == []
    inferred = store.relation_steps(LOCAL, [ids["Cy"]], "out", GraphScope(include_inferred=True))
    assert [s.inferred for s in inferred] == [True]
    assert store.relation_steps(LOCAL, [ids["Ana"]], "out", GraphScope(types=("leads",))) == []


def test_relations_not_yet_true_are_not_crossed(store):
    ids = entities(store, [("person", "Ana"), ("person", "Ben")])
    relation(store, ids["Ana"], ids["Ben"], "reports-to", valid_from="2026-09-01")
    assert store.relation_steps(LOCAL, [ids["Ana"]], "out", GraphScope(active_on=TODAY)) == []
    assert len(store.relation_steps(LOCAL, [ids["Ana"]], "out", GraphScope(active_on="2026-09-01"))) == 1


def test_a_reader_crosses_only_relations_and_ends_it_may_read(store):
    ids = entities(store, [("person", "Ana"), ("person", "Ben")])
    relation(store, ids["Ana"], ids["Ben"], "reports-to", visibility="public")
    guest = Access.of("guest", ("public",))
    assert store.relation_steps(guest, [ids["Ana"]], "out", GraphScope()) == []  # the entities are private
    for entity_id in ids.values():
        with store.transaction():
            store.set_entity_governance(entity_id, None, "public", "normal")
    assert len(store.relation_steps(guest, [ids["Ana"]], "out", GraphScope())) == 1
    assert store.relation_degrees(guest, GraphScope(), None) == [(ids["Ana"], 1), (ids["Ben"], 1)]
    assert set(store.entities_by_ids(guest, list(ids.values()))) == set(ids.values())


def test_degrees_and_edges_count_what_the_scope_reads(store):
    ids = _graph(store)
    assert store.relation_degrees(LOCAL, GraphScope(), None) == [(ids["Ben"], 2), (ids["Ana"], 1), (ids["Cy"], 1)]
    assert store.relation_degrees(LOCAL, GraphScope(include_inferred=True), 1) == [(ids["Ben"], 2)]
    edges = store.relation_edges(LOCAL, GraphScope(active_on=TODAY))
    assert [(s, t, kind) for s, t, _id, kind, _inf in edges] == [(ids["Ana"], ids["Ben"], "reports-to")]


def test_the_generation_moves_with_every_change_to_relations_and_their_ends(store):
    ids = _graph(store)
    seen = [store.relation_generation()]

    def moved() -> bool:
        seen.append(store.relation_generation())
        return seen[-1] != seen[-2]

    new = relation(store, ids["Ana"], ids["Cy"], "mentors")
    assert moved()
    with store.transaction():
        store.reduce_strength(new["id"], 0)
    assert moved()
    with store.transaction():
        store.end_relation(new["id"], "2026-06-01T09:00:00+00:00")
    assert moved()
    with store.transaction():
        store.set_entity_governance(ids["Ana"], "ana", "team", "normal")
    assert moved()
    assert not moved()  # reading changes nothing

"""Inference on every backend: the chains a rule reads, the inferred relations replaced as a set, and how
traversals, edges and the generation counter see them."""

from __future__ import annotations

import json

from kbgraph.access import LOCAL, Access
from kbgraph.store.base import GraphScope

from .builders import NOW, entities, relation

TODAY = "2026-06-01"
LATER = "2026-06-02T09:00:00+00:00"


def _org(store):
    ids = entities(store, [("person", "Ana"), ("person", "Ben"), ("person", "Cy"), ("team", "Core")])
    ana_ben = relation(store, ids["Ana"], ids["Ben"], "reports-to")["id"]
    ben_cy = relation(store, ids["Ben"], ids["Cy"], "reports-to")["id"]
    relation(store, ids["Cy"], ids["Ana"], "reports-to", valid_until="2026-01-31")  # over: no chain through it
    relation(store, ids["Ben"], ids["Core"], "member-of", valid_from="2026-09-01")  # not yet true
    relation(store, ids["Cy"], ids["Core"], "member-of", inferred=True)  # inferred rows are no premise
    return ids, ana_ben, ben_cy


def test_chains_are_current_asserted_two_step_paths_between_different_ends(store):
    ids, ana_ben, ben_cy = _org(store)
    assert store.relation_chains("reports-to", "reports-to", TODAY) == [(ids["Ana"], ids["Cy"], ana_ben, ben_cy)]
    assert store.relation_chains("reports-to", "member-of", TODAY) == []
    assert store.relation_chains("reports-to", "member-of", "2026-09-01") == [
        (ids["Ana"], ids["Core"], ana_ben, store.get_relation(ids["Ben"], ids["Core"], "member-of")["id"])]
    # Back then Cy reported to Ana too: a chain that would end where it began is left out.
    back_then = store.relation_chains("reports-to", "reports-to", "2026-01-15")
    assert {(a, c) for a, c, _one, _two in back_then} == {(ids["Ana"], ids["Cy"]), (ids["Ben"], ids["Ana"]),
                                                         (ids["Cy"], ids["Ben"])}
    assert back_then == sorted(back_then, key=lambda chain: (chain[2], chain[3]))


def test_inferred_relations_are_replaced_as_a_set_and_a_kept_one_keeps_its_row(store):
    ids, ana_ben, ben_cy = _org(store)
    first = json.dumps([ana_ben, ben_cy])
    rows = [(ids["Ana"], ids["Cy"], "indirect-report", "chain", first),
            (ids["Ana"], ids["Core"], "works-with", "team", "[]")]
    with store.transaction():
        assert store.replace_inferred(rows, NOW) == (2, 0)
    kept = {r["type"]: r for r in store.inferred_relations(LOCAL)}["indirect-report"]
    ends = (kept["source_id"], kept["source"], kept["target_id"], kept["target"])
    assert ends == (ids["Ana"], "Ana", ids["Cy"], "Cy")
    assert (kept["rule"], kept["premises"], kept["created_at"]) == ("chain", first, NOW)
    with store.transaction():
        assert store.replace_inferred([(ids["Ana"], ids["Cy"], "indirect-report", "chain-2", "[1]")], LATER) == (0, 1)
    [now] = store.inferred_relations(LOCAL)
    assert (now["id"], now["rule"], now["premises"], now["created_at"]) == (kept["id"], "chain-2", "[1]", NOW)
    with store.transaction():
        assert store.replace_inferred([], LATER) == (0, 1)
    assert store.inferred_relations(LOCAL) == []


def test_inferred_relations_are_listed_by_type_then_names(store):
    ids, _, _ = _org(store)
    with store.transaction():
        store.replace_inferred([(ids["Cy"], ids["Ana"], "knows", "r", "[]"),
                                (ids["Ana"], ids["Cy"], "knows", "r", "[]"),
                                (ids["Ben"], ids["Ana"], "advises", "r", "[]")], NOW)
    assert [(r["type"], r["source"], r["target"]) for r in store.inferred_relations(LOCAL)] == [
        ("advises", "Ben", "Ana"), ("knows", "Ana", "Cy"), ("knows", "Cy", "Ana")]


def test_traversals_and_edges_see_inferred_relations_only_when_asked_and_only_for_who_sees_everything(store):
    ids, _, _ = _org(store)
    with store.transaction():
        store.replace_inferred([(ids["Ana"], ids["Cy"], "indirect-report", "chain", "[]")], NOW)
    [inferred] = store.inferred_relations(LOCAL)
    asked = GraphScope(include_inferred=True, active_on=TODAY)
    steps = [s for s in store.relation_steps(LOCAL, [ids["Cy"]], "in", asked) if s.type == "indirect-report"]
    assert [(s.from_id, s.to_id, s.to_name, s.relation_id, s.outgoing, s.inferred) for s in steps] == [
        (ids["Cy"], ids["Ana"], "Ana", -inferred["id"], False, True)]
    assert not [s for s in store.relation_steps(LOCAL, [ids["Cy"]], "in", GraphScope(active_on=TODAY))
                if s.type == "indirect-report"]
    typed = GraphScope(include_inferred=True, types=("indirect-report",))
    assert store.relation_edges(LOCAL, typed) == [
        (ids["Ana"], ids["Cy"], -inferred["id"], "indirect-report", True)]
    edges = store.relation_edges(LOCAL, GraphScope(include_inferred=True))
    assert [e[2] for e in edges if e[2] > 0] == sorted(e[2] for e in edges if e[2] > 0)  # asserted ones by id
    assert (ids["Cy"], ids["Core"]) in {(s, t) for s, t, _i, _k, inf in edges if inf}  # a stored inferred row
    everyone = Access.of("ana", ("public", "team", "private"), "confidential")
    assert store.inferred_relations(everyone) == []
    assert not [s for s in store.relation_steps(everyone, [ids["Cy"]], "in", asked) if s.inferred]


def test_the_generation_moves_when_the_inferred_set_changes(store):
    ids, _, _ = _org(store)
    before = store.relation_generation()
    with store.transaction():
        store.replace_inferred([(ids["Ana"], ids["Cy"], "indirect-report", "chain", "[]")], NOW)
    added = store.relation_generation()
    assert added != before
    with store.transaction():
        store.replace_inferred([], NOW)
    assert store.relation_generation() != added


def test_entities_by_ids_gives_each_readable_entity_once(store):
    ids = entities(store, [("person", "Ana"), ("person", "Ben")])
    with store.transaction():
        store.set_entity_governance(ids["Ana"], None, "public", "normal")
    found = store.entities_by_ids(LOCAL, [ids["Ben"], ids["Ana"], ids["Ben"], 999])
    assert {i: (e.name, e.type) for i, e in found.items()} == {ids["Ana"]: ("Ana", "person"),
                                                               ids["Ben"]: ("Ben", "person")}
    assert list(store.entities_by_ids(Access.of("guest"), list(ids.values()))) == [ids["Ana"]]
    assert store.entities_by_ids(LOCAL, []) == {}

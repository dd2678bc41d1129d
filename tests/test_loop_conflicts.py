"""A hierarchy (reports-to, part-of) contradicts itself when stated both ways or round a loop: the relation
the user asserts is stored, and the pair goes to the conflicts queue with both sides, to be settled as any
other conflict is. In the sample vault Arjun Mehta reports to Ana Lima, who reports to Ben Okafor."""

from __future__ import annotations

import pytest

from kbgraph.clock import today_iso
from kbgraph.entities.lookup import find_entity
from kbgraph.errors import ConfigError
from kbgraph.relations.conflict_resolution import list_conflicts, resolve
from kbgraph.relations.edits import relate
from kbgraph.vocabulary import Vocabulary
from kbgraph.workspace import Workspace

from .conftest import kbg, run_kbg


def _reports_to(ws, name):
    # Current today: a side settled now ends today (a fixed date here made the test fail from the day after).
    entity = find_entity(ws.store, name, access=ws.access)
    return sorted(row["target"] for row in ws.store.relations_from(ws.access, entity.id, "out", "reports-to",
                                                                   today_iso(), None))


def test_the_inverse_stated_the_other_way_is_stored_and_queued_with_both_sides(indexed_vault):
    with Workspace.open(str(indexed_vault)) as ws:
        made = relate(ws, "Ana Lima", "manages", "Ben Okafor")  # while Ana Lima reports to Ben Okafor
        (conflict,) = made["conflicts"]
        assert (conflict["kind"], conflict["status"]) == ("inverse", "open")
        assert (conflict["old"]["relation"], conflict["new"]["relation"]) == (
            "Ana Lima --reports-to--> Ben Okafor", "Ben Okafor --reports-to--> Ana Lima")
        assert _reports_to(ws, "Ben Okafor") == ["Ana Lima"]  # the user asserted it: it is kept
        assert [c["id"] for c in list_conflicts(ws)] == [conflict["id"]]
        settled = resolve(ws, conflict["id"], "old")
        assert settled["resolution"].startswith("kept Ana Lima --reports-to--> Ben Okafor; Ben Okafor")
        assert _reports_to(ws, "Ben Okafor") == [] and _reports_to(ws, "Ana Lima") == ["Ben Okafor"]
        assert list_conflicts(ws) == []


def test_a_chain_that_comes_back_to_its_start_is_a_cycle_conflict(indexed_vault):
    with Workspace.open(str(indexed_vault)) as ws:
        made = relate(ws, "Ben Okafor", "reports-to", "Arjun Mehta")  # Arjun -> Ana -> Ben -> Arjun
        (conflict,) = made["conflicts"]
        assert (conflict["kind"], conflict["status"]) == ("cycle", "open")
        assert conflict["note"].startswith(
            "Arjun Mehta --reports-to--> Ana Lima --reports-to--> Ben Okafor --reports-to--> Arjun Mehta loops")
        assert conflict["old"]["relation"] == "Ana Lima --reports-to--> Ben Okafor"  # the link into Ben
        resolve(ws, conflict["id"], "new")
        assert _reports_to(ws, "Ben Okafor") == ["Arjun Mehta"] and _reports_to(ws, "Ana Lima") == []


def test_an_unrelated_hierarchy_or_a_non_hierarchical_type_makes_no_loop(indexed_vault):
    with Workspace.open(str(indexed_vault)) as ws:
        assert relate(ws, "Ben Okafor", "mentors", "Ana Lima")["conflicts"] == []
        assert relate(ws, "Ana Lima", "mentors", "Ben Okafor")["conflicts"] == []  # mutual mentoring is fine
        assert all(c["kind"] not in ("inverse", "cycle") for c in list_conflicts(ws, True))


def test_a_custom_type_can_be_declared_a_hierarchy_and_a_built_in_one_not():
    vocab = Vocabulary.from_config({"part-of": {"hierarchical": False},
                                    "sub-team-of": {"inverse": "has-sub-team", "hierarchical": True}})
    assert not vocab.types["part-of"].hierarchical and vocab.types["sub-team-of"].hierarchical
    assert Vocabulary().types["reports-to"].hierarchical and Vocabulary().types["part-of"].hierarchical
    with pytest.raises(ConfigError, match="symmetric, so it cannot be hierarchical"):
        Vocabulary.from_config({"peer-of": {"symmetric": True, "hierarchical": True}})
    with pytest.raises(ConfigError, match="hierarchical must be true or false"):
        Vocabulary.from_config({"reports-to": {"hierarchical": "yes"}})


def test_the_cli_says_in_one_line_that_the_relation_made_a_loop_and_lists_it(indexed_vault):
    out = run_kbg("entity", "relate", "Ana", "--type", "manages", "--target", "Ben", "--vault", str(indexed_vault))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[0].startswith("Ben Okafor --reports-to--> Ana Lima")
    assert len(lines) == 2 and lines[1].startswith(
        "inverse conflict 1 with Ana Lima --reports-to--> Ben Okafor: open: `kbg graph resolve 1 --keep old|new|both`")
    (listed,) = kbg(indexed_vault, "graph", "conflicts")["conflicts"]
    assert (listed["kind"], listed["new"]["relation"]) == ("inverse", "Ben Okafor --reports-to--> Ana Lima")
    cycle = kbg(indexed_vault, "entity", "relate", "Ben Okafor", "--type", "reports-to", "--target", "Arjun Mehta")
    assert sorted(c["kind"] for c in cycle["conflicts"]) == ["cycle", "factual"]  # and a second manager
    assert run_kbg("graph", "resolve", "1", "--keep", "both", "--vault", str(indexed_vault)).returncode == 0
    assert sorted(c["kind"] for c in kbg(indexed_vault, "graph", "conflicts")["conflicts"]) == ["cycle", "factual"]


def test_a_merge_that_gives_a_person_a_second_manager_queues_it(indexed_vault):
    from kbgraph.curation.merging import merge_entities

    with Workspace.open(str(indexed_vault)) as ws:
        relate(ws, "Ben Okafor", "manages", "Samuel Li", create_type="person")  # Sam Li reports to Chen Wei
        merged = merge_entities(ws, "Samuel Li", "Sam Li")
        assert [(c["kind"], c["status"], c["old"]["relation"], c["new"]["relation"]) for c in merged["conflicts"]] == [
            ("factual", "open", "Sam Li --reports-to--> Chen Wei", "Sam Li --reports-to--> Ben Okafor")]
        assert [c["id"] for c in list_conflicts(ws)] == [merged["conflicts"][0]["id"]]
        resolve(ws, merged["conflicts"][0]["id"], "old")
        assert _reports_to(ws, "Sam Li") == ["Chen Wei"]


def test_the_cli_merge_says_which_conflict_it_made(indexed_vault):
    kbg(indexed_vault, "entity", "relate", "Ben Okafor", "--type", "manages", "--target", "Samuel Li",
        "--create", "person")
    out = run_kbg("entity", "merge", "Samuel Li", "Sam Li", "--vault", str(indexed_vault))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1].startswith(
        "factual conflict 1 with Sam Li --reports-to--> Chen Wei: open: `kbg graph resolve 1 --keep old|new|both`")
    assert [c["kind"] for c in kbg(indexed_vault, "graph", "conflicts")["conflicts"]] == ["factual"]


def test_pages_that_state_a_loop_are_queued_once_by_the_index(tmp_path):
    vault = tmp_path / "org"
    (vault / "people").mkdir(parents=True)
    for name, boss in (("Ana Lima", "Ben Okafor"), ("Ben Okafor", "Cara Diaz"), ("Cara Diaz", "Ana Lima")):
        (vault / "people" / f"{name.split()[0].lower()}.md").write_text(
            f"---\ntype: person\nname: {name}\n---\n# {name}\n\n## Relations\n\n- reports-to [[{boss}]]\n")
    assert run_kbg("init", str(vault)).returncode == 0
    for _ in range(2):
        assert run_kbg("index", "--vault", str(vault)).returncode == 0
    (loop,) = kbg(vault, "graph", "conflicts")["conflicts"]
    assert (loop["kind"], loop["status"]) == ("cycle", "open")
    chain = loop["note"].split(" loops;")[0]
    assert chain.count("--reports-to-->") == 3 and {"Ana Lima", "Ben Okafor", "Cara Diaz"} <= set(
        chain.split(" --reports-to--> "))


def test_the_conflicts_table_states_a_loop_in_its_true_direction(indexed_vault):
    """The table's Subject / Type / Old read 'Ben Okafor reports-to Ana Lima' for the old side of an inverse
    conflict, whose old relation is Ana Lima --reports-to--> Ben Okafor: the org chart upside down."""
    kbg(indexed_vault, "entity", "relate", "Ana", "--type", "manages", "--target", "Ben")
    out = run_kbg("graph", "conflicts", "--vault", str(indexed_vault), env={"COLUMNS": "400"})
    assert out.returncode == 0, out.stderr
    (row,) = [line for line in out.stdout.splitlines() if "inverse" in line]
    cells = [cell.strip() for cell in row.split("│")]
    assert "Ana Lima --reports-to--> Ben Okafor" in cells and "Ben Okafor --reports-to--> Ana Lima" in cells
    assert "Ana Lima" not in cells  # no bare other end to read after Subject and Type


def test_a_reader_is_not_shown_a_conflict_about_what_it_may_not_read(indexed_vault):
    """Bob's private Zed Secret reports to Ana, and Ben's page says Ben reports to Zed: the loop reached
    the queue, and alice (who gets 404 for Zed's profile) read its name and its relations there."""
    import dataclasses

    from kbgraph.access import Access
    from kbgraph.errors import NotFound
    from kbgraph.ingest.pipeline import index_vault

    with (indexed_vault / "kbgraph.toml").open("a") as toml:
        toml.write('\n[access]\nvisibility = "team"\n')
    (indexed_vault / "people/zed-secret.md").write_text(
        "---\ntype: person\nname: Zed Secret\nvisibility: private\nowner: bob\n---\n# Zed Secret\n\n"
        "## Relations\n\n- reports-to [[Ana Lima]]\n")
    index_vault(indexed_vault)  # then Ben's line closes the loop: the conflict is about Ben, whom alice reads
    with (indexed_vault / "people/ben-okafor.md").open("a") as page:
        page.write("\n## Relations\n\n- reports-to [[Zed Secret]]\n")
    index_vault(indexed_vault)
    with Workspace.open(str(indexed_vault)) as ws:
        (loop,) = list_conflicts(ws)
        assert (loop["kind"], loop["subject"], loop["new"]["other"]) == ("cycle", "Ben Okafor", "Zed Secret")
        bob = dataclasses.replace(ws, access=Access.of("bob", ("team", "public"), "internal"))
        assert [c["id"] for c in list_conflicts(bob)] == [loop["id"]]
        alice = dataclasses.replace(ws, access=Access.of("alice", ("team", "public"), "internal"))
        assert list_conflicts(alice) == [] and list_conflicts(alice, True) == []
        with pytest.raises(NotFound):
            resolve(alice, loop["id"], "old")

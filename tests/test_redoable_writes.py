"""Every write is redoable (issue 18): a command killed between its steps, run again, completes what
the user asserted and never refuses it.

The kill is real: the command runs in a child process whose second step is replaced by os._exit,
so no handler, finally or rollback of ours runs, as under kill -9; then the real command runs again.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kbgraph.ingest.pipeline import index_vault
from kbgraph.workspace import Workspace

from .conftest import kbg

# In the child: replace module.attribute by a crash, then run `kbg ARGS` through its entry point.
_CRASHING = """
import os, sys, importlib
module, attribute, *args = sys.argv[1:]
*path, name = attribute.split(".")  # a module's function, or a class's method ("Class.method")
owner = importlib.import_module(module)
for part in path:
    owner = getattr(owner, part)
setattr(owner, name, lambda *a, **k: os._exit(137))
from kbgraph.cli.app import main
sys.argv = ["kbg", *args]
main()
"""


def killed_at(step: str, vault: Path, *args: str) -> None:
    """Run `kbg ARGS --vault VAULT`, killed where it calls step ("module:attribute")."""
    module, attribute = step.split(":")
    done = subprocess.run([sys.executable, "-c", _CRASHING, module, attribute, *args, "--vault", str(vault)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 137, (done.stdout, done.stderr)  # it got as far as the step


SYNC = """---
type: meeting
date: 2026-04-01
attendees: [Dana Kowalczyk, Sam]
---
# Sync

Notes.
"""


@pytest.fixture
def asked(vault):
    """The sample vault with a meeting naming "Dana Kowalczyk" (a question: is she Dana Kowalski?)."""
    (vault / "meetings/2026/04/01").mkdir(parents=True)
    (vault / "meetings/2026/04/01/sync.md").write_text(SYNC)
    index_vault(vault)
    asked = {(q["surface"], q["candidate_name"]): q["id"] for q in kbg(vault, "resolve", "pending")["questions"]}
    return vault, {"Dana Kowalczyk": asked[("Dana Kowalczyk", "Dana Kowalski")], "Sam": asked[("Sam", "Sam Li")]}


@pytest.mark.parametrize("step", ["kbgraph.curation.merging:merge_entities",  # answer saved, no merge
                                  "kbgraph.curation.merging:_remove_self_lines",  # merge recorded, not re-indexed
                                  "kbgraph.ingest.pipeline:index_vault"])
def test_a_confirm_killed_before_its_merge_is_completed_by_running_it_again(asked, step):
    vault, questions = asked
    killed_at(step, vault, "resolve", "confirm", str(questions["Dana Kowalczyk"]))
    result = kbg(vault, "resolve", "confirm", str(questions["Dana Kowalczyk"]))  # was: "answered already"
    assert (result["outcome"], result["entity"]) == ("confirmed", "Dana Kowalski")
    dana = kbg(vault, "person", "find", "Dana Kowalczyk")["entity"]
    assert dana["name"] == "Dana Kowalski" and "Dana Kowalczyk" in dana["aliases"]
    with Workspace.open(str(vault)) as ws:
        assert [m.from_name for m in ws.store.merges()].count("Dana Kowalczyk") == 1
    again = kbg(vault, "resolve", "confirm", str(questions["Dana Kowalczyk"]))  # and once more: still no refusal
    assert again["entity"] == "Dana Kowalski"


def test_a_confirmed_first_name_killed_before_its_reindex_is_linked_by_running_it_again(asked):
    vault, questions = asked
    killed_at("kbgraph.workspace:DefaultIndex.refresh", vault, "resolve", "confirm", str(questions["Sam"]))
    result = kbg(vault, "resolve", "confirm", str(questions["Sam"]))
    assert result["entity"] == "Sam Li"
    timeline = [d["path"] for d in kbg(vault, "person", "timeline", "Sam Li")["documents"]]
    assert "meetings/2026/04/01/sync.md" in timeline


def test_another_answer_given_already_is_still_refused(asked):
    vault, questions = asked
    kbg(vault, "resolve", "reject", str(questions["Dana Kowalczyk"]))
    kbg(vault, "resolve", "reject", str(questions["Dana Kowalczyk"]))  # the same answer again: fine
    error = kbg(vault, "resolve", "confirm", str(questions["Dana Kowalczyk"]), code=1)["error"]
    assert "answered already (rejected)" in error


def test_a_merge_killed_before_its_reindex_is_completed_by_running_it_again(vault):
    index_vault(vault)
    killed_at("kbgraph.curation.merging:_remove_self_lines", vault, "entity", "merge", "Ben Okafor", "Ana Lima")
    result = kbg(vault, "entity", "merge", "Ben Okafor", "Ana Lima")  # was: a UNIQUE constraint error
    assert result["into"] == "Ana Lima" and "Ben Okafor" in result["aliases"]
    assert kbg(vault, "person", "find", "Ben Okafor")["entity"]["name"] == "Ana Lima"


STACK = "# Stack\n\nProject Atlas uses ClickHouse for its event log.\n"


@pytest.mark.parametrize("step", ["kbgraph.relations.edits:relate_entities",  # end created, no relation
                                  "kbgraph.workspace:DefaultIndex.refresh"])  # accepted, end not created
def test_an_accept_killed_after_creating_its_new_end_is_completed_by_running_it_again(unmapped_vault, step):
    vault = unmapped_vault
    (vault / "notes/stack.md").write_text(STACK)
    index_vault(vault)
    found = {(s["source"], s["type"], s["target"]): s for s in kbg(vault, "entity", "suggest-relations")["pending"]}
    number = str(found[("Project Atlas", "uses", "ClickHouse")]["id"])
    killed_at(step, vault, "entity", "accept", number)
    result = kbg(vault, "entity", "accept", number)  # was: "no suggestion N", renumbered by the re-scan
    assert (result["relation"]["source"], result["relation"]["target"]) == ("Project Atlas", "ClickHouse")
    assert result["created"] == ["ClickHouse"] and result["evidence"]
    uses = kbg(vault, "entity", "relations", "Project Atlas", "--type", "uses")["relations"]
    assert [(r["target"], r["confidence"]) for r in uses] == [("ClickHouse", "auto-high")]
    assert "- uses [[ClickHouse]]" in (vault / "projects/project-atlas.md").read_text()
    pending = kbg(vault, "entity", "suggest-relations")["pending"]
    assert not [s for s in pending if (s["source"], s["target"]) == ("Project Atlas", "ClickHouse")]
    strength = uses[0]["strength"]
    kbg(vault, "entity", "accept", number)  # accepted a third time: reported, not re-counted
    again = kbg(vault, "entity", "relations", "Project Atlas", "--type", "uses")["relations"]
    assert again[0]["strength"] == strength


def _text_mentions(vault: Path, name: str, path: str) -> int:
    import sqlite3

    db = sqlite3.connect(f"file:{vault / '.kbgraph' / 'index.db'}?mode=ro", uri=True)
    try:
        return db.execute("SELECT count(*) FROM mentions m JOIN entities e ON e.id = m.entity_id JOIN documents d"
                          " ON d.id = m.doc_id WHERE e.name = ? AND d.path = ? AND m.chunk_id IS NOT NULL",
                          (name, path)).fetchone()[0]
    finally:
        db.close()


def test_a_relink_killed_before_its_reindex_is_completed_by_running_it_again(vault):
    index_vault(vault)
    note = "meetings/2026/01/13/atlas-weekly-sync.md"
    before = _text_mentions(vault, "Ana Lima", note)
    kbg(vault, "entity", "unlink", "Ana Lima", note)
    assert before > 0 and _text_mentions(vault, "Ana Lima", note) == 0
    killed_at("kbgraph.workspace:DefaultIndex.refresh", vault, "entity", "relink", "Ana Lima", note)
    result = kbg(vault, "entity", "relink", "Ana Lima", note)  # was: "was not unlinked; nothing to relink"
    assert result["unlinked"] is False and _text_mentions(vault, "Ana Lima", note) == before


def test_unrelate_run_again_after_it_removed_the_relation_reports_it_removed(indexed_vault):
    """Killed after the relation was ended, a rerun said 'no relation ...' (exit 1) though what the user
    asked for was done; now it reports it removed already. A relation that never existed is still an error."""
    from .conftest import kbg

    args = ("Ana Lima", "--type", "works-with", "--target", "Chen Wei")
    kbg(indexed_vault, "entity", "relate", *args)
    first = kbg(indexed_vault, "entity", "unrelate", *args)
    assert first["removed"] and not first.get("already")
    again = kbg(indexed_vault, "entity", "unrelate", *args)
    assert again["removed"] and again["already"]
    kbg(indexed_vault, "entity", "unrelate", "Ana Lima", "--type", "works-with", "--target", "Sam Ortiz", code=1)


@pytest.mark.parametrize("step", ["kbgraph.workspace:DefaultIndex.refresh",  # merge deleted, nothing re-read
                                  "kbgraph.curation.merging:_give_relations_back",  # re-indexed, relations not back
                                  "kbgraph.curation.merging:_restate_on_pages"])  # relations back, page line not
def test_an_unmerge_killed_between_its_steps_is_completed_by_running_it_again(indexed_vault, step):
    """unmerge deleted the merge, and its undo data with it, in its first transaction: a kill after it
    left the relations the merge moved with the other entity, and running it again said "was not merged"."""
    vault = indexed_vault
    kbg(vault, "entity", "relate", "Sam Ortiz", "--type", "mentors", "--target", "Lena Fischer")
    kbg(vault, "entity", "relate", "Sam Li", "--type", "collaborates-with", "--target", "Sam Ortiz")
    kbg(vault, "entity", "merge", "Sam Ortiz", "Sam Li")
    killed_at(step, vault, "entity", "unmerge", "Sam Ortiz")
    result = kbg(vault, "entity", "unmerge", "Sam Ortiz")
    assert (result["unmerged"], result["from"]) == ("Sam Ortiz", "Sam Li")
    rels = {(r["type"], r["target"]) for r in kbg(vault, "entity", "relations", "Sam Ortiz")["relations"]}
    assert ("mentors", "Lena Fischer") in rels
    assert (vault / "people/sam-li.md").read_text().count("- collaborates-with [[Sam Ortiz]]") == 1
    assert "Sam Ortiz" not in kbg(vault, "person", "find", "Sam Li")["entity"]["aliases"]
    assert "was not merged" in kbg(vault, "entity", "unmerge", "Sam Ortiz", code=1)["error"], "done: nothing pending"
    unmerged = [d for d in kbg(vault, "resolve", "log", "--outcome", "rejected")["decisions"]
                if d["surface"] == "Sam Ortiz"]
    assert len(unmerged) == 1, "the pair is remembered once"


def test_a_merge_made_again_after_a_killed_unmerge_is_what_the_next_unmerge_undoes(indexed_vault):
    vault = indexed_vault
    kbg(vault, "entity", "merge", "Sam Ortiz", "Sam Li")
    killed_at("kbgraph.curation.merging:_give_relations_back", vault, "entity", "unmerge", "Sam Ortiz")
    kbg(vault, "entity", "merge", "Sam Ortiz", "Sam Li")  # the user merged them again instead
    kbg(vault, "entity", "unmerge", "Sam Ortiz")
    assert kbg(vault, "person", "find", "Sam Ortiz")["entity"]["name"] == "Sam Ortiz", "apart: the new merge undone"
    assert "was not merged" in kbg(vault, "entity", "unmerge", "Sam Ortiz", code=1)["error"]

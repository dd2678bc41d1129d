"""Entity resolution in the index: names no page spells exactly are linked, asked about, or kept new,
every decision is logged, and the user's answers are kept (re-index, export/import, unmerge)."""

from __future__ import annotations

import json
import shutil

import pytest

from kbgraph.ingest.pipeline import index_vault

from .conftest import SAMPLE_VAULT, copy_indexed, kbg, tree_digest

SYNC = """---
type: meeting
date: 2026-04-01
attendees: [Arjoon Mehta, Dana Kowalsky, Sam, "arjun.mehta@northwind.io", Priya Raman]
---
# Sync

Sam will send the notes.
"""


@pytest.fixture(scope="module")
def rvault_indexed(indexed_sample, tmp_path_factory):
    """The sample vault plus SYNC, fully indexed once for the module; tests get copies (rvault)."""
    vault = tmp_path_factory.mktemp("resolution") / "vault"
    shutil.copytree(indexed_sample, vault, ignore=shutil.ignore_patterns(".kbgraph"))
    (vault / "meetings/2026/04/01").mkdir(parents=True)
    (vault / "meetings/2026/04/01/sync.md").write_text(SYNC)
    index_vault(vault)
    return vault


@pytest.fixture
def rvault(rvault_indexed, tmp_path):
    return copy_indexed(rvault_indexed, tmp_path / "vault")


def _log(vault, outcome=None) -> list[dict]:
    args = ("--outcome", outcome) if outcome else ()
    return kbg(vault, "resolve", "log", *args)["decisions"]


def _pending(vault) -> dict[tuple[str, str], int]:
    """Open questions about the names these tests' notes use; the sample vault's own notes ask some of
    their own ('Dan' and 'Dana K' in its Paystream call), which the README's tour answers."""
    return {(q["surface"], q["candidate_name"]): q["id"] for q in kbg(vault, "resolve", "pending")["questions"]
            if not (SAMPLE_VAULT / q["doc_path"]).is_file()}


def test_clear_variants_link_a_bare_first_name_asks_and_a_stranger_is_new(rvault):
    linked = {(d["surface"], d["candidate_name"]) for d in _log(rvault, "auto-linked")}
    assert linked == {("Arjoon Mehta", "Arjun Mehta"), ("arjun.mehta@northwind.io", "Arjun Mehta"),
                      ("Dana Kowalsky", "Dana Kowalski"),
                      ("Lena Fischr", "Lena Fischer")}  # the sample vault's growth planning, in its prose
    assert set(_pending(rvault)) == {("Sam", "Sam Li"), ("Sam", "Sam Ortiz")}, "two Sams: ask, never blend"
    assert [d["surface"] for d in _log(rvault, "new")] == ["Priya Raman"]
    arjun = kbg(rvault, "person", "find", "Arjoon Mehta")["entity"]
    assert arjun["name"] == "Arjun Mehta" and "Arjoon Mehta" in arjun["aliases"]
    row = _log(rvault, "auto-linked")[0]
    assert row["decided_by"] == "kbgraph" and row["score"] >= 0.9 and row["features"]["tokens"] > 0
    assert row["doc_path"] == "meetings/2026/04/01/sync.md"


def test_decisions_are_logged_once_and_survive_a_full_reindex(rvault):
    before = _log(rvault)
    index_vault(rvault, full=True)
    index_vault(rvault, full=True)
    assert _log(rvault) == before


def test_confirming_a_bare_first_name_links_it_in_its_notes_only(rvault):
    questions = _pending(rvault)
    kbg(rvault, "resolve", "reject", str(questions[("Sam", "Sam Ortiz")]))
    assert set(_pending(rvault)) == {("Sam", "Sam Li")}
    result = kbg(rvault, "resolve", "confirm", str(questions[("Sam", "Sam Li")]))
    assert result["documents"] == ["meetings/2026/04/01/sync.md"] and "Sam" not in result["aliases"]
    assert (result["confirmed_names"], result["lookup"]) == (["Sam"], "ambiguous"), "Sam Ortiz is a Sam too"
    assert "Sam" not in kbg(rvault, "person", "find", "Sam Li")["entity"]["aliases"], "not an alias everywhere"
    timeline = [d["path"] for d in kbg(rvault, "person", "timeline", "Sam Li")["documents"]]
    assert "meetings/2026/04/01/sync.md" in timeline
    index_vault(rvault, full=True)
    assert _pending(rvault) == {}

    later = rvault / "meetings/2026/05/20/chat.md"
    later.parent.mkdir(parents=True)
    later.write_text("---\ntype: meeting\nattendees: [Sam]\n---\n# Chat\n")
    index_vault(rvault)
    assert set(_pending(rvault)) == {("Sam", "Sam Li")}, "another note: asked again, the rejected pair never"
    assert "Sam" not in kbg(rvault, "person", "find", "Sam Li")["entity"]["aliases"]


def test_a_rejected_pair_is_never_asked_again(rvault):
    questions = _pending(rvault)
    for question in questions.values():
        kbg(rvault, "resolve", "reject", str(question))
    index_vault(rvault, full=True)
    assert _pending(rvault) == {}
    assert {d["candidate_name"] for d in _log(rvault, "rejected")} == {"Sam Li", "Sam Ortiz"}
    sam = kbg(rvault, "person", "find", "Sam")["entity"]
    assert (sam["name"], sam["page_path"]) == ("Sam", None), "neither Sam: the name stays its own entity"


def test_unmerging_an_auto_link_keeps_the_two_apart(rvault):
    kbg(rvault, "entity", "unmerge", "Arjoon Mehta")
    index_vault(rvault, full=True)
    assert kbg(rvault, "person", "find", "Arjoon Mehta")["entity"]["name"] == "Arjoon Mehta"
    rejected = {(d["surface"], d["candidate_name"], d["decided_by"]) for d in _log(rvault, "rejected")}
    assert ("Arjoon Mehta", "Arjun Mehta", "user") in rejected


def test_answers_travel_in_export_and_import(rvault, tmp_path):
    questions = _pending(rvault)
    kbg(rvault, "resolve", "confirm", str(questions[("Sam", "Sam Li")]))
    out = tmp_path / "export.jsonl"
    kbg(rvault, "export", "--format", "jsonl", "-o", str(out))
    fresh = tmp_path / "fresh"
    shutil.copytree(rvault, fresh, ignore=shutil.ignore_patterns(".kbgraph"))
    index_vault(fresh)
    counts = kbg(fresh, "import", str(out))
    assert counts["reference_links"] == 1 and counts["decisions"] >= 4, counts
    timeline = [d["path"] for d in kbg(fresh, "person", "timeline", "Sam Li")["documents"]]
    assert "meetings/2026/04/01/sync.md" in timeline
    assert _pending(fresh) == {}


def test_calibrate_refits_from_answers_and_reports_before_and_after(rvault):
    assert "needs confirmed and rejected answers" in kbg(rvault, "resolve", "calibrate", code=1)["error"]
    questions = _pending(rvault)
    kbg(rvault, "resolve", "reject", str(questions[("Sam", "Sam Ortiz")]))
    kbg(rvault, "resolve", "confirm", str(questions[("Sam", "Sam Li")]))
    dry = kbg(rvault, "resolve", "calibrate", "--dry-run")
    assert (dry["examples"], dry["same"], dry["saved"]) == (2, 1, False)
    assert dry["after"]["log_loss"] <= dry["before"]["log_loss"]
    saved = kbg(rvault, "resolve", "calibrate")
    assert saved["saved"] and saved["after"]["version"] != saved["before"]["version"]
    again = kbg(rvault, "resolve", "calibrate", "--dry-run")
    assert again["before"]["version"] == saved["after"]["version"], "the next index uses the saved weights"


def test_an_alias_two_pages_claim_is_asked_about_not_given_to_either(vault):
    for slug, name in (("alex-kim", "Alex Kim"), ("alex-roe", "Alex Roe")):
        (vault / f"people/{slug}.md").write_text(f"---\ntype: person\nname: {name}\naliases: [Alex]\n---\n# {name}\n")
    (vault / "notes/standup.md").write_text("---\nattendees: [Alex]\n---\n# Standup\n")
    index_vault(vault)
    assert set(_pending(vault)) == {("Alex", "Alex Kim"), ("Alex", "Alex Roe")}
    assert [d for d in _log(vault, "auto-linked") if d["surface"] == "Alex"] == []


@pytest.mark.parametrize("name", ["???", "🙂", "   ", "x" * 10_000, "@", "O'Brien-Walsh, Seán"])
def test_odd_names_in_a_note_never_break_the_index(vault, name):
    entry = json.dumps(name, ensure_ascii=False)
    (vault / "notes/odd.md").write_text("---\nattendees:\n  - " + entry + "\n---\n# Odd\n")
    before = tree_digest(vault)
    report = index_vault(vault)
    assert report.errors == 0
    assert tree_digest(vault) == before
    kbg(vault, "resolve", "pending")


def test_thresholds_come_from_kbgraph_toml_and_resolution_can_be_turned_off(vault):
    config = vault / "kbgraph.toml"
    original = config.read_text()
    (vault / "meetings/2026/04/01").mkdir(parents=True)
    (vault / "meetings/2026/04/01/sync.md").write_text(SYNC)
    config.write_text(original + "\n[resolve]\nauto = 1.0\nask = 0.5\n")
    index_vault(vault)
    assert _log(vault, "auto-linked") == [], "nothing reaches 1.0"
    assert ("Arjoon Mehta", "Arjun Mehta") in _pending(vault)

    off = vault.parent / "off"
    shutil.copytree(vault, off, ignore=shutil.ignore_patterns(".kbgraph"))
    (off / "kbgraph.toml").write_text(original + "\n[resolve]\nenabled = false\n")
    index_vault(off)
    assert _log(off) == []
    config.write_text(original + "\n[resolve]\nauto = 0.5\nask = 0.6\n")
    assert "resolve.ask (0.6) must be below resolve.auto" in kbg(vault, "index", code=1)["error"]


def test_bad_answers_are_one_line_errors(rvault):
    assert "no question 999" in kbg(rvault, "resolve", "confirm", "999", code=1)["error"]
    question = next(iter(_pending(rvault).values()))
    kbg(rvault, "resolve", "reject", str(question))
    assert "answered already" in kbg(rvault, "resolve", "confirm", str(question), code=1)["error"]


def test_an_import_into_a_fresh_index_logs_each_decision_once(rvault, tmp_path):
    """The fresh vault's own index logs what it decides about the same notes (its own times): the
    export's copies of those are not added again, so no question is asked twice."""
    dan = next(q["id"] for q in kbg(rvault, "resolve", "pending")["questions"] if q["surface"] == "Dan")
    kbg(rvault, "resolve", "reject", str(dan))
    out = tmp_path / "export.json"
    kbg(rvault, "export", "-o", str(out))
    fresh = tmp_path / "fresh"
    shutil.copytree(rvault, fresh, ignore=shutil.ignore_patterns(".kbgraph"))
    index_vault(fresh)
    kbg(fresh, "import", str(out))

    def log(vault):
        return sorted((d["surface"], d["candidate_name"] or "", d["outcome"], d["decided_by"]) for d in _log(vault))

    assert log(fresh) == log(rvault)
    asked = [(q["surface"], q["candidate_name"]) for q in kbg(fresh, "resolve", "pending")["questions"]]
    assert sorted(asked) == sorted(set(asked)) and ("Dan", "Dana Kowalski") not in asked
    kbg(fresh, "import", str(out))
    assert log(fresh) == log(rvault), "a second import adds nothing"

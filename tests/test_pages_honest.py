"""Pages stay honest (issue 17): an unknown `## Relations` target waits by name instead of becoming a
person, and `kbg import` writes relations back to the pages they belong to, once (a second import
changes nothing). Everything through the real `kbg` entry point on tiny vaults."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import yaml

from .conftest import kbg, run_kbg, tree_digest

ANA = """---
type: person
name: Ana Ruiz
role: platform lead
---
# Ana Ruiz

Ana runs the platform team. She prefers written updates.
"""
BEN = """---
type: person
name: Ben Ortiz
---
# Ben Ortiz

## Relations

People Ben works with, kept by hand:

- works-with [[Ana Ruiz]] — pairs on incidents

## Notes

Ben keeps the on-call rota.
"""
ATLAS = "---\ntype: project\nname: Atlas\n---\n# Atlas\n\nThe storage rewrite.\n"
SYNC = "---\ntype: meeting\ndate: 2026-04-01\nattendees: [Ana Ruiz, Benn Ortiz, Sam]\n---\n# Sync\n"
_TABLES = ("relations", "relation_history", "resolution_decisions", "entity_merges", "asserted_entities",
           "reference_links", "entity_unlinks", "entities", "page_relation_lines")


def _vault(root: Path) -> Path:
    assert run_kbg("init", str(root)).returncode == 0
    for rel, text in (("people/ana-ruiz.md", ANA), ("people/ben-ortiz.md", BEN), ("projects/atlas.md", ATLAS),
                      ("meetings/sync.md", SYNC)):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _notes_copy(vault: Path, target: Path) -> Path:
    return Path(shutil.copytree(vault, target, ignore=shutil.ignore_patterns(".kbgraph")))


def _rows(vault: Path) -> dict[str, int]:
    with sqlite3.connect(vault / ".kbgraph" / "index.db") as db:
        return {t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in _TABLES}


def _relations(vault: Path) -> list[tuple]:
    data = json.loads(run_kbg("export", "--vault", str(vault)).stdout)
    return sorted((r["source"]["name"], r["type"], r["target"]["name"], r["reason"], r["valid_from"],
                   r["valid_until"], r["origin"], r["strength"]) for r in data["relations"])


def _log(vault: Path) -> list[tuple]:
    return sorted((d["surface"], d["candidate_name"] or "", d["outcome"], d["decided_by"])
                  for d in kbg(vault, "resolve", "log")["decisions"])


def test_an_unknown_target_is_reported_listed_and_links_once_the_entity_appears(tmp_path):
    vault = _vault(tmp_path / "v")
    page = vault / "people/ana-ruiz.md"
    page.write_text(ANA + "\n## Relations\n\n- mentors [[Nobody Here]] — weekly\n- reports-to [[Ana Ruiz]]\n")
    report = kbg(vault, "index")
    problems = {p["path"]: p["reason"] for p in report["problems"]}
    assert problems["people/ana-ruiz.md:12"].startswith("relation target not found: mentors [[Nobody Here]]")
    assert problems["people/ana-ruiz.md:13"] == "'Ana Ruiz' cannot be related to itself"
    assert kbg(vault, "person", "find", "Nobody Here", code=1)["kind"] == "NotFound"
    assert all(e["name"] != "Nobody Here" for e in kbg(vault, "entity", "list")["entities"])
    assert [d for d in _log(vault) if d[0] == "Nobody Here"] == [], "not logged as a new entity either"
    graph = run_kbg("graph", "export", "--vault", str(vault)).stdout
    assert "works-with" in graph and "Nobody Here" not in graph, "no phantom end in the graph"
    listed = kbg(vault, "entity", "relations", "Ana Ruiz")
    assert [r["type"] for r in listed["relations"]] == ["works-with"] and listed["unresolved"] == [
        {"type": "mentors", "target": "Nobody Here", "page": "people/ana-ruiz.md", "line": 12, "why": "not found"}]
    assert ("1 relation target not linked: [[Nobody Here]] in people/ana-ruiz.md line 12 (kept by name"
            in run_kbg("index", "--vault", str(vault)).stdout)
    human = run_kbg("entity", "relations", "Ana Ruiz", "--vault", str(vault)).stdout
    assert "unresolved: mentors [[Nobody Here]] (people/ana-ruiz.md line 12)" in human
    # The name becomes an alias of a new page: the next index links the line, and the report is gone.
    (vault / "people/nora-body.md").write_text("---\ntype: person\naliases: [Nobody Here]\n---\n# Nora Body\n")
    report = kbg(vault, "index")
    assert not [p for p in report["problems"] if "Nobody Here" in p["reason"]]
    listed = kbg(vault, "entity", "relations", "Ana Ruiz")
    assert [(r["type"], r["target"]) for r in listed["relations"]] == [("mentors", "Nora Body"),
                                                                       ("works-with", "Ben Ortiz")]
    assert listed["unresolved"] == []
    assert page.read_text().endswith("- mentors [[Nobody Here]] — weekly\n- reports-to [[Ana Ruiz]]\n")


def test_a_frontmatter_relation_still_names_a_referenced_only_entity(tmp_path):
    vault = _vault(tmp_path / "v")
    (vault / "people/ana-ruiz.md").write_text(ANA.replace("role:", "reports_to: Quinn Vale\nrole:"))
    kbg(vault, "index")
    assert kbg(vault, "person", "find", "Quinn Vale")["relations"] == {"manages": ["Ana Ruiz"]}


def test_import_writes_lines_back_and_a_second_import_changes_nothing(tmp_path):
    source = _vault(tmp_path / "source")
    kbg(source, "index")
    fresh = _notes_copy(source, tmp_path / "fresh")  # the notes before anything was asserted
    # In export order (type, source, target), so that each page gets its lines in the same order.
    # collaborates-with reads both ways: it goes to Ben's page, the one relate wrote it to.
    kbg(source, "entity", "relate", "Ben Ortiz", "--type", "collaborates-with", "--target", "Ana Ruiz")
    kbg(source, "entity", "relate", "Ana Ruiz", "--type", "contributes-to", "--target", "Atlas", "--since",
        "2026-02-01")
    kbg(source, "entity", "relate", "Ben Ortiz", "--type", "mentors", "--target", "Zed Nopage", "--create", "person")
    kbg(source, "entity", "relate", "Ana Ruiz", "--type", "reports-to", "--target", "Ben Ortiz", "--reason",
        "weekly 1:1")
    pending = kbg(source, "resolve", "pending")["questions"]
    for question in pending:
        kbg(source, "resolve", "confirm" if question["candidate_name"] == "Ben Ortiz" else "reject",
            str(question["id"]))
    out = tmp_path / "export.json"
    kbg(source, "export", "-o", str(out))

    counts = kbg(fresh, "import", str(out))
    assert counts["lines_written"] == 4, counts
    assert counts["pages_edited"] == ["people/ana-ruiz.md", "people/ben-ortiz.md"]
    assert tree_digest(fresh) == tree_digest(source), "the same lines, byte for byte, prose untouched"
    ben = (fresh / "people/ben-ortiz.md").read_text()
    added = "\n- collaborates-with [[Ana Ruiz]]\n- mentors [[Zed Nopage]]"
    assert ben.replace(added, "", 1) == BEN, "two lines added to the user's list, nothing else changed"
    assert yaml.safe_load(ben.split("---")[1]) == {"type": "person", "name": "Ben Ortiz"}
    assert _relations(fresh) == _relations(source)
    assert _log(fresh) == _log(source)

    files, rows = tree_digest(fresh), _rows(fresh)
    again = kbg(fresh, "import", str(out))
    assert (again["lines_written"], again["decisions_added"], again["pages_edited"]) == (0, 0, [])
    assert counts["relations_added"] > 0 and again["relations_added"] == 0, "a second import adds no relation"
    assert tree_digest(fresh) == files and _rows(fresh) == rows
    assert _relations(fresh) == _relations(source) and _log(fresh) == _log(source)


def test_a_relation_its_vault_kept_in_the_database_gets_no_line(tmp_path):
    source = _vault(tmp_path / "source")
    (source / "kbgraph.toml").write_text((source / "kbgraph.toml").read_text() + "\n[relations]\ncreate_pages = false\n")
    kbg(source, "index")
    fresh = _notes_copy(source, tmp_path / "fresh")
    # Stored from Yuki's side (Yuki reports-to Ben); Yuki has no page, so relate wrote no line anywhere.
    kbg(source, "entity", "relate", "Ben Ortiz", "--type", "manages", "--target", "Yuki Tan", "--create", "person")
    assert tree_digest(fresh) == tree_digest(source)
    out = tmp_path / "export.json"
    kbg(source, "export", "-o", str(out))
    files = tree_digest(fresh)
    assert kbg(fresh, "import", str(out))["lines_written"] == 0
    assert tree_digest(fresh) == files, "no page gets a line its vault did not have"
    assert _relations(fresh) == _relations(source)


def _unchanged_after(vault: Path, text: str, message: str) -> None:
    files, rows = tree_digest(vault), _rows(vault)
    bad = vault.parent / "bad.json"
    bad.write_text(text)
    result = run_kbg("import", str(bad), "--vault", str(vault))
    assert result.returncode == 1 and message in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert tree_digest(vault) == files and _rows(vault) == rows, "nothing stored changed"


def test_a_bad_import_file_is_one_line_and_changes_nothing(tmp_path):
    source = _vault(tmp_path / "source")
    kbg(source, "index")
    kbg(source, "entity", "relate", "Ana Ruiz", "--type", "reports-to", "--target", "Ben Ortiz")
    text = run_kbg("export", "--vault", str(source)).stdout
    fresh = _notes_copy(source, tmp_path / "fresh")
    (fresh / "people/ana-ruiz.md").write_text(ANA)  # the notes from before the line was written
    kbg(fresh, "index")
    _unchanged_after(fresh, text[: len(text) // 2], "not a kbgraph export: invalid JSON")
    data = json.loads(text)
    _unchanged_after(fresh, json.dumps({**data, "version": 99}), "export version 99 is not supported")
    selfish = {**data["relations"][0], "target": data["relations"][0]["source"]}
    _unchanged_after(fresh, json.dumps({**data, "relations": [selfish]}), "relates 'Ana Ruiz' to itself")
    ghost = {**data["relations"][0], "source_doc": "people/ghost.md"}
    bad = tmp_path / "ghost.json"
    bad.write_text(json.dumps({**data, "relations": [ghost]}))
    counts = kbg(fresh, "import", str(bad))
    # Evidence in a note this vault lacks is kept as its path; no file is made for it.
    assert counts["lines_written"] == 1 and not (fresh / "people/ghost.md").exists()
    assert kbg(fresh, "entity", "relations", "Ana Ruiz")["relations"][0]["source_doc"] == "people/ghost.md"


def test_an_exported_phantom_target_is_written_back_as_a_waiting_line_not_created(tmp_path):
    # An export from before this change carried `- mentors [[Nobody Here]]` as a relation to a page-less
    # person that no user asserted; importing it must not make that person now.
    source = _vault(tmp_path / "source")
    kbg(source, "index")
    kbg(source, "entity", "relate", "Ana Ruiz", "--type", "reports-to", "--target", "Ben Ortiz")
    data = json.loads(run_kbg("export", "--vault", str(source)).stdout)
    stated = next(r for r in data["relations"] if r["type"] == "reports-to")
    phantom = {**stated, "type": "mentors", "target": {"type": "person", "name": "Nobody Here"}, "reason": "weekly"}
    data["relations"].append(phantom)
    data["entities"].append({"type": "person", "name": "Nobody Here", "aliases": [], "page_path": None,
                             "attributes": {}, "status": "active"})
    out = tmp_path / "old-export.json"
    out.write_text(json.dumps(data))
    fresh = _notes_copy(source, tmp_path / "fresh")
    (fresh / "people/ana-ruiz.md").write_text(ANA)  # the notes from before either line was written

    counts = kbg(fresh, "import", str(out))
    assert counts["waiting"] == ["Ana Ruiz --mentors--> Nobody Here"] and counts["created_entities"] == 0
    assert counts["lines_written"] == 2 and counts["pages_edited"] == ["people/ana-ruiz.md"]
    assert (fresh / "people/ana-ruiz.md").read_text() == (
        ANA + "\n## Relations\n\n- reports-to [[Ben Ortiz]]\n- mentors [[Nobody Here]] — weekly\n")
    kbg(fresh, "person", "find", "Nobody Here", code=1)
    assert kbg(fresh, "entity", "relations", "Ana Ruiz")["unresolved"] == [
        {"type": "mentors", "target": "Nobody Here", "page": "people/ana-ruiz.md", "line": 13, "why": "not found"}]
    files, rows = tree_digest(fresh), _rows(fresh)
    again = kbg(fresh, "import", str(out))
    assert (again["lines_written"], again["pages_edited"], again["created_entities"]) == (0, [], 0)
    assert tree_digest(fresh) == files and _rows(fresh) == rows


def test_an_ambiguous_target_is_listed_as_unresolved_too(tmp_path):
    vault = _vault(tmp_path / "v")
    for name in ("Sam Li", "Sam Ortiz"):
        (vault / f"people/{name.lower().replace(' ', '-')}.md").write_text(f"---\ntype: person\n---\n# {name}\n")
    (vault / "people/ana-ruiz.md").write_text(ANA + "\n## Relations\n\n- reports-to [[Sam]]\n")
    (vault / "meetings/sync.md").unlink()  # its `attendees: [Sam]` would name a Sam of its own
    result = run_kbg("index", "--vault", str(vault))
    assert "warning: people/ana-ruiz.md:12: relation target ambiguous: reports-to [[Sam]]: 'Sam' matches" in result.stderr
    assert "1 relation target not linked: [[Sam]] in people/ana-ruiz.md line 12 (ambiguous)" in result.stdout
    assert kbg(vault, "entity", "relations", "Ana Ruiz")["unresolved"] == [
        {"type": "reports-to", "target": "Sam", "page": "people/ana-ruiz.md", "line": 12, "why": "ambiguous"}]
    assert all(e["name"] != "Sam" for e in kbg(vault, "entity", "list")["entities"])

"""Relation time and context live in the files: `(since DATE)` and `[context: …]` on a `## Relations`
line are what `relate --since --context` writes, and what a rebuild from the notes reads back."""

from __future__ import annotations

import shutil

from kbgraph.access import LOCAL
from kbgraph.store import open_store

from .conftest import kbg, run_kbg


def _row(vault, source, type_name, target):
    store = open_store(vault)
    try:
        rows = [r for r in store.relations_of_type(LOCAL, type_name) if (r["source"], r["target"]) == (source, target)]
    finally:
        store.close()
    assert len(rows) == 1, rows
    return {k: rows[0][k] for k in ("valid_from", "valid_until", "context", "reason")}


def test_since_and_context_survive_a_rebuild_from_the_files(indexed_vault):
    kbg(indexed_vault, "entity", "relate", "Dana Kowalski", "--type", "reports-to", "--target", "Ben Okafor",
        "--reason", "interim", "--since", "2026-03-01", "--context", "dotted line")
    page = (indexed_vault / "people" / "dana-kowalski.md").read_text()
    assert "- reports-to [[Ben Okafor]] — interim (since 2026-03-01) [context: dotted line]" in page
    made = {"valid_from": "2026-03-01", "valid_until": None, "context": "dotted line", "reason": "interim"}
    assert _row(indexed_vault, "Dana Kowalski", "reports-to", "Ben Okafor") == made
    assert run_kbg("index", "--full", "--vault", str(indexed_vault)).returncode == 0
    assert _row(indexed_vault, "Dana Kowalski", "reports-to", "Ben Okafor") == made
    shutil.rmtree(indexed_vault / ".kbgraph")
    assert run_kbg("index", "--vault", str(indexed_vault)).returncode == 0
    assert _row(indexed_vault, "Dana Kowalski", "reports-to", "Ben Okafor") == made


def test_re_relating_keeps_since_and_context_and_a_hand_edit_changes_them(indexed_vault):
    kbg(indexed_vault, "entity", "relate", "Dana Kowalski", "--type", "reports-to", "--target", "Ben Okafor",
        "--since", "2026-03-01", "--context", "dotted line")
    kbg(indexed_vault, "entity", "relate", "Dana Kowalski", "--type", "reports-to", "--target", "Ben Okafor",
        "--reason", "interim")
    assert _row(indexed_vault, "Dana Kowalski", "reports-to", "Ben Okafor")["context"] == "dotted line"
    path = indexed_vault / "people" / "dana-kowalski.md"
    path.write_text(path.read_text().replace("(since 2026-03-01) [context: dotted line]", "(since 2026-04-01)"))
    assert run_kbg("index", "--vault", str(indexed_vault)).returncode == 0
    assert _row(indexed_vault, "Dana Kowalski", "reports-to", "Ben Okafor") == {
        "valid_from": "2026-04-01", "valid_until": None, "context": None, "reason": "interim"}


def test_a_context_that_cannot_read_back_is_refused(indexed_vault):
    result = run_kbg("entity", "relate", "Dana Kowalski", "--type", "reports-to", "--target", "Ben Okafor",
                     "--context", "dotted] line", "--vault", str(indexed_vault))
    assert result.returncode != 0 and "--context" in result.stderr
    assert "Ben Okafor" not in (indexed_vault / "people" / "dana-kowalski.md").read_text()


def _rows(vault, type_name):
    store = open_store(vault)
    try:
        return sorted((r["source"], r["target"], r["valid_from"], r["valid_until"], r["context"], r["origin"])
                      for r in store.relations_of_type(LOCAL, type_name))
    finally:
        store.close()


def test_deleting_an_until_line_reopens_a_frontmatter_relation_as_a_rebuild_would(indexed_vault):
    # Arjun's frontmatter says `reports_to: Ana Lima`; a dated change of manager ends it with a line.
    kbg(indexed_vault, "entity", "relate", "Arjun Mehta", "--type", "reports-to", "--target", "Chen Wei",
        "--since", "2026-11-01")
    path = indexed_vault / "people" / "arjun-mehta.md"
    path.write_text(path.read_text().replace("- reports-to [[Ana Lima]] (until 2026-10-31)\n", ""))
    assert run_kbg("index", "--vault", str(indexed_vault)).returncode == 0
    incremental = _rows(indexed_vault, "reports-to")
    assert ("Arjun Mehta", "Ana Lima", None, None, None, "page") in incremental  # open again
    store = open_store(indexed_vault)
    try:
        history = [(v.target, v.valid_until, v.change) for v in store.relation_history(LOCAL, None)
                   if (v.source, v.type) == ("Arjun Mehta", "reports-to")]
    finally:
        store.close()
    assert ("Ana Lima", "2026-10-31", "edited") in history  # the ended version is kept
    shutil.rmtree(indexed_vault / ".kbgraph")
    assert run_kbg("index", "--vault", str(indexed_vault)).returncode == 0
    assert _rows(indexed_vault, "reports-to") == incremental


def test_a_retired_relation_stated_on_the_other_ends_page_gets_its_end_written_there(tmp_path):
    vault = tmp_path / "org"
    for folder in ("people", "projects"):
        (vault / folder).mkdir(parents=True)
    (vault / "people" / "ravi-shah.md").write_text("---\ntype: person\nname: Ravi Shah\n---\n")
    (vault / "projects" / "lighthouse.md").write_text(
        "---\ntype: project\nname: Project Lighthouse\nlead: Alex Chen\n---\n# Project Lighthouse\n")
    assert run_kbg("init", str(vault)).returncode == 0
    assert run_kbg("index", "--vault", str(vault)).returncode == 0  # Alex Chen has no page
    kbg(vault, "entity", "relate", "Ravi Shah", "--type", "leads", "--target", "Project Lighthouse",
        "--since", "2026-05-04")
    assert "- led-by [[Alex Chen]] (until 2026-05-03)" in (vault / "projects" / "lighthouse.md").read_text()
    assert run_kbg("index", "--vault", str(vault)).returncode == 0
    leads = {(r[0], r[3]) for r in _rows(vault, "leads")}
    assert leads == {("Alex Chen", "2026-05-03"), ("Ravi Shah", None)}

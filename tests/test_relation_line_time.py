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

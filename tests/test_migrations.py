"""Migrations are append-only and keep what an older index held."""

from __future__ import annotations

import sqlite3

from kbgraph.access import LOCAL
from kbgraph.store.sqlite import migrations
from kbgraph.store.sqlite.store import SqliteStore

from .old_indexes import write_pre_m015_index


def test_upgrading_an_index_keeps_its_page_relation_lines(tmp_path, monkeypatch):
    path = str(tmp_path / "index.db")
    monkeypatch.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:5])  # an index from before m006
    old = SqliteStore.open(path)
    old.db.execute("INSERT INTO documents (path, title, kind, content_hash, size, mtime, indexed_at)"
                   " VALUES ('people/a.md', 'A', 'person', 'h', 1, 1.0, 'now')")
    old.db.execute("INSERT INTO page_relation_lines (doc_id, line, type, target) VALUES (1, 7, 'reports-to', 'B')")
    old.close()
    monkeypatch.undo()

    upgraded = SqliteStore.open(path)
    assert upgraded.page_relation_lines() == [{
        "doc_id": 1, "path": "people/a.md", "line": 7, "type": "reports-to", "target": "B", "reason": None,
        "valid_until": None, "problem": None, "source": "section", "valid_from": None, "context": None,
        "doc_date": None}]
    names = [r[0] for r in upgraded.db.execute("SELECT name FROM migrations ORDER BY id")]
    assert names == [m.__name__ for m in migrations.MIGRATIONS]
    upgraded.close()


def test_upgrading_keeps_suggestions_their_decisions_and_evidence(tmp_path, monkeypatch):
    path = str(tmp_path / "index.db")
    monkeypatch.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:7])  # an index from before m008
    old = SqliteStore.open(path)
    old.db.execute("INSERT INTO entities (id, type, name, key, created_at, updated_at) VALUES"
                   " (1, 'person', 'A', 'person:a', 'now', 'now'),"
                   " (2, 'person', 'B', 'person:b', 'now', 'now')")
    old.db.execute("INSERT INTO suggestions (source_id, target_id, type, confidence, rule, status, created_at)"
                   " VALUES (1, 2, 'reports-to', 'auto-high', 'reports-to', 'rejected', 'now')")
    old.db.execute("INSERT INTO suggestion_evidence VALUES (1, 'pattern', NULL, 'n.md', 0, 5, 'A reports to B')")
    old.close()
    monkeypatch.undo()

    upgraded = SqliteStore.open(path)
    (row,) = upgraded.suggestions(LOCAL, "rejected")
    assert (row["source"], row["target"], row["new_source"], row["evidence"]) == ("A", "B", False, "A reports to B")
    assert upgraded.db.execute("PRAGMA foreign_key_check").fetchall() == []
    upgraded.db.execute("DELETE FROM suggestions")  # the evidence still cascades with its suggestion
    assert upgraded.db.execute("SELECT count(*) FROM suggestion_evidence").fetchone()[0] == 0
    upgraded.close()


def test_an_index_of_the_last_release_gains_governance_and_history_and_keeps_its_relations(tmp_path, monkeypatch):
    path = str(tmp_path / "index.db")
    write_pre_m015_index(path, monkeypatch)

    upgraded = SqliteStore.open(path)
    (row,) = upgraded.relations_from(LOCAL, 1, "out", None, None, None)
    assert (row["target"], row["sensitivity"], row["valid_from"]) == ("Ana", "normal", None)
    with upgraded.transaction():
        upgraded.end_relation(row["id"], "2026-06-01T00:00:00+00:00")
    assert [v.target for v in upgraded.relations_as_of(LOCAL, 1, "out", None, "2026-04-01")] == ["Ana"]
    assert [v.change for v in upgraded.relation_history(LOCAL)] == ["ended"]
    upgraded.close()


def test_an_index_from_a_newer_kbgraph_is_refused(tmp_path):
    import pytest

    from kbgraph.errors import SchemaTooNew

    path = str(tmp_path / "index.db")
    SqliteStore.open(path).close()
    db = sqlite3.connect(path)
    db.execute("INSERT INTO migrations (name, applied_at) VALUES ('m999_future', 'now')")
    db.commit()
    db.close()
    with pytest.raises(SchemaTooNew, match="upgrade kbgraph"):
        SqliteStore.open(path)

"""Indexes as an earlier kbgraph left them, for the upgrade tests."""

from __future__ import annotations

from kbgraph.store.sqlite import migrations
from kbgraph.store.sqlite.store import SqliteStore

M015 = "m015_governance_and_relation_history"


def write_pre_m015_index(path: str, monkeypatch) -> int:
    """An index at path as f5f347a left it (before governance and relation history), holding Dana
    --reports-to--> Ana; returns m015's position in the migrations."""
    before = [m.__name__ for m in migrations.MIGRATIONS].index(M015)
    monkeypatch.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:before])
    old = SqliteStore.open(path)
    old.db.execute("INSERT INTO entities (id, type, name, key, created_at, updated_at) VALUES"
                   " (1, 'person', 'Dana', 'person:dana', 'now', 'now'), (2, 'person', 'Ana', 'person:ana', 'now', 'now')")
    old.db.execute("INSERT INTO relations (source_id, target_id, type, confidence, origin, created_at, updated_at)"
                   " VALUES (1, 2, 'reports-to', 'manual', 'user', '2026-03-01T00:00:00+00:00', '2026-03-01T00:00:00+00:00')")
    old.close()
    monkeypatch.undo()
    return before

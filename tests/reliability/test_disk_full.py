"""A full disk is one clear error and an index as it was before the step (bench/reliability.py fills a
real tmpfs; here SQLite's behaviour is reproduced: after SQLITE_FULL it may have rolled back already)."""

from __future__ import annotations

import sqlite3

import pytest

from kbgraph.errors import StoreError
from kbgraph.store.sqlite.store import SqliteStore


@pytest.mark.parametrize("sqlite_rolled_back", [False, True])
def test_a_full_disk_inside_a_transaction_is_a_store_error_and_nothing_is_half_written(tmp_path, sqlite_rolled_back):
    store = SqliteStore.open(str(tmp_path / "index.db"))
    with store.transaction():
        store.set_meta("kept", "1")
    with pytest.raises(StoreError, match="disk holding the index is full") as info:
        with store.transaction():
            store.set_meta("lost", "1")
            if sqlite_rolled_back:
                store.db.execute("ROLLBACK")  # what SQLite does itself on some SQLITE_FULL errors
            raise sqlite3.OperationalError("database or disk is full")
    assert "run the command again" in (info.value.hint or "")
    assert store.get_meta("kept") == "1" and store.get_meta("lost") is None
    with store.transaction():  # the connection is usable afterwards
        store.set_meta("after", "1")
    store.close()

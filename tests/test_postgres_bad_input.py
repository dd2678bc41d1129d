"""The team backend's bad input: one line each, nothing lost.

Runs where KBG_TEST_PG names a PostgreSQL database (`.ci/run` sets it); skipped elsewhere."""

from __future__ import annotations

import os

import pytest

from kbgraph.errors import InvalidInput, SchemaTooNew, StoreError

from .conftest import run_kbg

pytestmark = pytest.mark.postgres
URL = os.environ.get("KBG_TEST_PG")


@pytest.fixture
def fresh():
    if not URL:
        pytest.skip("set KBG_TEST_PG to a PostgreSQL URL to run the PostgreSQL backend's tests")
    from kbgraph.store.postgres import open_store

    store = open_store(URL, fresh=True)
    yield store
    store.close()


def test_a_schema_newer_than_the_code_is_refused_in_one_line(fresh):
    from kbgraph.store.postgres.store import PostgresStore

    with fresh.transaction():
        fresh.db.execute("INSERT INTO migrations (name, applied_at) VALUES ('p999_from_the_future', 'now')")
    with pytest.raises(SchemaTooNew, match="newer kbgraph .*p999_from_the_future"):
        PostgresStore.open(fresh._url).close()
    with fresh.transaction():  # the scratch database goes back to the pool as it was
        fresh.db.execute("DELETE FROM migrations WHERE name = 'p999_from_the_future'")


def test_a_connection_the_server_drops_is_a_store_error_and_the_next_call_reconnects(fresh, monkeypatch):
    from kbgraph.store.postgres import pool

    monkeypatch.setattr(pool, "CHECK_AFTER_IDLE_S", 3600.0)  # no check before lending: the drop is met
    fresh.set_meta("kept", "yes")
    with fresh.db.pinned() as db:
        pid = db.execute("SELECT pg_backend_pid()").fetchone()[0]
    from kbgraph.store.postgres import open_store

    other = open_store(fresh._url)
    try:
        other.db.execute("SELECT pg_terminate_backend(?)", (pid,))
    finally:
        other.close()
    with pytest.raises(StoreError, match="PostgreSQL server failed the request"):
        fresh.get_meta("kept")
    assert fresh.get_meta("kept") == "yes"  # a server that restarts does not need the API restarted


@pytest.mark.parametrize("url, words", [
    ("mysql://x/y", "must start with postgresql://"),
    ("host=127.0.0.1 dbname=x", "must start with postgresql://"),
    ("postgresql://kbg:hunter2@127.0.0.1:1/none", "cannot connect to postgresql://kbg:***@127.0.0.1:1/none"),
])
def test_a_bad_url_is_one_line_without_the_password(indexed_vault, url, words):
    done = run_kbg("search", "kafka", "--vault", str(indexed_vault), "--db", url)
    assert done.returncode != 0 and words in done.stderr
    assert "hunter2" not in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_open_store_refuses_a_url_that_is_not_postgresql(tmp_path):
    from kbgraph.store import open_store

    with pytest.raises(InvalidInput, match="postgresql://"):
        open_store(tmp_path, db="sqlite:///x.db")

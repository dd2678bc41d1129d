"""The PostgreSQL store's connection pool: bounded, shared by threads, waits when every connection is
lent, replaces connections the server drops, and never hands one back holding the writers' lock.

Runs where KBG_TEST_PG names a PostgreSQL database (`.ci/run` sets it); skipped elsewhere."""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from kbgraph.errors import StoreError, VaultBusy

pytestmark = pytest.mark.postgres
URL = os.environ.get("KBG_TEST_PG")


@pytest.fixture
def pool_module():
    if not URL:
        pytest.skip("set KBG_TEST_PG to a PostgreSQL URL to run the PostgreSQL backend's tests")
    from kbgraph.store.postgres import pool

    return pool


def _open(size: int):
    from kbgraph.store.postgres.store import PostgresStore

    return PostgresStore.open(URL, fresh=True, pool_size=size)


def _admin(store):
    import psycopg

    return psycopg.connect(store._url, autocommit=True)


def _backends(admin) -> list[int]:
    """The pids of the store's connections: every other session on its (scratch) database."""
    return [r[0] for r in admin.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                                        " AND pid != pg_backend_pid()")]


def _write_lock_holders(admin) -> int:
    from kbgraph.store.postgres.store import WRITE_LOCK

    return admin.execute("SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database"
                         " WHERE l.locktype = 'advisory' AND l.objid = %s AND l.granted"
                         " AND d.datname = current_database()", (WRITE_LOCK,)).fetchone()[0]


def test_threads_read_and_write_at_once_through_a_bounded_pool(pool_module):
    store = _open(size=3)
    try:
        store.set_meta("n", "0")

        def work(i: int) -> int:
            seen = 0
            for _ in range(10):
                with store.transaction():  # read, decide, write: the writers' lock makes it safe
                    n = int(store.get_meta("n"))
                    store.set_meta("n", str(n + 1))
                seen += store.get_meta("n") is not None  # a read between writes, on a lent connection
            return seen

        with ThreadPoolExecutor(max_workers=8) as threads:
            reads = sum(threads.map(work, range(8)))
        assert store.get_meta("n") == "80"  # no write lost, none doubled
        assert reads == 80
        with _admin(store) as admin:
            assert 1 <= len(_backends(admin)) <= 3  # eight threads, never more than three connections
            assert _write_lock_holders(admin) == 0
    finally:
        store.close()


def test_a_caller_waits_for_a_connection_rather_than_failing(pool_module):
    store = _open(size=1)
    try:
        held, done = threading.Event(), []

        def writer():
            with store.transaction():  # holds the only connection for half a second
                store.set_meta("w", "1")
                held.set()
                time.sleep(0.5)

        thread = threading.Thread(target=writer)
        thread.start()
        held.wait()
        started = time.monotonic()
        done.append(store.get_meta("w"))  # waits for the connection, then reads what was committed
        waited = time.monotonic() - started
        thread.join()
        assert done == ["1"] and waited >= 0.3
    finally:
        store.close()


def test_past_the_wait_a_caller_is_told_the_server_is_busy(pool_module, monkeypatch):
    monkeypatch.setattr(pool_module, "WAIT_S", 0.2)
    store = _open(size=1)
    try:
        with store.db.pinned():  # this thread holds the only connection
            outcome = []
            thread = threading.Thread(target=lambda: outcome.append(_try(store.get_meta, "x")))
            thread.start()
            thread.join()
        assert isinstance(outcome[0], VaultBusy) and "all 1 in use" in str(outcome[0])
        assert store.get_meta("x") is None  # once handed back, it serves again
    finally:
        store.close()


def _try(call, *args):
    try:
        return call(*args)
    except StoreError as exc:
        return exc


def test_connections_the_server_drops_are_replaced_before_they_are_lent(pool_module, monkeypatch):
    monkeypatch.setattr(pool_module, "CHECK_AFTER_IDLE_S", 0.0)  # every connection checked before it is lent
    store = _open(size=4)
    try:
        with ThreadPoolExecutor(max_workers=4) as threads:  # four connections open
            list(threads.map(lambda _: _hold(store), range(4)))
        with _admin(store) as admin:
            killed = _backends(admin)
            assert len(killed) == 4
            admin.execute("SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) AS pid", (killed,))
            time.sleep(0.2)
            for _ in range(6):
                assert store.get_meta("anything") is None  # no call fails: each dead one is found and replaced
            assert not set(_backends(admin)) & set(killed)
    finally:
        store.close()


def _hold(store) -> None:
    with store.db.pinned():
        time.sleep(0.2)


def test_a_drop_fails_the_statement_in_flight_only_and_the_rest_are_replaced_at_once(pool_module, monkeypatch):
    monkeypatch.setattr(pool_module, "CHECK_AFTER_IDLE_S", 3600.0)  # no check on lending: the drop is met
    store = _open(size=3)
    try:
        with ThreadPoolExecutor(max_workers=3) as threads:
            list(threads.map(lambda _: _hold(store), range(3)))
        with _admin(store) as admin:
            killed = _backends(admin)
            admin.execute("SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) AS pid", (killed,))
            time.sleep(0.2)
            with pytest.raises(StoreError, match="PostgreSQL server failed the request"):
                store.get_meta("anything")
            for _ in range(4):  # the pool checked the idle ones when the first failed: none fails again
                assert store.get_meta("anything") is None
            assert not set(_backends(admin)) & set(killed)
    finally:
        store.close()


def test_no_connection_goes_back_holding_the_writers_lock(pool_module):
    from kbgraph.store.postgres.store import WRITE_LOCK

    store = _open(size=1)
    try:
        with _admin(store) as admin:
            with store.transaction():
                assert _write_lock_holders(admin) == 1
            assert _write_lock_holders(admin) == 0
            with pytest.raises(RuntimeError):
                with store.transaction():
                    store.set_meta("lost", "1")
                    raise RuntimeError("a business rule refuses the write")
            assert _write_lock_holders(admin) == 0 and store.get_meta("lost") is None
            # A connection handed back inside a transaction of its own making is rolled back by the pool.
            with store.db.pinned() as db:
                db.execute("BEGIN")
                db.execute("SELECT pg_advisory_xact_lock(?)", (WRITE_LOCK,))
            assert _write_lock_holders(admin) == 0
            assert admin.execute("SELECT pg_try_advisory_xact_lock(%s)", (WRITE_LOCK,)).fetchone()[0]
    finally:
        store.close()


def test_a_server_sizes_the_pool_and_a_size_below_one_is_refused(pool_module):
    from kbgraph.errors import InvalidInput

    store = _open(size=2)
    try:
        store.resize_pool(5)
        assert store.db.size == 5
        with pytest.raises(InvalidInput, match="at least one connection"):
            store.resize_pool(0)
    finally:
        store.close()


def test_each_serve_worker_bounds_its_pool_as_serve_was_told(pool_module, tmp_path, monkeypatch):
    pytest.importorskip("fastapi")
    from kbgraph.cli import serve_worker
    from kbgraph.workspace import init_vault

    scratch = _open(size=1)  # a migrated scratch database for the worker to open by URL
    url = URL.rsplit("/", 1)[0] + "/" + scratch._scratch.name  # KBG_DB takes a postgresql:// URL
    scratch.close()
    root, _ = init_vault(tmp_path / "vault")
    opened = []
    monkeypatch.setattr("atexit.register", opened.append)  # the worker's ws.close, called here instead
    monkeypatch.setenv(serve_worker.VAULT_ENV, str(root))
    monkeypatch.setenv(serve_worker.HOST_ENV, "127.0.0.1")
    monkeypatch.setenv(serve_worker.POOL_ENV, "3")
    monkeypatch.setenv("KBG_DB", url)
    serve_worker.create_worker_app()
    try:
        store = opened[0].__self__.store
        assert store.db.size == 3
    finally:
        for close in opened:
            close()

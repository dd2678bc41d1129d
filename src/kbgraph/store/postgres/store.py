"""PostgresStore: the Store contract on PostgreSQL, for a team's shared index.

The queries that are portable SQL are the SQLite backend's mixins, run through PgConnection (which
speaks their `?` parameters); the mixins in this package, first in the bases, override the ones that
are not (full text, vectors, upserts, ids of new rows). Writers serialise on one advisory lock per
database, taken when a transaction begins, as SQLite's BEGIN IMMEDIATE makes them do: the business
rules above the store read, decide and write inside one transaction and may count on nobody writing
in between. Readers never wait."""

from __future__ import annotations

import atexit
import threading
import uuid
from contextlib import contextmanager
from typing import Iterator

import psycopg

from ...errors import InvalidInput, SchemaTooNew, StoreError
from ..sqlite.docgraph import DocGraphQueries
from ..sqlite.governance import GovernanceQueries
from ..sqlite.graph import ConflictQueries, GraphQueries
from ..sqlite.memory import MemoryQueries
from ..sqlite.resolution import ResolutionQueries
from ..sqlite.search import SearchQueries
from ..sqlite.store import CoreQueries
from ..sqlite.tokens import TokenQueries
from ..sqlite.transfer import TransferQueries
from ..sqlite.vectors import VectorQueries
from .connection import PgConnection, redact
from .core import PgCoreQueries
from .graph import PgGraphQueries
from .planner import PgPlannedQueries
from .pool import DEFAULT_SIZE, PooledDb
from .streams import PgStreamQueries
from .text import PgTextQueries
from .vectors import PgVectorQueries
from .schema import MIGRATIONS

WRITE_LOCK = 0x6B6267  # "kbg": the advisory lock writers hold for the length of a transaction
CONNECT_TIMEOUT_S = 5


def _connect(url: str) -> PgConnection:
    try:
        return PgConnection(psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S))
    except psycopg.Error as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise StoreError(f"cannot connect to {redact(url)}: {reason}",
                         hint="check that the server runs and the URL (user, host, port, database)") from None


class PostgresStore(PgCoreQueries, PgTextQueries, PgGraphQueries, PgVectorQueries, PgStreamQueries, PgPlannedQueries, CoreQueries, GovernanceQueries, TransferQueries, ResolutionQueries, VectorQueries, SearchQueries, DocGraphQueries, GraphQueries,
                    ConflictQueries, MemoryQueries, TokenQueries):
    """One team index in one PostgreSQL database, safe to share between threads: they share a bounded
    pool of connections (pool.py), pool_size at most (DEFAULT_SIZE unless resize_pool says otherwise)."""

    def __init__(self, url: str, scratch: "_Scratch | None" = None, pool_size: int = DEFAULT_SIZE):
        self.path = redact(url)
        self._url = url
        self._scratch = scratch  # a fresh store's scratch database, handed back at close()
        self._db = PooledDb(url, pool_size, self.path)
        self._closed = False

    @property
    def db(self) -> PooledDb:  # the queries need only execute/executemany, which it has
        if self._closed:
            raise StoreError("the store is closed")
        return self._db

    def resize_pool(self, size: int) -> None:
        """At most size connections from now on (a server sizes it for its threads; see docs/team.md)."""
        if size < 1:
            raise InvalidInput(f"a pool needs at least one connection, not {size}", param="db_connections")
        self.db.resize(size)

    @classmethod
    def open(cls, url: str, fresh: bool = False, pool_size: int = DEFAULT_SIZE) -> "PostgresStore":
        """The store in the database url names, migrated. fresh: an empty store in a scratch database beside
        it instead (for tests): created once per process, emptied for each fresh open, dropped at exit."""
        scratch = _Scratch.take(url) if fresh else None
        target = scratch.url if scratch else url
        _migrate(target)  # on a connection of its own, first: it says in one line why a URL does not work
        store = cls(target, scratch, pool_size)
        try:
            store.db.open(CONNECT_TIMEOUT_S)
            if scratch is not None:
                store._empty()
            store._open_vector_index()  # pgvector, where the server has it (not a migration: see vectors.py)
        except BaseException:
            store.close()
            raise
        return store

    def _empty(self) -> None:
        """Every table emptied and every id counter restarted: a store as a fresh migration leaves it."""
        tables = [r[0] for r in self.db.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename != 'migrations'")]
        with self.transaction():
            self.db.execute(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY CASCADE")
            self.db.execute("INSERT INTO meta (key, value) VALUES ('relation_generation', '0')")

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._db.close()
        if self._scratch is not None:
            self._scratch.give_back()
            self._scratch = None

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """This thread's transaction: joined when one is open, else begun holding the writers' lock, on a
        connection the thread keeps until it ends (COMMIT or ROLLBACK releases the lock with it)."""
        with self.db.pinned() as db:
            if db.in_transaction:
                yield
                return
            db.execute("BEGIN")
            try:
                db.execute("SELECT pg_advisory_xact_lock(?)", (WRITE_LOCK,))
                yield
            except BaseException:
                if not db.conn.broken:  # a dropped connection took its transaction with it
                    db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")


def _migrate(url: str) -> None:
    """Migrate the database to this version, holding the writers' lock as a session lock on a connection
    opened for it and closed after: a session lock must never reach the pool (it would outlive its use)."""
    db = _connect(url)
    try:
        db.execute("SELECT pg_advisory_lock(?)", (WRITE_LOCK,))
        db.execute("CREATE TABLE IF NOT EXISTS migrations (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY"
                   " KEY, name TEXT NOT NULL UNIQUE, applied_at TEXT NOT NULL)")
        done = {row[0] for row in db.execute("SELECT name FROM migrations")}
        unknown = done - {m.__name__ for m in MIGRATIONS}
        if unknown:
            raise SchemaTooNew(f"the database {redact(url)} was written by a newer kbgraph (unknown migrations: "
                               f"{', '.join(sorted(unknown))})", hint="upgrade kbgraph")
        for migration in MIGRATIONS:
            if migration.__name__ in done:
                continue
            with db.conn.transaction():  # all of a migration or none of it
                migration(db)
                db.execute("INSERT INTO migrations (name, applied_at) VALUES (?, now()::text)",
                           (migration.__name__,))
    finally:
        db.close()  # the session lock goes with the connection


class _Scratch:
    """A scratch database for fresh stores: one per store open at a time, reused once it is closed (a
    TRUNCATE costs milliseconds, CREATE DATABASE and a migration a second), all dropped at exit."""

    _free: list["_Scratch"] = []
    _all: list["_Scratch"] = []
    _lock = threading.Lock()

    def __init__(self, admin_url: str, name: str):
        self.admin_url, self.name = admin_url, name
        self.url = _with_database(admin_url, name)

    @classmethod
    def take(cls, admin_url: str) -> "_Scratch":
        with cls._lock:
            for i, scratch in enumerate(cls._free):
                if scratch.admin_url == admin_url:
                    return cls._free.pop(i)
        name = f"kbg_scratch_{uuid.uuid4().hex[:12]}"
        admin = _connect(admin_url)
        try:
            admin.execute(f'CREATE DATABASE "{name}"')
        finally:
            admin.close()
        scratch = cls(admin_url, name)
        with cls._lock:
            if not cls._all:
                atexit.register(cls.drop_all)
            cls._all.append(scratch)
        return scratch

    def give_back(self) -> None:
        with self._lock:
            self._free.append(self)

    @classmethod
    def drop_all(cls) -> None:
        for scratch in cls._all:
            try:
                admin = _connect(scratch.admin_url)
                try:
                    admin.execute(f'DROP DATABASE IF EXISTS "{scratch.name}" WITH (FORCE)')
                finally:
                    admin.close()
            except StoreError:
                pass  # the server went away first: nothing to drop
        cls._all.clear()
        cls._free.clear()


def _with_database(url: str, name: str) -> str:
    """url naming database name instead of its own (URL or key=value form)."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    return make_conninfo(**{**conninfo_to_dict(url), "dbname": name})

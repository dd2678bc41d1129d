"""The connections of one PostgresStore: a bounded psycopg_pool.ConnectionPool, lent out a statement at a
time, or for the length of a transaction or a stream.

Why a statement at a time: a server's threads (an API worker runs up to 40) spend most of a request
outside the database, so a few connections serve them all, and the server sees at most workers × size
connections however many threads there are. A statement's rows are read before its connection goes back.
A thread that opens a transaction or reads a stream (a server-side cursor) keeps its connection until
the transaction ends or the stream is closed; every other statement of that thread meanwhile runs on it.

A caller that finds every connection lent waits for one (up to WAIT_S) rather than failing; past that it
is VaultBusy, the API's 503 with Retry-After. A connection the server dropped (a restart, a killed
backend) is replaced: one idle for over CHECK_AFTER_IDLE_S is checked (an empty query) before it is lent,
and after any statement fails on a dead connection every idle one is checked, so at most the statements
in flight when the server went away fail.

No connection goes back holding a lock: the writers' lock is transaction-scoped (released by COMMIT or
ROLLBACK, and the pool rolls back a connection handed back inside a transaction), and the migration's
session lock is taken on a connection of its own, closed after (store.py)."""

from __future__ import annotations

import threading
import time
import weakref
from contextlib import contextmanager
from typing import Any, Iterable, Iterator, Sequence

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from ...errors import StoreError, VaultBusy
from .connection import PgConnection

DEFAULT_SIZE = 10  # connections per process at most; `kbg serve --db-connections` sets a server's
WAIT_S = 30.0  # how long a caller waits for a free connection before it is told the server is busy
CHECK_AFTER_IDLE_S = 1.0  # a connection idle longer is checked before it is lent (one round trip)


class Rows:
    """A statement's result, read whole before its connection went back to the pool: what the queries use
    of a cursor (iteration, fetchone, fetchall, rowcount, description)."""

    __slots__ = ("_rows", "_next", "rowcount", "description")

    def __init__(self, cursor: psycopg.Cursor):
        self.description = cursor.description
        self._rows = cursor.fetchall() if cursor.description is not None else []
        self._next = 0
        self.rowcount = cursor.rowcount

    def __iter__(self) -> Iterator[tuple]:
        rows, self._next = self._rows[self._next:], len(self._rows)
        return iter(rows)

    def fetchone(self) -> Any:
        if self._next >= len(self._rows):
            return None
        self._next += 1
        return self._rows[self._next - 1]

    def fetchall(self) -> list:
        rows, self._next = self._rows[self._next:], len(self._rows)
        return rows


class PooledDb:
    """What the queries call `self.db`: execute/executemany/stream/in_transaction, each on this thread's
    pinned connection when it has one, else on a connection lent for that one statement."""

    def __init__(self, url: str, size: int, label: str):
        self.label = label  # the URL without its password, for messages
        self._pins: dict[int, list] = {}  # thread id -> [connection, how many pins hold it]
        self._pins_lock = threading.Lock()
        # When each connection last went back: a weak map, so a connection the pool drops is forgotten.
        self._returned: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._pool = ConnectionPool(url, min_size=1, max_size=size, open=False, timeout=WAIT_S, num_workers=1,
                                    kwargs={"autocommit": True, "connect_timeout": 5}, check=self._check,
                                    name=f"kbg {label}")

    def open(self, timeout: float) -> None:
        try:
            self._pool.open(wait=True, timeout=timeout)
        except PoolTimeout:
            self._pool.close()
            raise StoreError(f"cannot connect to {self.label}: no connection within {timeout:.0f} s",
                             hint="check that the server runs and accepts more connections") from None

    @property
    def size(self) -> int:
        return self._pool.max_size

    def resize(self, size: int) -> None:
        self._pool.resize(min_size=min(self._pool.min_size, size), max_size=size)

    def close(self) -> None:
        self._pool.close()

    # --- lending

    def _check(self, conn: psycopg.Connection) -> None:
        """A connection idle for a while may have been dropped by the server: an empty query finds out
        (and the pool lends another when it raises). One just used is not worth the round trip."""
        if time.monotonic() - self._returned.get(conn, 0.0) > CHECK_AFTER_IDLE_S:
            conn.execute("")

    def _get(self) -> psycopg.Connection:
        try:
            return self._pool.getconn()
        except PoolTimeout:
            raise VaultBusy(f"no connection to {self.label} came free within {WAIT_S:.0f} s (all {self.size}"
                            " in use, or the server does not answer)", hint="try again") from None

    def _put(self, conn: psycopg.Connection) -> None:
        broken = conn.broken
        if not broken:
            self._returned[conn] = time.monotonic()
        self._pool.putconn(conn)  # one handed back inside a transaction is rolled back; a broken one replaced
        if broken:  # the server went away: the idle ones are likely dead too; replace them now, not one by one
            self._pool.check()

    @contextmanager
    def pinned(self) -> Iterator[PgConnection]:
        """This thread's connection for the length of the block: the one it holds already, or one lent
        until the outermost pin ends. Pins may end in any order (two streams read side by side)."""
        me = threading.get_ident()
        with self._pins_lock:
            held = self._pins.get(me)
            if held is not None:
                held[1] += 1
        if held is None:
            held = [PgConnection(self._get()), 1]
            with self._pins_lock:
                self._pins[me] = held
        try:
            yield held[0]
        finally:
            with self._pins_lock:
                held[1] -= 1
                last = held[1] == 0
                if last:
                    del self._pins[me]
            if last:
                self._put(held[0].conn)

    def _pin(self) -> PgConnection | None:
        held = self._pins.get(threading.get_ident())
        return held[0] if held is not None else None

    # --- what the queries call

    @property
    def in_transaction(self) -> bool:
        db = self._pin()
        return db is not None and db.in_transaction

    @property
    def conn(self) -> psycopg.Connection:
        """The psycopg connection this thread holds (inside a transaction or pinned()): for COPY and the like."""
        db = self._pin()
        if db is None:
            raise StoreError("no connection is held by this thread: use it inside store.transaction() or pinned()")
        return db.conn

    def execute(self, sql: str, params: Sequence[Any] | None = None):
        db = self._pin()
        if db is not None:
            return db.execute(sql, params)
        conn = self._get()
        try:
            return Rows(PgConnection(conn).execute(sql, params))
        finally:
            self._put(conn)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]):
        db = self._pin()
        if db is not None:
            return db.executemany(sql, rows)
        conn = self._get()
        try:
            return Rows(PgConnection(conn).executemany(sql, rows))
        finally:
            self._put(conn)

    def execute_script(self, sql: str) -> None:
        """Several statements, no parameters (the vector tables, made inside a transaction)."""
        with self.pinned() as db:
            db.execute_script(sql)

    def stream(self, sql: str, params: Sequence[Any] = (), batch: int = 2000) -> Iterator[tuple]:
        """PgConnection.stream on a connection held until the stream is read or closed."""
        with self.pinned() as db:
            yield from db.stream(sql, params, batch)

"""A psycopg connection that reads like the sqlite3 one the portable queries are written against:
`execute(sql, params)` with `?` parameters, `executemany`, `in_transaction`, rows as tuples."""

from __future__ import annotations

import itertools
import re
from functools import lru_cache
from typing import Any, Iterable, Iterator, Sequence

import psycopg

from ...errors import StoreError

_STREAMS = itertools.count(1)  # server-side cursor names, unique per process
_QUOTED = re.compile(r"""('(?:[^']|'')*'|"(?:[^"]|"")*"|\$\$.*?\$\$)""", re.S)


@lru_cache(maxsize=4096)
def pg_sql(sql: str) -> str:
    """sql with its `?` parameters as psycopg's `%s` and literal `%` doubled, quoted text untouched."""
    parts = _QUOTED.split(sql)
    for i in range(0, len(parts), 2):  # even parts are outside quotes
        parts[i] = parts[i].replace("%", "%%").replace("?", "%s")
    for i in range(1, len(parts), 2):
        parts[i] = parts[i].replace("%", "%%")
    return "".join(parts)


def _lost(exc: psycopg.OperationalError) -> StoreError:
    """The server went away or refused the statement's resources: a one-line error, never a traceback.
    What was not committed is rolled back by the server."""
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return StoreError(f"the PostgreSQL server failed the request: {first}", hint="check the server and try again")


def redact(url: str) -> str:
    """The URL without its password, for messages."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)


class PgConnection:
    """One thread's connection. Autocommit outside a transaction: each read sees what is committed."""

    def __init__(self, conn: psycopg.Connection):
        self.conn = conn

    @property
    def in_transaction(self) -> bool:
        return self.conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> psycopg.Cursor:
        try:
            if params is None:  # no parameters: psycopg reads the text as it is, `%` included
                return self.conn.execute(sql.encode(), prepare=False)
            return self.conn.execute(pg_sql(sql), tuple(params), prepare=False)
        except psycopg.OperationalError as exc:
            raise _lost(exc) from None

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> psycopg.Cursor:
        cursor = self.conn.cursor()
        try:
            cursor.executemany(pg_sql(sql), [tuple(r) for r in rows])
        except psycopg.OperationalError as exc:
            raise _lost(exc) from None
        return cursor

    def stream(self, sql: str, params: Sequence[Any] = (), batch: int = 2000) -> Iterator[tuple]:
        """The rows of sql fetched batch by batch through a server-side cursor, never all at once in this
        process (psycopg's ordinary cursor holds the whole result). WITH HOLD: it works outside a
        transaction too, and several streams may be read side by side on one connection."""
        cursor = self.conn.cursor(name=f"kbg_stream_{next(_STREAMS)}", withhold=True)
        try:
            cursor.itersize = batch
            cursor.execute(pg_sql(sql), tuple(params))
            yield from cursor
        except psycopg.OperationalError as exc:
            raise _lost(exc) from None
        finally:
            if not self.conn.closed:
                cursor.close()

    def execute_script(self, sql: str) -> None:
        """Several statements, no parameters (a migration)."""
        self.conn.execute(sql.encode())  # bytes: no parameter parsing at all

    def close(self) -> None:
        self.conn.close()

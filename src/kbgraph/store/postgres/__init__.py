"""The PostgreSQL backend (a team's shared index): `open_store(url)`. Needs the `postgres` extra (psycopg)."""

from __future__ import annotations

from ...errors import MissingDependency


def open_store(url: str, fresh: bool = False):
    """The Store in the database url names (postgresql://user@host:port/db), migrated to this version.
    fresh: a new empty database beside it, dropped when the store closes (for tests)."""
    try:
        from .store import PostgresStore
    except ImportError as exc:
        raise MissingDependency("the PostgreSQL backend needs psycopg: pip install 'kbgraph[postgres]'",
                                hint=str(exc)) from None
    return PostgresStore.open(url, fresh=fresh)

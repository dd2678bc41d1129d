"""PostgreSQL's own versions of the queries on documents, entities, mentions, relations and their history, suggestions, problems (store/sqlite/store.py CoreQueries) that are not portable SQL. A mixin of PostgresStore, first in its bases."""

from __future__ import annotations

from .connection import PgConnection


class PgCoreQueries:
    db: PgConnection

"""PostgreSQL's own versions of the queries on traversals, conflicts, memory (facts, loops), tokens and resolution (store/sqlite/graph.py, memory.py, tokens.py, resolution.py) that are not portable SQL. A mixin of PostgresStore, first in its bases."""

from __future__ import annotations

from .connection import PgConnection


class PgGraphQueries:
    db: PgConnection

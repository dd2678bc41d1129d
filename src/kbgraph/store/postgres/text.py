"""PostgreSQL's own versions of the queries on full text (tsvector, tsquery compiled from TextQuery, ts_headline), vectors and the document graph (store/sqlite/search.py, fts5.py, vectors.py, docgraph.py) that are not portable SQL. A mixin of PostgresStore, first in its bases."""

from __future__ import annotations

from .connection import PgConnection


class PgTextQueries:
    db: PgConnection

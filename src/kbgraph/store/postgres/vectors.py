"""PostgreSQL's vector queries where they differ from the exact ones it inherits (pgvector, when the
server has the extension). A mixin of PostgresStore, first in its bases."""

from __future__ import annotations

from .connection import PgConnection


class PgVectorQueries:
    db: PgConnection

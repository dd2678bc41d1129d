"""PostgreSQL's own versions of the queries on traversals, conflicts, memory (facts, loops), tokens and
resolution (store/sqlite/graph.py, memory.py, tokens.py, resolution.py) that are not portable SQL. A
mixin of PostgresStore, first in its bases.

Almost all of that SQL is portable and shared (RETURNING id, ON CONFLICT, IS NOT DISTINCT FROM). A
traversal walks one hop per query from Python (relation_steps), so no recursive SQL is needed for it;
the one recursive query, the chain of merges in memory's access rule, stops on a cycle because its
UNION keeps each key once."""

from __future__ import annotations

from .pool import PooledDb


class PgGraphQueries:
    db: PooledDb

    def _index_hint(self, index: str) -> str:
        """SQLite is told which index a graph read walks (INDEXED BY); PostgreSQL's planner chooses
        from the statistics and has no such clause."""
        return ""

"""PostgreSQL's own versions of the queries on traversals, conflicts, memory (facts, loops), tokens and
resolution (store/sqlite/graph.py, memory.py, tokens.py, resolution.py) that are not portable SQL. A
mixin of PostgresStore, first in its bases.

Almost all of that SQL is portable and shared (RETURNING id, ON CONFLICT, IS NOT DISTINCT FROM). A
traversal walks one hop per query from Python (relation_steps): measured against one WITH RECURSIVE ...
CYCLE query with the filters in its recursive term (bench/pg_vs_sqlite.py --part cte, RESULTS §26), the
per-hop walk is 8-27x faster at depth 1-2 on the 1M-relation graph, and even at depth 3 (p50 alike, p95
better): a recursive term is planned once, blind to how small a walk is, and a CTE cannot prune entities
that other walks reached, which the per-hop frontier does. (At 100k relations the CTE wins 2 hops, 5.3 vs
10.0 ms p50, but not 1 or 3: not enough for a second way to walk.) The one recursive query, the chain of merges in memory's access rule, stops on a cycle because its
UNION keeps each key once."""

from __future__ import annotations

from .pool import PooledDb


class PgGraphQueries:
    db: PooledDb

    def _index_hint(self, index: str) -> str:
        """SQLite is told which index a graph read walks (INDEXED BY); PostgreSQL's planner chooses
        from the statistics and has no such clause."""
        return ""

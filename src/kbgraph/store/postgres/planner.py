"""Queries PostgreSQL plans badly on tables just filled: with no statistics yet it takes a join's input
for one row and nests loops over ~75k (the co-occurrence self-join ran 5.5 minutes at 100k sections,
bench/RESULTS.md §19). Each query here first analyses the tables it reads when their statistics are
stale, then runs the shared SQL. A mixin of PostgresStore, first in its bases."""

from __future__ import annotations

from .pool import PooledDb

STALE_SHARE = 0.1  # analyse a table once this share of its rows changed since it was last analysed
STALE_MIN_ROWS = 1000


class PgPlannedQueries:
    db: PooledDb

    def _analysed(self, *tables: str) -> None:
        rows = self.db.execute(
            "SELECT relname, n_live_tup, n_mod_since_analyze, last_analyze IS NULL AND last_autoanalyze IS NULL"
            " FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname = ANY(?)", (list(tables),))
        stale = [name for name, live, changed, never in rows
                 if changed >= STALE_MIN_ROWS and (never or changed > STALE_SHARE * live)]
        if stale:
            self.db.execute(f"ANALYZE {', '.join(sorted(stale))}")

    def cooccurring_people(self, min_documents: int) -> list[tuple[int, int, list[tuple[int, str, str]]]]:
        self._analysed("mentions", "documents", "entities")
        return super().cooccurring_people(min_documents)

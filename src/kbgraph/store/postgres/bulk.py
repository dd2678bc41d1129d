"""A bulk load of relation rows by COPY, for building large graphs (benchmarks, imports).

Per-row INSERTs cross the network once a row: a million relations take minutes that COPY takes
seconds. The rows are not checked against the vocabulary or resolved: the caller hands rows that
upsert_relation would have written, in RELATION_COLUMNS' order. The table's statement-level
trigger still moves relation_generation once, so no cached graph answer survives the load."""

from __future__ import annotations

from typing import Iterable, Sequence

# The columns upsert_relation writes; the others keep their defaults.
RELATION_COLUMNS = ("source_id", "target_id", "type", "reason", "source_doc_id", "source_doc_path", "confidence",
                    "origin", "origin_doc_id", "created_at", "updated_at", "valid_until", "strength", "inferred",
                    "owner", "visibility")


def copy_relations(store, rows: Iterable[Sequence]) -> int:
    """Append rows (RELATION_COLUMNS' order) to a PostgresStore's relations in one transaction, then
    refresh the planner's statistics so the graph reads plan for the new size. Returns the rows written."""
    written = 0
    with store.transaction():
        cursor = store.db.conn.cursor()
        with cursor.copy(f"COPY relations ({', '.join(RELATION_COLUMNS)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
                written += 1
    store.db.execute("ANALYZE relations")
    return written

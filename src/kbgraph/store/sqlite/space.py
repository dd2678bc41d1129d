"""Giving disk space back after documents are deleted or shrink.

SQLite keeps freed pages in the file (its free-list) for later writes: after a 50 MB note is deleted
the index stays its old size. An index made by this version has auto_vacuum = INCREMENTAL (it can
only be set before the first table, or by a VACUUM), so freed pages are handed back with
`PRAGMA incremental_vacuum`, which moves no live data. An index from before has no such bookkeeping:
it is rewritten once with VACUUM (which also turns incremental vacuum on) when the free-list is a
large share of the file. The write-ahead log a large transaction grew is truncated afterwards.
"""

from __future__ import annotations

import sqlite3

INCREMENTAL = 2  # PRAGMA auto_vacuum's value for INCREMENTAL
RECLAIM_MIN_BYTES = 1024 * 1024  # less free space than this is left for the next writes to reuse
VACUUM_SHARE = 0.25  # an index without incremental vacuum is rewritten when this share of it is free
WAL_LIMIT_BYTES = 64 * 1024 * 1024  # a write-ahead log is cut back to this after a checkpoint


def plan_incremental(db: sqlite3.Connection) -> None:
    """On a new, empty index: turn incremental vacuum on before any table is made. On an existing one
    it changes nothing until the next VACUUM, which then turns it on."""
    db.execute("PRAGMA auto_vacuum = INCREMENTAL")


def free_space(db: sqlite3.Connection) -> tuple[int, int, int]:
    """(bytes free inside the file, bytes of the file, auto_vacuum mode)."""
    page = db.execute("PRAGMA page_size").fetchone()[0]
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    free = db.execute("PRAGMA freelist_count").fetchone()[0]
    return free * page, pages * page, db.execute("PRAGMA auto_vacuum").fetchone()[0]


def reclaim(db: sqlite3.Connection) -> int:
    """Hand the index's free pages back to the file system; returns the bytes the file shrank by.
    Not in a transaction (VACUUM cannot run in one). A busy index or a full disk leaves the space
    for a later run: nothing is lost by waiting."""
    if db.in_transaction:  # executescript and VACUUM would commit it: the caller's unit of work is not ours
        return 0
    free, size, mode = free_space(db)
    if free < RECLAIM_MIN_BYTES:
        return 0
    try:
        if mode == INCREMENTAL:
            # executescript steps the pragma to its end; execute() stops after its first page.
            try:
                db.executescript("BEGIN IMMEDIATE; PRAGMA incremental_vacuum; COMMIT;")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        elif free >= VACUUM_SHARE * size:
            plan_incremental(db)
            db.execute("VACUUM")
        else:
            return 0
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    except sqlite3.OperationalError:
        return 0
    return size - free_space(db)[1]

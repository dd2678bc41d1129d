"""Backups of a SQLite index: SQLite's online backup API, so a copy taken while writers run is one
consistent snapshot, and a restore that swaps the index's content in place (other processes' open
connections see the restored data; no file is replaced under them)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from ...errors import InvalidInput, SchemaTooNew, StoreError
from .migrations import MIGRATIONS, apply_migrations


def integrity_problems(db: sqlite3.Connection) -> list[str]:
    """What `PRAGMA integrity_check` finds wrong, or [] for a sound database."""
    rows = [row[0] for row in db.execute("PRAGMA integrity_check")]
    return [] if rows == ["ok"] else rows


def _open_readonly(path: Path) -> sqlite3.Connection:
    if path.is_dir():  # where a backup to a folder put its dated file: name the one to give
        dated = sorted(path.glob("kbgraph-*.db"))
        raise InvalidInput(f"{path} is a folder, not a backup file", param="path",
                           hint=f"give one of its backups (the newest: {dated[-1]})" if dated
                           else "give the backup file itself")
    if not path.is_file():
        raise InvalidInput(f"no backup file at {path}", param="path")
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)


def check_backup(path: Path) -> sqlite3.Connection:
    """An open, read-only connection to a sound kbgraph index at path that this kbgraph can read; refuses
    anything else (not SQLite, damaged, not a kbgraph index, written by a newer kbgraph)."""
    db = _open_readonly(path)
    try:
        problems = integrity_problems(db)
        if problems:
            raise InvalidInput(f"{path} fails SQLite's integrity check: {problems[0]}", param="path")
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"migrations", "documents", "relations"} <= tables:
            raise InvalidInput(f"{path} is an SQLite file but not a kbgraph index", param="path")
        done = {row[0] for row in db.execute("SELECT name FROM migrations")}
        newer = done - {m.__name__ for m in MIGRATIONS}
        if newer:
            raise SchemaTooNew(f"{path} was written by a newer kbgraph (unknown migrations: "
                               f"{', '.join(sorted(newer))}); upgrade kbgraph to restore it")
    except sqlite3.DatabaseError as exc:
        db.close()
        raise InvalidInput(f"{path} is not a readable SQLite index: {exc}", param="path") from None
    except BaseException:
        db.close()
        raise
    return db


def describe_backup(path: Path) -> dict:
    """Counts of a checked backup and its notes' paths, read without writing to it (opening it as a
    store would set WAL)."""
    db = check_backup(path)
    try:
        one = lambda sql: db.execute(sql).fetchone()[0]  # noqa: E731
        return {"documents": one("SELECT count(*) FROM documents"), "entities": one("SELECT count(*) FROM entities"),
                "relations": one("SELECT count(*) FROM relations"),
                "paths": [path for (path,) in db.execute("SELECT path FROM documents")]}
    finally:
        db.close()


class BackupQueries:
    """Store methods: a consistent copy to a new file, and a restore from one."""

    db: sqlite3.Connection

    def backup_to(self, path: str) -> None:
        """Copy the whole index to path (which must not exist) as one snapshot: the copy is written beside
        path, checked, and only then renamed into place, so path never names a partial backup."""
        target = Path(path)
        partial = target.with_name(target.name + ".partial")
        partial.unlink(missing_ok=True)
        try:
            copy = sqlite3.connect(str(partial), isolation_level=None)
            try:
                self.db.backup(copy)  # all pages in one step: a single read transaction, one snapshot
                copy.execute("PRAGMA journal_mode = DELETE")  # one self-contained file, no -wal beside it
                problems = integrity_problems(copy)
            finally:
                copy.close()
            if problems:
                raise StoreError(f"the backup failed SQLite's integrity check: {problems[0]}; the index "
                                   "itself may be damaged", hint="index the vault again, re-reading every note")
            os.replace(partial, target)
        except OSError as exc:
            raise InvalidInput(f"cannot write the backup {target}: {exc.strerror}", param="path") from None
        except sqlite3.OperationalError as exc:
            raise InvalidInput(f"cannot write the backup {target}: {exc}", param="path") from None
        finally:
            partial.unlink(missing_ok=True)

    def restore_from(self, path: str) -> None:
        """Replace the whole index with the backup at path, checked first (a bad backup changes nothing);
        a backup from an older kbgraph is brought up to date after it is copied in."""
        source = check_backup(Path(path))
        try:
            source.backup(self.db)  # SQLite writes it under the destination's write lock: all or nothing
        finally:
            source.close()
        apply_migrations(self.db)

    def integrity_problems(self) -> list[str]:
        return integrity_problems(self.db)

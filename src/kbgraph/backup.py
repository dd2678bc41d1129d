"""`kbg backup PATH` and `kbg restore PATH`: the index as one file that can be put back.

The notes are the truth and are the user's to back up; the index holds what the notes do not: every
relation, merge, answer and decision a user asserted, vectors that took minutes to compute, tokens. A
backup is a consistent snapshot taken with SQLite's online backup API, safe while writers run, checked
with `integrity_check` before it is given its name. A restore checks the backup first (a bad one changes
nothing), then replaces the index's content while holding both of the vault's locks, so no writer and
no indexing run sees half of it."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from .errors import InvalidInput, SchemaTooNew, StoreError
from .base.vault import INDEX_DIR
from .locks import index_lock
from .pages.files import write_lock
from .store import open_store
from .store.sqlite.backup import describe_backup
from .store.sqlite.store import DB_NAME
from .base.workspace import Workspace

RESTORE_LOCK_WAIT = 30.0  # seconds: as long as a write waits for a running `kbg index`


@dataclass(frozen=True)
class BackupReport:
    path: str
    bytes: int
    documents: int
    entities: int
    relations: int
    seconds: float
    # Restore: notes the backup indexed that this vault does not have. All of them suggests a backup of
    # another vault (its assertions would name notes that are not here); the next index drops them.
    notes_missing: int = 0


def backup_index(ws: Workspace, destination: str | Path) -> BackupReport:
    """Write a snapshot of ws's index to destination: a new file, or a folder to put a dated file in."""
    started = time.perf_counter()
    target = Path(destination).expanduser()
    if target.is_dir():
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        target = target / f"kbgraph-{ws.root.name}-{stamp}.db"
    if target.exists():
        raise InvalidInput(f"{target} exists; a backup never overwrites a file", param="path",
                           hint="give a new file name, or a folder to put a dated backup in")
    if not target.parent.is_dir():
        raise InvalidInput(f"no folder {target.parent} to write the backup in", param="path")
    if _inside(target, ws.root / ".kbgraph"):
        raise InvalidInput("a backup inside .kbgraph/ is lost with the index; choose another place", param="path")
    ws.store.backup_to(str(target))
    return _report(target, describe_backup(target), started)


def restore_index(vault_root: Path, source: str | Path, db: str | None = None) -> BackupReport:
    """Replace the vault's index with the backup at source. The backup is checked first; while it is
    copied in, no `kbg index` and no write to the vault can run. The index need not open (a damaged
    one is what a restore is for): only the backup is read before the copy."""
    started = time.perf_counter()
    path = Path(source).expanduser()
    stats = describe_backup(path)  # checked (it exists, is sound, is ours) before anything is locked or moved
    with index_lock(vault_root, RESTORE_LOCK_WAIT), write_lock(vault_root, RESTORE_LOCK_WAIT):
        try:
            store = open_store(vault_root, create=True, db=db)
        except SchemaTooNew:
            raise
        except StoreError:
            if db:
                raise
            _set_aside_damaged(vault_root)
            store = open_store(vault_root, create=True)
        try:
            store.restore_from(str(path))
        finally:
            store.close()
    missing = sum(not (vault_root / p).exists() for p in stats["paths"])
    return _report(path, stats, started, notes_missing=missing)


def _set_aside_damaged(vault_root: Path) -> None:
    """Move an index that cannot be opened out of the way (kept, renamed, never deleted: it may hold
    what the backup does not, for someone to recover by hand)."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    for part in sorted((vault_root / INDEX_DIR).glob(DB_NAME + "*")):
        part.rename(part.with_name(f"{part.name}.damaged-{stamp}"))


def _report(path: Path, stats: dict, started: float, notes_missing: int = 0) -> BackupReport:
    """What the backup file holds (stats: read back from it, written or restored from)."""
    return BackupReport(str(path), path.stat().st_size, stats["documents"], stats["entities"], stats["relations"],
                        round(time.perf_counter() - started, 3), notes_missing)


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return True

"""Advisory file locks between kbgraph processes on one vault."""

from __future__ import annotations

import errno
import fcntl
import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .errors import StoreError


NOTICE_AFTER = 1.0  # seconds of waiting before the person waiting is told what for


def _silent(message: str) -> None:
    pass


_notice = _silent


def on_wait(notice) -> None:
    """Where to say that a lock is being waited for (an interface sets this once: the CLI prints to
    stderr); a library caller that sets nothing waits silently."""
    global _notice
    _notice = notice


@contextmanager
def exclusive(path: Path, wait: float, busy: Exception) -> Iterator[None]:
    """Hold an exclusive lock on path, waiting up to `wait` seconds; raise `busy` if it stays taken."""
    try:
        path.parent.mkdir(exist_ok=True)
        handle = open(path, "a+")
    except OSError as exc:
        raise read_only_error(path, exc) from exc
    with handle, _held(handle.fileno()):
        deadline = time.monotonic() + wait
        told = False
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise busy from None
                if not told and wait - (deadline - time.monotonic()) >= NOTICE_AFTER:
                    told = True
                    holder = str(busy).split(";")[0]  # the busy message's first clause names who holds it
                    _notice(f"waiting: {holder} (up to {wait:.0f} s)")
                time.sleep(0.02)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def read_only_error(path: Path, exc: OSError) -> OSError | StoreError:
    """Only writers lock: a lock file this user may not open means an index it may only read."""
    if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
        return exc
    return StoreError(f"cannot change the index: {path.parent} is read-only (commands that only read still work)",
                      hint=f"give this user write access to {path.parent}, then run the command again")


# A flock belongs to the open file, which a forked child shares: a worker process forked while a lock is
# held would keep it after its parent was killed, and every later run would be refused. Each forked
# child points its copies of held lock descriptors at /dev/null, so only the process that locked holds.
_HELD: set[int] = set()


@contextmanager
def _held(fd: int) -> Iterator[None]:
    _HELD.add(fd)
    try:
        yield
    finally:
        _HELD.discard(fd)


def keep_from_children(fd: int) -> None:
    """A lock held on fd for the rest of this process (one handed over by its parent): forked
    children drop their copy, as they do for locks taken through `exclusive`."""
    _HELD.add(fd)


def _drop_inherited_locks() -> None:
    if not _HELD:
        return
    null = os.open(os.devnull, os.O_RDONLY)
    for fd in _HELD:
        os.dup2(null, fd)
    os.close(null)
    _HELD.clear()


os.register_at_fork(after_in_child=_drop_inherited_locks)


def index_lock(root: Path, wait: float = 0.0):
    """An exclusive lock on <vault>/.kbgraph/index.lock for the length of an index run (or an
    embedding round, a restore)."""
    from .errors import IndexLocked

    busy = IndexLocked("another process is indexing this vault", hint="wait for it to finish")
    return exclusive(Path(root) / ".kbgraph" / "index.lock", wait, busy)

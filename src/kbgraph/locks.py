"""Advisory file locks between kbgraph processes on one vault."""

from __future__ import annotations

import fcntl
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


@contextmanager
def exclusive(path: Path, wait: float, busy: Exception) -> Iterator[None]:
    """Hold an exclusive lock on path, waiting up to `wait` seconds; raise `busy` if it stays taken."""
    path.parent.mkdir(exist_ok=True)
    with open(path, "a+") as handle:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise busy from None
                time.sleep(0.02)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)

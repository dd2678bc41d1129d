"""The background embedding process: `python -m kbgraph.ingest.embed_runner VAULT LOCK_FD` (started by
embed.background.start_background, which holds the embed lock on LOCK_FD and hands it over).

It embeds in rounds of a few hundred sections, each under the index lock, and lets go of that lock
between rounds: a `kbg index` (or a write's re-read) waits at most one round, and the sections it
adds are picked up by the next round. An index that finds this process alive leaves the embedding
to it. SIGTERM stops it between two saves; kill -9 loses at most the model call in flight.
"""

from __future__ import annotations

import os
import signal
import sys
import time
import traceback
from pathlib import Path

from ..clock import now_iso
from ..errors import KbgError
from ..embed.background import RUNNING_META, paths, write_status

YIELD_S = 0.1  # between rounds, long enough for a waiting index (it polls every 20 ms) to take the lock
INDEX_WAIT_S = 24 * 3600.0  # a round waits for a running index however long it takes
WRITE_EVERY_S = 0.5  # the status file is replaced at most this often while embedding


class Stopped(Exception):
    """SIGTERM: stop between two saves."""


class StatusFile:
    """The runner's state, as embed_status reads it."""

    def __init__(self, path: Path):
        self.path = path
        self.fields: dict = {"pid": os.getpid(), "started_at": now_iso(), "done": 0, "total": 0}
        self.written = 0.0

    def state(self, state: str, **more) -> None:
        self.fields.update(state=state, **more)
        self._write()

    def progress(self, stage: str, done: int, total: int) -> None:
        if stage != "embed":
            return
        if "embedding_since" not in self.fields and done:  # the rate counts from the first save on
            self.fields.update(embedding_since=time.time(), done_at_start=done)
        self.fields.update(done=done, total=total)
        if time.monotonic() - self.written >= WRITE_EVERY_S or done >= total:
            self._write()

    def _write(self) -> None:
        write_status(self.path, self.fields)
        self.written = time.monotonic()


def embed_in_rounds(root: Path, status: StatusFile, lock_fd: int, db: str | None) -> None:
    """Embed until no section lacks a vector, then compare documents by meaning and record the run."""
    from ..config import load_config
    from ..locks import index_lock
    from .pipeline import IndexRun
    from ..store import open_store
    from ..embed.stage import recount_missing

    store = open_store(root, create=False, db=db)
    run = IndexRun(root=root, config=load_config(root), store=store, only=set(), progress=status.progress)
    lock = str(paths(root)[0])
    try:
        with store.transaction():
            store.set_meta(RUNNING_META, lock)  # search says an embedding is running while this lock is held
        rounds = _Rounds(run, status, lock_fd)
        while True:
            with index_lock(root, INDEX_WAIT_S):  # after a second's wait, on_wait marks the status "waiting"
                more = rounds.next()
            if not more:
                return
            time.sleep(YIELD_S)
    finally:
        try:
            recount_missing(store)
            if store.get_meta(RUNNING_META) == lock:
                with store.transaction():
                    store.set_meta(RUNNING_META, "")
        finally:
            store.close()


class _Rounds:
    """One round at a time, each under the index lock (the model is loaded in the first)."""

    def __init__(self, run, status: StatusFile, lock_fd: int):
        self.run, self.status, self.lock_fd = run, status, lock_fd
        self.embedding = None
        self.opened = False

    def next(self) -> bool:
        """Embed one round; False once there is nothing left and the run is finished."""
        from ..embed.stage import open_embedding

        self.status.state("embedding")
        if not self.opened:
            self.embedding, self.opened = open_embedding(self.run), True
        if self.embedding is not None and self.embedding.round(self.run):
            return True
        self.status.state("finishing")
        _finish(self.run, self.embedding)
        self.status.state("done", problems=[p.reason for p in self.run.problems])
        # Let go of the embed lock before the index lock: an index that takes the index lock next
        # finds no runner, so it embeds what it adds itself instead of leaving it to this one.
        os.close(self.lock_fd)
        return False


def _finish(run, embedding) -> None:
    from ..docgraph.similar_stage import similar_stage
    from .embedding import finish_embedding

    if embedding is not None:
        embedding.close()
    similar_stage(run)
    finish_embedding(run)


def _stop(signum, frame) -> None:
    raise Stopped()


def main(argv: list[str]) -> int:
    from ..locks import keep_from_children, on_wait

    root, lock_fd = Path(argv[0]), int(argv[1])
    keep_from_children(lock_fd)  # a process this one forks must not keep the vault's embed lock alive
    signal.signal(signal.SIGTERM, _stop)
    status = StatusFile(paths(root)[1])
    on_wait(lambda notice: status.state("waiting"))
    print(f"{now_iso()} embedding {root} in the background, pid {os.getpid()}", flush=True)
    try:
        embed_in_rounds(root, status, lock_fd, os.environ.get("KBG_DB") or None)
    except (Stopped, KeyboardInterrupt):
        status.state("stopped")
        print(f"{now_iso()} stopped: {status.fields['done']} sections embedded and saved", flush=True)
        return 0
    except KbgError as exc:
        status.state("failed", error=str(exc))
        print(f"{now_iso()} failed: {exc}", flush=True)
        return 1
    except BaseException as exc:
        status.state("failed", error=f"{type(exc).__name__}: {exc}")
        traceback.print_exc()
        return 1
    print(f"{now_iso()} done: {status.fields['done']} sections embedded", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

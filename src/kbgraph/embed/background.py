"""Embedding in a process of its own, detached from the terminal that asked for it.

`start_background` starts `python -m kbgraph.ingest.embed_runner` in a new session (no terminal, so closing
it does not stop the run), stdin closed, output appended to <vault>/.kbgraph/embed.log. The runner
embeds in rounds under the index lock (runner.py), saving each model call, so killing it loses at
most one call and the next start resumes.

One at a time: <vault>/.kbgraph/embed.lock is held (flock) for the runner's whole life. The starter
takes it first and hands the open file to the child, so two starts at once cannot both succeed, and
the lock is released by the kernel however the runner ends (kill -9 included): "is one running" is
asked of the lock, never of a pid that may have been reused.

The runner keeps <vault>/.kbgraph/embed.status.json (replaced atomically, at most a few times a
second) with its state, sections done and total, and when it began; `embed_status` reads it with the
lock, and works out the rate and the time left.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from ..clock import now_iso
from ..model import EmbedStart, EmbedStatus

LOCK, STATUS, LOG = "embed.lock", "embed.status.json", "embed.log"
RUNNING_META = "embed_background"  # the meta key holding the embed lock's path while a runner works
ACTIVE = ("starting", "waiting", "embedding", "finishing")  # states of a runner that has not ended
EMBEDDINGS_OFF = 'embeddings are off ([search] embedder = "none")'
START_TRIES = 5  # a status probe holds the lock for microseconds: a start that meets one tries again


def paths(root: Path) -> tuple[Path, Path, Path]:
    """(lock, status file, log) of the vault at root."""
    folder = Path(root) / ".kbgraph"
    return folder / LOCK, folder / STATUS, folder / LOG


def lock_is_held(lock: Path | str) -> bool:
    """Whether a process holds this embed lock (a runner is alive)."""
    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing gives back the probe's shared lock
    return False


def running(root: Path) -> bool:
    return lock_is_held(paths(root)[0])


def embed_status(root: Path) -> EmbedStatus:
    """Where the background embedding of the vault at root stands (state "never" if none was started)."""
    lock, status_file, log = paths(root)
    alive = lock_is_held(lock)
    try:
        saved = json.loads(status_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        saved = {}
    state = saved.get("state", "starting" if alive else "never")
    if not alive and state in ACTIVE:
        state = "killed"
    done, total = int(saved.get("done", 0)), int(saved.get("total", 0))
    rate = _rate(saved, done) if alive else None
    left = round((total - done) / rate, 1) if rate and total >= done else None
    return EmbedStatus(running=alive, state=state, pid=saved.get("pid"), done=done, total=total, rate=rate,
                       seconds_left=left, started_at=saved.get("started_at"), updated_at=saved.get("updated_at"),
                       log=str(log), error=saved.get("error"))


def _rate(saved: dict, done: int) -> float | None:
    """Sections a second since the runner's first saved vector (the model's load is not the rate)."""
    began, first = saved.get("embedding_since"), saved.get("done_at_start", 0)
    if not began or done <= first:
        return None
    seconds = time.time() - float(began)
    return round((done - first) / seconds, 1) if seconds > 0 else None


def start_background(root: Path, db: str | None = None) -> EmbedStart:
    """Start embedding the vault at root in a detached process, unless one is running already (then
    started is false and status is that one's). db: the PostgreSQL URL of its index, if not SQLite.
    Raises StoreError when the vault has no index yet (nothing to embed from) or its .kbgraph folder is
    read-only (no lock, status or log can be written), InvalidInput when
    embeddings are off (the runner would start, embed nothing and say only that it finished)."""
    from ..config import load_config
    from ..store import open_store

    root = Path(root).resolve()
    if load_config(root).search.embedder == "none":
        from ..errors import InvalidInput

        raise InvalidInput(EMBEDDINGS_OFF + ": there is nothing to embed",
                           hint="set [search] embedder in kbgraph.toml (and unset KBG_EMBEDDER=none) to make vectors")
    open_store(root, create=False, db=db).close()  # no index, no start: the runner would only fail in its log
    lock, status_file, log = paths(root)
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:  # a read-only vault: said as the index lock says it, not as a traceback
        from ..locks import read_only_error

        raise read_only_error(lock, exc) from exc
    try:
        if not _take(fd):
            return EmbedStart(started=False, status=embed_status(root))
        write_status(status_file, {"state": "starting", "pid": None, "started_at": now_iso()})
        env = {k: v for k, v in os.environ.items() if k != "KBG_DB"}
        if db:
            env["KBG_DB"] = db  # in the environment, not the command line, where any user could read it
        with open(log, "ab") as out:
            child = subprocess.Popen([sys.executable, "-m", "kbgraph.ingest.embed_runner", str(root), str(fd)],
                                     stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, cwd=root,
                                     env=env, pass_fds=(fd,), start_new_session=True)
    finally:
        os.close(fd)  # the child holds the lock now, through its own copy of this open file
    status = embed_status(root)
    return EmbedStart(started=True, status=status if status.pid else _with_pid(status, child.pid))


def _take(fd: int) -> bool:
    for attempt in range(START_TRIES):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            time.sleep(0.02)
    return False


def _with_pid(status: EmbedStatus, pid: int) -> EmbedStatus:
    from dataclasses import replace

    return replace(status, pid=pid, running=True)


def write_status(path: Path, fields: dict) -> None:
    """Replace the status file at once (a reader sees the old one or the new one, never half)."""
    data = {**fields, "updated_at": now_iso()}
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    os.replace(tmp, path)

"""A killed `kbg index` leaves nothing behind that blocks the next one (issue 18, item 2).

A tester's kill -9 of `kbg index` left its two worker processes alive for 90 s and more, holding the
index lock, so every later `kbg index` was refused until the user found and killed them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kbgraph.errors import IndexLocked
from kbgraph.ingest.pipeline import PARALLEL_MIN_FILES
from kbgraph.locks import index_lock

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to find the workers")


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _big_vault(root: Path) -> Path:
    root.mkdir()
    (root / "kbgraph.toml").write_text('[search]\nembedder = "none"\n')
    body = "\n".join(f"Paragraph {i} about Atlas, Beacon and the payments gateway." for i in range(400))
    for i in range(PARALLEL_MIN_FILES * 3):
        (root / f"note-{i:04d}.md").write_text(f"# Note {i}\n\n{body}\n")
    return root


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_workers_die_with_a_killed_index_and_the_lock_is_free(tmp_path, how):
    vault = _big_vault(tmp_path / "vault")
    env = {**os.environ, "KBG_INDEX_WORKERS": "2"}
    run = subprocess.Popen([sys.executable, "-m", "kbgraph.cli.app", "index", "--vault", str(vault), "-q"],
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while time.monotonic() < deadline and run.poll() is None:
        workers = _children(run.pid)
        if len(workers) >= 2:
            break
        time.sleep(0.02)
    if run.poll() is not None:
        pytest.skip("the run finished before its workers could be seen; the machine is faster than this test")
    assert len(workers) >= 2, "no worker processes were started"
    run.send_signal(how)
    run.wait(timeout=30)
    gone_by = time.monotonic() + 10
    while any(_alive(w) for w in workers) and time.monotonic() < gone_by:
        time.sleep(0.05)
    assert not any(_alive(w) for w in workers), "a worker outlived its killed parent"
    try:
        with index_lock(vault, wait=5):
            pass
    except IndexLocked:
        pytest.fail("the index lock is still held after the run was killed")
    assert b"Traceback" not in run.stderr.read() if how == signal.SIGTERM else True

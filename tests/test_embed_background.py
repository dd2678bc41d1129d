"""Embedding in the background, end to end through the installed `kbg`: a detached process with its
status, one at a time, killed with -9 and resumed, and an index run while it embeds.

The model is the fake one slowed down (a sitecustomize on PYTHONPATH registers "slow-fake" in every
process, the detached one included), so that there is a run to watch: DELAY seconds a model call."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import time
from pathlib import Path

import pytest

from .conftest import run_kbg

DELAY = 0.4  # seconds per model call of 64 sections
NOTES, SECTIONS = 60, 10  # 600 sections: ~10 model calls, two rounds

SLOW_FAKE = '''
import os, time
from kbgraph.embed import register_embedder
from kbgraph.embed.fake import FakeEmbedder

class SlowFake(FakeEmbedder):
    calls = 0

    def embed(self, texts):
        # While the gate file exists, the fifth call and later wait (up to a minute): the run stays part-way
        # however slowly the test's own commands start on a loaded machine. Four calls first (1.6 s), so
        # the runner has saved vectors and written its status (at most every 0.5 s) before it waits.
        gate, deadline = os.environ.get("KBG_TEST_EMBED_GATE"), time.monotonic() + 60
        while self.calls >= 4 and gate and os.path.exists(gate) and time.monotonic() < deadline:
            time.sleep(0.05)
        SlowFake.calls += 1
        time.sleep(float(os.environ["KBG_TEST_EMBED_DELAY"]))
        return super().embed(texts)

register_embedder("slow-fake", lambda **o: SlowFake(**o))
'''


@pytest.fixture
def slow(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SLOW_FAKE)
    root = tmp_path / "vault"
    root.mkdir()
    for i in range(NOTES):
        _note(root, i)
    env = {"PYTHONPATH": str(site), "KBG_EMBEDDER": "slow-fake", "KBG_TEST_EMBED_DELAY": str(DELAY),
           "KBG_TEST_EMBED_GATE": str(tmp_path / "gate")}
    pids: list[int] = []

    def kbg(*args: str, code: int = 0):
        out = run_kbg(*args, "--vault", str(root), env=env, subprocess_=True)
        assert out.returncode == code, (out.stdout, out.stderr)
        if "--json" in args:
            data = json.loads(out.stdout)
            pid = (data.get("background") or data).get("status", {}).get("pid") if isinstance(data, dict) else None
            if pid:
                pids.append(pid)
            return data
        return out

    kbg.root = root  # type: ignore[attr-defined]
    kbg.gate = tmp_path / "gate"  # type: ignore[attr-defined]
    yield kbg
    for pid in pids:  # a failed test leaves no embedder behind
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _note(root: Path, i: int) -> None:
    body = "\n".join(f"## Part {k}\n\nAna Lima wrote item {i}-{k} about the gateway.\n" for k in range(SECTIONS))
    (root / f"note-{i:03d}.md").write_text(f"# Note {i}\n\n{body}")


def _until(kbg, check, seconds: float = 30.0) -> dict:
    """`kbg embed --status --json` every 50 ms until check(status) holds. In process: through the installed
    entry point each poll started Python again (~0.3 s of CPU), most of this file's cost."""
    deadline = time.monotonic() + seconds
    while True:
        out = run_kbg("embed", "--status", "--json", "--vault", str(kbg.root))
        assert out.returncode == 0, (out.stdout, out.stderr)
        status = json.loads(out.stdout)
        if check(status):
            return status
        assert time.monotonic() < deadline, status
        time.sleep(0.05)


def _missing(root: Path) -> int:
    db = sqlite3.connect(f"file:{root / '.kbgraph' / 'index.db'}?mode=ro", uri=True)
    try:
        return db.execute("SELECT count(*) FROM chunks WHERE id NOT IN (SELECT chunk_id FROM chunk_vectors)"
                          ).fetchone()[0]
    finally:
        db.close()


@pytest.mark.slow
def test_background_embedding_is_detached_says_how_far_it_is_and_runs_once(slow):
    # Held part-way until every check of a running embedder is made: at ~4 s a run, it finished first under
    # load, and the foreground embed that must be refused embedded nothing and succeeded.
    slow.gate.touch()
    report = slow("index", "--embed", "background", "--json")
    sections = NOTES * SECTIONS
    assert report["embedded"] == 0 and report["vectors_missing"] == sections
    started = report["background"]
    assert started["started"] is True and started["status"]["running"] is True
    pid = started["status"]["pid"]
    assert os.getsid(pid) == pid, "its own session: closing the terminal does not hang it up"

    status = _until(slow, lambda s: s["state"] == "embedding" and 0 < s["done"] < s["total"])
    assert status["running"] and status["pid"] == pid and status["total"] == sections
    assert status["rate"] and status["rate"] > 0 and status["seconds_left"] is not None
    human = slow("embed", "--status").stdout
    assert human.startswith(f"running (pid {pid}): ") and "sections" in human and "left" in human

    again = slow("embed", "--background", "--json")
    assert again["started"] is False and again["status"]["pid"] == pid and again["status"]["running"]
    assert "already running in the background" in slow("embed", "--background").stdout
    foreground = run_kbg("embed", "--vault", str(slow.root), subprocess_=True)
    assert foreground.returncode != 0 and "already running in the background" in foreground.stderr
    found = slow("search", "gateway", "--json")
    assert any("running in the background" in note for note in found["notes"]), found["notes"]

    slow.gate.unlink()
    done = _until(slow, lambda s: not s["running"])
    assert done["state"] == "done" and done["done"] == sections and done["pid"] == pid
    assert _missing(slow.root) == 0
    assert not slow("search", "gateway", "--json")["notes"]
    log = (slow.root / ".kbgraph" / "embed.log").read_text()
    assert f"pid {pid}" in log and f"done: {sections} sections embedded" in log


@pytest.mark.slow
def test_kill_9_loses_at_most_a_batch_and_a_new_start_resumes(slow):
    slow("index", "--embed", "later")
    pid = slow("embed", "--background", "--json")["status"]["pid"]
    status = _until(slow, lambda s: s["done"] >= 3 * 64)
    os.kill(pid, signal.SIGKILL)
    dead = _until(slow, lambda s: not s["running"])
    assert dead["state"] == "killed"
    assert "ended without finishing" in slow("embed", "--status").stdout
    left = _missing(slow.root)
    assert left <= NOTES * SECTIONS - status["done"], "every batch the status file counted was saved"
    db = sqlite3.connect(f"file:{slow.root / '.kbgraph' / 'index.db'}?mode=ro", uri=True)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()

    resumed = slow("embed", "--background", "--json")
    assert resumed["started"] is True and resumed["status"]["pid"] != pid
    finished = _until(slow, lambda s: not s["running"])
    assert finished["state"] == "done" and finished["done"] == finished["total"] == left, \
        "the new run embeds only what the killed one had not saved"
    assert _missing(slow.root) == 0


@pytest.mark.slow
def test_sigterm_stops_it_between_saves(slow):
    slow("index", "--embed", "later")
    pid = slow("embed", "--background", "--json")["status"]["pid"]
    _until(slow, lambda s: s["done"] >= 64)
    os.kill(pid, signal.SIGTERM)
    stopped = _until(slow, lambda s: not s["running"])
    assert stopped["state"] == "stopped"
    assert _missing(slow.root) == NOTES * SECTIONS - stopped["done"]


@pytest.mark.slow
def test_an_index_during_a_background_embedding_waits_a_round_and_leaves_the_new_sections_to_it(slow):
    slow("index", "--embed", "background")
    _until(slow, lambda s: s["done"] >= 64)
    _note(slow.root, NOTES)  # a new note while it embeds
    began = time.monotonic()
    report = slow("index", "--json")  # embed=now, but a background embedding is at work
    waited = time.monotonic() - began
    assert report["indexed"] == 1 and report["embedded"] == 0
    assert report["background"]["started"] is False and report["background"]["status"]["running"]
    assert waited < 8 * DELAY + 5, "it waited one round of the background embedding, not all of it"
    finished = _until(slow, lambda s: not s["running"])
    assert finished["state"] == "done" and finished["done"] == (NOTES + 1) * SECTIONS
    assert _missing(slow.root) == 0, "the background run embedded the sections the index added"
    assert "no vectors yet" not in slow("index").stdout


def test_a_start_where_the_lock_cannot_be_written_is_one_line_and_starts_nothing(tmp_path, monkeypatch):
    """A read-only vault (or .kbgraph): the embed lock cannot be created. Said as the index lock says it,
    not an OSError's traceback through the CLI."""
    import errno

    from kbgraph.embed import background
    from kbgraph.errors import StoreError
    from kbgraph.ingest.pipeline import index_vault

    _note(tmp_path, 0)
    index_vault(tmp_path, embed="later")
    real_open = os.open

    def refused(path, flags, *args):
        if str(path).endswith(background.LOCK) and flags & os.O_CREAT:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(background.os, "open", refused)
    with pytest.raises(StoreError, match="read-only"):
        background.start_background(tmp_path)
    assert not (tmp_path / ".kbgraph" / background.STATUS).exists()

"""An interrupted index (Ctrl-C or kill -9) leaves a consistent index, and the next run completes it."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kbgraph.ingest.pipeline import index_vault
from kbgraph.store import open_store

from .test_indexing import _snapshot

NOTES = 600  # and 20 people: a few index batches, so an interruption lands mid-run


def _write_vault(root: Path, notes: int) -> None:
    (root / "people").mkdir(parents=True)
    for i in range(20):
        (root / "people" / f"person-{i}.md").write_text(
            f"---\ntype: person\nname: Person{i} Example\n---\n# Person{i} Example\n\nWorks on things.\n"
        )
    for i in range(notes):
        folder = root / "meetings" / "2026" / f"{i % 12 + 1:02d}" / f"{i % 28 + 1:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        sections = "\n".join(
            f"## Topic {k}\n\nPerson{(i + k) % 20} Example talked about item {i}-{k} with Person{k} Example.\n"
            for k in range(4)
        )
        (folder / f"note-{i}.md").write_text(f"---\ntitle: Note {i}\nattendees: [Person{i % 20} Example]\n---\n{sections}")


def _committed(db: Path) -> int:
    """Documents another process has committed to the index so far (0 before its tables exist)."""
    if not db.exists():
        return 0
    try:
        reader = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.1)
        try:
            return reader.execute("SELECT count(*) FROM documents").fetchone()[0]
        finally:
            reader.close()
    except sqlite3.Error:
        return 0


def _check_consistent(root: Path) -> None:
    store = open_store(root)
    try:
        assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert store.db.execute("PRAGMA foreign_key_check").fetchall() == []
        fts = store.db.execute("SELECT count(*) FROM chunk_fts").fetchone()[0]
        assert fts == store.db.execute("SELECT count(*) FROM chunks").fetchone()[0]
    finally:
        store.close()


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """What an uninterrupted index of the vault holds: both tests' vaults are this one (made alike)."""
    ref = tmp_path_factory.mktemp("interrupt") / "reference"
    _write_vault(ref, NOTES)
    index_vault(ref)
    store = open_store(ref)
    try:
        return _snapshot(store)
    finally:
        store.close()


def _rerun_completes_like_a_fresh_index(root: Path, reference):
    report = index_vault(root)
    assert report.errors == 0
    _check_consistent(root)
    store = open_store(root)
    try:
        assert _snapshot(store) == reference
    finally:
        store.close()
    return report


def test_keyboard_interrupt_mid_run_then_rerun_completes(tmp_path, reference):
    root = tmp_path / "vault"
    _write_vault(root, NOTES)
    seen = 0

    def interrupt_after_some(parsed):
        nonlocal seen
        seen += 1
        if seen == 400:  # after one batch is committed, in the middle of the next
            raise KeyboardInterrupt
        return parsed

    from kbgraph.ingest.pipeline import IndexRun, Pipeline

    pipeline = Pipeline.default()
    original_plan = dict(pipeline.stages)["plan"]

    def plan_with_hook(run: IndexRun):
        run.parsed_hook.append(interrupt_after_some)
        original_plan(run)

    pipeline.replace("plan", plan_with_hook)
    with pytest.raises(KeyboardInterrupt):
        index_vault(root, pipeline=pipeline)
    _check_consistent(root)
    store = open_store(root)
    partial = store.db.execute("SELECT count(*) FROM documents").fetchone()[0]
    store.close()
    assert 0 < partial < NOTES + 20

    report = _rerun_completes_like_a_fresh_index(root, reference)
    assert report.indexed == NOTES + 20 - partial


@pytest.mark.slow
def test_kill_9_mid_run_then_rerun_completes(tmp_path, reference):
    root = tmp_path / "vault"
    _write_vault(root, NOTES)
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from kbgraph.ingest.pipeline import index_vault; index_vault(sys.argv[1])",
         str(root)],
    )
    # Kill once the first batch of documents is committed (whenever that is on this machine), in the middle
    # of the next, or give up waiting.
    db = root / ".kbgraph" / "index.db"
    deadline = time.time() + 30
    while time.time() < deadline and proc.poll() is None and not _committed(db):
        time.sleep(0.02)
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL, "the index finished before it could be killed: give it more notes"
    store = open_store(root)
    partial = store.db.execute("SELECT count(*) FROM documents").fetchone()[0]
    store.close()
    assert 0 < partial < NOTES + 20
    _check_consistent(root)
    _rerun_completes_like_a_fresh_index(root, reference)


def test_a_second_index_run_on_the_same_vault_is_refused(tmp_path):
    from kbgraph.errors import IndexLocked
    from kbgraph.locks import index_lock

    root = tmp_path / "vault"
    _write_vault(root, 1)
    with index_lock(root):
        with pytest.raises(IndexLocked, match="another process is indexing this vault; wait"):
            index_vault(root)

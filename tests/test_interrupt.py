"""An interrupted index (Ctrl-C or kill -9) leaves a consistent index, and the next run completes it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kbgraph.ingest.pipeline import index_vault
from kbgraph.store import open_store

from .test_indexing import _snapshot


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


def _check_consistent(root: Path) -> None:
    store = open_store(root)
    try:
        assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert store.db.execute("PRAGMA foreign_key_check").fetchall() == []
        fts = store.db.execute("SELECT count(*) FROM chunk_fts").fetchone()[0]
        assert fts == store.db.execute("SELECT count(*) FROM chunks").fetchone()[0]
    finally:
        store.close()


def _reference_snapshot(root: Path, tmp_path: Path):
    import shutil

    ref = tmp_path / "reference"
    shutil.copytree(root, ref, ignore=shutil.ignore_patterns(".kbgraph"))
    index_vault(ref)
    store = open_store(ref)
    try:
        return _snapshot(store)
    finally:
        store.close()


def _rerun_completes_like_a_fresh_index(root: Path, tmp_path: Path):
    report = index_vault(root)
    assert report.errors == 0
    _check_consistent(root)
    store = open_store(root)
    try:
        assert _snapshot(store) == _reference_snapshot(root, tmp_path)
    finally:
        store.close()
    return report


def test_keyboard_interrupt_mid_run_then_rerun_completes(tmp_path):
    root = tmp_path / "vault"
    _write_vault(root, 600)
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
    assert 0 < partial < 620

    report = _rerun_completes_like_a_fresh_index(root, tmp_path)
    assert report.indexed == 620 - partial


@pytest.mark.slow
def test_kill_9_mid_run_then_rerun_completes(tmp_path):
    root = tmp_path / "vault"
    _write_vault(root, 1500)
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from kbgraph.ingest.pipeline import index_vault; index_vault(sys.argv[1])",
         str(root)],
    )
    # Kill once some documents are committed (whenever that is on this machine), or give up waiting.
    db = root / ".kbgraph" / "index.db"
    deadline = time.time() + 30
    while time.time() < deadline and proc.poll() is None:
        if db.exists() and db.stat().st_size + (db.with_name("index.db-wal").stat().st_size
                                                if db.with_name("index.db-wal").exists() else 0) > 200_000:
            break
        time.sleep(0.02)
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    _check_consistent(root)
    _rerun_completes_like_a_fresh_index(root, tmp_path)


def test_a_second_index_run_on_the_same_vault_is_refused(tmp_path):
    from kbgraph.errors import IndexLocked
    from kbgraph.ingest.pipeline import index_lock

    root = tmp_path / "vault"
    _write_vault(root, 1)
    with index_lock(root):
        with pytest.raises(IndexLocked, match="another process is indexing this vault; wait"):
            index_vault(root)

"""Deleting or shrinking notes gives the index's disk space back (store/sqlite/space.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kbgraph.ingest.pipeline import index_vault
from kbgraph.store import open_store
from kbgraph.store.sqlite.space import INCREMENTAL

from .conftest import copy_indexed


def _index_file(root: Path) -> int:
    return (root / ".kbgraph" / "index.db").stat().st_size


def _vault_with_a_large_note(root: Path) -> Path:
    root.mkdir()
    (root / "kbgraph.toml").write_text("[index]\nmax_file_mb = 20\n")
    for i in range(20):  # the large note is one of 21: a small share by count, most of the text by size
        (root / f"small-{i}.md").write_text(f"# Small {i}\n\nA short note.\n")
    # Many distinct words, as real text has: the keyword index is then a large part of the file.
    words = lambda n: " ".join(f"w{n}x{k}" for k in range(300))  # noqa: E731
    (root / "large.md").write_text("# Large\n\n" + "".join(f"## Part {n}\n\n{words(n)}\n\n" for n in range(1000)))
    return root


@pytest.fixture(scope="module")
def indexed_large(tmp_path_factory) -> Path:
    """The vault with a large note, indexed once for the module (the index is ~1 s of its tests' time)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KBG_EMBEDDER", "none")
        root = _vault_with_a_large_note(tmp_path_factory.mktemp("space") / "vault")
        index_vault(root)
    return root


@pytest.fixture
def large(tmp_path, indexed_large, monkeypatch) -> Path:
    """A copy of the indexed vault with a large note, to change and index again."""
    monkeypatch.setenv("KBG_EMBEDDER", "none")
    return copy_indexed(indexed_large, tmp_path / "vault")


def test_a_deleted_large_note_gives_its_space_back(large):
    root = large
    full = _index_file(root)
    assert full > 3_000_000
    (root / "large.md").unlink()
    report = index_vault(root)
    assert report.removed == 1
    assert _index_file(root) < full * 0.2, "the freed pages went back to the file system"
    store = open_store(root)
    try:
        assert store.db.execute("PRAGMA auto_vacuum").fetchone()[0] == INCREMENTAL
        assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        store.close()


def test_a_shrunk_note_gives_space_back_too(large):
    root = large
    full = _index_file(root)
    (root / "large.md").write_text("# Large\n\nNow short.\n")
    index_vault(root)
    assert _index_file(root) < full * 0.2


def test_an_index_made_before_incremental_vacuum_is_rewritten_once_when_much_is_free(large):
    root = large
    db = sqlite3.connect(root / ".kbgraph" / "index.db")
    db.execute("PRAGMA auto_vacuum = NONE")
    db.execute("VACUUM")  # as an index made by an earlier version: no incremental vacuum
    assert db.execute("PRAGMA auto_vacuum").fetchone()[0] == 0
    db.close()
    full = _index_file(root)
    (root / "large.md").unlink()
    index_vault(root)
    assert _index_file(root) < full * 0.2
    store = open_store(root)
    try:
        assert store.db.execute("PRAGMA auto_vacuum").fetchone()[0] == INCREMENTAL, "and converted"
    finally:
        store.close()


def test_little_free_space_is_left_for_the_next_writes(tmp_path, monkeypatch):
    monkeypatch.setenv("KBG_EMBEDDER", "none")
    root = tmp_path / "vault"
    root.mkdir()
    for i in range(3):
        (root / f"n{i}.md").write_text(f"# N {i}\n\nText.\n")
    index_vault(root)
    store = open_store(root)
    try:
        assert store.reclaim_space() == 0
        with store.transaction():
            assert store.reclaim_space() == 0, "never inside a caller's transaction"
    finally:
        store.close()

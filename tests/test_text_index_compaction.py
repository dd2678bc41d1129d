"""A run that rewrites much of the vault leaves the keyword indexes in one segment each: FTS5 keeps
every rewrite as new segments and delete markers that every query reads (twice the BM25 time on
the KEPs after one re-read), until they are merged."""

from __future__ import annotations

import sqlite3

import pytest

from kbgraph.ingest import pipeline
from kbgraph.ingest.pipeline import index_vault
from kbgraph.search import search
from kbgraph.store import open_store
from kbgraph.access import LOCAL


def _segments(root) -> dict[str, int]:
    db = sqlite3.connect(root / ".kbgraph" / "index.db")
    try:
        return {t: db.execute(f"SELECT count(DISTINCT segid) FROM {t}_idx").fetchone()[0]
                for t in ("chunk_fts", "doc_fts")}
    finally:
        db.close()


def _rewrite_every_note(root) -> None:
    for path in sorted(root.rglob("*.md")):
        if ".kbgraph" not in path.parts:
            path.write_text(path.read_text(encoding="utf-8") + "\nRevised.\n", encoding="utf-8")


@pytest.mark.parametrize("compacts", [True, False])
def test_rewriting_the_vault_leaves_one_segment_per_text_index(vault, monkeypatch, compacts):
    if not compacts:  # the control: without compaction the rewrites stay in pieces (the test can fail)
        monkeypatch.setattr(pipeline, "COMPACT_SHARE", float("inf"))
    index_vault(vault)
    for _ in range(3):
        _rewrite_every_note(vault)
        index_vault(vault)
    segments = _segments(vault)
    assert (segments == {"chunk_fts": 1, "doc_fts": 1}) is compacts, segments
    store = open_store(vault)
    try:
        assert search(store, "token rotation", limit=3, mode="bm25", access=LOCAL).hits
    finally:
        store.close()

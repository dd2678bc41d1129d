"""Re-reading a document whose sections did not change keeps its sections as they are (ids, full-text
rows, vectors), and a change to a title or a section still reaches every keyword index."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from kbgraph.access import LOCAL
from kbgraph.ingest.pipeline import index_vault
from kbgraph.search import search
from kbgraph.store import open_store

NOTE = """---
title: Gateway cutover
tags: [infra]
---
# Gateway cutover

## Plan

Move the ingress to the new gateway before the freeze.

## Risks

Certificate rotation may lag the cutover.
"""


def _rows(root: Path) -> tuple[list[tuple], int, int, int]:
    """(chunk ids with their text, vectors, chunk_fts rows, doc_fts rows)."""
    db = sqlite3.connect(root / ".kbgraph" / "index.db")
    try:
        chunks = db.execute("SELECT id, text FROM chunks ORDER BY id").fetchall()
        counts = [db.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                  for t in ("chunk_vectors", "chunk_fts", "doc_fts_docsize")]
        return chunks, counts[0], counts[1], counts[2]
    finally:
        db.close()


def _paths(root: Path, query: str) -> list[str]:
    store = open_store(root)
    try:
        return [h.path for h in search(store, query, limit=5, mode="bm25", access=LOCAL).hits]
    finally:
        store.close()


def _vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    (root / "kbgraph.toml").write_text("")
    (root / "notes" / "gateway.md").write_text(NOTE)
    (root / "notes" / "other.md").write_text("# Other\n\nNothing about ingress here, only lunch.\n")
    index_vault(root)
    return root


def test_a_full_run_over_unchanged_notes_keeps_sections_text_rows_and_vectors(tmp_path):
    root = _vault(tmp_path)
    before = _rows(root)
    assert before[1] > 0, "the fake embedder gave every section a vector"
    index_vault(root, full=True)
    assert _rows(root) == before
    assert _paths(root, "certificate rotation") == ["notes/gateway.md"]


def test_a_frontmatter_edit_keeps_sections_and_updates_the_document(tmp_path):
    root = _vault(tmp_path)
    before = _rows(root)
    path = root / "notes" / "gateway.md"
    path.write_text(NOTE.replace("tags: [infra]", "tags: [infra, release]"))
    index_vault(root)
    assert _rows(root) == before
    store = open_store(root)
    try:
        doc = store.get_document(LOCAL, path="notes/gateway.md")
        assert doc is not None and "release" in doc["tags"]
    finally:
        store.close()


def test_a_new_title_or_section_text_reaches_the_keyword_indexes(tmp_path):
    root = _vault(tmp_path)
    path = root / "notes" / "gateway.md"
    path.write_text(NOTE.replace("title: Gateway cutover", "title: Ingress migration"))
    index_vault(root)
    assert _paths(root, "migration") == ["notes/gateway.md"]
    path.write_text(NOTE.replace("title: Gateway cutover", "title: Ingress migration")
                    .replace("Certificate rotation", "Quota exhaustion"))
    index_vault(root, full=True)
    assert _paths(root, "quota exhaustion") == ["notes/gateway.md"]
    assert _paths(root, "certificate") == []
    _, vectors, chunk_rows, doc_rows = _rows(root)
    assert (chunk_rows, doc_rows) == (len(_rows(root)[0]), 2), "no row left behind by the rewrites"
    assert vectors == chunk_rows

"""PostgreSQL's BM25 (store/postgres/text.py): the totals its averages read stay equal to the rows they
count through writes, rewrites and deletes, and a score is FTS5's bm25() of the same rows.

Runs where KBG_TEST_PG names a PostgreSQL database; skipped elsewhere."""

from __future__ import annotations

import os
import shutil

import pytest

from kbgraph.access import LOCAL
from kbgraph.ingest.pipeline import index_vault
from kbgraph.search.query import parse_query
from kbgraph.store.base import DocFilter

from .conftest import SAMPLE_VAULT

pytestmark = pytest.mark.postgres

URL = os.environ.get("KBG_TEST_PG")


@pytest.fixture
def indexed(tmp_path):
    if not URL:
        pytest.skip("set KBG_TEST_PG to a PostgreSQL URL to run the PostgreSQL ranking tests")
    from kbgraph.store.postgres import open_store
    from kbgraph.store.sqlite.store import SqliteStore

    root = tmp_path / "vault"
    shutil.copytree(SAMPLE_VAULT, root, ignore=shutil.ignore_patterns(".kbgraph"))
    pg, lite = open_store(URL, fresh=True), SqliteStore.open_vault(root)
    index_vault(root, store=pg)
    index_vault(root, store=lite)
    yield root, pg, lite
    pg.close()
    lite.close()


def _totals(store) -> dict:
    kept = {t: (r, n) for t, r, n in store.db.execute("SELECT tbl, rows, tokens FROM text_totals")}
    counted = {t: tuple(store.db.execute(f"SELECT count(*) FILTER (WHERE tokens > 0), coalesce(sum(tokens), 0)"
                                         f" FROM {t}").fetchone()) for t in ("documents", "chunks")}
    return {"kept": kept, "counted": counted}


def test_the_totals_follow_every_write(indexed):
    root, pg, _ = indexed
    first = _totals(pg)
    assert first["kept"] == first["counted"] and first["counted"]["chunks"][0] > 0
    note = root / "tech" / "kafka.md"
    note.write_text(note.read_text(encoding="utf-8") + "\n\n## More\n\nA new section with several more words.\n",
                    encoding="utf-8")
    (root / "people" / "sam-li.md").unlink()
    index_vault(root, store=pg)
    after = _totals(pg)
    assert after["kept"] == after["counted"] != first["counted"]


@pytest.mark.parametrize("text", ["token rotation", "kafka", "postgres migration", "\"auth service\"", "rot*"])
def test_scores_are_fts5_bm25(indexed, text):
    _, pg, lite = indexed
    for unit in ("ranked_docs", "ranked_chunks"):
        rows = [getattr(s, unit)(LOCAL, parse_query(text).requiring("any"), DocFilter(), 20) for s in (pg, lite)]
        pg_scores, lite_scores = ([round(r[-1], 2) for r in found] for found in rows)
        # the same rows score the same, within what differs in how each engine cuts and stems words
        assert pg_scores == pytest.approx(lite_scores, rel=0.05, abs=0.05), unit

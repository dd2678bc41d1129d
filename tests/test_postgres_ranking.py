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


def _plan_relations(plan: dict) -> list[tuple[str, str]]:
    """(node type, table) of every node of an EXPLAIN (FORMAT JSON) plan that reads a table."""
    found = [(plan["Node Type"], plan["Relation Name"])] if "Relation Name" in plan else []
    for child in plan.get("Plans", []):
        found += _plan_relations(child)
    return found


@pytest.mark.parametrize("method", ["ranked_docs", "ranked_chunks"])
def test_ranking_finds_its_rows_through_the_text_index(method):
    """A word in every row: the planner knew it from the statistics and read every row's vector to test it
    (a Seq Scan, each vector detoasted, then again to rank it): 124 ms a search at 100k sections
    (bench/RESULTS.md §19, §44). The rows come from the GIN index; each is read once, to rank."""
    if not URL:
        pytest.skip("set KBG_TEST_PG to a PostgreSQL URL to run the PostgreSQL ranking tests")
    from kbgraph.store.postgres import open_store

    store = open_store(URL, fresh=True)
    try:  # rows enough (and wide enough) that reading every one costs the planner more than the index
        store.db.execute("INSERT INTO documents (path, title, kind, content_hash, size, mtime, indexed_at, tsv, tokens)"
                         " SELECT 'n' || i || '.md', repeat('x', 600), 'note', 'h' || i, 1, 0, 'x',"
                         " to_tsvector('kbg', 'alpha beta ' || i), 3 FROM generate_series(1, 3000) AS i")
        store.db.execute("INSERT INTO chunks (doc_id, key, ordinal, heading, start, \"end\", line, text, tokens)"
                         " SELECT id, 'k', 0, '', 0, 1, 1, 'alpha beta', 2 FROM documents")
        store.db.execute("ANALYZE documents, chunks")
        issued: list = []
        execute = store.db.execute

        def capture(sql, params=()):
            issued.append((sql, list(params)))
            return execute(sql, params)

        store.db.execute = capture
        hits = getattr(store, method)(LOCAL, parse_query("alpha"), DocFilter(), 10)
        store.db.execute = execute
        assert len(hits) == 10
        sql, params = next((s, p) for s, p in issued if "ts_rank_cd" in s)
        plan = store.db.execute("EXPLAIN (FORMAT JSON) " + sql, params).fetchone()[0][0]["Plan"]
        scans = _plan_relations(plan)
        assert [s for s in scans if s[0] == "Seq Scan" and s[1] in ("documents", "chunks")] == [], scans
    finally:
        store.close()

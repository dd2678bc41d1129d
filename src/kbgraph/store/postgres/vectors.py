"""PostgreSQL's vector queries where they differ from the exact ones it inherits: pgvector, when the
server has the extension. A mixin of PostgresStore, first in its bases.

The vector index is a capability of the server, not a migration: migrations are frozen and run on
every server, and pgvector is on some only. So it is set up when a store opens (_open_vector_index):
where the server lists `vector` in pg_available_extensions and this role may create it (or it is
created already), the extension is created, meta `vector_index` says "pgvector", and two tables hold
the index beside the frozen schema, whose `vectors` (by text hash) and `chunk_vectors` stay the truth:
- chunk_embeddings (chunk, its document, its vector): one row per chunk with a vector, HNSW-indexed
  (vector_cosine_ops), written by put_vectors and gone with its chunk;
- document_centroids (document, its count of chunk vectors, their mean): HNSW too, rewritten by a
  statement trigger on chunk_embeddings, so a document rewritten or deleted keeps no stale centroid.
An HNSW column needs a dimension, so both are made with the first vectors (meta `vector_index_dim`),
dropped when another model's vectors replace them (reset_vectors), and filled from the vectors
already stored when a server gains the extension. Without it, or where this role may not create it,
none of this exists, has_vector_index() is false and every read is the exact one inherited.

Reads (nearest_vectors): the nearest chunks, with their vectors, and, for documents, the nearest
centroids, each taken by one query whose WHERE holds the reader's rule and the document filter with the
ORDER BY ... LIMIT: pgvector 0.8's iterative index scans (`SET LOCAL hnsw.iterative_scan`) walk on past
rejected rows, so a filter that rejects most still yields k. The candidate documents' sections are then
read from chunk_embeddings alone (by doc_id, already known readable), in binary, and sorted in numpy.
Where the readable rows are few (EXACT_BELOW) they are all read instead, exact. Either way the rows are
vector_matrix's rows (the same float32 values), which search scores as it scores the matrix.

When search uses the index (has_vector_index): from INDEX_FROM indexed vectors on; below, the exact
matrix, though the index is kept up to date. bench/pg_vectors.py (RESULTS §20, dim 384, 2 shared cores):
the index never beat the exact matrix up to 100k vectors. Unfiltered, exact p50 1.9 / 4.0 / 7.5 ms at
20k / 50k / 100k (it grows ~75 ns a vector) against ~17-20 ms for the index (flat: two HNSW scans and
~4,000 candidate sections read); a team reader (10% of notes) 2.9 / 12.9 / 40 ms exact against
9 / 50 / 102 ms walking the index past the rows it may not read. The unfiltered lines cross near 250k
vectors (extrapolated), where the matrix is also ~370 MB in each process that searches: INDEX_FROM.
Filtered reads stay slower through the index there; a per-reader rule needs the reader in
has_vector_index (the Store protocol's), not done."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

import numpy as np
import psycopg

from ...access import Access
from ..base import DocFilter
from ..sqlite.rows import EVERY_ROW
from ..sqlite.search import _readable_passing
from .connection import _lost, pg_sql
from .pool import PooledDb

INDEX_FROM = 250_000  # indexed vectors from which search reads the index, not the exact matrix (§20; docstring)
EXACT_BELOW = 5000  # readable chunk vectors under which a read takes them all instead of walking the index
SCAN_TUPLES = 50000  # hnsw.max_scan_tuples: how far an iterative scan walks past rejected rows
_BATCH = 500

_TABLES = r"""
CREATE TABLE chunk_embeddings (
    chunk_id BIGINT PRIMARY KEY REFERENCES chunks (id) ON DELETE CASCADE,
    doc_id BIGINT NOT NULL,
    embedding vector({dim}) NOT NULL
);
CREATE INDEX chunk_embeddings_doc ON chunk_embeddings (doc_id);
CREATE TABLE document_centroids (
    doc_id BIGINT PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
    chunks INTEGER NOT NULL,
    embedding vector({dim}) NOT NULL
);
CREATE OR REPLACE FUNCTION kbg_refresh_centroids(docs bigint[]) RETURNS void LANGUAGE sql AS $$
    DELETE FROM document_centroids WHERE doc_id = ANY(docs);
    INSERT INTO document_centroids (doc_id, chunks, embedding)
        SELECT e.doc_id, count(*), avg(e.embedding) FROM chunk_embeddings e JOIN documents d ON d.id = e.doc_id
        WHERE e.doc_id = ANY(docs) GROUP BY e.doc_id;
$$;
CREATE OR REPLACE FUNCTION kbg_centroids_after() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM kbg_refresh_centroids(ARRAY(SELECT DISTINCT doc_id FROM added));
    END IF;
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        PERFORM kbg_refresh_centroids(ARRAY(SELECT DISTINCT doc_id FROM removed));
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER chunk_embeddings_added AFTER INSERT ON chunk_embeddings REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION kbg_centroids_after();
CREATE TRIGGER chunk_embeddings_changed AFTER UPDATE ON chunk_embeddings
    REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION kbg_centroids_after();
CREATE TRIGGER chunk_embeddings_removed AFTER DELETE ON chunk_embeddings REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION kbg_centroids_after();
"""
_INDEXES = """
CREATE INDEX chunk_embeddings_hnsw ON chunk_embeddings USING hnsw (embedding vector_cosine_ops);
CREATE INDEX document_centroids_hnsw ON document_centroids USING hnsw (embedding vector_cosine_ops);
"""
_EMBEDDINGS = "SELECT n.chunk_id, n.doc_id, n.embedding FROM chunk_embeddings n"
_ROWS = ("SELECT cv.chunk_id, c.doc_id, v.vector FROM chunk_vectors cv JOIN chunks c ON c.id = cv.chunk_id"
         " JOIN vectors v ON v.text_hash = cv.text_hash JOIN documents d ON d.id = c.doc_id")


class PgVectorQueries:
    db: PooledDb
    _indexed: tuple[str, int] | None = None  # (vectors_version, rows of chunk_embeddings), per store

    if TYPE_CHECKING:  # PostgresStore's own methods
        def get_meta(self, key: str) -> str | None: ...
        def set_meta(self, key: str, value: str) -> None: ...
        def transaction(self) -> AbstractContextManager[None]: ...

    # --- the capability, set up at open

    def _open_vector_index(self) -> None:
        """Create the extension and record the capability where the server has pgvector; drop what a
        server without it (any more) was left. Idempotent: run at each open, under the writers' lock."""
        if not self._vector_extension_available():
            if self.get_meta("vector_index") is not None or self._has_vector_tables():
                with self.transaction():
                    self._drop_vector_index(forget=True)
            return
        if self.get_meta("vector_index") == "pgvector" and self.get_meta("vector_index_dim") is not None:
            return  # set up before
        try:
            with self.transaction():
                self.db.execute("CREATE EXTENSION IF NOT EXISTS vector")
                self._drop_vector_index(forget=False)  # what an emptied store kept, if anything
                self.set_meta("vector_index", "pgvector")
                self._build_vector_index()
        except psycopg.Error:  # this role may not create it (pgvector is not a trusted extension): exact
            return

    def _vector_extension_available(self) -> bool:
        """Whether the server has pgvector (pg_available_extensions lists installed ones too)."""
        return self.db.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone() is not None

    def _has_vector_tables(self) -> bool:
        return self.db.execute("SELECT to_regclass('chunk_embeddings') IS NOT NULL").fetchone()[0]

    def _build_vector_index(self) -> None:
        """The tables for the vectors stored already (none: made with the first put_vectors)."""
        dim = self._stored_dim()
        if dim is None:
            return
        self._create_vector_tables(dim, indexed=False)
        chunk_ids = [r[0] for r in self.db.execute("SELECT chunk_id FROM chunk_vectors ORDER BY chunk_id")]
        self._index_chunks(chunk_ids)
        self.db.execute("SET LOCAL maintenance_work_mem = '512MB'")  # the graph in memory: a build 10x faster
        self.db.execute_script(_INDEXES)
        self.db.execute("ANALYZE chunk_embeddings, document_centroids")

    def _create_vector_tables(self, dim: int, indexed: bool = True) -> None:
        self.db.execute_script(_TABLES.replace("{dim}", str(dim)) + (_INDEXES if indexed else ""))
        self.set_meta("vector_index_dim", str(dim))

    def _drop_vector_index(self, forget: bool) -> None:
        self.db.execute("DROP TABLE IF EXISTS chunk_embeddings, document_centroids")
        keys = ("vector_index", "vector_index_dim") if forget else ("vector_index_dim",)
        self.db.execute("DELETE FROM meta WHERE key = ANY(?)", (list(keys),))

    def _stored_dim(self) -> int | None:
        row = self.db.execute("SELECT octet_length(v.vector) / 4 FROM chunk_vectors cv"
                              " JOIN vectors v ON v.text_hash = cv.text_hash LIMIT 1").fetchone()
        return int(row[0]) if row else None

    # --- writes: the exact tables first, then the index

    def put_vectors(self, rows: list[tuple[int, str, bytes | None]]) -> None:
        super().put_vectors(rows)  # VectorQueries', after this mixin in the bases
        if not rows or self.get_meta("vector_index") != "pgvector":
            return
        if self.get_meta("vector_index_dim") is None:
            dim = self._stored_dim()
            if dim is None:
                return
            self._create_vector_tables(dim)
        self._index_chunks([chunk_id for chunk_id, _, _ in rows])

    def reset_vectors(self, model: str) -> None:
        super().reset_vectors(model)
        if self.get_meta("vector_index") == "pgvector":
            self._drop_vector_index(forget=False)  # another model may have another dimension

    def _index_chunks(self, chunk_ids: list[int]) -> None:
        """chunk_embeddings rows of these chunks, from the vectors stored for them: one statement a
        batch, so the centroid trigger rewrites each document once a batch, not once a chunk (a row
        at a time left 19 dead centroids a note: 160 MB of them at 100k vectors, scanned by each read)."""
        for start in range(0, len(chunk_ids), _BATCH):
            rows = self._binary_rows(_ROWS + " WHERE cv.chunk_id = ANY(?)", [chunk_ids[start:start + _BATCH]])
            if not rows:
                continue
            self.db.execute(
                "INSERT INTO chunk_embeddings (chunk_id, doc_id, embedding)"
                " SELECT r.chunk_id, r.doc_id, r.embedding::vector FROM unnest(?::bigint[], ?::bigint[], ?::text[])"
                " AS r (chunk_id, doc_id, embedding)"
                " ON CONFLICT (chunk_id) DO UPDATE SET doc_id = excluded.doc_id, embedding = excluded.embedding",
                [[r[0] for r in rows], [r[1] for r in rows],
                 ["[" + ",".join(map(repr, np.frombuffer(r[2], dtype=np.float32).tolist())) + "]" for r in rows]])

    # --- reads

    def has_vector_index(self) -> bool:
        """Whether search reads nearest_vectors per query: the index exists and holds INDEX_FROM
        vectors or more. Below, the exact matrix is faster (bench/RESULTS.md §20), and search reads it."""
        return self.get_meta("vector_index_dim") is not None and self._indexed_vectors() >= INDEX_FROM

    def _indexed_vectors(self) -> int:
        """Rows of chunk_embeddings, counted once per vectors_version (a threshold needs no fresher count)."""
        version = self.get_meta("vectors_version") or "0"
        if self._indexed is None or self._indexed[0] != version:
            self._indexed = (version, int(self.db.execute("SELECT count(*) FROM chunk_embeddings").fetchone()[0]))
        return self._indexed[1]

    def nearest_vectors(self, access: Access, flt: DocFilter, query: np.ndarray, sections: int,
                        documents: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """VectorQueries.nearest_vectors' rows, found by the HNSW indexes where they exist (the rows the
        access may read and the filter passes, picked inside each scan's query, before its LIMIT)."""
        if self.get_meta("vector_index_dim") is None:
            return super().nearest_vectors(access, flt, query, sections, documents)
        where, params = _readable_passing(access, flt)
        inside = "" if where == EVERY_ROW else f" WHERE n.doc_id IN (SELECT d.id FROM documents d WHERE {where})"
        if where != EVERY_ROW and self._readable_vectors(where, params) <= EXACT_BELOW:
            return self._embeddings(_EMBEDDINGS + inside, params)
        text = "[" + ",".join(map(repr, np.asarray(query, dtype=np.float32).tolist())) + "]"
        with self.db.pinned() as db, db.conn.transaction():  # SET LOCAL: one connection for the block
            for setting, value in (("iterative_scan", "relaxed_order"), ("max_scan_tuples", SCAN_TUPLES),
                                   ("ef_search", min(max(sections, documents, 40), 1000))):
                self.db.execute(f"SET LOCAL hnsw.{setting} = {value}")
            near = self._embeddings(_EMBEDDINGS + inside + " ORDER BY n.embedding <=> ?::vector LIMIT ?",
                                    [*params, text, sections])
            if documents <= 0:
                return near
            docs = set(near[1].tolist())
            docs.update(r[0] for r in self.db.execute(
                f"SELECT n.doc_id FROM document_centroids n{inside} ORDER BY n.embedding <=> ?::vector LIMIT ?",
                [*params, text, documents]))
        return self._embeddings(_EMBEDDINGS + " WHERE n.doc_id = ANY(?)", [sorted(docs)])

    def _readable_vectors(self, where: str, params: list) -> int:
        """How many chunk vectors the documents the access may read and the filter passes hold."""
        return int(self.db.execute(f"SELECT coalesce(sum(n.chunks), 0) FROM document_centroids n"
                                   f" JOIN documents d ON d.id = n.doc_id WHERE {where}", params).fetchone()[0])

    def _embeddings(self, sql: str, params: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(chunk ids, document ids, matrix) of chunk_embeddings rows, in chunk id order, as vector_matrix
        reads them: the same float32 values (written from them), sorted here, not by a sort that spills."""
        rows = self._binary_rows(sql, params)
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        docs = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
        if not rows:
            return ids, docs, np.zeros((0, 0), dtype=np.float32)
        # pgvector's binary form: int16 dimension, int16 unused, then the floats big-endian; the
        # 4-byte header read as one more float and dropped
        matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype=">f4").reshape(len(rows), -1)[:, 1:]
        order = np.argsort(ids, kind="stable")
        return ids[order], docs[order], np.ascontiguousarray(matrix[order], dtype=np.float32)

    def _binary_rows(self, sql: str, params: list) -> list[tuple]:
        """Rows read in binary: a vector's bytes as stored, not twice as many in hex."""
        try:
            with self.db.pinned() as db:
                return db.conn.cursor(binary=True).execute(pg_sql(sql), params).fetchall()
        except psycopg.OperationalError as exc:
            raise _lost(exc) from None

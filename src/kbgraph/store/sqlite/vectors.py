"""SQL of chunk embeddings: vectors by text hash, which chunk has which, and the matrix search reads.

A mixin of SqliteStore (it uses self.db). Vectors are float32 BLOBs; the model that made them is
named in meta (`embed_model`), and a different model empties both tables. Every read is exact: SQLite
has no vector index, so search scores the whole (filtered) matrix; `nearest_vectors` is the contract's
exact answer to what an indexed backend (pgvector) answers approximately.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from ...access import LOCAL, Access
from ..base import DocFilter
from .rows import EVERY_ROW, access_sql

if TYPE_CHECKING:  # imported by the methods that build arrays: opening a store for text never loads numpy
    import numpy as np


class VectorQueries:
    db: sqlite3.Connection

    if TYPE_CHECKING:  # SqliteStore's own methods
        def get_meta(self, key: str) -> str | None: ...
        def set_meta(self, key: str, value: str) -> None: ...
    _matrix: tuple[str, tuple] | None = None  # (vectors_version, (chunk ids, doc ids, matrix)), per store

    def embedding_model(self) -> str | None:
        return self.get_meta("embed_model")

    def reset_vectors(self, model: str) -> None:
        """Another model: every vector goes, and the next embed stage computes them all again."""
        self.db.execute("DELETE FROM chunk_vectors")
        self.db.execute("DELETE FROM vectors")
        self.set_meta("embed_model", model)
        self._bump_vectors()

    def chunks_without_vectors(self, limit: int) -> list[tuple[int, str, str, str]]:
        """(chunk id, document title, heading, text) of chunks with no vector yet."""
        return self.db.execute(
            "SELECT c.id, d.title, c.heading, c.text FROM chunks c JOIN documents d ON d.id = c.doc_id"
            " LEFT JOIN chunk_vectors v ON v.chunk_id = c.id WHERE v.chunk_id IS NULL ORDER BY c.id LIMIT ?",
            (limit,)).fetchall()

    def count_chunks_without_vectors(self, access: Access = LOCAL) -> int:
        """Chunks of documents the access may read that have no vector."""
        readable, params = access_sql("d", access)
        joined = "" if readable == EVERY_ROW else f" JOIN documents d ON d.id = c.doc_id AND {readable}"
        return self.db.execute(f"SELECT count(*) FROM chunks c{joined} LEFT JOIN chunk_vectors v ON v.chunk_id = c.id"
                               " WHERE v.chunk_id IS NULL", params).fetchone()[0]

    def known_vector_hashes(self, hashes: list[str]) -> set[str]:
        found = set()
        for start in range(0, len(hashes), 500):
            part = hashes[start:start + 500]
            found.update(r[0] for r in self.db.execute(
                f"SELECT text_hash FROM vectors WHERE text_hash IN ({','.join('?' * len(part))})", part))
        return found

    def put_vectors(self, rows: list[tuple[int, str, bytes | None]]) -> None:
        """(chunk id, text hash, vector or None when the hash has one already)."""
        self.db.executemany("INSERT INTO vectors (text_hash, vector) VALUES (?, ?) ON CONFLICT DO NOTHING",
                            [(h, v) for _, h, v in rows if v is not None])
        self.db.executemany("INSERT INTO chunk_vectors (chunk_id, text_hash) VALUES (?, ?)"
                            " ON CONFLICT (chunk_id) DO UPDATE SET text_hash = excluded.text_hash",
                            [(c, h) for c, h, _ in rows])
        self._bump_vectors()

    def drop_unused_vectors(self) -> int:
        cursor = self.db.execute("DELETE FROM vectors WHERE text_hash NOT IN (SELECT text_hash FROM chunk_vectors)")
        if cursor.rowcount:
            self._bump_vectors()
        return cursor.rowcount

    def has_vectors(self, access: Access = LOCAL) -> bool:
        """Whether a chunk of a document the access may read has a vector."""
        readable, params = access_sql("d", access)
        if readable == EVERY_ROW:
            return self.db.execute("SELECT 1 FROM chunk_vectors LIMIT 1").fetchone() is not None
        return self.db.execute("SELECT 1 FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id JOIN documents d"
                               f" ON d.id = c.doc_id WHERE {readable} LIMIT 1", params).fetchone() is not None

    def vector_counts(self, access: Access = LOCAL) -> tuple[int, int]:
        """(chunks with a vector, chunks), of the documents the access may read."""
        readable, params = access_sql("d", access)
        if readable == EVERY_ROW:
            return (self.db.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0],
                    self.db.execute("SELECT count(*) FROM chunks").fetchone()[0])
        total = self.db.execute(f"SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE {readable}",
                                params).fetchone()[0]
        return total - self.count_chunks_without_vectors(access), total

    def chunks_missing_vectors(self) -> int:
        """Chunks without a vector when the embed stage last ran (a count kept in meta: counting costs
        a scan of every chunk, too much for each query); counted here only for an index upgraded from
        a version that did not keep it, until its next `kbg index`."""
        kept = self.get_meta("vectors_missing")
        return int(kept) if kept is not None else self.count_chunks_without_vectors()

    def vector_matrix(self, access: Access, flt: DocFilter) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(chunk ids, their document ids, unit vectors as one float32 matrix) of the chunks whose
        documents the access may read and the filter passes: scoring sees no other row, so a top-k
        is never taken before the filter. The whole matrix is cached by this store until vectors
        change (chunks change only with their vectors: a new chunk has none yet); a filtered read
        selects its rows from it."""
        import numpy as np

        ids, docs, matrix = self._whole_matrix()
        if access.sees_everything and flt == DocFilter():
            return ids, docs, matrix
        from .search import _readable_passing

        where, params = _readable_passing(access, flt)
        allowed = np.fromiter((r[0] for r in self.db.execute(f"SELECT d.id FROM documents d WHERE {where}", params)),
                              dtype=np.int64)
        keep = np.isin(docs, allowed)
        return ids[keep], docs[keep], matrix[keep] if len(matrix) else matrix

    def has_vector_index(self) -> bool:
        """Whether nearest_vectors is an index's approximate answer (search then reads it per query
        instead of the matrix). Never here: SQLite's reads are exact."""
        return False

    def nearest_vectors(self, access: Access, flt: DocFilter, query: np.ndarray, sections: int,
                        documents: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The rows of vector_matrix(access, flt) (same order, same bytes) that a top-k for query needs:
        the `sections` chunks nearest it and, when documents > 0, every chunk of their documents and of
        the `documents` documents whose centroids (the normalised mean of their chunks) are nearest.
        The top-k is taken among the rows the access may read and the filter passes, never before."""
        import numpy as np

        ids, docs, matrix = self.vector_matrix(access, flt)
        if not len(ids):
            return ids, docs, matrix
        query = np.asarray(query, dtype=np.float32)
        keep = np.zeros(len(ids), dtype=bool)
        keep[_best(matrix @ query, sections)] = True
        if documents > 0:
            doc_ids, inverse = np.unique(docs, return_inverse=True)
            sums = np.zeros((len(doc_ids), matrix.shape[1]), dtype=np.float32)
            np.add.at(sums, inverse, matrix)
            norms = np.linalg.norm(sums, axis=1)
            norms[norms == 0] = 1.0
            near = doc_ids[_best((sums @ query) / norms, documents)]
            keep = np.isin(docs, np.union1d(docs[keep], near))
        return ids[keep], docs[keep], matrix[keep]

    def _whole_matrix(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every chunk vector, cached per store, not per file name: an index rebuilt at the same path
        starts its version count again."""
        import numpy as np

        version = self.get_meta("vectors_version") or "0"
        cached = self._matrix
        if cached is not None and cached[0] == version:
            return cached[1]
        rows = self.db.execute("SELECT cv.chunk_id, c.doc_id, v.vector FROM chunk_vectors cv"
                               " JOIN chunks c ON c.id = cv.chunk_id JOIN vectors v ON v.text_hash = cv.text_hash"
                               " ORDER BY cv.chunk_id").fetchall()
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        docs = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
        matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), -1) \
            if rows else np.zeros((0, 0), dtype=np.float32)
        self._matrix = (version, (ids, docs, matrix))
        return ids, docs, matrix

    def _bump_vectors(self) -> None:
        self.set_meta("vectors_version", str(int(self.get_meta("vectors_version") or "0") + 1))


def _best(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k highest scores, in no order."""
    import numpy as np

    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    return np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))

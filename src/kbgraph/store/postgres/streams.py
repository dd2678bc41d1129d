"""Reads that walk every document or chunk, streamed from the server (PgConnection.stream) instead of
loaded whole: at 100k sections their text alone is ~100 MB. The same SQL as SQLite's, which streams by
itself. A mixin of PostgresStore, first in its bases."""

from __future__ import annotations

from typing import Iterator

from ..sqlite.rows import _grouped
from .pool import PooledDb


class PgStreamQueries:
    db: PooledDb

    def docs_for_mentions(self, all_docs: bool) -> Iterator[dict]:
        where = "" if all_docs else "WHERE d.mentions_stale = 1"
        docs = self.db.stream(f"SELECT d.id, d.body_offset, d.path, d.kind FROM documents d {where} ORDER BY d.id")
        chunk_groups = _grouped(self.db.stream(
            f"SELECT c.doc_id, c.id, c.start, c.text FROM chunks c JOIN documents d ON d.id = c.doc_id {where}"
            " ORDER BY c.doc_id, c.ordinal"))
        link_groups = _grouped(self.db.stream(
            f"SELECT l.doc_id, l.target, l.alias, l.start, l.\"end\", l.kind FROM links l"
            f" JOIN documents d ON d.id = l.doc_id {where} ORDER BY l.doc_id, l.start"))
        for doc_id, body_offset, path, kind in docs:
            yield {"id": doc_id, "body_offset": body_offset, "path": path, "kind": kind,
                   "chunks": chunk_groups(doc_id), "links": link_groups(doc_id)}

    def all_chunk_texts(self) -> Iterator[tuple[str, str]]:
        return self.db.stream("SELECT d.path, c.text FROM chunks c JOIN documents d ON d.id = c.doc_id"
                              " ORDER BY d.path, c.ordinal")

"""The default store: SQLite (WAL, foreign keys, FTS5) in <vault>/.kbgraph/index.db."""

from __future__ import annotations

import json
import sqlite3
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

from ..errors import StoreError
from ..model import Entity, EntityClaim, EntityRecord, Mention, ParsedDocument, Problem
from .base import DocFilter, DocState
from .migrations import apply_migrations

INDEX_DIR = ".kbgraph"
DB_NAME = "index.db"

_DOC_COLUMNS = "d.id, d.path, d.title, d.kind, d.date, d.tags, d.size, d.mtime, d.indexed_at, d.owner, d.visibility"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class SqliteStore:
    def __init__(self, db: sqlite3.Connection, path: str):
        self.db = db
        self.path = path

    @classmethod
    def open_vault(cls, vault_root: Path, create: bool = True) -> "SqliteStore":
        index_dir = Path(vault_root) / INDEX_DIR
        db_path = index_dir / DB_NAME
        if not create and not db_path.exists():
            from ..errors import NotFound

            raise NotFound(f"{vault_root} has not been indexed yet; run `kbg index` first")
        try:
            index_dir.mkdir(exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create {index_dir}: {exc.strerror}") from exc
        return cls.open(str(db_path))

    @classmethod
    def open(cls, path: str) -> "SqliteStore":
        try:
            db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA busy_timeout = 10000")
            if path != ":memory:":
                db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            db.execute("PRAGMA foreign_keys = ON")
            apply_migrations(db)
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"cannot open the index {path}: {exc}; delete the .kbgraph folder and run `kbg index` to rebuild it"
            ) from exc
        return cls(db, path)

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if self.db.in_transaction:
            yield
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # --- meta --------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    # --- documents ---------------------------------------------------------------

    def doc_states(self) -> dict[str, DocState]:
        rows = self.db.execute("SELECT id, path, content_hash, size, mtime FROM documents")
        return {r[1]: DocState(*r) for r in rows}

    def write_document(self, doc: ParsedDocument, doc_id: int | None) -> int:
        """Insert or replace one document with its chunks, tags, links and entity claims."""
        db = self.db
        values = (
            doc.path, doc.title, doc.kind, doc.date, json.dumps(doc.frontmatter, ensure_ascii=False),
            json.dumps(list(doc.tags), ensure_ascii=False), doc.content_hash, doc.size, doc.mtime,
            doc.body_offset, doc.owner, doc.visibility, doc.sensitivity, _now(),
        )
        if doc_id is None:
            doc_id = db.execute(
                "INSERT INTO documents (path, title, kind, date, frontmatter, tags, content_hash, size, mtime,"
                " body_offset, owner, visibility, sensitivity, indexed_at, mentions_stale)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1) RETURNING id",
                values,
            ).fetchone()[0]
        else:
            self._clear_document_content(doc_id)
            db.execute(
                "UPDATE documents SET path = ?, title = ?, kind = ?, date = ?, frontmatter = ?, tags = ?,"
                " content_hash = ?, size = ?, mtime = ?, body_offset = ?, owner = ?, visibility = ?,"
                " sensitivity = ?, indexed_at = ?, mentions_stale = 1 WHERE id = ?",
                (*values, doc_id),
            )
        db.executemany(
            "INSERT OR IGNORE INTO document_tags (doc_id, tag) VALUES (?, ?)", [(doc_id, t) for t in doc.tags]
        )
        for chunk in doc.chunks:
            heading = " > ".join(chunk.heading_path)
            chunk_id = db.execute(
                "INSERT INTO chunks (doc_id, key, ordinal, heading, start, end, line, text)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (doc_id, chunk.key, chunk.ordinal, heading, chunk.start, chunk.end, chunk.line, chunk.text),
            ).fetchone()[0]
            db.execute(
                "INSERT INTO chunk_fts (rowid, title, heading, body) VALUES (?, ?, ?, ?)",
                (chunk_id, doc.title, heading, chunk.text),
            )
        db.executemany(
            "INSERT INTO links (doc_id, target, alias, start, end, kind) VALUES (?, ?, ?, ?, ?, ?)",
            [(doc_id, ln.target, ln.alias, ln.start, ln.end, ln.kind) for ln in doc.links],
        )
        db.executemany(
            "INSERT INTO entity_claims (doc_id, ordinal, type, name, aliases, role, field, attributes)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (doc_id, i, e.type, e.name, json.dumps(list(e.aliases), ensure_ascii=False), e.role, e.ref_field,
                 json.dumps(e.attributes, ensure_ascii=False))
                for i, e in enumerate(doc.entities)
            ],
        )
        return doc_id

    def _clear_document_content(self, doc_id: int) -> None:
        db = self.db
        db.execute("DELETE FROM chunk_fts WHERE rowid IN (SELECT id FROM chunks WHERE doc_id = ?)", (doc_id,))
        for table in ("mentions", "chunks", "document_tags", "links", "entity_claims"):
            db.execute(f"DELETE FROM {table} WHERE doc_id = ?", (doc_id,))

    def touch_document(self, doc_id: int, size: int, mtime: float) -> None:
        self.db.execute("UPDATE documents SET size = ?, mtime = ? WHERE id = ?", (size, mtime, doc_id))

    def delete_document(self, doc_id: int) -> None:
        self._clear_document_content(doc_id)
        self.db.execute("DELETE FROM documents WHERE id = ?", (doc_id,))

    def get_document(self, doc_id: int | None = None, path: str | None = None) -> dict | None:
        column, value = ("id", doc_id) if doc_id is not None else ("path", path)
        row = self.db.execute(
            f"SELECT {_DOC_COLUMNS}, d.frontmatter, d.content_hash, d.body_offset, d.sensitivity"
            f" FROM documents d WHERE d.{column} = ?",
            (value,),
        ).fetchone()
        if row is None:
            return None
        doc = _doc_row(row)
        doc.update(frontmatter=json.loads(row[11]), content_hash=row[12], body_offset=row[13], sensitivity=row[14])
        return doc

    def document_chunks(self, doc_id: int) -> list[dict]:
        rows = self.db.execute(
            "SELECT id, key, ordinal, heading, start, end, line, text FROM chunks WHERE doc_id = ? ORDER BY ordinal",
            (doc_id,),
        )
        keys = ("id", "key", "ordinal", "heading", "start", "end", "line", "text")
        return [dict(zip(keys, r)) for r in rows]

    def list_documents(self, flt: DocFilter, limit: int | None = None) -> list[dict]:
        where, params = _doc_filter_sql(flt)
        sql = f"SELECT {_DOC_COLUMNS} FROM documents d WHERE {where} ORDER BY d.date IS NULL, d.date DESC, d.path"
        if limit:
            sql += " LIMIT ?"
            params.append(limit)
        return [_doc_row(r) for r in self.db.execute(sql, params)]

    def search_chunks(self, fts_query: str, flt: DocFilter, limit: int) -> list[dict]:
        where, params = _doc_filter_sql(flt)
        sql = (
            f"SELECT {_DOC_COLUMNS}, c.id, c.heading, c.line,"
            " snippet(chunk_fts, 2, char(2), char(3), '…', 16),"
            " bm25(chunk_fts, 4.0, 2.0, 1.0) AS rank"
            " FROM chunk_fts JOIN chunks c ON c.id = chunk_fts.rowid JOIN documents d ON d.id = c.doc_id"
            f" WHERE chunk_fts MATCH ? AND {where} ORDER BY rank LIMIT ?"
        )
        try:
            rows = self.db.execute(sql, [fts_query, *params, limit]).fetchall()
        except sqlite3.OperationalError as exc:
            raise StoreError(f"search failed for {fts_query!r}: {exc}") from exc
        out = []
        for r in rows:
            doc = _doc_row(r)
            doc.update(chunk_id=r[11], heading=r[12], line=r[13], snippet=r[14], score=-r[15])
            out.append(doc)
        return out

    # --- entities ----------------------------------------------------------------

    def all_claims(self) -> list[EntityClaim]:
        rows = self.db.execute(
            "SELECT c.doc_id, d.path, c.type, c.name, c.aliases, c.role, c.field, c.attributes"
            " FROM entity_claims c JOIN documents d ON d.id = c.doc_id ORDER BY d.path, c.ordinal"
        )
        return [
            EntityClaim(r[0], r[1], r[2], r[3], tuple(json.loads(r[4])), r[5], r[6], json.loads(r[7]))
            for r in rows
        ]

    def sync_entities(self, records: list[EntityRecord], now: str) -> dict[str, int]:
        """Make the entities table equal to records (ids kept by key); returns key -> id."""
        db = self.db
        existing = {
            r[0]: (r[1], r[2], r[3], r[4], r[5], r[6])
            for r in db.execute("SELECT key, id, type, name, aliases, page_doc_id, attributes FROM entities")
        }
        ids: dict[str, int] = {}
        for rec in records:
            aliases = json.dumps(list(rec.aliases), ensure_ascii=False)
            attributes = json.dumps(rec.attributes, ensure_ascii=False, sort_keys=True)
            old = existing.pop(rec.key, None)
            if old is None:
                entity_id = db.execute(
                    "INSERT INTO entities (key, type, name, aliases, page_doc_id, attributes, created_at, updated_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    (rec.key, rec.type, rec.name, aliases, rec.page_doc_id, attributes, now, now),
                ).fetchone()[0]
            else:
                entity_id = old[0]
                if old[1:] != (rec.type, rec.name, aliases, rec.page_doc_id, attributes):
                    db.execute(
                        "UPDATE entities SET type = ?, name = ?, aliases = ?, page_doc_id = ?, attributes = ?,"
                        " updated_at = ? WHERE id = ?",
                        (rec.type, rec.name, aliases, rec.page_doc_id, attributes, now, entity_id),
                    )
            ids[rec.key] = entity_id
        gone = [(old[0],) for old in existing.values()]
        db.executemany("DELETE FROM entities WHERE id = ?", gone)
        db.execute("DELETE FROM entity_names")
        from ..names import name_key

        db.executemany(
            "INSERT OR IGNORE INTO entity_names (entity_id, key, name, kind) VALUES (?, ?, ?, ?)",
            [(ids[rec.key], name_key(surface), surface, kind) for rec in records for surface, kind in rec.forms],
        )
        return ids

    def entity_ids_by_key(self) -> dict[str, int]:
        return dict(self.db.execute("SELECT key, id FROM entities"))

    def entity_forms(self) -> list[tuple[int, str, str]]:
        return list(self.db.execute("SELECT entity_id, name, kind FROM entity_names ORDER BY entity_id"))

    def docs_for_mentions(self, all_docs: bool) -> Iterator[dict]:
        where = "" if all_docs else "WHERE mentions_stale = 1"
        doc_rows = self.db.execute(f"SELECT id, body_offset FROM documents {where} ORDER BY id").fetchall()
        for doc_id, body_offset in doc_rows:
            chunks = self.db.execute(
                "SELECT id, start, text FROM chunks WHERE doc_id = ? ORDER BY ordinal", (doc_id,)
            ).fetchall()
            links = self.db.execute(
                "SELECT target, alias, start, end, kind FROM links WHERE doc_id = ? ORDER BY start", (doc_id,)
            ).fetchall()
            yield {"id": doc_id, "body_offset": body_offset, "chunks": chunks, "links": links}

    def count_docs_for_mentions(self, all_docs: bool) -> int:
        where = "" if all_docs else "WHERE mentions_stale = 1"
        return self.db.execute(f"SELECT count(*) FROM documents {where}").fetchone()[0]

    def replace_mentions(self, doc_id: int, mentions: list[tuple[int | None, Mention]]) -> None:
        self.db.execute("DELETE FROM mentions WHERE doc_id = ?", (doc_id,))
        self.db.executemany(
            "INSERT INTO mentions (entity_id, doc_id, chunk_id, start, end, surface, kind) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(m.entity_id, doc_id, chunk_id, m.start, m.end, m.surface, m.kind) for chunk_id, m in mentions],
        )
        self.db.execute("UPDATE documents SET mentions_stale = 0 WHERE id = ?", (doc_id,))

    def refresh_entity_stats(self, tier_thresholds: tuple[tuple[int, int], ...]) -> None:
        (high, high_tier), (mid, mid_tier) = tier_thresholds
        self.db.execute(
            """
            WITH stats AS (
                SELECT m.entity_id, count(*) AS n, count(DISTINCT m.doc_id) AS docs,
                       min(d.date) AS first_date, max(d.date) AS last_date
                FROM mentions m JOIN documents d ON d.id = m.doc_id GROUP BY m.entity_id
            )
            UPDATE entities SET
                mention_count = coalesce(s.n, 0),
                doc_count = coalesce(s.docs, 0),
                first_mentioned = s.first_date,
                last_mentioned = s.last_date,
                tier = CASE WHEN coalesce(s.n, 0) >= ? THEN ? WHEN coalesce(s.n, 0) >= ? THEN ? ELSE 1 END
            FROM (SELECT e.id, stats.n, stats.docs, stats.first_date, stats.last_date
                  FROM entities e LEFT JOIN stats ON stats.entity_id = e.id) AS s
            WHERE s.id = entities.id
            """,
            (high, high_tier, mid, mid_tier),
        )

    def entities_by_name_key(self, key: str) -> list[Entity]:
        rows = self.db.execute(
            f"SELECT DISTINCT {_ENTITY_COLUMNS}, n.kind FROM entity_names n JOIN entities e ON e.id = n.entity_id"
            " LEFT JOIN documents d ON d.id = e.page_doc_id WHERE n.key = ? ORDER BY e.mention_count DESC, e.name",
            (key,),
        )
        return [_entity_row(r) for r in rows]

    def name_kinds(self, key: str) -> list[tuple[int, str]]:
        return list(self.db.execute("SELECT entity_id, kind FROM entity_names WHERE key = ?", (key,)))

    def get_entity(self, entity_id: int) -> Entity | None:
        row = self.db.execute(
            f"SELECT {_ENTITY_COLUMNS} FROM entities e LEFT JOIN documents d ON d.id = e.page_doc_id WHERE e.id = ?",
            (entity_id,),
        ).fetchone()
        return _entity_row(row) if row else None

    def list_entities(self, entity_type: str | None = None, limit: int | None = None) -> list[Entity]:
        sql = f"SELECT {_ENTITY_COLUMNS} FROM entities e LEFT JOIN documents d ON d.id = e.page_doc_id"
        params: list = []
        if entity_type:
            sql += " WHERE e.type = ?"
            params.append(entity_type)
        sql += " ORDER BY e.type, e.mention_count DESC, e.name"
        if limit:
            sql += " LIMIT ?"
            params.append(limit)
        return [_entity_row(r) for r in self.db.execute(sql, params)]

    def all_entity_names(self, entity_type: str | None = None) -> list[tuple[int, str]]:
        sql = "SELECT n.entity_id, n.name FROM entity_names n JOIN entities e ON e.id = n.entity_id"
        params = []
        if entity_type:
            sql += " WHERE e.type = ?"
            params.append(entity_type)
        return list(self.db.execute(sql, params))

    def entity_documents(self, entity_id: int, limit: int | None = None) -> list[dict]:
        sql = (
            f"SELECT {_DOC_COLUMNS}, count(*) AS mentions, min(m.start) AS first_start,"
            " group_concat(DISTINCT m.kind) AS kinds"
            " FROM mentions m JOIN documents d ON d.id = m.doc_id WHERE m.entity_id = ?"
            " GROUP BY d.id ORDER BY d.date IS NULL, d.date, d.path"
        )
        params: list = [entity_id]
        if limit:
            sql += " LIMIT ?"
            params.append(limit)
        out = []
        for r in self.db.execute(sql, params):
            doc = _doc_row(r)
            doc.update(mentions=r[11], mention_kinds=sorted((r[13] or "").split(",")))
            out.append(doc)
        return out

    # --- problems and status -----------------------------------------------------

    def record_problems(self, problems: list[Problem], seen_at: str, clear_paths: list[str]) -> None:
        self.db.executemany("DELETE FROM problems WHERE path = ?", [(p,) for p in clear_paths])
        self.db.executemany(
            "INSERT INTO problems (path, reason, severity, seen_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (path) DO UPDATE SET reason = excluded.reason, severity = excluded.severity,"
            " seen_at = excluded.seen_at",
            [(p.path, p.reason, p.severity, seen_at) for p in problems],
        )

    def clear_problems_except(self, paths: set[str]) -> None:
        current = [r[0] for r in self.db.execute("SELECT path FROM problems")]
        self.db.executemany("DELETE FROM problems WHERE path = ?", [(p,) for p in current if p not in paths])

    def problems(self) -> list[Problem]:
        rows = self.db.execute("SELECT path, reason, severity FROM problems ORDER BY severity, path")
        return [Problem(*r) for r in rows]

    def stats(self) -> dict:
        one = lambda sql: self.db.execute(sql).fetchone()[0]  # noqa: E731
        kinds = dict(self.db.execute("SELECT kind, count(*) FROM documents GROUP BY kind ORDER BY kind"))
        types = dict(self.db.execute("SELECT type, count(*) FROM entities GROUP BY type ORDER BY type"))
        return {
            "documents": one("SELECT count(*) FROM documents"),
            "chunks": one("SELECT count(*) FROM chunks"),
            "entities": one("SELECT count(*) FROM entities"),
            "mentions": one("SELECT count(*) FROM mentions"),
            "links": one("SELECT count(*) FROM links"),
            "bytes_indexed": one("SELECT coalesce(sum(size), 0) FROM documents"),
            "documents_by_kind": kinds,
            "entities_by_type": types,
            "last_indexed": self.get_meta("last_indexed"),
            "last_run_seconds": float(self.get_meta("last_run_seconds") or 0),
            "schema": [r[0] for r in self.db.execute("SELECT name FROM migrations ORDER BY id")],
        }


_ENTITY_COLUMNS = (
    "e.id, e.type, e.name, e.aliases, d.path, e.attributes, e.mention_count, e.tier, e.status"
)


def _entity_row(r) -> Entity:
    return Entity(r[0], r[1], r[2], tuple(json.loads(r[3])), r[4], json.loads(r[5]), r[6], r[7], r[8])


def _doc_row(r) -> dict:
    return {
        "id": r[0], "path": r[1], "title": r[2], "kind": r[3], "date": r[4], "tags": json.loads(r[5]),
        "size": r[6], "mtime": r[7], "indexed_at": r[8], "owner": r[9], "visibility": r[10],
    }


def _doc_filter_sql(flt: DocFilter) -> tuple[str, list]:
    clauses, params = ["1"], []
    if flt.kinds:
        clauses.append(f"d.kind IN ({','.join('?' * len(flt.kinds))})")
        params.extend(flt.kinds)
    if flt.path_prefix:
        clauses.append("(d.path = ? OR substr(d.path, 1, ?) = ? OR d.path GLOB ?)")
        prefix = flt.path_prefix.rstrip("/")
        params.extend([prefix, len(prefix) + 1, prefix + "/", flt.path_prefix])
    if flt.date_from:
        clauses.append("d.date >= ?")
        params.append(flt.date_from)
    if flt.date_to:
        clauses.append("d.date <= ?")
        params.append(flt.date_to)
    for tag in flt.tags:
        clauses.append("EXISTS (SELECT 1 FROM document_tags t WHERE t.doc_id = d.id AND t.tag = ?)")
        params.append(tag)
    return " AND ".join(clauses), params

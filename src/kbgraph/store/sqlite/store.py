"""The default store: SQLite (WAL, foreign keys, FTS5) in <vault>/.kbgraph/index.db."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import uuid
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator
from urllib.parse import quote

from ...errors import StoreError
from ...model import Entity, EntityClaim, EntityRecord, Mention, Merge, ParsedDocument, Problem
from ...access import LOCAL, Access
from ..base import FUZZY_MIN_SIMILARITY, DocFilter, DocState, EntityName, EntitySync, NameMatch, RelationVersion
from .migrations import MIGRATIONS, apply_migrations
from .trigrams import similarity as trigram_similarity
from .rows import EVERY_ROW, access_sql, entity_columns, mention_count_sql, _DOC_COLUMNS, _doc_filter_sql, _doc_row, _entity_row, _grouped, _suggestion_row
from .docgraph import DocGraphQueries, _marks, _parts
from .governance import GovernanceQueries
from .graph import ConflictQueries, GraphQueries
from .memory import MemoryQueries
from .resolution import ResolutionQueries
from .search import SearchQueries
from .tokens import TokenQueries
from .transfer import TransferQueries
from .backup import BackupQueries
from .vectors import VectorQueries
from .space import WAL_LIMIT_BYTES, plan_incremental, reclaim

INDEX_DIR = ".kbgraph"
DB_NAME = "index.db"
BUSY_TIMEOUT_MS = 10_000  # a writer waits this long for another's transaction before "database is locked"



def _connect(target: str) -> sqlite3.Connection:
    """A connection for one thread. check_same_thread is off only so that close() may close it from
    another thread; the store never hands it to a second thread."""
    db = sqlite3.connect(target, isolation_level=None, check_same_thread=False, uri=target.startswith("file:"))
    db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("PRAGMA foreign_keys = ON")
    db.execute(f"PRAGMA journal_size_limit = {WAL_LIMIT_BYTES}")  # a huge transaction's log does not stay huge
    return db


def unwritable(db_path: Path) -> Path | None:
    """The index's folder or file when this process may not write it (os.access: a read-only mount
    refuses even root), else None. SQLite must create files beside a WAL index to write it."""
    folder = db_path.parent
    if not os.access(folder, os.W_OK):
        return folder
    if db_path.exists() and not os.access(db_path, os.W_OK):
        return db_path
    return None


def _connect_read_only(path: str, read_only: Path) -> tuple[sqlite3.Connection, str]:
    """A read-only connection and the URI each thread opens, creating no file beside the index.

    A WAL index in use has its shared-memory file (-shm) beside it: mode=ro joins it. Without one,
    mode=ro would create -shm and -wal, read-only like the index, and a writer given its rights back
    would then fail on them ("attempt to write a readonly database"); the index alone is then the
    whole index, read immutable (no locks, no shared memory). A WAL file with changes not yet in the
    index and no -shm to read it through cannot be read that way, so that case is refused."""
    uri = f"file:{quote(str(Path(path).resolve()))}?mode=ro"
    wal, shm = Path(f"{path}-wal"), Path(f"{path}-shm")
    if not shm.exists():
        if wal.exists() and wal.stat().st_size > 0:
            raise StoreError(f"cannot read the index {path}: {read_only} is read-only and the index has changes "
                             f"not yet saved into it ({wal.name})", hint=f"open the index once with write access to "
                             f"{read_only}: opening it saves those changes")
        uri += "&immutable=1"
    try:
        return _checked(_connect(uri)), uri
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"cannot read the index {path} ({read_only} is read-only): {exc}",
                         hint="check that the file is a kbgraph index this user may read") from exc


def _checked(db: sqlite3.Connection) -> sqlite3.Connection:
    """db, once it has read the schema (where a read-only WAL index fails), else closed and the error raised."""
    try:
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError:
        db.close()
        raise
    return db


def _pending_migrations(db: sqlite3.Connection) -> list[str]:
    has_table = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'").fetchone()
    done = {row[0] for row in db.execute("SELECT name FROM migrations")} if has_table else set()
    return [m.__name__ for m in MIGRATIONS if m.__name__ not in done]


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


COOCCURRENCE_MINIMUM = "cooccurrence_minimum"  # meta: the meetings together a co-occurrence needed


class CoreQueries:
    """Documents, entities, relations, suggestions and problems: the store's core queries, written against
    `self.db` (a DB-API connection taking `?` parameters). SQLite runs them as they are; another backend
    reuses the ones that are portable SQL and overrides the rest."""

    # Declared, not defined: the class that mixes these in provides them (a definition here would
    # shadow the mixins after this one in its bases).
    db: sqlite3.Connection
    path: str
    transaction: Callable[[], AbstractContextManager[None]]
    _bump_vectors: Callable[[], None]

    # --- what SQLite spells its own way: fragments of the shared queries, PgCoreQueries has PostgreSQL's

    @staticmethod
    def _sql_index_hint(index: str) -> str:
        """After a table: the index the query must use (SQLite, without statistics, may pick a worse one)."""
        return f"INDEXED BY {index}"

    @staticmethod
    def _sql_joined(expr: str, distinct: bool = False) -> str:
        """An aggregate: the group's values of expr as one text, comma separated."""
        return f"group_concat({'DISTINCT ' if distinct else ''}{expr})"

    @staticmethod
    def _sql_json_field(column: str, key: str) -> str:
        """The value under key of the JSON object in column, as text (NULL when absent)."""
        return f"json_extract({column}, '$.{key}')"

    @staticmethod
    def _sql_contains(text: str, part: str) -> str:
        """Whether part occurs in text."""
        return f"instr({text}, {part}) > 0"

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
        keep_sections = False
        if doc_id is None:
            doc_id = db.execute(
                "INSERT INTO documents (path, title, kind, date, frontmatter, tags, content_hash, size, mtime,"
                " body_offset, owner, visibility, sensitivity, indexed_at, mentions_stale)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1) RETURNING id",
                values,
            ).fetchone()[0]
        else:
            keep_sections = self._same_sections(doc, doc_id)
            if keep_sections:
                self._clear_document_rows(doc_id)
            else:
                self._clear_document_content(doc_id)
            db.execute(
                "UPDATE documents SET path = ?, title = ?, kind = ?, date = ?, frontmatter = ?, tags = ?,"
                " content_hash = ?, size = ?, mtime = ?, body_offset = ?, owner = ?, visibility = ?,"
                " sensitivity = ?, indexed_at = ?, mentions_stale = 1 WHERE id = ?",
                (*values, doc_id),
            )
        db.executemany(
            "INSERT INTO document_tags (doc_id, tag) VALUES (?, ?) ON CONFLICT DO NOTHING",
            [(doc_id, t) for t in doc.tags],
        )
        if not keep_sections:
            self._write_sections(doc, doc_id)
        db.executemany(
            "INSERT INTO links (doc_id, target, alias, start, \"end\", kind) VALUES (?, ?, ?, ?, ?, ?)",
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
        db.executemany(
            "INSERT INTO page_relation_lines (doc_id, line, ordinal, source, type, target, reason,"
            " valid_until, problem, valid_from, context) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (doc_id, line, ordinal) DO UPDATE SET source = excluded.source, type = excluded.type,"
            " target = excluded.target, reason = excluded.reason, valid_until = excluded.valid_until,"
            " problem = excluded.problem, valid_from = excluded.valid_from, context = excluded.context",
            [(doc_id, r.line, r.ordinal, r.source, r.type, r.target, r.reason, r.valid_until, r.problem,
              r.valid_from, r.context) for r in doc.relation_lines],
        )
        return doc_id

    def _write_sections(self, doc: ParsedDocument, doc_id: int) -> None:
        """A document's chunks, and the full-text rows that find them and the document."""
        db = self.db
        db.executemany(
            "INSERT INTO chunks (doc_id, key, ordinal, heading, start, \"end\", line, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(doc_id, c.key, c.ordinal, " > ".join(c.heading_path), c.start, c.end, c.line, c.text) for c in doc.chunks],
        )
        db.execute(
            "INSERT INTO chunk_fts (rowid, title, heading, body)"
            " SELECT id, ?, heading, text FROM chunks WHERE doc_id = ?",
            (doc.title, doc_id),
        )
        text = doc_fts_text(db, doc_id)
        if text is not None:  # a document with no section has nothing a hit could show
            db.execute("INSERT INTO doc_fts (rowid, title, headings, body) VALUES (?, ?, ?, ?)",
                       (doc_id, doc.title, *text))

    def _forget_sections_text(self, doc_id: int) -> None:
        """Drop the full-text rows of a document and of its chunks (which are still there)."""
        db = self.db
        db.execute("DELETE FROM chunk_fts WHERE rowid IN (SELECT id FROM chunks WHERE doc_id = ?)", (doc_id,))
        # A contentless index forgets a row only when given back exactly the text it was given.
        text = doc_fts_text(db, doc_id)
        if text is not None:
            db.execute("INSERT INTO doc_fts (doc_fts, rowid, title, headings, body) SELECT 'delete', id, title, ?, ?"
                       " FROM documents WHERE id = ?", (*text, doc_id))

    def _same_sections(self, doc: ParsedDocument, doc_id: int) -> bool:
        """Whether the stored document has this title and the same sections (key, heading, text, in
        order); their positions in the file are brought up to date. Then its chunks, their full-text
        rows and vectors stay as they are: a re-read that changes no section (`kbg index --full`, a
        setting that does not touch chunking, a frontmatter edit) skips the FTS5 deletes and inserts,
        which re-tokenise every section and took a third of the time of writing a document."""
        db = self.db
        stored_title = db.execute("SELECT title FROM documents WHERE id = ?", (doc_id,)).fetchone()
        if stored_title is None or stored_title[0] != doc.title:
            return False
        stored = db.execute("SELECT id, key, ordinal, heading, text, start, \"end\", line FROM chunks"
                            " WHERE doc_id = ? ORDER BY ordinal, id", (doc_id,)).fetchall()
        if len(stored) != len(doc.chunks) or any(
            row[1:5] != (c.key, c.ordinal, " > ".join(c.heading_path), c.text) for row, c in zip(stored, doc.chunks)
        ):
            return False
        db.executemany("UPDATE chunks SET start = ?, \"end\" = ?, line = ? WHERE id = ?",
                       [(c.start, c.end, c.line, row[0]) for row, c in zip(stored, doc.chunks)
                        if row[5:] != (c.start, c.end, c.line)])
        return True

    def _clear_document_content(self, doc_id: int) -> None:
        self._forget_sections_text(doc_id)
        self._bump_vectors()  # its chunks' vectors go with them: the cached matrix and the similar stage must see it
        self._clear_document_rows(doc_id)
        self.db.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))

    def _clear_document_rows(self, doc_id: int) -> None:
        """What a document's parse gives besides its sections (its mentions are found again)."""
        for table in ("mentions", "document_tags", "links", "entity_claims", "page_relation_lines"):
            self.db.execute(f"DELETE FROM {table} WHERE doc_id = ?", (doc_id,))

    def touch_document(self, doc_id: int, size: int, mtime: float) -> None:
        self.db.execute("UPDATE documents SET size = ?, mtime = ? WHERE id = ?", (size, mtime, doc_id))

    def delete_document(self, doc_id: int) -> None:
        # What only this document said is no longer said; decided suggestions keep their sentences.
        self.db.execute("DELETE FROM suggestion_evidence WHERE doc_id = ? AND suggestion_id IN"
                        " (SELECT id FROM suggestions WHERE status = 'pending')", (doc_id,))
        self.drop_unstated_suggestions()
        self._clear_document_content(doc_id)
        self.db.execute("DELETE FROM documents WHERE id = ?", (doc_id,))

    def get_document(self, access: Access, doc_id: int | None = None, path: str | None = None) -> dict | None:
        column, value = ("id", doc_id) if doc_id is not None else ("path", path)
        readable, params = access_sql("d", access)
        row = self.db.execute(
            f"SELECT {_DOC_COLUMNS}, d.frontmatter, d.content_hash, d.body_offset, d.sensitivity"
            f" FROM documents d WHERE d.{column} = ? AND {readable}",
            (value, *params),
        ).fetchone()
        if row is None:
            return None
        doc = _doc_row(row)
        doc.update(frontmatter=json.loads(row[11]), content_hash=row[12], body_offset=row[13], sensitivity=row[14])
        return doc

    def document_chunks(self, access: Access, doc_id: int) -> list[dict]:
        readable, params = access_sql("d", access)
        rows = self.db.execute(
            "SELECT c.id, c.key, c.ordinal, c.heading, c.start, c.\"end\", c.line, c.text FROM chunks c"
            f" JOIN documents d ON d.id = c.doc_id WHERE c.doc_id = ? AND {readable} ORDER BY c.ordinal",
            (doc_id, *params),
        )
        keys = ("id", "key", "ordinal", "heading", "start", "end", "line", "text")
        return [dict(zip(keys, r)) for r in rows]

    def list_documents(self, access: Access, flt: DocFilter, limit: int | None = None) -> list[dict]:
        where, params = _doc_filter_sql(flt)
        readable, extra = access_sql("d", access)
        where, params = f"{where} AND {readable}", [*params, *extra]
        sql = f"SELECT {_DOC_COLUMNS} FROM documents d WHERE {where} ORDER BY d.date IS NULL, d.date DESC, d.path"
        if limit:
            sql += " LIMIT ?"
            params.append(limit)
        return [_doc_row(r) for r in self.db.execute(sql, params)]

    def all_claims(self) -> list[EntityClaim]:
        """Every document's claims, plus entities a user asserted and the ends of user relations (doc id 0)."""
        rows = self.db.execute(
            "SELECT c.doc_id, d.path, c.type, c.name, c.aliases, c.role, c.field, c.attributes"
            " FROM entity_claims c JOIN documents d ON d.id = c.doc_id"
            " UNION ALL SELECT 0, '', type, name, '[]', 'asserted', NULL, '{}' FROM asserted_entities"
            " UNION ALL SELECT 0, '', e.type, e.name, '[]', 'asserted', NULL, '{}' FROM entities e"
            " WHERE EXISTS (SELECT 1 FROM relations r WHERE r.source_id = e.id AND r.origin = 'user')"
            " OR EXISTS (SELECT 1 FROM relations r WHERE r.target_id = e.id AND r.origin = 'user')"
            " ORDER BY 2, 1"
        )
        # Most claims have no aliases and no attributes: reading every claim is a write's re-read's
        # largest cost, and decoding "[]" and "{}" was half of it.
        return [
            EntityClaim(r[0], r[1], r[2], r[3], () if r[4] == "[]" else tuple(json.loads(r[4])), r[5], r[6],
                        {} if r[7] == "{}" else json.loads(r[7]))
            for r in rows
        ]

    def sync_entities(self, records: list[EntityRecord], names: list[EntityName], now: str) -> EntitySync:
        """Write records (ids kept by key) and replace every entity's names; the entities no record
        keeps are returned, not deleted: the caller moves what must outlive them, then delete_entities."""
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
        db.execute("DELETE FROM entity_pages")
        db.executemany(
            "INSERT INTO entity_pages (doc_id, entity_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
            [(doc_id, ids[rec.key]) for rec in records for doc_id in rec.page_docs],
        )
        db.execute("DELETE FROM entity_names")
        db.executemany(
            "INSERT INTO entity_names (entity_id, key, name, kind, loose) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            [(ids[n.entity_key], n.key, n.surface, n.kind, n.loose) for n in names],
        )
        return EntitySync(ids, {key: old[0] for key, old in existing.items()})

    def set_entity_governance(self, entity_id: int, owner: str | None, visibility: str, sensitivity: str) -> None:
        self.db.execute("UPDATE entities SET owner = ?, visibility = ?, sensitivity = ? WHERE id = ?",
                        (owner, visibility, sensitivity, entity_id))

    def delete_entities(self, entity_ids: list[int], now: str) -> None:
        """Remove entities; the relations that go with them are kept in history as removed."""
        for entity_id in entity_ids:
            self._record_history("(r.source_id = ? OR r.target_id = ?)", [entity_id, entity_id], now, "removed",
                                 ended=False)
        self.db.executemany("DELETE FROM entities WHERE id = ?", [(i,) for i in entity_ids])

    def entity_ids_by_key(self) -> dict[str, int]:
        return dict(self.db.execute("SELECT key, id FROM entities"))

    def entity_forms(self) -> list[tuple[int, str, str]]:
        return list(self.db.execute("SELECT entity_id, name, kind FROM entity_names ORDER BY entity_id"))

    def docs_for_mentions(self, all_docs: bool) -> Iterator[dict]:
        """Documents to scan, each with its chunks and links, read in three streaming queries."""
        where = "" if all_docs else "WHERE d.mentions_stale = 1"
        docs = self.db.execute(f"SELECT d.id, d.body_offset, d.path, d.kind FROM documents d {where} ORDER BY d.id")
        chunks = self.db.execute(
            f"SELECT c.doc_id, c.id, c.start, c.text FROM chunks c JOIN documents d ON d.id = c.doc_id {where}"
            " ORDER BY c.doc_id, c.ordinal"
        )
        links = self.db.execute(
            f"SELECT l.doc_id, l.target, l.alias, l.start, l.\"end\", l.kind FROM links l"
            f" JOIN documents d ON d.id = l.doc_id {where} ORDER BY l.doc_id, l.start"
        )
        chunk_groups = _grouped(chunks)
        link_groups = _grouped(links)
        for doc_id, body_offset, path, kind in docs.fetchall():
            yield {"id": doc_id, "body_offset": body_offset, "path": path, "kind": kind,
                   "chunks": chunk_groups(doc_id), "links": link_groups(doc_id)}

    def count_docs_for_mentions(self, all_docs: bool) -> int:
        where = "" if all_docs else "WHERE mentions_stale = 1"
        return self.db.execute(f"SELECT count(*) FROM documents {where}").fetchone()[0]

    def replace_mentions(self, batch: list[tuple[int, list[tuple[int | None, Mention]]]]) -> None:
        """Replace the mentions of each document in batch and mark it scanned."""
        ids = [(doc_id,) for doc_id, _ in batch]
        self.db.executemany("DELETE FROM mentions WHERE doc_id = ?", ids)
        self.db.executemany(
            "INSERT INTO mentions (entity_id, doc_id, chunk_id, start, \"end\", surface, kind) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(m.entity_id, doc_id, chunk_id, m.start, m.end, m.surface, m.kind)
             for doc_id, found in batch for chunk_id, m in found],
        )
        self.db.executemany("UPDATE documents SET mentions_stale = 0 WHERE id = ?", ids)

    def mentioned_entities(self, doc_ids: list[int]) -> set[int]:
        """The entities the documents' stored mentions name."""
        out: set[int] = set()
        for part in _parts(doc_ids):
            out.update(r[0] for r in self.db.execute(
                f"SELECT DISTINCT entity_id FROM mentions WHERE doc_id IN ({_marks(part)})", part))
        return out

    def refresh_entity_stats(self, tier_thresholds: tuple[tuple[int, int], ...],
                             entity_ids: list[int] | None = None) -> None:
        """Mention counts, documents, first and last dates and tiers, from the mentions: of every entity, or of
        entity_ids only (those whose mentions a run changed: the others' would come out as they are)."""
        if entity_ids is None:
            self._refresh_entity_stats(tier_thresholds, "", "", [])
        for part in _parts(entity_ids or []):
            self._refresh_entity_stats(tier_thresholds, f"WHERE m.entity_id IN ({_marks(part)})",
                                       f"WHERE e.id IN ({_marks(part)})", part)

    def _refresh_entity_stats(self, tier_thresholds: tuple[tuple[int, int], ...], mentions_where: str,
                              entities_where: str, ids: list[int]) -> None:
        (high, high_tier), (mid, mid_tier) = tier_thresholds
        self.db.execute(
            f"""
            WITH stats AS (
                SELECT m.entity_id, count(*) AS n, count(DISTINCT m.doc_id) AS docs,
                       min(d.date) AS first_date, max(d.date) AS last_date
                FROM mentions m JOIN documents d ON d.id = m.doc_id {mentions_where} GROUP BY m.entity_id
            )
            UPDATE entities SET
                mention_count = coalesce(s.n, 0),
                doc_count = coalesce(s.docs, 0),
                first_mentioned = s.first_date,
                last_mentioned = s.last_date,
                tier = CASE WHEN coalesce(s.n, 0) >= ? THEN ? WHEN coalesce(s.n, 0) >= ? THEN ? ELSE 1 END
            FROM (SELECT e.id, stats.n, stats.docs, stats.first_date, stats.last_date
                  FROM entities e LEFT JOIN stats ON stats.entity_id = e.id {entities_where}) AS s
            WHERE s.id = entities.id
            """,
            (*ids, high, high_tier, mid, mid_tier, *ids),
        )

    def entities_by_name_key(self, access: Access, key: str) -> list[Entity]:
        readable, params = access_sql("e", access)
        columns, page, shown = entity_columns(access)
        rows = self.db.execute(
            f"SELECT DISTINCT {columns}, n.kind FROM entity_names n JOIN entities e ON e.id = n.entity_id"
            f" {page} WHERE n.key = ? AND {readable} ORDER BY mentions_read DESC, e.name",
            (*shown, key, *params),
        )
        return [_entity_row(r) for r in rows]

    def known_name_keys(self, keys: list[str]) -> set[str]:
        """Those of keys that some entity's name, alias or first name has."""
        out: set[str] = set()
        for start in range(0, len(keys), 500):
            part = keys[start:start + 500]
            out.update(r[0] for r in self.db.execute(
                f"SELECT DISTINCT key FROM entity_names WHERE key IN ({','.join('?' * len(part))})", part))
        return out

    def keys_by_loose_key(self, loose_keys: list[str]) -> dict[str, set[str]]:
        """Loose key -> the name keys spelled that way, for those of loose_keys some entity has."""
        out: dict[str, set[str]] = {}
        for start in range(0, len(loose_keys), 500):
            part = loose_keys[start:start + 500]
            rows = self.db.execute(
                f"SELECT loose, key FROM entity_names WHERE loose IN ({','.join('?' * len(part))})", part)
            for loose, key in rows:
                out.setdefault(loose, set()).add(key)
        return out

    def name_kinds(self, key: str) -> list[tuple[int, str]]:
        return list(self.db.execute("SELECT entity_id, kind FROM entity_names WHERE key = ?", (key,)))

    def entity_surfaces(self, entity_id: int, kind: str) -> list[str]:
        """The spellings of one kind ("alias", "confirmed", ...) that name the entity, sorted."""
        return [r[0] for r in self.db.execute(
            "SELECT name FROM entity_names WHERE entity_id = ? AND kind = ? ORDER BY name", (entity_id, kind))]

    def get_entity(self, access: Access, entity_id: int) -> Entity | None:
        readable, params = access_sql("e", access)
        columns, page, shown = entity_columns(access)
        row = self.db.execute(
            f"SELECT {columns} FROM entities e {page} WHERE e.id = ? AND {readable}", (*shown, entity_id, *params),
        ).fetchone()
        return _entity_row(row) if row else None

    def list_entities(self, access: Access, entity_type: str | None = None,
                      limit: int | None = None) -> list[Entity]:
        readable, params = access_sql("e", access)
        columns, page, shown = entity_columns(access)
        sql = f"SELECT {columns} FROM entities e {page} WHERE {readable}"
        params = [*shown, *params]
        if entity_type:
            sql += " AND e.type = ?"
            params.append(entity_type)
        sql += " ORDER BY e.type, mentions_read DESC, e.name"
        if limit:
            sql += " LIMIT ?"
            params.append(limit)
        return [_entity_row(r) for r in self.db.execute(sql, params)]

    def all_entity_names(self, access: Access, entity_type: str | None = None) -> list[tuple[int, str]]:
        readable, params = access_sql("e", access)
        sql = f"SELECT n.entity_id, n.name FROM entity_names n JOIN entities e ON e.id = n.entity_id WHERE {readable}"
        if entity_type:
            sql += " AND e.type = ?"
            params.append(entity_type)
        return list(self.db.execute(sql, params))

    def similar_entity_names(self, access: Access, key: str, entity_type: str | None = None,
                             limit: int = 5) -> list[NameMatch]:
        """The entities the access may read with a name or alias spelled like key (a folded name): each
        with its closest spelling, at least FUZZY_MIN_SIMILARITY alike by pg_trgm's trigram similarity
        (trigrams.py), closest first, then by name. Every readable name is scored in the query (no
        trigram index here), readable ones only, before the LIMIT."""
        self.db.create_function("kbg_trigram_similarity", 2, trigram_similarity, deterministic=True)
        readable, params = access_sql("e", access)
        kind = ""
        if entity_type:
            kind = " AND e.type = ?"
            params.append(entity_type)
        sql = ("SELECT entity_id, entity, name, sml FROM (SELECT entity_id, entity, name, sml, row_number() OVER"
               " (PARTITION BY entity_id ORDER BY sml DESC, name) AS pick FROM (SELECT n.entity_id, e.name AS entity,"
               " n.name, kbg_trigram_similarity(n.key, ?) AS sml FROM entity_names n JOIN entities e"
               f" ON e.id = n.entity_id WHERE {readable}{kind}) WHERE sml >= ?) WHERE pick = 1"
               " ORDER BY sml DESC, entity, entity_id LIMIT ?")
        rows = self.db.execute(sql, [key, *params, FUZZY_MIN_SIMILARITY, limit])
        return [NameMatch(r[0], r[1], r[2], r[3]) for r in rows]

    def entity_documents(self, access: Access, entity_id: int, limit: int | None = None) -> list[dict]:
        readable, extra = access_sql("d", access)
        sql = (
            f"SELECT {_DOC_COLUMNS}, count(*) AS mentions, min(m.start) AS first_start,"
            f" {self._sql_joined('m.kind', distinct=True)} AS kinds"
            f" FROM mentions m JOIN documents d ON d.id = m.doc_id WHERE m.entity_id = ? AND {readable}"
            " GROUP BY d.id ORDER BY d.date IS NULL, d.date, d.path"
        )
        params: list = [entity_id, *extra]
        if limit:
            sql += " LIMIT ?"
            params.append(limit)
        out = []
        for r in self.db.execute(sql, params):
            doc = _doc_row(r)
            doc.update(mentions=r[11], mention_kinds=sorted((r[13] or "").split(",")))
            out.append(doc)
        return out

    # --- relations ---------------------------------------------------------------

    def add_asserted_entity(self, entity_type: str, name: str, now: str) -> None:
        self.db.execute(
            "INSERT INTO asserted_entities (type, name, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            (entity_type, name, now),
        )

    def asserted_entities(self) -> list[dict]:
        rows = self.db.execute("SELECT type, name, created_at FROM asserted_entities ORDER BY type, name")
        return [{"type": r[0], "name": r[1], "created_at": r[2]} for r in rows]

    def get_relation(self, source_id: int, target_id: int, type_name: str) -> dict | None:
        rows = self._relation_rows("r.source_id = ? AND r.target_id = ? AND r.type = ?", [source_id, target_id, type_name])
        return rows[0] if rows else None

    def upsert_relation(self, rel: dict, now: str, bump: bool) -> dict:
        """Create a relation, or update reason/evidence/valid_until of the existing one (bumping strength)."""
        existing = self.get_relation(rel["source_id"], rel["target_id"], rel["type"])
        if existing is None:
            self.db.execute(
                "INSERT INTO relations (source_id, target_id, type, reason, source_doc_id, source_doc_path, confidence,"
                " origin, origin_doc_id, created_at, updated_at, valid_until, strength, inferred, owner, visibility,"
                " sensitivity, valid_from, context) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (rel["source_id"], rel["target_id"], rel["type"], rel.get("reason"), rel.get("source_doc_id"),
                 rel.get("source_doc_path"), rel.get("confidence", "manual"), rel.get("origin", "user"),
                 rel.get("origin_doc_id"), rel.get("created_at") or now, rel.get("updated_at") or now,
                 rel.get("valid_until"), rel.get("strength", 1), int(rel.get("inferred", False)),
                 rel.get("owner"), rel.get("visibility", "private"), rel.get("sensitivity", "normal"),
                 rel.get("valid_from"), rel.get("context")),
            )
        else:
            changed = ((rel.get("reason") is not None and rel.get("reason") != existing["reason"])
                       or rel.get("valid_until") != existing["valid_until"]
                       or rel.get("origin", existing["origin"]) != existing["origin"]
                       or rel.get("confidence", existing["confidence"]) != existing["confidence"])
            if changed:
                self._record_history("r.id = ?", [existing["id"]], rel.get("updated_at") or now, "edited", ended=False)
            self.db.execute(
                "UPDATE relations SET reason = coalesce(?, reason), source_doc_id = coalesce(?, source_doc_id),"
                " source_doc_path = coalesce(?, source_doc_path), valid_until = ?, updated_at = ?,"
                " strength = strength + ?, origin = ?, origin_doc_id = ?, confidence = ?,"
                " valid_from = coalesce(?, valid_from), context = coalesce(?, context) WHERE id = ?",
                (rel.get("reason"), rel.get("source_doc_id"), rel.get("source_doc_path"), rel.get("valid_until"),
                 rel.get("updated_at") or now, 1 if bump else 0, rel.get("origin", existing["origin"]),
                 rel.get("origin_doc_id", existing["origin_doc_id"]), rel.get("confidence", existing["confidence"]),
                 rel.get("valid_from"), rel.get("context"), existing["id"]),
            )
        return self.get_relation(rel["source_id"], rel["target_id"], rel["type"])

    def set_page_origin(self, relation_id: int, reason: str | None, valid_until: str | None, origin_doc_id: int,
                        now: str, valid_from: str | None = None, context: str | None = None) -> None:
        """Make a relation the page line's: its reason, valid time and context exactly as the line says."""
        differs = [_differs(f"r.{column}", value) for column, value in
                   (("reason", reason), ("valid_until", valid_until), ("valid_from", valid_from), ("context", context))]
        self._record_history(f"r.id = ? AND ({' OR '.join(sql for sql, _ in differs)} OR r.origin != 'page')",
                             [relation_id, *(p for _, params in differs for p in params)], now, "edited", ended=False)
        self.db.execute(
            "UPDATE relations SET reason = ?, valid_until = ?, valid_from = ?, context = ?, origin = 'page',"
            " origin_doc_id = ?, updated_at = ?, source_doc_id = coalesce(source_doc_id, ?) WHERE id = ?",
            (reason, valid_until, valid_from, context, origin_doc_id, now, origin_doc_id, relation_id),
        )

    def restore_relation(self, rel: dict) -> None:
        """Write a relation exactly as exported (dates and strength included), replacing any current row."""
        self.db.execute(
            "INSERT INTO relations (source_id, target_id, type, reason, source_doc_id, source_doc_path, confidence,"
            " origin, origin_doc_id, created_at, updated_at, valid_until, strength, inferred, owner, visibility,"
            " sensitivity, valid_from, context) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (source_id, target_id, type) DO UPDATE SET reason = excluded.reason,"
            " source_doc_id = excluded.source_doc_id, source_doc_path = excluded.source_doc_path,"
            " confidence = excluded.confidence, origin = excluded.origin, origin_doc_id = excluded.origin_doc_id,"
            " created_at = excluded.created_at, updated_at = excluded.updated_at, valid_until = excluded.valid_until,"
            " strength = excluded.strength, inferred = excluded.inferred, owner = excluded.owner,"
            " visibility = excluded.visibility, sensitivity = excluded.sensitivity, valid_from = excluded.valid_from,"
            " context = excluded.context",
            (rel["source_id"], rel["target_id"], rel["type"], rel.get("reason"), rel.get("source_doc_id"),
             rel.get("source_doc_path"), rel.get("confidence") or "manual", rel["origin"], rel.get("origin_doc_id"),
             rel["created_at"], rel["updated_at"], rel.get("valid_until"), int(rel.get("strength") or 1),
             int(bool(rel.get("inferred"))), rel.get("owner"), rel.get("visibility") or "private",
             rel.get("sensitivity") or "normal", rel.get("valid_from"), rel.get("context")),
        )

    def relation_by_id(self, relation_id: int) -> dict | None:
        rows = self._relation_rows("r.id = ?", [relation_id])
        return rows[0] if rows else None

    def repoint_relation(self, relation_id: int, source_id: int, target_id: int, now: str) -> None:
        self._record_history("r.id = ?", [relation_id], now, "moved", ended=False)
        self.db.execute("UPDATE relations SET source_id = ?, target_id = ?, updated_at = ? WHERE id = ?",
                        (source_id, target_id, now, relation_id))

    def reduce_strength(self, relation_id: int, by: int) -> None:
        self.db.execute("UPDATE relations SET strength = CASE WHEN strength - ? < 1 THEN 1 ELSE strength - ? END"
                        " WHERE id = ?", (by, by, relation_id))

    def absorb_relation(self, relation_id: int, strength: int, created_at: str, reason: str | None,
                        now: str) -> None:
        """Fold a twin's evidence into a relation: strengths add, the earlier creation stays, a reason fills a gap."""
        self.db.execute(
            "UPDATE relations SET strength = strength + ?,"
            " created_at = CASE WHEN ? < created_at THEN ? ELSE created_at END,"
            " reason = coalesce(reason, ?), updated_at = ? WHERE id = ?",
            (strength, created_at, created_at, reason, now, relation_id),
        )

    def relations_from(self, access: Access, entity_id: int, direction: str, type_name: str | None,
                       active_on: str | None, limit: int | None) -> list[dict]:
        """One direction of an entity's relations ("out": it is the source), active ones only when
        active_on is a date, at most limit rows in (type, id) order."""
        column = "r.source_id" if direction == "out" else "r.target_id"
        # Without statistics SQLite may prefer the type index and walk every relation of a type.
        index = "relations_source_type" if direction == "out" else "relations_target_type"
        clauses, params = [f"{column} = ?"], [entity_id]
        if type_name:
            clauses.append("r.type = ?")
            params.append(type_name)
        if active_on:
            clauses.append("(r.valid_until IS NULL OR r.valid_until >= ?)")
            params.append(active_on)
        clauses, params = self._readable_relations(access, clauses, params)
        where = " AND ".join(clauses)
        page = f" ORDER BY r.type, r.id LIMIT {int(limit)}" if limit else ""
        return self._relation_rows(
            f"r.id IN (SELECT r.id FROM relations r {self._sql_index_hint(index)} {_RELATION_ENDS}"
            f" WHERE {where}{page})",
            params)

    @staticmethod
    def _readable_relations(access: Access, clauses: list[str], params: list) -> tuple[list[str], list]:
        """The access rule on a relation and on both of its ends (aliases r, s, t), added to clauses."""
        for alias in ("r", "s", "t"):
            clause, extra = access_sql(alias, access)
            clauses, params = [*clauses, clause], [*params, *extra]
        return clauses, params

    def relation_counts(self, access: Access, entity_id: int, active_on: str | None) -> dict[tuple[str, str], int]:
        """(direction, type) -> how many relations an entity has that the access may read."""
        out: dict[tuple[str, str], int] = {}
        for direction, column in (("out", "r.source_id"), ("in", "r.target_id")):
            clauses, params = [f"{column} = ?"], [entity_id]
            if active_on:
                clauses.append("(r.valid_until IS NULL OR r.valid_until >= ?)")
                params.append(active_on)
            clauses, params = self._readable_relations(access, clauses, params)
            rows = self.db.execute(f"SELECT r.type, count(*) FROM relations r {_RELATION_ENDS}"
                                   f" WHERE {' AND '.join(clauses)} GROUP BY r.type", params)
            out.update({(direction, t): n for t, n in rows})
        return out

    def relations_touching(self, entity_id: int) -> list[dict]:
        return self._relation_rows("(r.source_id = ? OR r.target_id = ?)", [entity_id, entity_id])

    def relations_of_type(self, access: Access, type_name: str | None) -> list[dict]:
        if type_name is None:
            return self._relation_rows(EVERY_ROW, [], access)
        return self._relation_rows("r.type = ?", [type_name], access)

    def page_relations(self) -> list[dict]:
        # A page that was deleted leaves origin_doc_id NULL: its relations are still the pages' to drop.
        return self._relation_rows("r.origin = 'page'", [])

    def _relation_rows(self, where: str, params: list, access: Access | None = None) -> list[dict]:
        if access is not None:  # the reader's filter, on the relation and on both of its ends
            for alias in ("r", "s", "t"):
                clause, extra = access_sql(alias, access)
                where, params = f"{where} AND {clause}", [*params, *extra]
        sql = (
            "SELECT r.id, r.source_id, s.name, s.type, r.target_id, t.name, t.type, r.type, r.reason,"
            " coalesce(sd.path, r.source_doc_path), r.confidence, r.origin, r.origin_doc_id, od.path,"
            " r.created_at, r.updated_at, r.valid_until, r.strength, r.inferred, r.owner, r.visibility,"
            " r.sensitivity, r.valid_from, r.context, sd.date"
            " FROM relations r JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id"
            " LEFT JOIN documents sd ON sd.id = r.source_doc_id LEFT JOIN documents od ON od.id = r.origin_doc_id"
            f" WHERE {where} ORDER BY r.type, s.name, t.name"
        )
        return [dict(zip(_RELATION_KEYS, row)) for row in self.db.execute(sql, params)]

    # relation history: nothing a user asserted is hard-deleted; a version that stops is kept here

    def _record_history(self, where: str, params: list, now: str, change: str, ended: bool) -> None:
        """Copy the relations matching where into relation_history as superseded at now. ended: the
        relation stopped being true now (its valid_until becomes now's date, unless it ended earlier)."""
        # ended: the earlier of its own end and now's date
        until = ("CASE WHEN r.valid_until < substr(?, 1, 10) THEN r.valid_until ELSE substr(?, 1, 10) END" if ended
                 else "r.valid_until")
        self.db.execute(
            "INSERT INTO relation_history (relation_id, source_key, source_type, source_name, target_key,"
            " target_type, target_name, type, reason, source_doc_path, confidence, origin, strength, inferred,"
            " valid_from, valid_until, recorded_at, superseded_at, change, owner, visibility, sensitivity)"
            f" SELECT r.id, s.key, s.type, s.name, t.key, t.type, t.name, r.type, r.reason,"
            f" coalesce(sd.path, r.source_doc_path), r.confidence, r.origin, r.strength, r.inferred, r.valid_from,"
            f" {until}, {_VERSION_START}, ?, ?, r.owner, r.visibility, r.sensitivity"
            " FROM relations r JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id"
            f" LEFT JOIN documents sd ON sd.id = r.source_doc_id WHERE {where}",
            [*([now, now] if ended else []), now, change, *params],
        )

    def end_relation(self, relation_id: int, now: str, change: str = "ended") -> None:
        """The relation stops: its last version goes to history (valid until now, superseded now), and it
        leaves the current relations. change: ended (unrelated, or its page line removed) or merged."""
        self._record_history("r.id = ?", [relation_id], now, change, ended=change == "ended")
        self.db.execute("DELETE FROM relations WHERE id = ?", (relation_id,))

    def relations_as_of(self, access: Access, entity_id: int | None, direction: str, type_name: str | None,
                        valid_at: str, known_at: str | None = None) -> list[RelationVersion]:
        """An entity's relations (entity_id None: every relation) true on valid_at (a date), as kbgraph
        knew them at known_at (a timestamp; None: now). A version is true from valid_from (unknown: from
        when it was recorded) to valid_until."""
        column = "source" if direction == "out" else "target"
        if entity_id is None:  # the whole graph as it was
            end_clause, end_params = EVERY_ROW, []
        else:
            key = self.db.execute("SELECT key FROM entities WHERE id = ?", (entity_id,)).fetchone()
            if key is None:
                return []
            end_clause, end_params = f"h.{column}_key = ?", [key[0]]
        known = known_at or "9999"
        clause, params = _readable_version(access)
        type_clause = "AND h.type = ?" if type_name else ""
        type_params = [type_name] if type_name else []
        sql = f"""
            WITH versions AS (
                SELECT r.id AS relation_id, s.key AS source_key, s.type AS source_type, s.name AS source_name,
                       t.key AS target_key, t.type AS target_type, t.name AS target_name, r.type, r.reason,
                       r.valid_from, r.valid_until, {_VERSION_START} AS recorded_at, NULL AS superseded_at,
                       'current' AS change, r.owner, r.visibility, r.sensitivity, r.created_at AS first_recorded
                FROM relations r JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id
                UNION ALL
                SELECT relation_id, source_key, source_type, source_name, target_key, target_type, target_name,
                       type, reason, valid_from, valid_until, recorded_at, superseded_at, change, owner, visibility,
                       sensitivity, (SELECT min(x.recorded_at) FROM relation_history x
                                     WHERE x.relation_id = relation_history.relation_id) AS first_recorded
                FROM relation_history WHERE change IN ('ended', 'removed', 'edited')
            )
            SELECT * FROM versions h
            WHERE {end_clause} {type_clause} AND {clause}
              AND coalesce(h.valid_from, substr(h.first_recorded, 1, 10)) <= ?
              AND coalesce({_UNTIL_AS_KNOWN}, ?) >= ?
              AND h.recorded_at <= ? AND (h.superseded_at IS NULL OR h.superseded_at > ? OR h.change = 'ended')
            ORDER BY h.type, h.source_name, h.target_name
        """
        rows = self.db.execute(sql, [*end_params, *type_params, *params, valid_at, known, valid_at, valid_at, known,
                                     known])
        return [_relation_version(row) for row in rows]

    def first_relation_record(self) -> str | None:
        """When kbgraph first recorded any relation (a timestamp), or None when it has none."""
        row = self.db.execute("SELECT min(t) FROM (SELECT min(created_at) AS t FROM relations"
                              " UNION ALL SELECT min(recorded_at) FROM relation_history) AS firsts").fetchone()
        return row[0]

    def relation_history(self, access: Access, entity_id: int | None = None) -> list[RelationVersion]:
        """Every superseded version (of relations touching entity_id, or all), oldest change first."""
        clause, params = _readable_version(access)
        where = clause
        if entity_id is not None:
            key = self.db.execute("SELECT key FROM entities WHERE id = ?", (entity_id,)).fetchone()
            if key is None:
                return []
            where += " AND (h.source_key = ? OR h.target_key = ?)"
            params += [key[0], key[0]]
        rows = self.db.execute(
            "SELECT relation_id, source_key, source_type, source_name, target_key, target_type, target_name, type,"
            " reason, valid_from, valid_until, recorded_at, superseded_at, change, owner, visibility, sensitivity"
            f" FROM relation_history h WHERE {where} ORDER BY h.superseded_at, h.id", params)
        return [_relation_version((*row, None)) for row in rows]

    def history_rows(self) -> list[dict]:
        """relation_history as stored, for export."""
        cursor = self.db.execute("SELECT * FROM relation_history ORDER BY id")
        names = [c[0] for c in cursor.description]
        return [dict(zip(names, row)) for row in cursor]

    def restore_history(self, rows: list[dict]) -> int:
        """Add exported history rows not present yet (same relation, version and change); returns how many."""
        added = 0
        for row in rows:
            values = {k: row.get(k) for k in _HISTORY_COLUMNS}
            present = self.db.execute(
                "SELECT 1 FROM relation_history WHERE source_key = ? AND target_key = ? AND type = ?"
                " AND recorded_at = ? AND superseded_at = ? AND change = ?",
                (values["source_key"], values["target_key"], values["type"], values["recorded_at"],
                 values["superseded_at"], values["change"])).fetchone()
            if present:
                continue
            self.db.execute(
                f"INSERT INTO relation_history ({', '.join(_HISTORY_COLUMNS)})"
                f" VALUES ({', '.join('?' * len(_HISTORY_COLUMNS))})", [values[k] for k in _HISTORY_COLUMNS])
            added += 1
        return added

    def page_relation_lines(self) -> list[dict]:
        rows = self.db.execute(
            "SELECT l.doc_id, d.path, l.line, l.type, l.target, l.reason, l.valid_until, l.problem, l.source,"
            " l.valid_from, l.context, d.date"
            " FROM page_relation_lines l JOIN documents d ON d.id = l.doc_id ORDER BY d.path, l.line, l.ordinal"
        )
        keys = ("doc_id", "path", "line", "type", "target", "reason", "valid_until", "problem", "source",
                "valid_from", "context", "doc_date")
        return [dict(zip(keys, r)) for r in rows]

    def page_entity_ids(self) -> dict[int, tuple[int, str, str]]:
        """Document id -> (entity id, name, type) of the entity whose page it is (merged pages included)."""
        rows = self.db.execute(
            "SELECT p.doc_id, e.id, e.name, e.type FROM entity_pages p JOIN entities e ON e.id = p.entity_id"
        )
        return {r[0]: (r[1], r[2], r[3]) for r in rows}

    def entity_page_paths(self, access: Access, entity_id: int) -> list[str]:
        """The paths of every page of the entity the reader may see (its own, and those merged into it
        or linked to it by `same_as:`), sorted."""
        readable, params = access_sql("d", access)
        return [r[0] for r in self.db.execute(
            "SELECT d.path FROM entity_pages p JOIN documents d ON d.id = p.doc_id"
            f" WHERE p.entity_id = ? AND {readable} ORDER BY d.path", [entity_id, *params])]

    # --- merges --------------------------------------------------------------------

    def merges(self) -> list[Merge]:
        rows = self.db.execute(
            "SELECT from_key, from_type, from_name, into_key, into_type, into_name FROM entity_merges ORDER BY id"
        )
        return [Merge(*r) for r in rows]

    def merge_record(self, from_key: str) -> dict | None:
        row = self.db.execute("SELECT from_key, from_type, from_name, into_key, into_type, into_name, moved_relations,"
                              " created_at FROM entity_merges WHERE from_key = ?", (from_key,)).fetchone()
        if row is None:
            return None
        undo = json.loads(row[6])
        if isinstance(undo, list):  # written before unmerge existed: the moved ids, ends unknown
            undo = {"moved": [{"id": i, "ends": None} for i in undo], "collapsed": [], "dropped": []}
        return {"merge": Merge(*row[:6]), "undo": undo, "created_at": row[7]}

    def delete_merge(self, from_key: str) -> None:
        self.db.execute("DELETE FROM entity_merges WHERE from_key = ?", (from_key,))

    def merge_rows(self) -> list[dict]:
        rows = self.db.execute(
            "SELECT from_type, from_name, into_type, into_name, created_at FROM entity_merges ORDER BY id"
        )
        return [{"from": {"type": r[0], "name": r[1]}, "into": {"type": r[2], "name": r[3]}, "created_at": r[4]}
                for r in rows]

    def add_merge(self, merge: Merge, moved_relations: list[int] | dict, now: str) -> None:
        """Record a merge; moved_relations is move_relations()'s undo (an older index kept a list of ids)."""
        self.db.execute(
            "INSERT INTO entity_merges (from_key, from_type, from_name, into_key, into_type, into_name,"
            " moved_relations, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (merge.from_key, merge.from_type, merge.from_name, merge.into_key, merge.into_type, merge.into_name,
             json.dumps(moved_relations), now),
        )

    def entity_activity(self, access: Access) -> list[dict]:
        """Per entity: when it was last updated and last mentioned, by the dates notes carry (their
        frontmatter date or dated path). File times are never read: a fresh clone, a sync tool or
        kbgraph's own page writes change them, and an undated hub note would make everyone it names
        look active."""
        # "Updated" is an edit a person made: the entity page's `updated:` or date, or a relation they
        # asserted; not the index rebuilding the row.
        # A reader who may not read every row dates and counts by what it may read: the relations, the notes
        # that mention the entity, its page (entity_columns counts the mentions).
        readable, params = access_sql("e", access)
        relation_ok, relation_params = access_sql("r", access)
        mention_ok, mention_params = access_sql("d", access)
        page_ok, page_params = access_sql("p", access)
        count, count_params = mention_count_sql(access)
        rows = self.db.execute(
            f"""
            WITH touched AS (
                SELECT r.source_id AS id, r.updated_at FROM relations r WHERE r.origin = 'user' AND {relation_ok}
                UNION ALL SELECT r.target_id, r.updated_at FROM relations r WHERE r.origin = 'user' AND {relation_ok}
            ), asserted AS (
                SELECT id, max(substr(updated_at, 1, 10)) AS day FROM touched GROUP BY id
            ), mentioned AS (
                SELECT m.entity_id AS id, max(substr(d.date, 1, 10)) AS day
                FROM mentions m JOIN documents d ON d.id = m.doc_id
                JOIN entities e ON e.id = m.entity_id WHERE (e.page_doc_id IS NULL OR m.doc_id != e.page_doc_id)
                AND {mention_ok}
                GROUP BY m.entity_id
            ), days AS (
                SELECT e.id, e.type, e.name, {count} AS mention_count, mentioned.day AS mentioned_day,
                       coalesce({self._sql_json_field('p.frontmatter', 'updated')}, p.date, '') AS page_day,
                       coalesce(asserted.day, '') AS asserted_day
                FROM entities e LEFT JOIN documents p ON p.id = e.page_doc_id AND {page_ok}
                LEFT JOIN asserted ON asserted.id = e.id LEFT JOIN mentioned ON mentioned.id = e.id
                WHERE {readable}
            )
            SELECT id, type, name, mention_count, mentioned_day,
                   CASE WHEN asserted_day > page_day THEN asserted_day ELSE page_day END
            FROM days ORDER BY type, name
            """, [*relation_params, *relation_params, *mention_params, *count_params, *page_params, *params]
        )
        keys = ("id", "type", "name", "mention_count", "last_mentioned", "last_updated")
        return [{**dict(zip(keys, r)), "last_updated": r[5] or None} for r in rows]

    # --- suggestions ---------------------------------------------------------------

    def chunk_mentions(self, doc_id: int) -> tuple[list[tuple[int, int, str]], list[tuple[int, int, int, int]]]:
        """A document's chunks (id, start, text) and its in-text mentions (entity id, chunk id, start, end)."""
        chunks = self.db.execute("SELECT id, start, text FROM chunks WHERE doc_id = ? ORDER BY ordinal",
                                 (doc_id,)).fetchall()
        mentions = self.db.execute(
            "SELECT entity_id, chunk_id, start, \"end\" FROM mentions WHERE doc_id = ? AND chunk_id IS NOT NULL"
            " AND start IS NOT NULL ORDER BY start", (doc_id,)).fetchall()
        return chunks, mentions

    def mark_for_rescan(self, doc_ids: list[int] | None) -> None:
        """The next index run scans these documents (every one if None) for mentions and relations again."""
        if doc_ids is None:
            self.db.execute("UPDATE documents SET mentions_stale = 1")
        else:
            self.db.executemany("UPDATE documents SET mentions_stale = 1 WHERE id = ?", [(i,) for i in doc_ids])

    def replace_suggestion_evidence(self, doc_id: int, doc_path: str, found: list[dict], now: str,
                                    kind: str = "pattern") -> None:
        """Make doc's evidence of one kind equal to found (dicts: source_id or source_new, target_id or
        target_new, type, confidence, rule, start, end, sentence). Call drop_unstated_suggestions() once
        afterwards. *_new is "type:name" of an entity not known yet."""
        db = self.db
        db.execute("DELETE FROM suggestion_evidence WHERE doc_id = ? AND kind = ?", (doc_id, kind))
        db.execute("DELETE FROM suggestion_evidence WHERE doc_path = ? AND kind = ?", (doc_path, kind))
        for f in found:
            ends = (f.get("source_id"), f.get("source_new"), f.get("target_id"), f.get("target_new"), f["type"])
            db.execute(
                "INSERT INTO suggestions (source_id, source_new, target_id, target_new, type, confidence,"
                " rule, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (*ends, f["confidence"], f["rule"], now))
            same = [_same(column, value) for column, value in zip(_SUGGESTION_ENDS, ends)]
            db.execute(
                "INSERT INTO suggestion_evidence (suggestion_id, kind, doc_id, doc_path, start, \"end\", sentence)"
                f" SELECT id, ?, ?, ?, ?, ?, ? FROM suggestions WHERE {' AND '.join(sql for sql, _ in same)}"
                " ON CONFLICT DO NOTHING",
                (kind, doc_id, doc_path, f["start"], f["end"], f["sentence"], *(p for _, params in same for p in params)),
            )

    def drop_unstated_suggestions(self) -> None:
        """Pending suggestions that no evidence states any more are dropped (decided ones are kept)."""
        self.db.execute("DELETE FROM suggestions WHERE status = 'pending' AND NOT EXISTS"
                        " (SELECT 1 FROM suggestion_evidence e WHERE e.suggestion_id = suggestions.id)")

    def suggestions(self, access: Access, status: str | None = None, doc_path: str | None = None,
                    confidence: tuple[str, ...] = ("auto-high", "auto-low"), ids: tuple[int, ...] = ()) -> list[dict]:
        """The suggestions the access may read, oldest first. A reader of every row reads each with all its
        evidence; another reads those with evidence in a note it may read, with that evidence only (its
        strength, sentence and source document), as an index of only those notes would state them."""
        evidence, shown = "suggestion_evidence e WHERE e.suggestion_id = s.id", []
        clauses, params = [f"s.confidence IN ({','.join('?' * len(confidence))})"], list(confidence)
        if not access.sees_everything:
            readable, shown = access_sql("ed", access)
            evidence = ("suggestion_evidence e JOIN documents ed ON ed.id = e.doc_id"
                        f" WHERE e.suggestion_id = s.id AND {readable}")
            # a decided one whose notes are gone reads as it was stored
            own, extra = access_sql("s", access)
            clauses.append(f"(EXISTS (SELECT 1 FROM {evidence}) OR (NOT EXISTS (SELECT 1 FROM suggestion_evidence e"
                           f" WHERE e.suggestion_id = s.id AND e.doc_id IS NOT NULL) AND {own}))")
            params.extend([*shown, *extra])
            # together in fewer meetings than co-occurrence needs, as far as it may read: not suggested
            minimum = int(self.get_meta(COOCCURRENCE_MINIMUM) or 0)
            if minimum > 1:
                clauses.append(f"(s.rule <> 'co-occurrence' OR (SELECT count(*) FROM {evidence}) >= ?)")
                params.extend([*shown, minimum])
        for alias in ("a", "b"):  # each end that is an entity already
            clause, extra = access_sql(alias, access)
            clauses.append(f"({alias}.id IS NULL OR {clause})")
            params.extend(extra)
        if ids:
            clauses.append(f"s.id IN ({','.join('?' * len(ids))})")
            params.extend(ids)
        if status:
            clauses.append("s.status = ?")
            params.append(status)
        if status == "pending":  # what the graph already holds (as the access reads it) is not worth asking about
            held, extra = access_sql("r", access)
            clauses.append("NOT EXISTS (SELECT 1 FROM relations r WHERE r.source_id = s.source_id"
                           f" AND r.target_id = s.target_id AND r.type = s.type AND {held})")
            params.extend(extra)
        if doc_path:
            clauses.append(f"EXISTS (SELECT 1 FROM {evidence} AND e.doc_path = ?)")
            params.extend([*shown, doc_path])
        rows = self.db.execute(
            "SELECT s.id, s.type, s.confidence, s.rule, s.status, s.created_at, s.decided_at,"
            " a.id, coalesce(a.name, s.source_new), a.type, b.id, coalesce(b.name, s.target_new), b.type,"
            f" (SELECT count(*) FROM {evidence}),"
            f" (SELECT e.sentence FROM {evidence} ORDER BY e.doc_path LIMIT 1),"
            f" (SELECT e.doc_path FROM {evidence} ORDER BY e.doc_path LIMIT 1)"
            " FROM suggestions s LEFT JOIN entities a ON a.id = s.source_id LEFT JOIN entities b ON b.id = s.target_id"
            f" WHERE {' AND '.join(clauses)} ORDER BY s.id",
            [*shown, *shown, *shown, *params],
        )
        keys = ("id", "type", "confidence", "rule", "status", "created_at", "decided_at", "source_id", "source",
                "source_type", "target_id", "target", "target_type", "strength", "evidence", "source_doc")
        return [_suggestion_row(dict(zip(keys, r))) for r in rows]

    def get_suggestion(self, access: Access, suggestion_id: int) -> dict | None:
        found = [s for s in self.suggestions(access, ids=(suggestion_id,))]
        return found[0] if found else None

    def all_chunk_texts(self):
        """(document path, chunk text) of every chunk, streamed."""
        return self.db.execute("SELECT d.path, c.text FROM chunks c JOIN documents d ON d.id = c.doc_id"
                               " ORDER BY d.path, c.ordinal")

    def count_meetings(self, doc_ids: list[int]) -> int:
        if not doc_ids:
            return 0
        marks = ",".join("?" * len(doc_ids))
        return self.db.execute(f"SELECT count(*) FROM documents WHERE kind = 'meeting' AND id IN ({marks})",
                               doc_ids).fetchone()[0]

    def cooccurring_people(self, min_documents: int) -> list[tuple[int, int, list[tuple[int, str, str]]]]:
        """Pairs of people who attended at least min_documents meetings together, with those meetings (id,
        path, title and date). Attending is being listed in a meeting's attendees or participants
        frontmatter: a name in the text ("Alex and Ravi said ..." in a 1:1 of two others) is not."""
        listed = (f"lower(coalesce({self._sql_json_field('d.frontmatter', 'attendees')}, '') || ?"
                  f" || coalesce({self._sql_json_field('d.frontmatter', 'participants')}, ''))")
        rows = self.db.execute(
            f"""
            WITH present AS (
                SELECT DISTINCT m.doc_id, m.entity_id FROM mentions m
                JOIN entities e ON e.id = m.entity_id JOIN documents d ON d.id = m.doc_id
                WHERE e.type = 'person' AND d.kind = 'meeting' AND m.kind = 'frontmatter'
                  AND {self._sql_contains(listed, "lower(m.surface)")}
            )
            SELECT a.entity_id, b.entity_id, {self._sql_joined('a.doc_id')} FROM present a
            JOIN present b ON b.doc_id = a.doc_id AND a.entity_id < b.entity_id
            GROUP BY a.entity_id, b.entity_id HAVING count(*) >= ?
            """, ("\n", min_documents)).fetchall()  # a line between the two lists: no name spans them
        docs = {r[0]: (r[0], r[1], f"{r[2]} ({r[3]})" if r[3] else r[2])
                for r in self.db.execute("SELECT id, path, title, date FROM documents WHERE kind = 'meeting'")}
        return [(a, b, [docs[int(d)] for d in ids.split(",")]) for a, b, ids in rows]

    def replace_cooccurrence(self, pairs: list[tuple[int, int, list[tuple[int, str, str]]]], now: str,
                             minimum: int = 0) -> None:
        """Co-occurrence suggestions (collaborates-with, auto-low) become exactly pairs, found at minimum
        meetings together (kept: a reader who may read fewer of them is not suggested the pair)."""
        db = self.db
        self.set_meta(COOCCURRENCE_MINIMUM, str(minimum))
        db.execute("DELETE FROM suggestion_evidence WHERE kind = 'cooccurrence'")
        for a, b, meetings in pairs:
            db.execute("INSERT INTO suggestions (source_id, target_id, type, confidence, rule, created_at)"
                       " VALUES (?, ?, 'collaborates-with', 'auto-low', 'co-occurrence', ?) ON CONFLICT DO NOTHING",
                       (a, b, now))
            db.executemany(
                "INSERT INTO suggestion_evidence (suggestion_id, kind, doc_id, doc_path, start, \"end\", sentence)"
                " SELECT id, 'cooccurrence', ?, ?, 0, 0, ? FROM suggestions WHERE source_id = ? AND target_id = ?"
                " AND type = 'collaborates-with' ON CONFLICT DO NOTHING",
                [(doc_id, path, f"together in {title}", a, b) for doc_id, path, title in meetings])
        self.drop_unstated_suggestions()

    def suggestion_evidence(self, suggestion_id: int) -> list[dict]:
        rows = self.db.execute("SELECT doc_id, doc_path, start, \"end\", sentence FROM suggestion_evidence"
                               " WHERE suggestion_id = ? ORDER BY doc_path, start", (suggestion_id,))
        return [dict(zip(("doc_id", "doc_path", "start", "end", "sentence"), r)) for r in rows]

    def decide_suggestion(self, suggestion_id: int, status: str, now: str) -> None:
        self.db.execute("UPDATE suggestions SET status = ?, decided_at = ? WHERE id = ?", (status, now, suggestion_id))

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

    def compact_text_index(self) -> None:
        """Merge the full-text indexes' segments into one each. Rewriting many documents leaves FTS5
        with many segments and delete markers, which every keyword query then reads: after one
        re-read of the KEPs, section and document BM25 took twice as long (bench/RESULTS.md §16)."""
        with self.transaction():
            self.db.execute("INSERT INTO chunk_fts (chunk_fts) VALUES ('optimize')")
            self.db.execute("INSERT INTO doc_fts (doc_fts) VALUES ('optimize')")

    def size_on_disk(self) -> int:
        """Bytes the index takes: the database file and its write-ahead log (0 for one in memory)."""
        import os

        return sum(os.path.getsize(p) for p in (self.path, self.path + "-wal") if os.path.exists(p))

    def reclaim_space(self) -> int:
        """Give the space that deleted or shrunk documents freed back to the file system (space.py);
        returns the bytes the index shrank by."""
        return reclaim(self.db)

    def stats(self, access: Access = LOCAL) -> dict:
        """The index's counts as the access reads it: of the rows it may read (a chunk, mention or link
        by its document), so that a reader cannot tell that other notes exist."""
        def one(sql: str, alias: str, joined: tuple | list = ()):
            readable, params = access_sql(alias, access)
            return self.db.execute(f"{sql} WHERE {readable}", [*joined, *params]).fetchone()[0]

        docs, doc_params = access_sql("d", access)
        ents, ent_params = access_sql("e", access)
        kinds = dict(self.db.execute(f"SELECT d.kind, count(*) FROM documents d WHERE {docs}"
                                     " GROUP BY d.kind ORDER BY d.kind", doc_params))
        types = dict(self.db.execute(f"SELECT e.type, count(*) FROM entities e WHERE {ents}"
                                     " GROUP BY e.type ORDER BY e.type", ent_params))
        return {
            "documents": one("SELECT count(*) FROM documents d", "d"),
            "chunks": one("SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id", "d"),
            "entities": one("SELECT count(*) FROM entities e", "e"),
            "mentions": one("SELECT count(*) FROM mentions m JOIN documents d ON d.id = m.doc_id JOIN entities e"
                            f" ON e.id = m.entity_id AND {ents}", "d", ent_params),
            "relations": one("SELECT count(*) FROM relations r", "r"),
            "links": one("SELECT count(*) FROM links l JOIN documents d ON d.id = l.doc_id", "d"),
            # CAST: an int in both backends
            "bytes_indexed": one("SELECT CAST(coalesce(sum(d.size), 0) AS BIGINT) FROM documents d", "d"),
            "documents_by_kind": kinds,
            "entities_by_type": types,
            "last_indexed": self.get_meta("last_indexed"),
            "last_run_seconds": float(self.get_meta("last_run_seconds") or 0),
            "schema": [r[0] for r in self.db.execute("SELECT name FROM migrations ORDER BY id")],
        }


class SqliteStore(BackupQueries, CoreQueries, GovernanceQueries, TransferQueries, ResolutionQueries, VectorQueries, SearchQueries, DocGraphQueries, GraphQueries, ConflictQueries,
                  MemoryQueries, TokenQueries):
    """One index, safe to share between threads: each thread gets its own connection (opened on first
    use, with the same pragmas), so a transaction belongs to one thread's unit of work and nests only
    within that thread. Writers take the write lock up front (BEGIN IMMEDIATE) and wait for each other
    (busy_timeout); readers in WAL mode never wait. `:memory:` is one private in-memory database shared
    by the store's connections (SQLite's memdb VFS, which locks like a file), gone at close()."""

    read_only: Path | None = None  # the file or folder that keeps this process from writing the index

    def __init__(self, db: sqlite3.Connection, path: str, target: str | None = None):
        self.path = path
        self._target = target or path  # what each thread's connection opens
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: dict[threading.Thread, sqlite3.Connection] = {}
        self._first = db  # never pruned: it keeps an in-memory database alive until close()
        self._closed = False
        self._adopt(db)

    @property
    def db(self) -> sqlite3.Connection:
        """This thread's connection."""
        db = getattr(self._local, "db", None)
        if db is None:
            if self._closed:
                raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
            db = self._adopt(_connect(self._target))
        return db

    def _adopt(self, db: sqlite3.Connection) -> sqlite3.Connection:
        """Make db this thread's connection; close those of threads that have ended."""
        me = threading.current_thread()
        with self._lock:
            for thread in [t for t in self._connections if not t.is_alive()]:
                if self._connections[thread] is not self._first:
                    self._connections.pop(thread).close()
            self._connections[me] = db
        self._local.db = db
        return db

    @classmethod
    def open_vault(cls, vault_root: Path, create: bool = True) -> "SqliteStore":
        index_dir = Path(vault_root) / INDEX_DIR
        db_path = index_dir / DB_NAME
        if not create and not db_path.exists():
            from ...errors import NotFound

            raise NotFound(f"{vault_root} has not been indexed yet", hint="index the vault first")
        try:
            index_dir.mkdir(exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create {index_dir}: {exc.strerror}") from exc
        return cls.open(str(db_path))

    @classmethod
    def open(cls, path: str) -> "SqliteStore":
        if path != ":memory:":
            read_only = unwritable(Path(path))
            if read_only is not None:
                return cls._open_read_only(path, read_only)
        target = f"file:/kbgraph-{uuid.uuid4().hex}?vfs=memdb" if path == ":memory:" else path
        try:
            db = _connect(target)
            plan_incremental(db)  # before the first table: deleted notes can give their space back
            if path != ":memory:":
                db.execute("PRAGMA journal_mode = WAL")  # kept in the file: later connections inherit it
            apply_migrations(db)
        except sqlite3.OperationalError as exc:
            raise StoreError(f"cannot open the index {path}: {exc}",
                             hint="try again when no other process is writing to it") from exc
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"cannot open the index {path}: {exc}", hint="export what you can, then move .kbgraph aside "
                "and index the vault (relations you asserted live only in the index and the pages)"
            ) from exc
        return cls(db, path, target)

    @classmethod
    def _open_read_only(cls, path: str, read_only: Path) -> "SqliteStore":
        """An index this process may read but not write (a read-only folder or mount, an index file
        without write permission): reads work, a write is refused naming the read-only path."""
        db, target = _connect_read_only(path, read_only)
        try:
            pending = _pending_migrations(db)
            if pending:
                raise StoreError(f"the index {path} was written by an older kbgraph and needs an upgrade, but "
                                 f"{read_only} is read-only", hint="open the index once with write access to "
                                 f"{read_only}: opening it applies the upgrade")
            apply_migrations(db)  # nothing to apply: it only refuses an index from a newer kbgraph
        except BaseException:
            db.close()
            raise
        store = cls(db, path, target)
        store.read_only = read_only
        return store

    def close(self) -> None:
        """Close every thread's connection; call it once the threads using the store are done."""
        with self._lock:
            self._closed = True
            connections, self._connections = list(self._connections.values()), {}
        for db in connections:
            db.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """This thread's transaction: joined when this thread has one open, else begun (holding the
        write lock from the start), committed at the end, rolled back on any exception."""
        db = self.db
        if db.in_transaction:
            yield
            return
        if self.read_only is not None:
            what = "the file" if self.read_only == Path(self.path) else f"its folder {self.read_only}"
            raise StoreError(f"cannot change the index {self.path}: {what} is read-only "
                             "(commands that only read still work)",
                             hint=f"give this user write access to {self.read_only}, then run the command again")
        db.execute("BEGIN IMMEDIATE")
        try:
            yield
            db.execute("COMMIT")
        except BaseException as exc:
            if db.in_transaction:  # SQLite has already rolled back after some errors (a full disk)
                db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.OperationalError) and "full" in str(exc):
                raise StoreError(f"the disk holding the index is full ({self.path}): this step was not saved, "
                                 "what was saved before it is intact",
                                 hint="free some space, then run the command again to finish") from exc
            raise


def doc_fts_text(db, doc_id: int) -> tuple[str, str] | None:
    """(headings, body) that doc_fts holds for a document, or None when it has no chunk (and no row):
    its chunks' distinct heading paths and texts in order, as stored, so that a delete matches."""
    headings: list[str] = []
    texts: list[str] = []
    for heading, text in db.execute("SELECT heading, text FROM chunks WHERE doc_id = ? ORDER BY ordinal, id",
                                    (doc_id,)):
        if heading and (not headings or headings[-1] != heading):
            headings.append(heading)
        texts.append(text)
    return ("\n".join(headings), "\n".join(texts)) if texts else None


def _readable_version(access: Access) -> tuple[str, list]:
    """The access rule on a relation version h (its own governance) and on those of its ends that
    still exist (an end that was removed is known by its name in the version only)."""
    own, params = access_sql("h", access)
    if own == EVERY_ROW:
        return own, params
    ends = []
    for end in ("source", "target"):
        readable, extra = access_sql("e", access)
        ends.append(f"NOT EXISTS (SELECT 1 FROM entities e WHERE e.key = h.{end}_key AND NOT {readable})")
        params = [*params, *extra]
    return f"{own} AND {' AND '.join(ends)}", params


def _same(column: str, value) -> tuple[str, list]:
    """column equals value, NULL equal to NULL (SQLite's `IS ?`, which PostgreSQL lacks)."""
    return (f"{column} IS NULL", []) if value is None else (f"{column} = ?", [value])


def _differs(column: str, value) -> tuple[str, list]:
    """column differs from value, NULL equal to NULL (SQLite's `IS NOT ?`)."""
    return (f"{column} IS NOT NULL", []) if value is None else (f"({column} IS NULL OR {column} != ?)", [value])


_SUGGESTION_ENDS = ("source_id", "source_new", "target_id", "target_new", "type")
_RELATION_ENDS = "JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id"
# An ended version stays known after it ended (it was true until then); removed and edited versions were
# superseded as knowledge. Known before the end, an ended version was open, unless it was already due to
# end earlier than it did (then its own valid_until is what was known).
_UNTIL_AS_KNOWN = ("CASE WHEN h.change = 'ended' AND ? < h.superseded_at"
                   " AND h.valid_until >= substr(h.superseded_at, 1, 10) THEN NULL ELSE h.valid_until END")
# When the current version of relation r began to be recorded: when the one before it was superseded.
_VERSION_START = ("coalesce((SELECT max(x.superseded_at) FROM relation_history x WHERE x.relation_id = r.id),"
                  " r.created_at)")
_RELATION_KEYS = ("id", "source_id", "source", "source_type", "target_id", "target", "target_type", "type", "reason",
                  "source_doc", "confidence", "origin", "origin_doc_id", "origin_doc", "created_at", "updated_at",
                  "valid_until", "strength", "inferred", "owner", "visibility", "sensitivity", "valid_from",
                  "context", "source_doc_date")
_HISTORY_COLUMNS = ("relation_id", "source_key", "source_type", "source_name", "target_key", "target_type",
                    "target_name", "type", "reason", "source_doc_path", "confidence", "origin", "strength",
                    "inferred", "valid_from", "valid_until", "recorded_at", "superseded_at", "change", "owner",
                    "visibility", "sensitivity")


def _relation_version(row) -> RelationVersion:
    return RelationVersion(
        relation_id=row[0], source_key=row[1], source_type=row[2], source=row[3], target_key=row[4],
        target_type=row[5], target=row[6], type=row[7], reason=row[8], valid_from=row[9], valid_until=row[10],
        recorded_at=row[11], superseded_at=row[12], change=row[13], owner=row[14], visibility=row[15],
        sensitivity=row[16])

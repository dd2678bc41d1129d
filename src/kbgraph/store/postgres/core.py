"""PostgreSQL's own versions of the queries on documents, entities, mentions, relations and their history, suggestions, problems (store/sqlite/store.py CoreQueries) that are not portable SQL. A mixin of PostgresStore, first in its bases.

Most of CoreQueries runs here as it is; what SQLite spells its own way is either a fragment the shared
queries are built from (the _sql_* methods) or a whole method where the storage itself differs: the
full text lives in tsvector columns, not in FTS5 tables."""

from __future__ import annotations

from ...access import Access
from ...errors import InvalidInput
from ...model import ParsedDocument
from ..base import FUZZY_MIN_SIMILARITY, NameMatch
from ..sqlite.rows import access_sql
from ..sqlite.store import doc_fts_text
from .pool import PooledDb
from .text import count_tokens

# The full-text tables whose GIN indexes collect new entries in a pending list until merged.
_TEXT_INDEXES = ("chunks_tsv", "documents_tsv")


class PgCoreQueries:
    db: PooledDb

    # --- fragments of the shared queries

    @staticmethod
    def _sql_index_hint(index: str) -> str:
        return ""  # the planner has statistics (ANALYZE), and PostgreSQL takes no hint

    @staticmethod
    def _sql_joined(expr: str, distinct: bool = False) -> str:
        return f"string_agg({'DISTINCT ' if distinct else ''}({expr})::text, ',')"

    @staticmethod
    def _sql_json_field(column: str, key: str) -> str:
        # json, not jsonb: the text as stored, like SQLite's json_extract, and no failure on a \u0000
        return f"(({column})::json ->> '{key}')"

    @staticmethod
    def _sql_contains(text: str, part: str) -> str:
        return f"strpos({text}, {part}) > 0"

    # --- documents: the full text is kept in tsvector columns

    def _write_sections(self, doc: ParsedDocument, doc_id: int) -> None:
        """A document's chunks (their tsv column is generated from the title kept with each) and the
        document's own tsv: title A, heading paths B, text C, as SQLite's doc_fts weighs them. Each row's
        words are counted here, as FTS5 counts its column sizes, for BM25's length of the row."""
        db = self.db
        rows = []
        for c in doc.chunks:
            heading = " > ".join(c.heading_path)
            rows.append((doc_id, c.key, c.ordinal, heading, c.start, c.end, c.line, c.text, doc.title,
                         count_tokens(doc.title, heading, c.text)))
        db.executemany(
            "INSERT INTO chunks (doc_id, key, ordinal, heading, start, \"end\", line, text, title, tokens)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        text = doc_fts_text(db, doc_id)
        if text is None:  # a document with no section has nothing a hit could show
            db.execute("UPDATE documents SET tsv = ''::tsvector, tokens = 0 WHERE id = ?", (doc_id,))
            return
        db.execute(
            "UPDATE documents SET tsv = setweight(to_tsvector('kbg', kbg_words(?)), 'A')"
            " || setweight(to_tsvector('kbg', kbg_words(?)), 'B') || setweight(to_tsvector('kbg', kbg_words(?)), 'C'),"
            " tokens = ? WHERE id = ?",
            (doc.title, *text, count_tokens(doc.title, *text), doc_id),
        )

    def _forget_sections_text(self, doc_id: int) -> None:
        """Nothing to do: the chunks' vectors go with their rows, and the document's is rewritten with it."""

    # --- names

    def similar_entity_names(self, access: Access, key: str, entity_type: str | None = None,
                             limit: int = 5) -> list[NameMatch]:
        """CoreQueries.similar_entity_names by pg_trgm: `%` finds the spellings on the GIN trigram index of
        entity_names.key (at pg_trgm.similarity_threshold, 0.3 unless the server changed it), the access
        filter and the type in the same scan, each entity's closest spelling, then the LIMIT."""
        readable, params = access_sql("e", access)
        kind = ""
        if entity_type:
            kind = " AND e.type = ?"
            params.append(entity_type)
        sql = ("SELECT entity_id, entity, name, sml FROM (SELECT DISTINCT ON (n.entity_id) n.entity_id,"
               " e.name AS entity, n.name, similarity(n.key, ?) AS sml FROM entity_names n JOIN entities e"
               f" ON e.id = n.entity_id WHERE n.key % ? AND similarity(n.key, ?) >= ? AND {readable}{kind}"
               " ORDER BY n.entity_id, sml DESC, n.name) best ORDER BY sml DESC, entity, entity_id LIMIT ?")
        rows = self.db.execute(sql, [key, key, key, FUZZY_MIN_SIMILARITY, *params, limit])
        return [NameMatch(r[0], r[1], r[2], float(r[3])) for r in rows]

    # --- status

    def compact_text_index(self) -> None:
        """Merge what the GIN full-text indexes hold in their pending lists into the indexes proper, as
        FTS5's optimize merges segments: after many rewrites every keyword query would scan that list.
        Then ANALYZE the text tables, so that the planner knows how many rows a term matches."""
        for index in _TEXT_INDEXES:
            self.db.execute("SELECT gin_clean_pending_list(?::regclass)", (index,))
        self.db.execute("ANALYZE documents, chunks")

    def backup_to(self, path: str) -> None:
        raise _server_backup(self)

    def restore_from(self, path: str) -> None:
        raise _server_backup(self)

    def integrity_problems(self) -> list[str]:
        return []  # the server checks its own pages (checksums, WAL); there is no file here to check

    def size_on_disk(self) -> int:
        """Bytes the database takes on the server (its tables, indexes and their free space)."""
        return int(self.db.execute("SELECT pg_database_size(current_database())").fetchone()[0])

    def reclaim_space(self) -> int:
        """Nothing to do here: the server's autovacuum makes freed space reusable."""
        return 0


def _server_backup(store) -> InvalidInput:
    """A team index is the server's to back up: its own tools do it online and consistently."""
    return InvalidInput(f"the index is in PostgreSQL ({store.path}): back it up with the server's tools",
                        param="db", hint="pg_dump -Fc DATABASE > kbgraph.dump, and pg_restore to restore")

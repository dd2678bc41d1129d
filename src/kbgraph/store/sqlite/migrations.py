"""SQLite schema as append-only migrations.

Each migration is a function recorded in the `migrations` table once applied and
never edited after release: a later change is a new function at the end.
Owner, visibility and sensitivity exist on documents and entities from the
start so governance can filter every read in the query.
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from datetime import datetime, timezone


def m001_documents_chunks(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT) STRICT;

        CREATE TABLE documents (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            title TEXT NOT NULL,
            kind TEXT NOT NULL,
            date TEXT,
            frontmatter TEXT NOT NULL DEFAULT '{}',
            tags TEXT NOT NULL DEFAULT '[]',
            content_hash TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime REAL NOT NULL,
            body_offset INTEGER NOT NULL DEFAULT 0,
            owner TEXT,
            visibility TEXT NOT NULL DEFAULT 'private',
            sensitivity TEXT NOT NULL DEFAULT 'normal',
            indexed_at TEXT NOT NULL,
            mentions_stale INTEGER NOT NULL DEFAULT 1
        ) STRICT;
        CREATE INDEX documents_kind_date ON documents (kind, date);
        CREATE INDEX documents_date ON documents (date);
        CREATE INDEX documents_hash ON documents (content_hash);
        CREATE INDEX documents_stale ON documents (mentions_stale) WHERE mentions_stale = 1;

        CREATE TABLE document_tags (
            doc_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
            tag TEXT NOT NULL,
            PRIMARY KEY (doc_id, tag)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX document_tags_tag ON document_tags (tag);

        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY,
            doc_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            ordinal INTEGER NOT NULL,
            heading TEXT NOT NULL,
            start INTEGER NOT NULL,
            end INTEGER NOT NULL,
            line INTEGER NOT NULL,
            text TEXT NOT NULL,
            UNIQUE (doc_id, key)
        ) STRICT;
        CREATE INDEX chunks_doc ON chunks (doc_id, ordinal);

        CREATE VIRTUAL TABLE chunk_fts USING fts5 (
            title, heading, body, tokenize = 'porter unicode61 remove_diacritics 2'
        );

        CREATE TABLE links (
            id INTEGER PRIMARY KEY,
            doc_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
            target TEXT NOT NULL,
            alias TEXT,
            start INTEGER NOT NULL,
            end INTEGER NOT NULL,
            kind TEXT NOT NULL
        ) STRICT;
        CREATE INDEX links_doc ON links (doc_id);

        CREATE TABLE problems (
            path TEXT PRIMARY KEY,
            reason TEXT NOT NULL,
            severity TEXT NOT NULL,
            seen_at TEXT NOT NULL
        ) STRICT;
        """
    )


def m002_entities_mentions(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        -- What each document says exists: its own page entity, and frontmatter references.
        CREATE TABLE entity_claims (
            doc_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
            ordinal INTEGER NOT NULL,
            type TEXT NOT NULL,
            name TEXT NOT NULL,
            aliases TEXT NOT NULL DEFAULT '[]',
            role TEXT NOT NULL,
            field TEXT,
            attributes TEXT NOT NULL DEFAULT '{}',
            PRIMARY KEY (doc_id, ordinal)
        ) STRICT;

        CREATE TABLE entities (
            id INTEGER PRIMARY KEY,
            key TEXT NOT NULL UNIQUE,
            type TEXT NOT NULL,
            name TEXT NOT NULL,
            aliases TEXT NOT NULL DEFAULT '[]',
            page_doc_id INTEGER REFERENCES documents (id) ON DELETE SET NULL,
            attributes TEXT NOT NULL DEFAULT '{}',
            mention_count INTEGER NOT NULL DEFAULT 0,
            doc_count INTEGER NOT NULL DEFAULT 0,
            tier INTEGER NOT NULL DEFAULT 1,
            status TEXT NOT NULL DEFAULT 'active',
            merged_into INTEGER REFERENCES entities (id),
            first_mentioned TEXT,
            last_mentioned TEXT,
            owner TEXT,
            visibility TEXT NOT NULL DEFAULT 'private',
            sensitivity TEXT NOT NULL DEFAULT 'normal',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        ) STRICT;
        CREATE INDEX entities_type ON entities (type, name);

        -- Every spelling that names an entity, keyed for lookup (folded, case-folded).
        CREATE TABLE entity_names (
            entity_id INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            name TEXT NOT NULL,
            kind TEXT NOT NULL,
            -- A rowid table: SQLite 3.40's integrity_check misreports NOT NULL columns
            -- outside the key of a WITHOUT ROWID table.
            UNIQUE (entity_id, key, kind)
        ) STRICT;
        CREATE INDEX entity_names_key ON entity_names (key);

        CREATE TABLE mentions (
            id INTEGER PRIMARY KEY,
            entity_id INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
            doc_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
            chunk_id INTEGER REFERENCES chunks (id) ON DELETE CASCADE,
            start INTEGER,
            end INTEGER,
            surface TEXT NOT NULL,
            kind TEXT NOT NULL
        ) STRICT;
        CREATE INDEX mentions_entity ON mentions (entity_id, doc_id);
        CREATE INDEX mentions_doc ON mentions (doc_id);
        CREATE INDEX mentions_chunk ON mentions (chunk_id);
        """
    )


def _run_script(db: sqlite3.Connection, script: str) -> None:
    """Execute statements one by one: executescript() would commit the migration's transaction."""
    statement = ""
    for line in script.splitlines(keepends=True):
        if line.strip().startswith("--") and not statement.strip():
            continue
        statement += line
        if sqlite3.complete_statement(statement):
            db.execute(statement)
            statement = ""
    if statement.strip():
        db.execute(statement)


def m003_relations(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        -- One row per relation, in canonical direction; inverses are computed when read.
        -- origin 'user': asserted through kbgraph, the database is its home;
        -- origin 'page': a line of an entity page's ## Relations section, the file is its home.
        CREATE TABLE relations (
            id INTEGER PRIMARY KEY,
            source_id INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
            target_id INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
            type TEXT NOT NULL,
            reason TEXT,
            source_doc_id INTEGER REFERENCES documents (id) ON DELETE SET NULL,
            source_doc_path TEXT,
            confidence TEXT NOT NULL DEFAULT 'manual' CHECK (confidence IN ('manual', 'auto-high', 'auto-low')),
            origin TEXT NOT NULL DEFAULT 'user' CHECK (origin IN ('user', 'page')),
            origin_doc_id INTEGER REFERENCES documents (id) ON DELETE SET NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            valid_until TEXT,
            strength INTEGER NOT NULL DEFAULT 1,
            inferred INTEGER NOT NULL DEFAULT 0,
            superseded_by INTEGER REFERENCES relations (id) ON DELETE SET NULL,
            owner TEXT,
            visibility TEXT NOT NULL DEFAULT 'private',
            CHECK (source_id != target_id),
            UNIQUE (source_id, target_id, type)
        ) STRICT;
        CREATE INDEX relations_target ON relations (target_id, type);
        CREATE INDEX relations_type ON relations (type);
        CREATE INDEX relations_origin_doc ON relations (origin_doc_id);

        -- The ## Relations lines of entity pages, as parsed (resolved into relations at index time).
        CREATE TABLE page_relation_lines (
            doc_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
            line INTEGER NOT NULL,
            type TEXT NOT NULL,
            target TEXT NOT NULL,
            reason TEXT,
            valid_until TEXT,
            problem TEXT,
            PRIMARY KEY (doc_id, line)
        ) STRICT;

        -- Entities a user created explicitly (relate --create): they exist without any document.
        CREATE TABLE asserted_entities (
            id INTEGER PRIMARY KEY,
            type TEXT NOT NULL,
            name TEXT NOT NULL,
            created_at TEXT NOT NULL,
            UNIQUE (type, name)
        ) STRICT;
        """,
    )


def m004_merges_and_entity_pages(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        -- A user's decision that two entities are one: replayed on every rebuild of the entity set.
        CREATE TABLE entity_merges (
            id INTEGER PRIMARY KEY,
            from_key TEXT NOT NULL UNIQUE,
            from_type TEXT NOT NULL,
            from_name TEXT NOT NULL,
            into_key TEXT NOT NULL,
            into_type TEXT NOT NULL,
            into_name TEXT NOT NULL,
            moved_relations TEXT NOT NULL DEFAULT '[]',
            created_at TEXT NOT NULL,
            CHECK (from_key != into_key)
        ) STRICT;

        -- Every page of an entity (a merged entity keeps the pages of both).
        CREATE TABLE entity_pages (
            doc_id INTEGER PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
            entity_id INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE
        ) STRICT;
        """,
    )


def m005_relation_indexes(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        -- An entity's relations by direction and type, active ones found in the index itself.
        CREATE INDEX relations_source_type ON relations (source_id, type, valid_until);
        DROP INDEX relations_target;
        CREATE INDEX relations_target_type ON relations (target_id, type, valid_until);
        -- Every index run reads the page-origin relations; the rest of the table is not its business.
        CREATE INDEX relations_page ON relations (origin_doc_id) WHERE origin = 'page';
        CREATE INDEX relations_user ON relations (source_id, target_id) WHERE origin = 'user';
        """,
    )


def m006_relation_line_sources(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        -- A page states relations in its ## Relations section and, when kbgraph.toml maps them,
        -- in frontmatter keys: several values of one key share a line, hence the ordinal.
        CREATE TABLE page_relation_lines_v2 (
            doc_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
            line INTEGER NOT NULL,
            ordinal INTEGER NOT NULL DEFAULT 0,
            source TEXT NOT NULL DEFAULT 'section',
            type TEXT NOT NULL,
            target TEXT NOT NULL,
            reason TEXT,
            valid_until TEXT,
            problem TEXT,
            PRIMARY KEY (doc_id, line, ordinal)
        ) STRICT;
        INSERT INTO page_relation_lines_v2 (doc_id, line, type, target, reason, valid_until, problem)
            SELECT doc_id, line, type, target, reason, valid_until, problem FROM page_relation_lines;
        DROP TABLE page_relation_lines;
        ALTER TABLE page_relation_lines_v2 RENAME TO page_relation_lines;
        """,
    )


def m007_suggestions(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        -- A relation found in the text, waiting for the user: pending, accepted or rejected.
        CREATE TABLE suggestions (
            id INTEGER PRIMARY KEY,
            source_id INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
            target_id INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
            type TEXT NOT NULL,
            confidence TEXT NOT NULL CHECK (confidence IN ('auto-high', 'auto-low')),
            rule TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'rejected')),
            created_at TEXT NOT NULL,
            decided_at TEXT,
            UNIQUE (source_id, target_id, type)
        ) STRICT;
        CREATE INDEX suggestions_status ON suggestions (status);

        -- Each sentence that states it: the evidence, and how many times it was seen (strength).
        -- kind: which extractor saw it ('pattern', 'llm', 'cooccurrence'); each replaces only its own.
        CREATE TABLE suggestion_evidence (
            suggestion_id INTEGER NOT NULL REFERENCES suggestions (id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            doc_id INTEGER REFERENCES documents (id) ON DELETE SET NULL,
            doc_path TEXT NOT NULL,
            start INTEGER NOT NULL,
            end INTEGER NOT NULL,
            sentence TEXT NOT NULL,
            PRIMARY KEY (suggestion_id, kind, doc_path, start)
        ) STRICT;
        CREATE INDEX suggestion_evidence_doc ON suggestion_evidence (doc_id);
        CREATE INDEX suggestion_evidence_path ON suggestion_evidence (doc_path, kind);
        """,
    )


def m008_suggestions_of_new_entities(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        -- An end of a suggestion may be an entity not known yet, of a clear kind ("we switched from
        -- MySQL to PostgreSQL" with PostgreSQL in the bundled technology list): its "type:name" is kept
        -- in *_new and the entity is created only when the suggestion is accepted.
        CREATE TABLE suggestions_v2 (
            id INTEGER PRIMARY KEY,
            source_id INTEGER REFERENCES entities (id) ON DELETE CASCADE,
            target_id INTEGER REFERENCES entities (id) ON DELETE CASCADE,
            source_new TEXT,
            target_new TEXT,
            type TEXT NOT NULL,
            confidence TEXT NOT NULL CHECK (confidence IN ('auto-high', 'auto-low')),
            rule TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'rejected')),
            created_at TEXT NOT NULL,
            decided_at TEXT,
            CHECK ((source_id IS NULL) <> (source_new IS NULL)),
            CHECK ((target_id IS NULL) <> (target_new IS NULL))
        ) STRICT;
        INSERT INTO suggestions_v2 (id, source_id, target_id, type, confidence, rule, status, created_at, decided_at)
            SELECT id, source_id, target_id, type, confidence, rule, status, created_at, decided_at FROM suggestions;
        CREATE TABLE suggestion_evidence_v2 (
            suggestion_id INTEGER NOT NULL REFERENCES suggestions_v2 (id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            doc_id INTEGER REFERENCES documents (id) ON DELETE SET NULL,
            doc_path TEXT NOT NULL,
            start INTEGER NOT NULL,
            end INTEGER NOT NULL,
            sentence TEXT NOT NULL,
            PRIMARY KEY (suggestion_id, kind, doc_path, start)
        ) STRICT;
        INSERT INTO suggestion_evidence_v2 SELECT * FROM suggestion_evidence;
        DROP TABLE suggestion_evidence;
        DROP TABLE suggestions;
        ALTER TABLE suggestions_v2 RENAME TO suggestions;
        ALTER TABLE suggestion_evidence_v2 RENAME TO suggestion_evidence;
        CREATE UNIQUE INDEX suggestions_ends ON suggestions
            (coalesce(source_id, source_new), coalesce(target_id, target_new), type);
        CREATE INDEX suggestions_status ON suggestions (status);
        CREATE INDEX suggestions_target ON suggestions (target_id);
        CREATE INDEX suggestion_evidence_doc ON suggestion_evidence (doc_id);
        CREATE INDEX suggestion_evidence_path ON suggestion_evidence (doc_path, kind);
        """,
    )


def m009_resolution(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        -- Every entity-resolution decision: which name was compared with which entity, the score and
        -- features, and the outcome (auto-linked, asked, confirmed, rejected, new) and who decided.
        -- Keyed by entity key and folded name, never by row id: decisions outlive `index --full`.
        CREATE TABLE resolution_decisions (
            id INTEGER PRIMARY KEY,
            surface TEXT NOT NULL,
            surface_key TEXT NOT NULL,
            surface_type TEXT NOT NULL,
            candidate_key TEXT,
            candidate_name TEXT,
            score REAL,
            features TEXT NOT NULL DEFAULT '{}',
            outcome TEXT NOT NULL CHECK (outcome IN ('auto-linked', 'asked', 'confirmed', 'rejected', 'new')),
            decided_by TEXT NOT NULL,
            doc_path TEXT,
            created_at TEXT NOT NULL,
            decided_at TEXT
        ) STRICT;
        CREATE INDEX resolution_pair ON resolution_decisions (surface_key, candidate_key);
        CREATE INDEX resolution_outcome ON resolution_decisions (outcome);

        -- "In this note, this name means that entity": a confirmed answer about a name that says too
        -- little to become an alias everywhere ("Sam"), kept per document.
        CREATE TABLE reference_links (
            doc_path TEXT NOT NULL,
            type TEXT NOT NULL,
            name_key TEXT NOT NULL,
            entity_key TEXT NOT NULL,
            entity_name TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (doc_path, type, name_key)
        ) STRICT;

        -- "This text does not mean that entity": a false mention the user took back (`kbg entity unlink`).
        CREATE TABLE entity_unlinks (
            entity_key TEXT NOT NULL,
            entity_name TEXT NOT NULL,
            doc_path TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (entity_key, doc_path)
        ) STRICT;
        """,
    )


def m010_doc_relations(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        -- Relations between documents (and chunks) that indexing computes: references, continues,
        -- duplicate-of. Parents and siblings are derived from paths when read, never stored. Readers
        -- skip a type they do not know, so a later version or a user's stage may add types.
        CREATE TABLE doc_relations (
            id INTEGER PRIMARY KEY,
            source_doc_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
            source_chunk_id INTEGER REFERENCES chunks (id) ON DELETE CASCADE,
            target_doc_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
            target_chunk_id INTEGER REFERENCES chunks (id) ON DELETE CASCADE,
            type TEXT NOT NULL,
            score REAL NOT NULL CHECK (score >= 0 AND score <= 1),
            evidence TEXT NOT NULL DEFAULT ''
        ) STRICT;
        CREATE INDEX doc_relations_source ON doc_relations (source_doc_id, type);
        CREATE INDEX doc_relations_target ON doc_relations (target_doc_id, type);
        -- For the cascade when a document's chunks are rewritten; most rows have no target chunk.
        CREATE INDEX doc_relations_source_chunk ON doc_relations (source_chunk_id) WHERE source_chunk_id IS NOT NULL;
        CREATE INDEX doc_relations_target_chunk ON doc_relations (target_chunk_id) WHERE target_chunk_id IS NOT NULL;

        -- What the relate stage last saw of each document: comparing it with documents says what
        -- changed. No foreign key: a row that outlives its document tells the next run what was
        -- removed (its series, its names, its text hash). simhash: a 64-bit SimHash, signed.
        CREATE TABLE doc_fingerprints (
            doc_id INTEGER PRIMARY KEY,
            path TEXT NOT NULL,
            title TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            indexed_at TEXT NOT NULL,
            date TEXT,
            series TEXT,
            text_hash TEXT,
            simhash INTEGER,
            words INTEGER NOT NULL DEFAULT 0
        ) STRICT;
        CREATE INDEX doc_fingerprints_series ON doc_fingerprints (series) WHERE series IS NOT NULL;
        CREATE INDEX doc_fingerprints_text ON doc_fingerprints (text_hash) WHERE text_hash IS NOT NULL;

        -- The keys each document's links look up (a path, a folded name), resolved or not: when a
        -- document with that key appears or goes, the documents linking to it are related again.
        CREATE TABLE doc_link_keys (
            key TEXT NOT NULL,
            doc_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
            PRIMARY KEY (key, doc_id)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX doc_link_keys_doc ON doc_link_keys (doc_id);
        """,
    )


def m011_chunk_vectors(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        -- Embeddings by the hash of the text embedded: a chunk re-written with the same text (its
        -- document changed elsewhere) reuses its vector instead of paying for the model again.
        CREATE TABLE vectors (
            text_hash TEXT PRIMARY KEY,
            vector BLOB NOT NULL
        ) STRICT;
        -- Which vector each chunk has; gone with the chunk.
        CREATE TABLE chunk_vectors (
            chunk_id INTEGER PRIMARY KEY REFERENCES chunks (id) ON DELETE CASCADE,
            text_hash TEXT NOT NULL
        ) STRICT;
        CREATE INDEX chunk_vectors_hash ON chunk_vectors (text_hash);
        """,
    )


def m012_loose_name_keys(db: sqlite3.Connection) -> None:
    """Each entity name also under its loose key (punctuation as space), for recognising names in queries."""
    db.execute("ALTER TABLE entity_names ADD COLUMN loose TEXT NOT NULL DEFAULT ''")
    rows = db.execute("SELECT rowid, name FROM entity_names").fetchall()
    db.executemany("UPDATE entity_names SET loose = ? WHERE rowid = ?", [(_m012_loose_key(n), r) for r, n in rows])
    db.execute("CREATE INDEX entity_names_loose ON entity_names (loose)")


# Frozen copies of the rules m012 and m013 applied when they were released: a migration must give
# the same result whatever the live code (entities.names, the store's doc_fts text) later becomes.
_M012_SPACES = re.compile(r"\s+")
_M012_NOT_WORD = re.compile(r"[\W_]+", re.UNICODE)


def _m012_fold_char(char: str) -> str:
    base = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
    return base if len(base) == 1 else char


def _m012_loose_key(name: str) -> str:
    folded = name if name.isascii() else "".join(c if c.isascii() else _m012_fold_char(c) for c in name)
    key = _M012_SPACES.sub(" ", folded.strip()).casefold()
    return " ".join(_M012_NOT_WORD.split(key)).strip()


def _m013_doc_text(db: sqlite3.Connection, doc_id: int) -> tuple[str, str] | None:
    headings: list[str] = []
    texts: list[str] = []
    for heading, text in db.execute("SELECT heading, text FROM chunks WHERE doc_id = ? ORDER BY ordinal, id",
                                    (doc_id,)):
        if heading and (not headings or headings[-1] != heading):
            headings.append(heading)
        texts.append(text)
    return ("\n".join(headings), "\n".join(texts)) if texts else None


def m013_doc_fts(db: sqlite3.Connection) -> None:
    """Whole documents in a second, contentless FTS index: document-level BM25 for queries that a
    single section cannot match (a long query, a question whose words span sections). Columns as
    chunk_fts: title, the headings (a heading with no text of its own is in no chunk's body), body."""
    db.execute("CREATE VIRTUAL TABLE doc_fts USING fts5 (title, headings, body, content = '',"
               " tokenize = 'porter unicode61 remove_diacritics 2')")
    for doc_id, title in db.execute("SELECT id, title FROM documents").fetchall():
        text = _m013_doc_text(db, doc_id)
        if text is not None:
            db.execute("INSERT INTO doc_fts (rowid, title, headings, body) VALUES (?, ?, ?, ?)", (doc_id, title, *text))


def m014_vector_prints(db: sqlite3.Connection) -> None:
    """What the similar stage last compared of each document: a hash of its chunks' vectors' keys."""
    db.execute("CREATE TABLE doc_vector_prints (doc_id INTEGER PRIMARY KEY REFERENCES documents (id)"
               " ON DELETE CASCADE, print TEXT NOT NULL) STRICT")


def m015_governance_and_relation_history(db: sqlite3.Connection) -> None:
    """Relations, suggestions and decisions get the governance columns documents have; a relation
    gets valid_from; and relation_history keeps every version a relation stopped being: what it was,
    when it was true (valid_from / valid_until) and when kbgraph recorded and superseded it.
    History names its ends by entity key and name, not only id: entity ids do not outlive a rebuild."""
    _run_script(db,
        """
        ALTER TABLE relations ADD COLUMN sensitivity TEXT NOT NULL DEFAULT 'normal';
        ALTER TABLE relations ADD COLUMN valid_from TEXT;
        ALTER TABLE suggestions ADD COLUMN owner TEXT;
        ALTER TABLE suggestions ADD COLUMN visibility TEXT NOT NULL DEFAULT 'private';
        ALTER TABLE suggestions ADD COLUMN sensitivity TEXT NOT NULL DEFAULT 'normal';
        ALTER TABLE resolution_decisions ADD COLUMN owner TEXT;
        ALTER TABLE resolution_decisions ADD COLUMN visibility TEXT NOT NULL DEFAULT 'private';
        ALTER TABLE resolution_decisions ADD COLUMN sensitivity TEXT NOT NULL DEFAULT 'normal';
        CREATE TABLE relation_history (
            id INTEGER PRIMARY KEY,
            relation_id INTEGER NOT NULL,
            source_key TEXT NOT NULL,
            source_type TEXT NOT NULL,
            source_name TEXT NOT NULL,
            target_key TEXT NOT NULL,
            target_type TEXT NOT NULL,
            target_name TEXT NOT NULL,
            type TEXT NOT NULL,
            reason TEXT,
            source_doc_path TEXT,
            confidence TEXT NOT NULL,
            origin TEXT NOT NULL,
            strength INTEGER NOT NULL,
            inferred INTEGER NOT NULL,
            valid_from TEXT,
            valid_until TEXT,
            recorded_at TEXT NOT NULL,
            superseded_at TEXT NOT NULL,
            change TEXT NOT NULL CHECK (change IN ('ended', 'edited', 'moved', 'merged', 'removed')),
            owner TEXT,
            visibility TEXT NOT NULL DEFAULT 'private',
            sensitivity TEXT NOT NULL DEFAULT 'normal'
        ) STRICT;
        CREATE INDEX relation_history_source ON relation_history (source_key, type);
        CREATE INDEX relation_history_target ON relation_history (target_key, type);
        """
    )


def m016_relation_generation(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        -- A counter every change to relations moves, whoever makes it (this process or another): graph
        -- answers cached for one value of it are stale as soon as it moves, at no cost to find out.
        INSERT INTO meta (key, value) VALUES ('relation_generation', '0')
            ON CONFLICT (key) DO NOTHING;
        CREATE TRIGGER relations_generation_insert AFTER INSERT ON relations BEGIN
            UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'relation_generation';
        END;
        CREATE TRIGGER relations_generation_update AFTER UPDATE ON relations BEGIN
            UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'relation_generation';
        END;
        CREATE TRIGGER relations_generation_delete AFTER DELETE ON relations BEGIN
            UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'relation_generation';
        END;
        -- Walking the graph reads a frontier's relations in one direction and counts degrees: these
        -- cover both (no table row is read for the scope's columns), so a step is an index range.
        CREATE INDEX relations_graph_out ON relations (source_id, inferred, valid_until, valid_from, type, target_id);
        CREATE INDEX relations_graph_in ON relations (target_id, inferred, valid_until, valid_from, type, source_id);
        -- Relations derived by inference rules (uses + depends-on -> indirectly-depends-on): kept apart
        -- from what anyone asserted, each with its rule and the relations it was derived from, and
        -- recomputed whenever relations change, so one goes when a premise goes.
        CREATE TABLE inferred_relations (
            id INTEGER PRIMARY KEY,
            source_id INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
            target_id INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
            type TEXT NOT NULL,
            rule TEXT NOT NULL,
            premises TEXT NOT NULL,
            created_at TEXT NOT NULL,
            CHECK (source_id != target_id),
            UNIQUE (source_id, target_id, type)
        ) STRICT;
        CREATE INDEX inferred_relations_target ON inferred_relations (target_id);
        CREATE TRIGGER inferred_generation_insert AFTER INSERT ON inferred_relations BEGIN
            UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'relation_generation';
        END;
        CREATE TRIGGER inferred_generation_delete AFTER DELETE ON inferred_relations BEGIN
            UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'relation_generation';
        END;
        -- The context a relation holds in ("dotted line", "for the launch"): two relations of a type
        -- that allows one at a time do not contradict each other when their contexts differ.
        ALTER TABLE relations ADD COLUMN context TEXT;
        -- Contradictions between relations of a functional type (one manager at a time, one lead per
        -- project): how each was classified and how it ended. Ends are kept by name and key too,
        -- since a relation may be gone by the time someone reads the conflict.
        CREATE TABLE relation_conflicts (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('temporal', 'contextual', 'factual')),
            type TEXT NOT NULL,
            subject_key TEXT NOT NULL,
            subject_name TEXT NOT NULL,
            old_relation_id INTEGER,
            old_other TEXT NOT NULL,
            new_relation_id INTEGER,
            new_other TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('open', 'resolved')),
            resolution TEXT,
            note TEXT,
            created_at TEXT NOT NULL,
            resolved_at TEXT
        ) STRICT;
        CREATE INDEX relation_conflicts_status ON relation_conflicts (status);
        -- What a graph answer shows of its entities, and who may read them, is part of the answer too.
        CREATE TRIGGER entities_generation_update
            AFTER UPDATE OF name, type, status, owner, visibility, sensitivity ON entities BEGIN
            UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'relation_generation';
        END;
        CREATE TRIGGER entities_generation_delete AFTER DELETE ON entities BEGIN
            UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'relation_generation';
        END;
        """,
    )


def m017_facts_and_loops(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        -- Facts: append-only statements about an entity. A correction is a new row; the old one gets
        -- superseded_at / superseded_by / change and stays. The entity is named by key (and its name
        -- then), since entity ids do not outlive a rebuild. origin 'page': a `## Facts` line of
        -- origin_doc_id is its home; 'user': the index and exports keep it.
        CREATE TABLE facts (
            id INTEGER PRIMARY KEY,
            entity_key TEXT NOT NULL,
            entity_name TEXT NOT NULL,
            kind TEXT NOT NULL,
            text TEXT NOT NULL,
            date TEXT,
            source TEXT NOT NULL,
            origin TEXT NOT NULL CHECK (origin IN ('page', 'user')),
            origin_doc_id INTEGER REFERENCES documents (id) ON DELETE SET NULL,
            origin_path TEXT,
            recorded_at TEXT NOT NULL,
            superseded_at TEXT,
            superseded_by INTEGER REFERENCES facts (id),
            change TEXT CHECK (change IN ('superseded', 'edited', 'removed')),
            owner TEXT,
            visibility TEXT NOT NULL DEFAULT 'private',
            sensitivity TEXT NOT NULL DEFAULT 'normal'
        ) STRICT;
        CREATE INDEX facts_entity ON facts (entity_key, superseded_at);
        CREATE INDEX facts_origin ON facts (origin_doc_id) WHERE superseded_at IS NULL;
        -- Loops: follow-ups with a due date. Resolving one keeps it (status, resolved_on); a page line
        -- removed leaves it 'dropped'.
        CREATE TABLE loops (
            id INTEGER PRIMARY KEY,
            entity_key TEXT NOT NULL,
            entity_name TEXT NOT NULL,
            text TEXT NOT NULL,
            due TEXT,
            status TEXT NOT NULL CHECK (status IN ('open', 'resolved', 'dropped')),
            resolved_on TEXT,
            source TEXT NOT NULL,
            origin TEXT NOT NULL CHECK (origin IN ('page', 'user')),
            origin_doc_id INTEGER REFERENCES documents (id) ON DELETE SET NULL,
            origin_path TEXT,
            recorded_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            owner TEXT,
            visibility TEXT NOT NULL DEFAULT 'private',
            sensitivity TEXT NOT NULL DEFAULT 'normal'
        ) STRICT;
        CREATE INDEX loops_entity ON loops (entity_key, status);
        CREATE INDEX loops_due ON loops (status, due);
        CREATE INDEX loops_origin ON loops (origin_doc_id);
        -- Which version of each entity page its `## Facts` / `## Loops` lines were last read from, and the
        -- lines that did not read (reported again on every run until fixed).
        CREATE TABLE memory_pages (
            doc_id INTEGER PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
            content_hash TEXT NOT NULL,
            problems TEXT NOT NULL DEFAULT '[]'
        ) STRICT;
        """,
    )


def m018_relation_line_time(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        -- A `## Relations` line may say since when and in which context it holds:
        -- `(since 2026-03-01)`, `[context: dotted line]`. The files are the relation's home, so
        -- what --since and --context gave must be read back from them on a rebuild.
        ALTER TABLE page_relation_lines ADD COLUMN valid_from TEXT;
        ALTER TABLE page_relation_lines ADD COLUMN context TEXT;
        """,
    )


def m019_api_tokens(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        -- Bearer tokens for `kbg serve`: only a salted sha256 of each secret is kept (the token is shown
        -- once, at creation). A revoked token keeps its row (revoked_at) and frees its name.
        CREATE TABLE api_tokens (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            salt TEXT NOT NULL,
            digest TEXT NOT NULL,
            visibilities TEXT NOT NULL DEFAULT '["public","team"]',
            max_sensitivity TEXT NOT NULL DEFAULT 'internal',
            created_at TEXT NOT NULL,
            revoked_at TEXT
        ) STRICT;
        CREATE UNIQUE INDEX api_tokens_live_name ON api_tokens (name) WHERE revoked_at IS NULL;
        """,
    )


def m020_loop_conflicts(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        -- A hierarchical type (reports-to, part-of) stated both ways ('inverse') or round a longer loop
        -- ('cycle') is a contradiction too. SQLite cannot widen a CHECK in place: the table is rebuilt,
        -- its rows and ids kept.
        CREATE TABLE relation_conflicts_new (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('temporal', 'contextual', 'factual', 'inverse', 'cycle')),
            type TEXT NOT NULL,
            subject_key TEXT NOT NULL,
            subject_name TEXT NOT NULL,
            old_relation_id INTEGER,
            old_other TEXT NOT NULL,
            new_relation_id INTEGER,
            new_other TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('open', 'resolved')),
            resolution TEXT,
            note TEXT,
            created_at TEXT NOT NULL,
            resolved_at TEXT
        ) STRICT;
        INSERT INTO relation_conflicts_new SELECT id, kind, type, subject_key, subject_name, old_relation_id,
            old_other, new_relation_id, new_other, status, resolution, note, created_at, resolved_at
            FROM relation_conflicts;
        DROP TABLE relation_conflicts;
        ALTER TABLE relation_conflicts_new RENAME TO relation_conflicts;
        CREATE INDEX relation_conflicts_status ON relation_conflicts (status);
        """,
    )


MIGRATIONS = [
    m001_documents_chunks, m002_entities_mentions, m003_relations, m004_merges_and_entity_pages,
    m005_relation_indexes, m006_relation_line_sources, m007_suggestions, m008_suggestions_of_new_entities,
    m009_resolution, m010_doc_relations, m011_chunk_vectors, m012_loose_name_keys,
    m013_doc_fts, m014_vector_prints, m015_governance_and_relation_history, m016_relation_generation,
    m017_facts_and_loops, m018_relation_line_time, m019_api_tokens, m020_loop_conflicts,
]


def apply_migrations(db: sqlite3.Connection) -> list[str]:
    """Apply the migrations not yet recorded, each in its own transaction; returns their names."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    done = {row[0] for row in db.execute("SELECT name FROM migrations")}
    known = {m.__name__ for m in MIGRATIONS}
    if done - known:
        from ...errors import SchemaTooNew

        raise SchemaTooNew(
            f"the index was written by a newer kbgraph (unknown migrations: {', '.join(sorted(done - known))}); "
            "upgrade kbgraph, or delete .kbgraph/ and re-index"
        )
    applied = []
    for migration in MIGRATIONS:
        if migration.__name__ in done:
            continue
        db.execute("BEGIN IMMEDIATE")
        try:
            if db.execute("SELECT 1 FROM migrations WHERE name = ?", (migration.__name__,)).fetchone():
                db.execute("COMMIT")  # another process applied it while we waited for the lock
                continue
            migration(db)
            db.execute(
                "INSERT INTO migrations (name, applied_at) VALUES (?, ?)",
                (migration.__name__, datetime.now(timezone.utc).isoformat(timespec="seconds")),
            )
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        applied.append(migration.__name__)
    return applied

"""SQL of the document graph: stored relations between documents and chunks, what the relate stage
last saw of each document (to find what changed), the keys links look up, and the path queries that
derive parents and siblings when read.

A mixin of SqliteStore (it uses self.db); kept apart so the main store module stays readable.
"""

from __future__ import annotations

import sqlite3

from ...model import TextQuery
from .fts5 import match_expression

_FINGERPRINT_KEYS = ("doc_id", "path", "title", "content_hash", "indexed_at", "date", "series", "text_hash",
                     "simhash", "words")
_CHUNK_KEYS = ("id", "doc_id", "heading", "start", "end", "text")
_PART = 500  # ids per IN (...) list


_BY_MEANING = "similar meaning"  # docgraph.similar.EVIDENCE: the rows the similar stage owns


def _parts(ids) -> list[list]:
    ids = list(ids)
    return [ids[i:i + _PART] for i in range(0, len(ids), _PART)]


def _marks(values) -> str:
    return ",".join("?" * len(values))


class DocGraphQueries:
    db: sqlite3.Connection

    # --- what changed since the last relate run ---------------------------------------

    def docgraph_changes(self, full: bool = False) -> tuple[list[dict], list[dict]]:
        """(documents to relate again, each with "old": its last fingerprint or None; fingerprints of
        documents that are gone). full: every document."""
        where = "" if full else (
            " WHERE f.doc_id IS NULL OR f.content_hash != d.content_hash OR f.indexed_at != d.indexed_at"
            " OR f.path != d.path OR f.title != d.title OR f.date IS DISTINCT FROM d.date")
        rows = self.db.execute(
            "SELECT d.id, d.path, d.title, d.content_hash, d.indexed_at, d.date,"
            f" {', '.join('f.' + k for k in _FINGERPRINT_KEYS)}"
            f" FROM documents d LEFT JOIN doc_fingerprints f ON f.doc_id = d.id{where} ORDER BY d.id").fetchall()
        changed = [{**dict(zip(("id", "path", "title", "content_hash", "indexed_at", "date"), r[:6])),
                    "old": dict(zip(_FINGERPRINT_KEYS, r[6:])) if r[6] is not None else None} for r in rows]
        gone = self.db.execute(
            f"SELECT {', '.join(_FINGERPRINT_KEYS)} FROM doc_fingerprints f"
            " WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = f.doc_id)").fetchall()
        return changed, [dict(zip(_FINGERPRINT_KEYS, r)) for r in gone]

    def save_fingerprints(self, rows: list[dict]) -> None:
        updates = ", ".join(f"{k} = excluded.{k}" for k in _FINGERPRINT_KEYS[1:])
        self.db.executemany(
            f"INSERT INTO doc_fingerprints ({', '.join(_FINGERPRINT_KEYS)}) VALUES ({_marks(_FINGERPRINT_KEYS)})"
            f" ON CONFLICT (doc_id) DO UPDATE SET {updates}", [tuple(r[k] for k in _FINGERPRINT_KEYS) for r in rows])

    def drop_fingerprints(self, doc_ids: list[int]) -> None:
        self.db.executemany("DELETE FROM doc_fingerprints WHERE doc_id = ?", [(i,) for i in doc_ids])

    def fingerprint_rows(self, doc_ids) -> dict[int, dict]:
        out = {}
        for part in _parts(doc_ids):
            for r in self.db.execute(f"SELECT {', '.join(_FINGERPRINT_KEYS)} FROM doc_fingerprints"
                                     f" WHERE doc_id IN ({_marks(part)})", part):
                out[r[0]] = dict(zip(_FINGERPRINT_KEYS, r))
        return out

    def simhashes(self, min_words: int) -> dict[int, int]:
        """doc id -> SimHash (signed, as stored) of every document with at least min_words words."""
        return dict(self.db.execute("SELECT doc_id, simhash FROM doc_fingerprints WHERE simhash IS NOT NULL"
                                    " AND words >= ?", (min_words,)))

    def series_members(self, keys) -> dict[str, list[tuple[int, str, str]]]:
        """series key -> its documents (id, path, date)."""
        out: dict[str, list] = {}
        for part in _parts(keys):
            for key, doc_id, path, date in self.db.execute(
                    f"SELECT series, doc_id, path, date FROM doc_fingerprints WHERE series IN ({_marks(part)})", part):
                out.setdefault(key, []).append((doc_id, path, date))
        return out

    def text_hash_members(self, hashes) -> dict[str, list[int]]:
        out: dict[str, list] = {}
        for part in _parts(hashes):
            for text_hash, doc_id in self.db.execute(
                    f"SELECT text_hash, doc_id FROM doc_fingerprints WHERE text_hash IN ({_marks(part)})", part):
                out.setdefault(text_hash, []).append(doc_id)
        return out

    # --- what the relate stage reads --------------------------------------------------

    def docgraph_names(self) -> list[tuple[int, str, str]]:
        """(id, path, title) of every document."""
        return self.db.execute("SELECT id, path, title FROM documents").fetchall()

    def doc_sizes(self, doc_ids) -> dict[int, int]:
        """doc id -> file size in bytes."""
        out = {}
        for part in _parts(doc_ids):
            out.update(self.db.execute(f"SELECT id, size FROM documents WHERE id IN ({_marks(part)})", part))
        return out

    def docgraph_chunks(self, doc_ids) -> dict[int, list[dict]]:
        """doc id -> its chunks in order, each text as UTF-8 bytes."""
        out: dict[int, list[dict]] = {}
        for part in _parts(doc_ids):
            for r in self.db.execute(
                    "SELECT id, doc_id, heading, start, \"end\", text FROM chunks"
                    f" WHERE doc_id IN ({_marks(part)}) ORDER BY doc_id, ordinal", part):
                out.setdefault(r[1], []).append(dict(zip(_CHUNK_KEYS, (*r[:5], r[5].encode()))))
        return out

    def docgraph_links(self, doc_ids) -> dict[int, list[tuple[str, str, int]]]:
        """doc id -> its links (kind, target, offset in the file), in order."""
        out: dict[int, list] = {}
        for part in _parts(doc_ids):
            for doc_id, kind, target, start in self.db.execute(
                    "SELECT l.doc_id, l.kind, l.target, l.start + d.body_offset FROM links l"
                    f" JOIN documents d ON d.id = l.doc_id WHERE l.doc_id IN ({_marks(part)})"
                    " ORDER BY l.doc_id, l.start", part):
                out.setdefault(doc_id, []).append((kind, target, start))
        return out

    def replace_link_keys(self, keys_by_doc: dict[int, set[str]]) -> None:
        self.db.executemany("DELETE FROM doc_link_keys WHERE doc_id = ?", [(i,) for i in keys_by_doc])
        self.db.executemany("INSERT INTO doc_link_keys (key, doc_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
                            [(key, doc_id) for doc_id, keys in keys_by_doc.items() for key in keys])

    def docs_linking(self, keys) -> set[int]:
        """Documents with a link that looks up any of keys."""
        out = set()
        for part in _parts(keys):
            out.update(r[0] for r in self.db.execute(
                f"SELECT DISTINCT doc_id FROM doc_link_keys WHERE key IN ({_marks(part)})", part))
        return out

    def chunks_with_text(self, query: TextQuery) -> list[tuple[int, int]]:
        """(chunk id, doc id) of the chunks whose body text (not their headings) matches the query."""
        if not query.terms:
            return []
        return self.db.execute(
            "SELECT c.id, c.doc_id FROM chunk_fts JOIN chunks c ON c.id = chunk_fts.rowid WHERE chunk_fts MATCH ?",
            (f"body : ({match_expression(query)})",)).fetchall()

    # --- stored relations ---------------------------------------------------------------

    def doc_relation_sources(self, target_ids, type_name: str) -> set[int]:
        """Documents with a stored relation of type_name to any of target_ids."""
        out = set()
        for part in _parts(target_ids):
            out.update(r[0] for r in self.db.execute(
                f"SELECT DISTINCT source_doc_id FROM doc_relations WHERE target_doc_id IN ({_marks(part)})"
                " AND type = ?", [*part, type_name]))
        return out

    def delete_doc_relations(self, source_ids, type_name: str, chunk_level: bool | None = None) -> None:
        """Drop the stored relations of one type from these documents (chunk_level: only the rows
        between chunks (True) or only those between whole documents (False)). References by meaning
        stay: the similar stage owns them."""
        level = {None: "", True: " AND source_chunk_id IS NOT NULL", False: " AND source_chunk_id IS NULL"}
        self.db.executemany(f"DELETE FROM doc_relations WHERE source_doc_id = ? AND type = ?{level[chunk_level]}"
                            f" AND evidence NOT LIKE '{_BY_MEANING}%'", [(i, type_name) for i in source_ids])

    def delete_similar_references(self, doc_ids) -> None:
        """Drop references by meaning with either end among doc_ids (None: all of them)."""
        if doc_ids is None:
            self.db.execute(f"DELETE FROM doc_relations WHERE type = 'references' AND evidence LIKE '{_BY_MEANING}%'")
            return
        for part in _parts(doc_ids):
            self.db.execute(f"DELETE FROM doc_relations WHERE type = 'references' AND evidence LIKE '{_BY_MEANING}%'"
                            f" AND (source_doc_id IN ({_marks(part)}) OR target_doc_id IN ({_marks(part)}))",
                            [*part, *part])

    def vector_prints(self) -> dict[int, str]:
        """Document id -> a hash of its chunks' embedded-text hashes in reading order (documents with
        vectors only): it changes exactly when the document's centroid can."""
        import hashlib

        out: dict[int, str] = {}
        current, digest = None, None
        for doc_id, text_hash in self.db.execute(
                "SELECT c.doc_id, cv.text_hash FROM chunks c JOIN chunk_vectors cv ON cv.chunk_id = c.id"
                " ORDER BY c.doc_id, c.ordinal, c.id"):
            if doc_id != current:
                if current is not None:
                    out[current] = digest.hexdigest()
                current, digest = doc_id, hashlib.sha1()
            digest.update(text_hash.encode())
        if current is not None:
            out[current] = digest.hexdigest()
        return out

    def saved_vector_prints(self) -> dict[int, str]:
        return dict(self.db.execute("SELECT doc_id, print FROM doc_vector_prints"))

    def save_vector_prints(self, prints: dict[int, str], gone, replace_all: bool = False) -> None:
        if replace_all:
            self.db.execute("DELETE FROM doc_vector_prints")
        for part in _parts(list(gone)):
            self.db.execute(f"DELETE FROM doc_vector_prints WHERE doc_id IN ({_marks(part)})", part)
        self.db.executemany("INSERT INTO doc_vector_prints (doc_id, print) VALUES (?, ?)"
                            " ON CONFLICT (doc_id) DO UPDATE SET print = excluded.print",
                            list(prints.items()))

    def add_doc_relations(self, edges) -> None:
        self.db.executemany(
            "INSERT INTO doc_relations (source_doc_id, source_chunk_id, target_doc_id, target_chunk_id, type,"
            " score, evidence) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(e.source, e.source_chunk, e.target, e.target_chunk, e.type, e.score, e.evidence) for e in edges])

    def chunk_continuations(self, doc_ids) -> list[tuple[int, int]]:
        """(chunk, the chunk that continues it) for the split sections of these documents."""
        out: list[tuple[int, int]] = []
        for part in _parts(doc_ids):
            out += self.db.execute(
                "SELECT source_chunk_id, target_chunk_id FROM doc_relations WHERE type = 'continues'"
                f" AND source_doc_id IN ({_marks(part)}) AND source_chunk_id IS NOT NULL"
                " AND target_chunk_id IS NOT NULL", part).fetchall()
        return out

    def stored_doc_relations(self, doc_id: int, type_name: str | None = None) -> list[dict]:
        """The document's stored relations, both directions, with the other end's path, title and the lines
        of the chunks involved. A relation within the document is listed once, as outgoing."""
        type_sql, params = ("", []) if type_name is None else (" AND r.type = ?", [type_name])
        out = []
        for direction, this_end, other_end, extra in (("out", "source", "target", ""),
                                                       ("in", "target", "source", " AND r.source_doc_id != ?")):
            rows = self.db.execute(
                f"SELECT r.id, r.type, r.score, r.evidence, o.id, o.path, o.title, tc.line, oc.line"
                f" FROM doc_relations r JOIN documents o ON o.id = r.{other_end}_doc_id"
                f" LEFT JOIN chunks tc ON tc.id = r.{this_end}_chunk_id"
                f" LEFT JOIN chunks oc ON oc.id = r.{other_end}_chunk_id"
                f" WHERE r.{this_end}_doc_id = ?{extra}{type_sql}",
                [doc_id, *([doc_id] if extra else []), *params])
            keys = ("id", "type", "score", "evidence", "doc_id", "path", "title", "line", "other_line")
            out += [{**dict(zip(keys, r)), "direction": direction} for r in rows]
        return out

    # --- paths, for the relations derived when read -------------------------------------

    def docs_at_paths(self, paths: list[str]) -> dict[str, tuple[int, str]]:
        """path -> (id, title) of those paths that are documents."""
        out = {}
        for part in _parts(paths):
            out.update({r[0]: (r[1], r[2]) for r in self.db.execute(
                f"SELECT path, id, title FROM documents WHERE path IN ({_marks(part)})", part)})
        return out

    def docs_in_folder(self, folder: str) -> list[tuple[int, str, str]]:
        """(id, path, title) of the documents directly in folder ("" for the vault root), by path."""
        if not folder:
            return self.db.execute("SELECT id, path, title FROM documents WHERE path NOT LIKE '%/%'"
                                   " ORDER BY path").fetchall()
        prefix = folder + "/"
        # A range on the path index ('0' sorts right after '/'), then only direct children.
        return self.db.execute(
            "SELECT id, path, title FROM documents WHERE path >= ? AND path < ? AND substr(path, ?) NOT LIKE '%/%'"
            " ORDER BY path", (prefix, folder + "0", len(prefix) + 1)).fetchall()

    def subfolders(self, folder: str) -> list[str]:
        """The folders directly inside folder that hold documents (at any depth)."""
        if folder:
            prefix = folder + "/"
            rows = self.db.execute(
                "SELECT DISTINCT substr(path, 1, ? + instr(substr(path, ?), '/') - 1) FROM documents"
                " WHERE path >= ? AND path < ? AND instr(substr(path, ?), '/') > 0",
                (len(prefix), len(prefix) + 1, prefix, folder + "0", len(prefix) + 1))
        else:
            rows = self.db.execute("SELECT DISTINCT substr(path, 1, instr(path, '/') - 1) FROM documents"
                                   " WHERE instr(path, '/') > 0")
        return sorted(r[0] for r in rows)

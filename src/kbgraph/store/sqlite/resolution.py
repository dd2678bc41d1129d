"""SQL of entity resolution: the decision log, false mentions taken back, and unlinked mentions.

A mixin of SqliteStore (it uses self.db); kept apart so the main store module stays readable.
"""

from __future__ import annotations

import json
import sqlite3

from ...access import Access
from .rows import access_sql

_DECISION_KEYS = ("id", "surface", "surface_key", "surface_type", "candidate_key", "candidate_name", "score",
                  "features", "outcome", "decided_by", "doc_path", "created_at", "decided_at")


class ResolutionQueries:
    db: sqlite3.Connection

    # --- the decision log ----------------------------------------------------------

    def add_decision(self, row: dict) -> int:
        """Log one decision (keys as in _DECISION_KEYS, id and decided_at optional); returns its id."""
        return self.db.execute(
            "INSERT INTO resolution_decisions (surface, surface_key, surface_type, candidate_key, candidate_name,"
            " score, features, outcome, decided_by, doc_path, created_at, decided_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (row["surface"], row["surface_key"], row["surface_type"], row.get("candidate_key"),
             row.get("candidate_name"), row.get("score"), json.dumps(row.get("features") or {}, sort_keys=True),
             row["outcome"], row["decided_by"], row.get("doc_path"), row["created_at"], row.get("decided_at")),
        ).fetchone()[0]

    def decisions(self, access: Access, outcome: str | None = None, ids: tuple[int, ...] = ()) -> list[dict]:
        readable, params = access_sql("x", access)
        clauses = [readable]
        if outcome:
            clauses.append("outcome = ?")
            params.append(outcome)
        if ids:
            clauses.append(f"id IN ({','.join('?' * len(ids))})")
            params.extend(ids)
        where = f" WHERE {' AND '.join(clauses)}"
        rows = self.db.execute(f"SELECT {', '.join(_DECISION_KEYS)} FROM resolution_decisions x{where} ORDER BY id",
                               params)
        return [{**dict(zip(_DECISION_KEYS, r)), "features": json.loads(r[7])} for r in rows]

    def open_questions_about(self, access: Access, surface_key: str) -> list[dict]:
        """The open questions (outcome asked) about one name, by its surface key, that the access may read.
        Read by the key alone, on the (surface_key, candidate_key) index: with `outcome = 'asked'` in the
        query, SQLite (no statistics) walks the outcome index, the whole queue (a lookup took 19 ms at
        50,000 open questions, 0.16 ms this way); one name's few decisions are filtered here instead."""
        readable, params = access_sql("x", access)
        rows = self.db.execute(f"SELECT {', '.join(_DECISION_KEYS)} FROM resolution_decisions x WHERE"
                               f" surface_key = ? AND {readable} ORDER BY id", [surface_key, *params])
        return [{**dict(zip(_DECISION_KEYS, r)), "features": json.loads(r[7])} for r in rows if r[8] == "asked"]

    def get_decision(self, access: Access, decision_id: int) -> dict | None:
        found = self.decisions(access, ids=(decision_id,))
        return found[0] if found else None

    def decide(self, decision_id: int, outcome: str, decided_by: str, now: str) -> None:
        self.db.execute("UPDATE resolution_decisions SET outcome = ?, decided_by = ?, decided_at = ? WHERE id = ?",
                        (outcome, decided_by, now, decision_id))

    def decided_pairs(self) -> dict[tuple[str, str], str]:
        """(surface key, candidate key) -> the latest of confirmed / rejected / asked / auto-linked."""
        rows = self.db.execute(
            "SELECT surface_key, candidate_key, outcome FROM resolution_decisions WHERE candidate_key IS NOT NULL"
            " AND outcome != 'new' ORDER BY id")
        return {(s, c): o for s, c, o in rows}

    def logged_new_keys(self) -> set[str]:
        """Surface keys already logged as a new entity (logged once, not on every index run)."""
        return {r[0] for r in self.db.execute("SELECT DISTINCT surface_key FROM resolution_decisions"
                                               " WHERE outcome = 'new'")}

    def drop_open_questions(self, keep: set[tuple[str, str]]) -> int:
        """Questions no longer raised by any name are withdrawn; answered ones stay as the log."""
        rows = self.db.execute("SELECT id, surface_key, candidate_key FROM resolution_decisions"
                               " WHERE outcome = 'asked'").fetchall()
        gone = [(i,) for i, s, c in rows if (s, c) not in keep]
        self.db.executemany("DELETE FROM resolution_decisions WHERE id = ?", gone)
        return len(gone)

    def replace_decisions(self, rows: list[dict]) -> None:
        """Import: the log becomes exactly rows."""
        self.db.execute("DELETE FROM resolution_decisions")
        for row in rows:
            self.add_decision(row)

    def rename_entity_key(self, old_key: str, new_key: str, new_name: str) -> None:
        """An entity's key changed (its page was renamed): the answers about it, the names linked to it in
        one document, its mentions taken back and the merges into it now name it by its new key."""
        db = self.db
        db.execute("UPDATE resolution_decisions SET candidate_key = ?, candidate_name = ? WHERE candidate_key = ?",
                   (new_key, new_name, old_key))
        db.execute("UPDATE reference_links SET entity_key = ?, entity_name = ? WHERE entity_key = ?",
                   (new_key, new_name, old_key))
        # One row per (entity, document): a document where the new key is taken back already keeps that row.
        db.execute("DELETE FROM entity_unlinks WHERE entity_key = ? AND doc_path IN"
                   " (SELECT doc_path FROM entity_unlinks WHERE entity_key = ?)", (old_key, new_key))
        db.execute("UPDATE entity_unlinks SET entity_key = ?, entity_name = ? WHERE entity_key = ?",
                   (new_key, new_name, old_key))
        # A merge of the new name into the entity ("Thomas Becker" linked to Tom Becker) says what the name
        # now says itself; kept, it would merge the renamed page away.
        db.execute("DELETE FROM entity_merges WHERE from_key = ? AND into_key = ?", (new_key, old_key))
        db.execute("UPDATE entity_merges SET into_key = ?, into_name = ? WHERE into_key = ?",
                   (new_key, new_name, old_key))

    # --- names linked in one document ---------------------------------------------------

    def add_reference_link(self, doc_path: str, entity_type: str, name_key: str, entity_key: str, entity_name: str,
                           now: str) -> None:
        self.db.execute(
            "INSERT INTO reference_links (doc_path, type, name_key, entity_key, entity_name, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (doc_path, type, name_key) DO UPDATE SET"
            " entity_key = excluded.entity_key, entity_name = excluded.entity_name, created_at = excluded.created_at",
            (doc_path, entity_type, name_key, entity_key, entity_name, now))

    def remove_reference_links(self, entity_type: str, name_key: str, entity_key: str) -> int:
        """Take back every link of the name to that entity (a confirmed answer rejected after all)."""
        return self.db.execute("DELETE FROM reference_links WHERE type = ? AND name_key = ? AND entity_key = ?",
                               (entity_type, name_key, entity_key)).rowcount

    def reference_links(self) -> list[dict]:
        rows = self.db.execute("SELECT doc_path, type, name_key, entity_key, entity_name, created_at"
                               " FROM reference_links ORDER BY doc_path, type, name_key")
        return [dict(zip(("doc_path", "type", "name_key", "entity_key", "entity_name", "created_at"), r)) for r in rows]

    def docs_claiming(self, entity_type: str, name: str) -> list[str]:
        """Paths of the documents whose frontmatter or relation lines name (type, name)."""
        return [r[0] for r in self.db.execute(
            "SELECT DISTINCT d.path FROM entity_claims c JOIN documents d ON d.id = c.doc_id"
            " WHERE c.type = ? AND c.name = ? AND c.role != 'page' ORDER BY d.path", (entity_type, name))]

    # --- false mentions ------------------------------------------------------------

    def add_unlink(self, entity_key: str, entity_name: str, doc_path: str, now: str) -> bool:
        cursor = self.db.execute(
            "INSERT INTO entity_unlinks (entity_key, entity_name, doc_path, created_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT DO NOTHING",
            (entity_key, entity_name, doc_path, now))
        return cursor.rowcount > 0

    def remove_unlink(self, entity_key: str, doc_path: str) -> bool:
        cursor = self.db.execute("DELETE FROM entity_unlinks WHERE entity_key = ? AND doc_path = ?",
                                 (entity_key, doc_path))
        return cursor.rowcount > 0

    def unlinks(self) -> list[dict]:
        rows = self.db.execute("SELECT entity_key, entity_name, doc_path, created_at FROM entity_unlinks"
                               " ORDER BY doc_path, entity_key")
        return [dict(zip(("entity_key", "entity_name", "doc_path", "created_at"), r)) for r in rows]

    def unlinked_entities_by_doc(self) -> dict[int, set[int]]:
        """Document id -> ids of entities whose text mentions there the user took back."""
        out: dict[int, set[int]] = {}
        for doc_id, entity_id in self.db.execute(
                "SELECT d.id, e.id FROM entity_unlinks u JOIN documents d ON d.path = u.doc_path"
                " JOIN entities e ON e.key = u.entity_key"):
            out.setdefault(doc_id, set()).add(entity_id)
        return out

    # --- unlinked mentions -----------------------------------------------------------

    def unlinked_mentions(self, access: Access, entity_id: int | None = None, limit: int | None = None) -> list[dict]:
        """Per (entity, document): text that names the entity where the document never links it,
        with the first such mention (its offsets and surface) and how many there are; only documents
        and entities the access may read."""
        doc_rule, doc_params = access_sql("d", access)
        entity_rule, entity_params = access_sql("e", access)
        where, params = f"AND {doc_rule} AND {entity_rule}", [*doc_params, *entity_params]
        if entity_id is not None:
            where, params = where + " AND m.entity_id = ?", [*params, entity_id]
        sql = f"""
            SELECT e.id, e.name, e.type, d.path, count(*), min(m.start) FROM mentions m
            JOIN entities e ON e.id = m.entity_id JOIN documents d ON d.id = m.doc_id
            WHERE m.kind = 'text' AND m.start IS NOT NULL {where}
              AND (e.page_doc_id IS NULL OR e.page_doc_id != m.doc_id)
              AND NOT EXISTS (SELECT 1 FROM mentions l WHERE l.entity_id = m.entity_id AND l.doc_id = m.doc_id
                              AND l.kind IN ('wikilink', 'link', 'frontmatter'))
            GROUP BY e.id, d.id ORDER BY e.name, d.path, e.id"""
        if limit:
            sql += " LIMIT ?"
            params.append(limit)
        out = []
        for entity_id_, name, etype, path, count, first in self.db.execute(sql, params).fetchall():
            surface, chunk_start, text = self.db.execute(
                "SELECT m.surface, c.start, c.text FROM mentions m JOIN chunks c ON c.id = m.chunk_id"
                " JOIN documents d ON d.id = m.doc_id WHERE m.entity_id = ? AND d.path = ? AND m.start = ?",
                (entity_id_, path, first)).fetchone()
            out.append({"entity_id": entity_id_, "entity": name, "entity_type": etype, "path": path,
                        "count": count, "surface": surface, "start": first,
                        "context": _context(text, first - chunk_start, len(surface))})
        return out


def _context(text: str, start: int, length: int, width: int = 40) -> str:
    before = text[max(0, start - width):start].split("\n")[-1]
    after = text[start + length:start + length + width].split("\n")[0]
    return " ".join(f"{before}{text[start:start + length]}{after}".split())

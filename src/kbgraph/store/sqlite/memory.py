"""Facts, loops and the entity pages their lines were read from: the SQL of the MemoryStore contract.

A fact or loop is readable when it and its entity (joined by key) are: the access rule is applied
inside each query, before any ordering or cut."""

from __future__ import annotations

import json
import sqlite3

from ...access import Access
from ...model import Fact, Loop
from .rows import access_sql

_FACT_COLUMNS = ("f.id, f.entity_key, f.entity_name, f.kind, f.text, f.date, f.source, f.origin, f.origin_path,"
                 " f.recorded_at, f.superseded_at, f.superseded_by, f.change, f.owner, f.visibility, f.sensitivity")
_LOOP_COLUMNS = ("l.id, l.entity_key, l.entity_name, l.text, l.due, l.status, l.resolved_on, l.source, l.origin,"
                 " l.origin_path, l.recorded_at, l.updated_at, l.owner, l.visibility, l.sensitivity")
_FACT_FIELDS = ("entity_key", "entity_name", "kind", "text", "date", "source", "origin", "origin_doc_id",
                "origin_path", "recorded_at", "superseded_at", "superseded_by", "change", "owner", "visibility",
                "sensitivity")
_LOOP_FIELDS = ("entity_key", "entity_name", "text", "due", "status", "resolved_on", "source", "origin",
                "origin_doc_id", "origin_path", "recorded_at", "updated_at", "owner", "visibility", "sensitivity")
_DEFAULTS = {"visibility": "private", "sensitivity": "normal"}


def _fact(r) -> Fact:
    return Fact(*r)


def _loop(r) -> Loop:
    return Loop(*r)


class MemoryQueries:
    db: sqlite3.Connection

    def _readable(self, alias: str, access: Access) -> tuple[str, list]:
        """The row is readable, and so is its entity: the one its key names, or the one a merge of that key
        (a merge of a merge followed) made it part of."""
        row_clause, row_params = access_sql(alias, access)
        entity_clause, entity_params = access_sql("e", access)
        chain = (f"WITH RECURSIVE chain(k) AS (SELECT {alias}.entity_key UNION SELECT m.into_key FROM entity_merges m"
                 " JOIN chain ON m.from_key = chain.k)")
        return (f"{row_clause} AND EXISTS ({chain} SELECT 1 FROM entities e WHERE e.key IN (SELECT k FROM chain)"
                f" AND {entity_clause})"), [*row_params, *entity_params]

    # --- facts ---------------------------------------------------------------------

    def add_fact(self, row: dict) -> int:
        values = [row.get(k, _DEFAULTS.get(k)) for k in _FACT_FIELDS]
        return self.db.execute(f"INSERT INTO facts ({', '.join(_FACT_FIELDS)}) VALUES"
                               f" ({', '.join('?' * len(_FACT_FIELDS))}) RETURNING id", values).fetchone()[0]

    def get_fact(self, access: Access, fact_id: int) -> Fact | None:
        clause, params = self._readable("f", access)
        row = self.db.execute(f"SELECT {_FACT_COLUMNS} FROM facts f WHERE f.id = ? AND {clause}",
                              [fact_id, *params]).fetchone()
        return _fact(row) if row else None

    def facts(self, access: Access, entity_key: str | None = None, include_superseded: bool = False) -> list[Fact]:
        clause, params = self._readable("f", access)
        where = [clause]
        if entity_key is not None:
            where.append("f.entity_key = ?")
            params.append(entity_key)
        if not include_superseded:
            where.append("f.superseded_at IS NULL")
        rows = self.db.execute(f"SELECT {_FACT_COLUMNS} FROM facts f WHERE {' AND '.join(where)}"
                               " ORDER BY f.entity_name, coalesce(f.date, substr(f.recorded_at, 1, 10)), f.id", params)
        return [_fact(r) for r in rows]

    def supersede_fact(self, fact_id: int, superseded_by: int | None, change: str, now: str) -> None:
        self.db.execute("UPDATE facts SET superseded_at = ?, superseded_by = ?, change = ? WHERE id = ?"
                        " AND superseded_at IS NULL", (now, superseded_by, change, fact_id))

    # --- loops ---------------------------------------------------------------------

    def add_loop(self, row: dict) -> int:
        values = [row.get(k, _DEFAULTS.get(k)) for k in _LOOP_FIELDS]
        return self.db.execute(f"INSERT INTO loops ({', '.join(_LOOP_FIELDS)}) VALUES"
                               f" ({', '.join('?' * len(_LOOP_FIELDS))}) RETURNING id", values).fetchone()[0]

    def get_loop(self, access: Access, loop_id: int) -> Loop | None:
        clause, params = self._readable("l", access)
        row = self.db.execute(f"SELECT {_LOOP_COLUMNS} FROM loops l WHERE l.id = ? AND {clause}",
                              [loop_id, *params]).fetchone()
        return _loop(row) if row else None

    def loops(self, access: Access, entity_key: str | None = None, statuses: tuple[str, ...] = ("open",),
              due_by: str | None = None) -> list[Loop]:
        clause, params = self._readable("l", access)
        where = [clause]
        if entity_key is not None:
            where.append("l.entity_key = ?")
            params.append(entity_key)
        if statuses:
            where.append(f"l.status IN ({','.join('?' * len(statuses))})")
            params.extend(statuses)
        if due_by is not None:
            where.append("l.due IS NOT NULL AND l.due <= ?")
            params.append(due_by)
        rows = self.db.execute(f"SELECT {_LOOP_COLUMNS} FROM loops l WHERE {' AND '.join(where)}"
                               " ORDER BY l.due IS NULL, l.due, l.id", params)
        return [_loop(r) for r in rows]

    def set_loop_status(self, loop_id: int, status: str, resolved_on: str | None, now: str) -> None:
        self.db.execute("UPDATE loops SET status = ?, resolved_on = ?, updated_at = ? WHERE id = ?",
                        (status, resolved_on, now, loop_id))

    def set_memory_provenance(self, table: str, row_id: int, source: str, recorded_at: str) -> None:
        if table not in ("facts", "loops"):
            raise ValueError(f"no memory table {table!r}")
        self.db.execute(f"UPDATE {table} SET source = ?, recorded_at = ? WHERE id = ?", (source, recorded_at, row_id))

    def entity_keys(self, entity_ids: list[int]) -> dict[int, str]:
        if not entity_ids:  # `IN ()` is SQLite's, not standard SQL
            return {}
        marks = ",".join("?" * len(entity_ids))
        return dict(self.db.execute(f"SELECT id, key FROM entities WHERE id IN ({marks})", entity_ids))

    # --- the pages lines are read from (index bookkeeping: no access check) -----------

    def memory_page_states(self) -> list[dict]:
        """Each entity page with the hash its lines were last read at, and whether its live rows are
        homed elsewhere than the page is now (another entity after a merge or unmerge, a moved path)."""
        elsewhere = " OR ".join(
            f"EXISTS (SELECT 1 FROM {table} x WHERE x.origin = 'page' AND x.origin_doc_id = d.id AND {live}"
            " AND (x.entity_key != e.key OR x.entity_name != e.name OR x.origin_path IS DISTINCT FROM d.path))"
            for table, live in (("facts", "x.superseded_at IS NULL"), ("loops", "x.status != 'dropped'")))
        rows = self.db.execute(
            "SELECT d.id, d.path, d.content_hash, m.content_hash, e.key, e.name, d.owner, d.visibility,"
            f" d.sensitivity, CASE WHEN {elsewhere} THEN 1 ELSE 0 END FROM entity_pages p"
            " JOIN documents d ON d.id = p.doc_id"
            " JOIN entities e ON e.id = p.entity_id LEFT JOIN memory_pages m ON m.doc_id = d.id ORDER BY d.path")
        keys = ("doc_id", "path", "content_hash", "synced_hash", "entity_key", "entity_name", "owner", "visibility",
                "sensitivity", "rehome")
        return [{**dict(zip(keys, r)), "rehome": bool(r[9])} for r in rows]

    def memory_homes(self) -> set[int | None]:
        """The pages (None: a page since removed) current page facts and open or resolved page loops live on."""
        rows = self.db.execute(
            "SELECT origin_doc_id FROM facts WHERE origin = 'page' AND superseded_at IS NULL"
            " UNION SELECT origin_doc_id FROM loops WHERE origin = 'page' AND status != 'dropped'")
        return {r[0] for r in rows}

    def page_facts(self, doc_id: int | None) -> list[Fact]:
        rows = self.db.execute(f"SELECT {_FACT_COLUMNS} FROM facts f WHERE f.origin = 'page'"
                               " AND f.superseded_at IS NULL AND f.origin_doc_id IS NOT DISTINCT FROM ?"
                               " ORDER BY f.id", (doc_id,))
        return [_fact(r) for r in rows]

    def page_loops(self, doc_id: int | None) -> list[Loop]:
        rows = self.db.execute(f"SELECT {_LOOP_COLUMNS} FROM loops l WHERE l.origin = 'page'"
                               " AND l.status != 'dropped' AND l.origin_doc_id IS NOT DISTINCT FROM ?"
                               " ORDER BY l.id", (doc_id,))
        return [_loop(r) for r in rows]

    def rehome_memory(self, doc_id: int, path: str, entity_key: str, entity_name: str, governance: tuple) -> None:
        """A page's current facts and loops follow its path, its entity (renamed) and its governance."""
        for table, live in (("facts", "superseded_at IS NULL"), ("loops", "status != 'dropped'")):
            self.db.execute(f"UPDATE {table} SET origin_path = ?, entity_key = ?, entity_name = ?, owner = ?,"
                            f" visibility = ?, sensitivity = ? WHERE origin = 'page' AND origin_doc_id = ?"
                            f" AND {live}", (path, entity_key, entity_name, *governance, doc_id))

    def save_memory_page(self, doc_id: int, content_hash: str, problems: list[tuple[int, str]]) -> None:
        self.db.execute("INSERT INTO memory_pages (doc_id, content_hash, problems) VALUES (?, ?, ?)"
                        " ON CONFLICT (doc_id) DO UPDATE SET content_hash = excluded.content_hash,"
                        " problems = excluded.problems", (doc_id, content_hash, json.dumps(problems)))

    def memory_problems(self) -> list[tuple[str, int, str]]:
        rows = self.db.execute("SELECT d.path, m.problems FROM memory_pages m JOIN documents d ON d.id = m.doc_id"
                               " WHERE m.problems != '[]' ORDER BY d.path")
        return [(path, line, message) for path, raw in rows for line, message in json.loads(raw)]

    def memory_revision(self) -> tuple:
        """What moves whenever a fact or loop is added, superseded, resolved or dropped, for a cached
        answer that read them to compare (rows are never deleted; a change adds a row or a status)."""
        facts = self.db.execute("SELECT count(*), coalesce(max(id), 0), count(superseded_at),"
                                " coalesce(max(superseded_at), '') FROM facts").fetchone()
        loops = self.db.execute("SELECT count(*), coalesce(max(id), 0), count(CASE WHEN status = 'open' THEN 1 END),"
                                " coalesce(max(updated_at), '') FROM loops").fetchone()
        return (*facts, *loops)

"""SQL of the relation graph read as a graph: the relations out of a frontier of entities (one query
per few hundred entities, so a traversal reads only what it reaches), degrees, every edge, and the
generation counter that m016's triggers move with each change.

A mixin of SqliteStore (it uses self.db); kept apart so the main store module stays readable.
"""

from __future__ import annotations

import sqlite3

from ...access import Access
from ...model import Entity
from ..base import GraphScope, GraphStep
from .rows import EVERY_ROW, _entity_row, access_sql, entity_columns

_PART = 500  # ids per IN (...) list


def _scope_sql(scope: GraphScope, access: Access) -> tuple[str, list]:
    """The clauses on relation r and its ends s, t that a scope and an access ask for."""
    clauses: list[str] = []
    params: list = []
    if scope.types:
        clauses.append(f"r.type IN ({','.join('?' * len(scope.types))})")
        params += list(scope.types)
    if scope.active_on:
        clauses.append("(r.valid_until IS NULL OR r.valid_until >= ?) AND (r.valid_from IS NULL OR r.valid_from <= ?)")
        params += [scope.active_on, scope.active_on]
    if not scope.include_inferred:
        clauses.append("r.inferred = 0")
    for alias in ("r", "s", "t"):
        clause, extra = access_sql(alias, access)
        if clause != EVERY_ROW:
            clauses.append(clause)
            params += extra
    return (" AND ".join(clauses) or EVERY_ROW), params


class GraphQueries:
    db: sqlite3.Connection

    def _index_hint(self, index: str) -> str:
        """The index a graph read is pinned to: relations_graph_out/in cover its columns, so a step is an
        index range. SQLite's clause; PostgreSQL has no such clause and overrides this."""
        return f" INDEXED BY {index}"

    def relation_generation(self) -> int:
        """Moves (up) with every change to relations, and to what entities show or who may read them."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'relation_generation'").fetchone()
        return int(row[0]) if row else 0

    def relation_steps(self, access: Access, entity_ids: list[int], direction: str,
                       scope: GraphScope) -> list[GraphStep]:
        """Every relation in scope from an entity of entity_ids to a neighbour, in the direction asked
        ("out": the entity is the source, "in": the target, "both")."""
        where, params = _scope_sql(scope, access)
        sides = {"out": ("out",), "in": ("in",), "both": ("out", "in")}[direction]
        steps: list[GraphStep] = []
        ids = list(dict.fromkeys(entity_ids))
        for side in sides:
            near, far, index = (("source_id", "t", "relations_graph_out") if side == "out"
                                else ("target_id", "s", "relations_graph_in"))
            for start in range(0, len(ids), _PART):
                part = ids[start:start + _PART]
                sql = (f"SELECT r.{near}, {far}.id, {far}.name, {far}.type, r.id, r.type, r.inferred"
                       f" FROM relations r{self._index_hint(index)}"
                       " JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id"
                       f" WHERE r.{near} IN ({','.join('?' * len(part))}) AND {where}")
                outgoing = side == "out"
                steps += [GraphStep(row[0], row[1], row[2], row[3], row[4], row[5], outgoing, bool(row[6]))
                          for row in self.db.execute(sql, [*part, *params])]
            if scope.include_inferred:
                steps += self._inferred_steps(access, ids, side, scope)
        return steps

    def _inferred_steps(self, access: Access, ids: list[int], side: str, scope: GraphScope) -> list[GraphStep]:
        """Steps along inferred relations (their ids negated, so they never collide with asserted ones).
        Their premises' governance is not stored with them, so only a reader who sees everything gets any."""
        if not access.sees_everything:
            return []
        near, far = ("source_id", "t") if side == "out" else ("target_id", "s")
        clauses, params = [], []
        if scope.types:
            clauses.append(f"r.type IN ({','.join('?' * len(scope.types))})")
            params += list(scope.types)
        for alias in ("s", "t"):
            clause, extra = access_sql(alias, access)
            if clause != EVERY_ROW:
                clauses.append(clause)
                params += extra
        where = " AND ".join(clauses) or EVERY_ROW
        steps: list[GraphStep] = []
        for start in range(0, len(ids), _PART):
            part = ids[start:start + _PART]
            sql = (f"SELECT r.{near}, {far}.id, {far}.name, {far}.type, -r.id, r.type FROM inferred_relations r"
                   " JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id"
                   f" WHERE r.{near} IN ({','.join('?' * len(part))}) AND {where}")
            steps += [GraphStep(row[0], row[1], row[2], row[3], row[4], row[5], side == "out", True)
                      for row in self.db.execute(sql, [*part, *params])]
        return steps

    def relation_chains(self, first_type: str, second_type: str, active_on: str) -> list[tuple[int, int, int, int]]:
        """(a, c, first relation id, second relation id) for every a --first--> b --second--> c of
        current asserted relations with a != c: the premises an inference rule reads."""
        current = ("(r{n}.valid_until IS NULL OR r{n}.valid_until >= ?) AND (r{n}.valid_from IS NULL OR"
                   " r{n}.valid_from <= ?) AND r{n}.inferred = 0")
        return [(row[0], row[1], row[2], row[3]) for row in self.db.execute(
            "SELECT r1.source_id, r2.target_id, r1.id, r2.id FROM relations r1"
            f" JOIN relations r2{self._index_hint('relations_graph_out')} ON r2.source_id = r1.target_id"
            f" WHERE r1.type = ? AND r2.type = ? AND r1.source_id != r2.target_id"
            f" AND {current.format(n=1)} AND {current.format(n=2)} ORDER BY r1.id, r2.id",
            [first_type, second_type, active_on, active_on, active_on, active_on])]

    def replace_inferred(self, rows: list[tuple[int, int, str, str, str]], now: str) -> tuple[int, int]:
        """Make the inferred relations equal to rows of (source id, target id, type, rule, premises as
        JSON); one that stays keeps its row. Returns (added, removed)."""
        wanted = {(r[0], r[1], r[2]): r for r in rows}
        have = {(a, b, t): i for i, a, b, t in self.db.execute(
            "SELECT id, source_id, target_id, type FROM inferred_relations")}
        gone = [have[key] for key in have.keys() - wanted.keys()]
        self.db.executemany("DELETE FROM inferred_relations WHERE id = ?", [(i,) for i in gone])
        new = [wanted[key] for key in wanted.keys() - have.keys()]
        self.db.executemany("INSERT INTO inferred_relations (source_id, target_id, type, rule, premises, created_at)"
                            " VALUES (?, ?, ?, ?, ?, ?)", [(*row, now) for row in new])
        for key in wanted.keys() & have.keys():  # same relation: the rule and path now deriving it
            self.db.execute("UPDATE inferred_relations SET rule = ?, premises = ? WHERE id = ?"
                            " AND (rule != ? OR premises != ?)",
                            (wanted[key][3], wanted[key][4], have[key], wanted[key][3], wanted[key][4]))
        return len(new), len(gone)

    def inferred_relations(self, access: Access) -> list[dict]:
        """Every inferred relation, with its rule and premises; none for a reader who does not see
        everything (the premises it was derived from may be unreadable to them)."""
        if not access.sees_everything:
            return []
        keys = ("id", "source_id", "source", "target_id", "target", "type", "rule", "premises", "created_at")
        return [dict(zip(keys, row)) for row in self.db.execute(
            "SELECT r.id, s.id, s.name, t.id, t.name, r.type, r.rule, r.premises, r.created_at"
            " FROM inferred_relations r JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id"
            " ORDER BY r.type, s.name, t.name, r.id")]

    def relation_degrees(self, access: Access, scope: GraphScope, limit: int | None) -> list[tuple[int, int]]:
        """(entity id, relations in scope at either end), most first, ties by id."""
        where, params = _scope_sql(scope, access)
        # A reader who sees everything needs no look at the ends: each side counts from its own index.
        ends = ("" if access.sees_everything else
                " JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id")
        page = f" LIMIT {int(limit)}" if limit else ""
        sides = " UNION ALL ".join(
            f"SELECT r.{column} AS id, count(*) AS n FROM relations r{self._index_hint(index)}{ends} WHERE {where}"
            f" GROUP BY r.{column}"
            for column, index in (("source_id", "relations_graph_out"), ("target_id", "relations_graph_in")))
        return [(row[0], row[1]) for row in self.db.execute(
            f"SELECT id, CAST(sum(n) AS INTEGER) AS degree FROM ({sides}) AS sides GROUP BY id"
            f" ORDER BY degree DESC, id{page}",
            [*params, *params])]

    def relation_edges(self, access: Access, scope: GraphScope) -> list[tuple[int, int, int, str, bool]]:
        """Every relation in scope as (source id, target id, relation id, type, inferred), by id."""
        where, params = _scope_sql(scope, access)
        ends = ("" if access.sees_everything else
                " JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id")
        edges = [(row[0], row[1], row[2], row[3], bool(row[4])) for row in self.db.execute(
            f"SELECT r.source_id, r.target_id, r.id, r.type, r.inferred FROM relations r{ends}"
            f" WHERE {where} ORDER BY r.id", params)]
        if scope.include_inferred:
            wanted = set(scope.types)
            edges += [(r["source_id"], r["target_id"], -r["id"], r["type"], True) for r in self.inferred_relations(access)
                      if not wanted or r["type"] in wanted]
        return edges

    def entities_by_ids(self, access: Access, entity_ids: list[int]) -> dict[int, Entity]:
        """The entities of entity_ids that the access may read, by id."""
        readable, params = access_sql("e", access)
        columns, page, shown = entity_columns(access)
        ids = list(dict.fromkeys(entity_ids))
        out: dict[int, Entity] = {}
        for start in range(0, len(ids), _PART):
            part = ids[start:start + _PART]
            for row in self.db.execute(
                    f"SELECT {columns} FROM entities e {page}"
                    f" WHERE e.id IN ({','.join('?' * len(part))}) AND {readable}", [*shown, *part, *params]):
                entity = _entity_row(row)
                out[entity.id] = entity
        return out


_CONFLICT_KEYS = ("id", "kind", "type", "subject_key", "subject_name", "old_relation_id", "old_other",
                  "new_relation_id", "new_other", "status", "resolution", "note", "created_at", "resolved_at")


class ConflictQueries:
    """Contradictions between relations of a one-at-a-time type, as kbgraph.relations.conflicts records them."""

    db: sqlite3.Connection

    def add_conflict(self, conflict: dict, now: str) -> int:
        return self.db.execute(
            "INSERT INTO relation_conflicts (kind, type, subject_key, subject_name, old_relation_id, old_other,"
            " new_relation_id, new_other, status, resolution, note, created_at, resolved_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (conflict["kind"], conflict["type"], conflict["subject_key"], conflict["subject_name"],
             conflict.get("old_relation_id"), conflict["old_other"], conflict.get("new_relation_id"),
             conflict["new_other"], conflict["status"], conflict.get("resolution"), conflict.get("note"), now,
             now if conflict["status"] == "resolved" else None)).fetchone()[0]

    def conflicts(self, access: Access, status: str | None = None) -> list[dict]:
        """Recorded conflicts (of one status, or all) whose subject the access may read, newest first."""
        readable, params = access_sql("e", access)
        where = f"NOT EXISTS (SELECT 1 FROM entities e WHERE e.key = c.subject_key AND NOT {readable})"
        if status:
            where += " AND c.status = ?"
            params = [*params, status]
        return [dict(zip(_CONFLICT_KEYS, row)) for row in self.db.execute(
            f"SELECT {', '.join('c.' + k for k in _CONFLICT_KEYS)} FROM relation_conflicts c WHERE {where}"
            " ORDER BY c.id DESC", params)]

    def get_conflict(self, access: Access, conflict_id: int) -> dict | None:
        return next((c for c in self.conflicts(access) if c["id"] == conflict_id), None)

    def resolve_conflict(self, conflict_id: int, resolution: str, now: str) -> None:
        self.db.execute("UPDATE relation_conflicts SET status = 'resolved', resolution = ?, resolved_at = ?"
                        " WHERE id = ?", (resolution, now, conflict_id))

    def open_conflict_between(self, old_relation_id: int, new_relation_id: int) -> bool:
        """Whether these two relations already have a conflict recorded (either way round)."""
        return self.db.execute(
            "SELECT 1 FROM relation_conflicts WHERE (old_relation_id = ? AND new_relation_id = ?)"
            " OR (old_relation_id = ? AND new_relation_id = ?)",
            (old_relation_id, new_relation_id, new_relation_id, old_relation_id)).fetchone() is not None

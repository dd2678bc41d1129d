"""Reading rows into values and filters into SQL: shared by the SQLite store and its query mixins."""

from __future__ import annotations

import json

from ...access import SENSITIVITIES, Access
from ...errors import ForeignAccess
from ...model import TIER_THRESHOLDS, Entity
from ..base import DocFilter

# The WHERE clause that keeps every row. `true`, not `1`: PostgreSQL wants a boolean where SQLite takes
# any number; compare a clause with it to skip a filter that keeps everything.
EVERY_ROW = "true"

_DOC_COLUMNS = "d.id, d.path, d.title, d.kind, d.date, d.tags, d.size, d.mtime, d.indexed_at, d.owner, d.visibility"


def _grouped(cursor):
    """A reader of rows (doc_id, ...) ordered by doc_id: call it with ascending doc ids to get each group."""
    pending = [next(cursor, None)]

    def take(doc_id: int) -> list[tuple]:
        rows = []
        while pending[0] is not None and pending[0][0] <= doc_id:
            if pending[0][0] == doc_id:
                rows.append(pending[0][1:])
            pending[0] = next(cursor, None)
        return rows

    return take


_ENTITY_COLUMNS = (
    "e.id, e.type, e.name, e.aliases, d.path, e.attributes, e.mention_count AS mentions_read, e.tier, e.status"
)
_PAGE_JOIN = "LEFT JOIN documents d ON d.id = e.page_doc_id"


def entity_columns(access: Access) -> tuple[str, str, list]:
    """The columns of an Entity row of entities e as the access reads it, the join of its page d, and their
    parameters (which come before the WHERE clause's). The stored mention count and tier count every note:
    right for a reader of every row. Another reader's are counted in the query from the mentions in notes
    it may read, and a page it may not read gives no path, aliases or attributes: an index of only what it
    may read would have neither, so nothing tells it that the notes exist. Order by mentions_read."""
    readable, params = access_sql("d", access)
    if readable == EVERY_ROW:
        return _ENTITY_COLUMNS, _PAGE_JOIN, []
    counted, counted_params = mention_count_sql(access)
    hidden = "e.page_doc_id IS NOT NULL AND d.id IS NULL"  # a page the access may not read
    columns = (f"e.id, e.type, e.name, CASE WHEN {hidden} THEN '[]' ELSE e.aliases END, d.path,"
               f" CASE WHEN {hidden} THEN '{{}}' ELSE e.attributes END, {counted} AS mentions_read, NULL, e.status")
    return columns, f"{_PAGE_JOIN} AND {readable}", [*counted_params, *params]


def mention_count_sql(access: Access) -> tuple[str, list]:
    """The mention count of entity e as the access reads it: the stored one, or counted from the mentions
    in notes it may read."""
    counted, params = access_sql("md", access)
    if counted == EVERY_ROW:
        return "e.mention_count", []
    return ("(SELECT count(*) FROM mentions m JOIN documents md ON md.id = m.doc_id"
            f" WHERE m.entity_id = e.id AND {counted})", params)


def tier_of(mentions: int) -> int:
    return next((tier for least, tier in TIER_THRESHOLDS if mentions >= least), 1)


def _entity_row(r) -> Entity:
    """An Entity from the columns of entity_columns (a tier of NULL: the one its counted mentions make)."""
    tier = r[7] if r[7] is not None else tier_of(r[6])
    return Entity(r[0], r[1], r[2], tuple(json.loads(r[3])), r[4], json.loads(r[5]), r[6], tier, r[8])


def _doc_row(r) -> dict:
    return {
        "id": r[0], "path": r[1], "title": r[2], "kind": r[3], "date": r[4], "tags": json.loads(r[5]),
        "size": r[6], "mtime": r[7], "indexed_at": r[8], "owner": r[9], "visibility": r[10],
    }


def _doc_filter_sql(flt: DocFilter) -> tuple[str, list]:
    """The WHERE clause on documents d that flt passes (EVERY_ROW when it passes all), in SQL both
    backends run: glob() is SQLite's own and a function of the PostgreSQL schema."""
    clauses, params = [EVERY_ROW], []
    if flt.kinds:
        clauses.append(f"d.kind IN ({','.join('?' * len(flt.kinds))})")
        params.extend(flt.kinds)
    if flt.path_prefix:
        clauses.append("(d.path = ? OR substr(d.path, 1, ?) = ? OR glob(?, d.path))")
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
    return " AND ".join(clauses[1:] or clauses), params


def _suggestion_row(row: dict) -> dict:
    """A suggestion end not known yet is stored as "type:name": it reads as that name and type, id None,
    with new_source / new_target set."""
    for end in ("source", "target"):
        row[f"new_{end}"] = row[f"{end}_id"] is None
        if row[f"new_{end}"]:
            row[f"{end}_type"], _, row[end] = row[end].partition(":")
    return row


_RANK_CASES = " ".join(f"WHEN '{level}' THEN {rank}" for rank, level in enumerate(SENSITIVITIES))
_UNKNOWN_RANK = len(SENSITIVITIES) - 1


def access_sql(alias: str, access: Access) -> tuple[str, list]:
    """The WHERE clause (and its parameters) that keeps rows of alias the access may read: the rule of
    kbgraph.access, applied inside the query so that it holds before any LIMIT."""
    if not isinstance(access, Access):
        raise ForeignAccess(f"a store read needs a kbgraph.access.Access, not {type(access).__name__}")
    if access.sees_everything:  # every row, those with a visibility kbgraph does not know among them
        return EVERY_ROW, []
    visibilities = sorted(access.visibilities)
    # coalesce(owner = ?, false), not `owner = ?`: a row with no owner must read as false, not NULL, or
    # NOT (clause) would let it through where a read excludes what is unreadable. (SQLite's `IS ?` says
    # the same for a principal, never NULL, but PostgreSQL takes IS only before NULL, TRUE or FALSE.)
    # No visibility: `false`, as SQLite reads `IN ()`, which PostgreSQL does not parse.
    visible = f"{alias}.visibility IN ({','.join('?' * len(visibilities))})" if visibilities else "false"
    clause = (f"(CASE {alias}.sensitivity {_RANK_CASES} ELSE {_UNKNOWN_RANK} END <= ?"
              f" AND ({visible} OR coalesce({alias}.owner = ?, false)))")
    return clause, [access.max_rank, *visibilities, access.principal]

"""SQL that graph-aware search reads: chunk details for ranked ids, documents that mention entities,
and the active relations around entities. A mixin of SqliteStore (it uses self.db)."""

from __future__ import annotations

import sqlite3

from ...access import Access
from ...model import Snippet, TextQuery
from ..base import DocFilter
from .fts5 import CLOSE, OPEN, match_expression, read_marked
from .rows import EVERY_ROW, _entity_row, access_sql, entity_columns


# The most indexed words the prefixes of one query may stand for together (see _refuse_broad_prefixes).
MAX_PREFIX_WORDS = 500


class SearchQueries:
    db: sqlite3.Connection

    def chunk_rows(self, access: Access, chunk_ids: list[int], flt: DocFilter) -> dict[int, dict]:
        """Chunk id -> its document's columns with chunk_id, heading and line, for the chunks whose
        documents the access may read and pass the filter."""
        from .rows import _DOC_COLUMNS, _doc_row

        out: dict[int, dict] = {}
        where, params = _readable_passing(access, flt)
        for start in range(0, len(chunk_ids), 500):
            part = chunk_ids[start:start + 500]
            rows = self.db.execute(
                f"SELECT {_DOC_COLUMNS}, c.id, c.heading, c.line FROM chunks c JOIN documents d ON d.id = c.doc_id"
                f" WHERE c.id IN ({','.join('?' * len(part))}) AND {where}", [*part, *params])
            for r in rows:
                doc = _doc_row(r)
                doc.update(chunk_id=r[11], heading=r[12], line=r[13])
                out[r[11]] = doc
        return out

    def ranked_docs(self, access: Access, query: TextQuery, flt: DocFilter, limit: int) -> list[tuple[int, float]]:
        """(document id, BM25 of the whole document, higher better), best first, of the documents the
        access may read and the filter passes (both inside the query, before its LIMIT)."""
        return [(doc_id, score) for doc_id, _, score in self._bm25("doc_fts", "4.0, 2.0, 1.0", "f.rowid", "",
                                                                   access, query, flt, limit)]

    def ranked_chunks(self, access: Access, query: TextQuery, flt: DocFilter,
                      limit: int) -> list[tuple[int, int, float]]:
        """(chunk id, its document id, BM25 of the section, higher better), best first, of the sections
        whose documents the access may read and the filter passes (both inside the query, before its
        LIMIT). The section's heading weighs twice its body, as a document's headings do; the title,
        shared by every section of a note, counts once."""
        return self._bm25("chunk_fts", "1.0, 2.0, 1.0", "c.doc_id", " JOIN chunks c ON c.id = f.rowid", access,
                          query, flt, limit)

    def _bm25(self, table: str, weights: str, doc_id: str, join: str, access: Access, query: TextQuery,
              flt: DocFilter, limit: int) -> list[tuple[int, int, float]]:
        """(row id, document id, -bm25) of a full-text table's best rows; the reader's rule and the
        filter on the row's document (doc_id: how a row names it, after join) before the LIMIT."""
        if not query.terms:
            return []
        from ...errors import StoreError

        self._refuse_broad_prefixes(query)
        fts_query = match_expression(query)
        where, params = _readable_passing(access, flt)
        if where == EVERY_ROW:  # FTS5 ranks and cuts alone; the join reads only the rows kept
            sql = (f"SELECT f.rowid, {doc_id}, f.rank FROM (SELECT rowid, bm25({table}, {weights}) AS rank"
                   f" FROM {table} WHERE {table} MATCH ? ORDER BY rank LIMIT ?) f{join} ORDER BY f.rank, f.rowid")
            args = [fts_query, limit]
        else:
            sql = (f"SELECT f.rowid, {doc_id}, bm25({table}, {weights}) AS rank FROM {table} f{join}"
                   f" JOIN documents d ON d.id = {doc_id} WHERE {table} MATCH ? AND {where}"
                   " ORDER BY rank, f.rowid LIMIT ?")
            args = [fts_query, *params, limit]
        try:
            return [(row_id, doc, -rank) for row_id, doc, rank in self.db.execute(sql, args)]
        except sqlite3.OperationalError as exc:
            raise StoreError(f"search failed for {fts_query!r}: {exc}") from exc

    def _refuse_broad_prefixes(self, query: TextQuery) -> None:
        """A query whose prefixes stand for more than MAX_PREFIX_WORDS indexed words together is refused
        before it runs: FTS5 reads the whole doclist of every word a prefix expands to, in each of the
        search's passes (rank, place, snippets), so three one-letter prefixes on the KEP vault (~1,100 to
        1,800 words each) cost ~0.4 s. The count comes from the vocabulary (a few ms for one letter), and
        only a query with a prefix pays it."""
        prefixes = query_prefixes(query)
        if not prefixes:
            return
        self.db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.kbg_doc_vocab USING fts5vocab(main, doc_fts, row)")
        refuse_broad_prefixes({p: self.db.execute("SELECT count(*) FROM temp.kbg_doc_vocab WHERE term >= ?"
                                                  " AND term < ?", (p, p + "\U0010ffff")).fetchone()[0]
                               for p in prefixes})

    def chunks_mentioning(self, access: Access, entity_ids: list[int], flt: DocFilter,
                          limit: int = 2000) -> list[tuple]:
        """(doc id, entity id, mentions, chunk id, is the entity's page) for each section that mentions
        the entities, or belongs to the page of one, in documents the access may read, filters
        applied; most mentioned first. The section-level twin of docs_mentioning."""
        if not entity_ids:
            return []
        where, params = _readable_passing(access, flt)
        marks = ",".join("?" * len(entity_ids))
        return self.db.execute(
            f"""
            SELECT m.doc_id, m.entity_id, count(*) AS n, m.chunk_id, 0 FROM mentions m
            JOIN documents d ON d.id = m.doc_id
            WHERE m.entity_id IN ({marks}) AND m.chunk_id IS NOT NULL AND {where}
            GROUP BY m.chunk_id, m.entity_id, m.doc_id
            UNION ALL
            SELECT p.doc_id, p.entity_id, 1, c.id, 1
            FROM entity_pages p JOIN documents d ON d.id = p.doc_id JOIN chunks c ON c.doc_id = p.doc_id
            WHERE p.entity_id IN ({marks}) AND {where}
            ORDER BY n DESC LIMIT ?""",
            [*entity_ids, *params, *entity_ids, *params, limit]).fetchall()

    def documents_revision(self) -> tuple:
        """What moves whenever a document is added, changed or removed, for a cached answer that read
        documents to compare: the count, the ids, the file times (a change of a file changes its mtime,
        even within the second that indexed_at records) and the last write."""
        return tuple(self.db.execute("SELECT count(*), total(id), total(mtime), coalesce(max(indexed_at), '')"
                                     " FROM documents").fetchone())

    def matching_chunks(self, query: TextQuery, doc_ids: list[int]) -> set[int]:
        """The chunks of these documents that match the query, in one MATCH over the span of their ids.
        No bm25() here: it reads every term's whole doclist for its statistics. Nor `rowid IN (…)`:
        FTS5 runs the whole query again for each listed rowid, and a prefix term is expanded each time
        (`a*`, some 3,000 words of the KEP index: 28 ms a row, 33 s a search); one pass over a rowid
        range costs at most one full match, whatever the number of chunks asked about."""
        if not doc_ids or not query.terms:
            return set()
        chunk_ids: set[int] = set()
        for start in range(0, len(doc_ids), 500):
            part = doc_ids[start:start + 500]
            chunk_ids.update(r[0] for r in self.db.execute(
                f"SELECT id FROM chunks WHERE doc_id IN ({','.join('?' * len(part))})", part))
        if not chunk_ids:
            return set()
        rows = self.db.execute("SELECT rowid FROM chunk_fts WHERE chunk_fts MATCH ? AND rowid BETWEEN ? AND ?",
                               [match_expression(query), min(chunk_ids), max(chunk_ids)])
        return {chunk_id for (chunk_id,) in rows if chunk_id in chunk_ids}

    def doc_chunk_texts(self, doc_ids: list[int]) -> list[tuple[int, int, str]]:
        """(chunk id, document id, text) of these documents' chunks, each document in reading order."""
        if not doc_ids:
            return []
        marks = ",".join("?" * len(doc_ids))
        return list(self.db.execute(f"SELECT id, doc_id, text FROM chunks WHERE doc_id IN ({marks})"
                                    " ORDER BY doc_id, ordinal", doc_ids))

    def snippets(self, query: TextQuery, chunk_ids: list[int]) -> dict[int, Snippet]:
        """Chunk id -> its best passage (16 words, `…` where cut) and where the query matched in it,
        for the chunks that match, in one query. One pass over the ids' range, as matching_chunks;
        `+rowid` keeps the list out of FTS5's plan (a full query per id) and filters the matches before
        snippet() is computed, so only the asked-for chunks pay for one."""
        if not chunk_ids or not query.terms:
            return {}
        marks = ",".join("?" * len(chunk_ids))
        rows = self.db.execute(
            f"SELECT rowid, snippet(chunk_fts, 2, ?, ?, '…', 16) FROM chunk_fts"
            f" WHERE chunk_fts MATCH ? AND rowid BETWEEN ? AND ? AND +rowid IN ({marks})",
            [OPEN, CLOSE, match_expression(query), min(chunk_ids), max(chunk_ids), *chunk_ids])
        return {chunk_id: read_marked(marked) for chunk_id, marked in rows}

    def docs_passing(self, access: Access, doc_ids: list[int], flt: DocFilter) -> set[int]:
        where, params = _readable_passing(access, flt)
        out: set[int] = set()
        for start in range(0, len(doc_ids), 500):
            part = doc_ids[start:start + 500]
            out.update(r[0] for r in self.db.execute(
                f"SELECT d.id FROM documents d WHERE d.id IN ({','.join('?' * len(part))}) AND {where}",
                [*part, *params]))
        return out

    def docs_mentioning(self, access: Access, entity_ids: list[int], flt: DocFilter,
                        limit: int = 2000) -> list[tuple]:
        """(doc id, entity id, mentions, first chunk id, is the entity's page) for documents that mention
        or are the page of the entities, that the access may read, filters applied; most mentioned first."""
        if not entity_ids:
            return []
        where, params = _readable_passing(access, flt)
        marks = ",".join("?" * len(entity_ids))
        return self.db.execute(
            f"""
            SELECT m.doc_id, m.entity_id, count(*) AS n, min(m.chunk_id), 0 FROM mentions m
            JOIN documents d ON d.id = m.doc_id
            WHERE m.entity_id IN ({marks}) AND {where}
            GROUP BY m.doc_id, m.entity_id
            UNION ALL
            SELECT p.doc_id, p.entity_id, 1, (SELECT min(c.id) FROM chunks c WHERE c.doc_id = p.doc_id), 1
            FROM entity_pages p JOIN documents d ON d.id = p.doc_id
            WHERE p.entity_id IN ({marks}) AND {where}
            ORDER BY n DESC LIMIT ?""",
            [*entity_ids, *params, *entity_ids, *params, limit]).fetchall()

    def entity_doc_counts(self, access: Access, entity_ids: list[int]) -> dict[int, int]:
        """Entity id -> how many documents the access may read mention it or are its page (no search filter:
        how widely it is named)."""
        readable, params = access_sql("d", access)
        out: dict[int, int] = {}
        for start in range(0, len(entity_ids), 500):
            part = entity_ids[start:start + 500]
            marks = ",".join("?" * len(part))
            out.update(self.db.execute(
                f"""SELECT named.entity_id, count(DISTINCT named.doc_id) FROM (
                        SELECT entity_id, doc_id FROM mentions WHERE entity_id IN ({marks})
                        UNION ALL SELECT entity_id, doc_id FROM entity_pages WHERE entity_id IN ({marks})) named
                    JOIN documents d ON d.id = named.doc_id WHERE {readable}
                    GROUP BY named.entity_id""", [*part, *part, *params]))
        return out

    def entity_degrees(self, access: Access, entity_ids: list[int], today: str) -> dict[int, int]:
        """Entity id -> how many active (not expired) relations the access may read it has, either direction."""
        readable, params = access_sql("r", access)
        out: dict[int, int] = {}
        for start in range(0, len(entity_ids), 500):
            part = entity_ids[start:start + 500]
            marks = ",".join("?" * len(part))
            for entity_id, n in self.db.execute(
                    f"""SELECT e, count(*) FROM (
                            SELECT r.source_id AS e FROM relations r WHERE r.source_id IN ({marks})
                                AND (r.valid_until IS NULL OR r.valid_until >= ?) AND {readable}
                            UNION ALL SELECT r.target_id FROM relations r WHERE r.target_id IN ({marks})
                                AND (r.valid_until IS NULL OR r.valid_until >= ?) AND {readable}) ends
                        GROUP BY e""", [*part, today, *params, *part, today, *params]):
                out[entity_id] = n
        return out

    def doc_dates(self, doc_ids: list[int]) -> dict[int, str | None]:
        out: dict[int, str | None] = {}
        for start in range(0, len(doc_ids), 500):
            part = doc_ids[start:start + 500]
            out.update(self.db.execute(f"SELECT id, date FROM documents WHERE id IN ({','.join('?' * len(part))})",
                                       part))
        return out

    def duplicate_pairs(self, doc_ids: list[int]) -> list[tuple[int, int]]:
        """(copy, original) document pairs among doc_ids that the document graph holds as duplicate-of."""
        if not doc_ids:
            return []
        marks = ",".join("?" * len(doc_ids))
        return self.db.execute(
            f"SELECT DISTINCT source_doc_id, target_doc_id FROM doc_relations WHERE type = 'duplicate-of'"
            f" AND source_doc_id IN ({marks}) AND target_doc_id IN ({marks})", [*doc_ids, *doc_ids]).fetchall()

    def doc_paths(self, doc_ids: list[int]) -> dict[int, str]:
        if not doc_ids:
            return {}
        marks = ",".join("?" * len(doc_ids))
        return dict(self.db.execute(f"SELECT id, path FROM documents WHERE id IN ({marks})", doc_ids))

    def active_neighbours(self, access: Access, entity_ids: list[int], today: str, per_entity: int) -> list[tuple]:
        """(entity id, neighbour id, relation type, "out" | "in") over relations true on `today` (not
        expired, not yet to begin) and that the access may read (the relation and both its ends), at most per_entity per entity and
        direction (a hub's thousands of edges say little each)."""
        if not entity_ids:
            return []
        from .rows import access_sql

        marks = ",".join("?" * len(entity_ids))
        relation_ok, relation_params = access_sql("r", access)
        neighbour_ok, neighbour_params = access_sql("n", access)
        own_ok, own_params = access_sql("o", access)
        readable = [*relation_params, *neighbour_params, *own_params]
        rows = self.db.execute(
            f"""
            SELECT * FROM (
                SELECT r.source_id, r.target_id, r.type, 'out',
                       row_number() OVER (PARTITION BY r.source_id ORDER BY r.strength DESC, r.id) AS k
                FROM relations r JOIN entities n ON n.id = r.target_id JOIN entities o ON o.id = r.source_id
                WHERE r.source_id IN ({marks}) AND (r.valid_until IS NULL OR r.valid_until >= ?)
                  AND (r.valid_from IS NULL OR r.valid_from <= ?) AND {relation_ok} AND {neighbour_ok} AND {own_ok}
                UNION ALL
                SELECT r.target_id, r.source_id, r.type, 'in',
                       row_number() OVER (PARTITION BY r.target_id ORDER BY r.strength DESC, r.id) AS k
                FROM relations r JOIN entities n ON n.id = r.source_id JOIN entities o ON o.id = r.target_id
                WHERE r.target_id IN ({marks}) AND (r.valid_until IS NULL OR r.valid_until >= ?)
                  AND (r.valid_from IS NULL OR r.valid_from <= ?) AND {relation_ok} AND {neighbour_ok} AND {own_ok}
            ) ranked WHERE k <= ?""",
            [*entity_ids, today, today, *readable, *entity_ids, today, today, *readable, per_entity]).fetchall()
        return [r[:4] for r in rows]

    def entity_names(self, entity_ids: list[int]) -> dict[int, str]:
        out: dict[int, str] = {}
        for start in range(0, len(entity_ids), 500):
            part = entity_ids[start:start + 500]
            out.update(self.db.execute(f"SELECT id, name FROM entities WHERE id IN ({','.join('?' * len(part))})",
                                       part))
        return out

    def entity_tiers(self, access: Access, entity_ids: list[int]) -> dict[int, int]:
        """Entity id -> its tier as the access reads it (entity_columns: from the mentions it may read)."""
        if not entity_ids:
            return {}
        columns, page, shown = entity_columns(access)
        rows = self.db.execute(f"SELECT {columns} FROM entities e {page} WHERE e.id IN ({','.join('?' * len(entity_ids))})",
                               [*shown, *entity_ids])
        return {entity.id: entity.tier for entity in map(_entity_row, rows)}

    def chunk_texts(self, chunk_ids: list[int]) -> dict[int, str]:
        if not chunk_ids:
            return {}
        marks = ",".join("?" * len(chunk_ids))
        return dict(self.db.execute(f"SELECT id, text FROM chunks WHERE id IN ({marks})", chunk_ids))

    def doc_matches(self, query: TextQuery, doc_id: int) -> bool:
        """Whether the document (its title, headings or text) matches the query."""
        return bool(query.terms) and self.db.execute("SELECT 1 FROM doc_fts WHERE doc_fts MATCH ? AND rowid = ?",
                                                     (match_expression(query), doc_id)).fetchone() is not None

    def doc_passes(self, access: Access, doc_id: int, flt: DocFilter) -> bool:
        where, params = _readable_passing(access, flt)
        return self.db.execute(f"SELECT 1 FROM documents d WHERE d.id = ? AND {where}",
                               [doc_id, *params]).fetchone() is not None


def _readable_passing(access: Access, flt: DocFilter) -> tuple[str, list]:
    """The WHERE clause on documents d: readable by the access, and passing the filter (EVERY_ROW: any)."""
    from .rows import _doc_filter_sql, access_sql

    readable, readable_params = access_sql("d", access)
    where, params = _doc_filter_sql(flt)
    if readable == EVERY_ROW:
        return where, params
    return (readable if where == EVERY_ROW else f"{readable} AND {where}"), [*readable_params, *params]


def query_prefixes(query: TextQuery) -> list[str]:
    """The query's prefixes (each prefix term's last word), excluded ones too: they expand as well."""
    return sorted({t.words[-1].lower() for t in (*query.terms, *query.exclusions) if t.prefix})


def refuse_broad_prefixes(counts: dict[str, int]) -> None:
    """The bound every backend applies, given how many indexed words each prefix stands for."""
    if sum(counts.values()) > MAX_PREFIX_WORDS:
        from ...errors import InvalidInput

        said = ", ".join(f"{p}* ({n:,})" for p, n in counts.items())
        raise InvalidInput(f"the query's prefixes stand for {sum(counts.values()):,} indexed words together"
                           f" ({said}), more than the {MAX_PREFIX_WORDS:,} a search expands",
                           param="query", hint="make a prefix longer, or write the word out")

"""PostgreSQL's own versions of the queries on full text (tsvector, tsquery compiled from TextQuery,
ts_headline), vectors and the document graph (store/sqlite/search.py, fts5.py, vectors.py,
docgraph.py) that are not portable SQL. A mixin of PostgresStore, first in its bases.

SQLite ranks with FTS5's bm25(); here ts_rank_cd (cover density) weighs the same columns the same
way, through the weights of the tsvector labels the schema gives them. It has no inverse document
frequency, so the order of hits differs from SQLite's where a rare word should outweigh a common
one; what both keep is the contract: higher is better, ties by id, the reader's rule and the filter
applied before the LIMIT. Vectors need nothing of their own: they are BYTEA rows that the shared
queries read, and the filter picks the rows before any top-k is taken (VectorQueries.vector_matrix).
"""

from __future__ import annotations

from ...access import Access
from ...model import Snippet, TextQuery
from ..base import DocFilter
from ..sqlite.search import _readable_passing
from .connection import PgConnection
from .tsquery import CONFIG, HEADLINE_OPTIONS, CompiledQuery, read_headline

# ts_rank_cd's weights, in the order {D, C, B, A} and at most 1, in the ratios of SQLite's bm25()
# column weights: a chunk's heading (A) 2, its document's title (B) 1, its text (C) 1; a document's
# title (A) 4, its heading paths (B) 2, its text (C) 1. D labels nothing (and is not 0: ts_rank_cd
# divides by each weight).
_CHUNK_WEIGHTS = "'{0.1, 0.5, 0.5, 1}'::float4[]"
_DOC_WEIGHTS = "'{0.1, 0.25, 0.5, 1}'::float4[]"
# Divide by 1 + log(length): a long text's many matches count, but less than linearly (BM25 normalises
# by length too).
_NORMALISATION = 1


class PgTextQueries:
    db: PgConnection

    # --- ranking -------------------------------------------------------------------------

    def ranked_docs(self, access: Access, query: TextQuery, flt: DocFilter, limit: int) -> list[tuple[int, float]]:
        if not query.terms:
            return []
        return [(doc_id, score) for doc_id, _, score in self._ranked(
            "documents d", "d.id", "d.tsv", _DOC_WEIGHTS, access, query, flt, limit)]

    def ranked_chunks(self, access: Access, query: TextQuery, flt: DocFilter,
                      limit: int) -> list[tuple[int, int, float]]:
        if not query.terms:
            return []
        return self._ranked("chunks c JOIN documents d ON d.id = c.doc_id", "c.id", "c.tsv", _CHUNK_WEIGHTS, access,
                            query, flt, limit)

    def _ranked(self, rows: str, row_id: str, tsv: str, weights: str, access: Access, query: TextQuery,
                flt: DocFilter, limit: int) -> list[tuple[int, int, float]]:
        """(row id, document id, rank) of the best rows, best first, ties by id; the reader's rule and
        the filter on the document d in the same WHERE, before the LIMIT."""
        compiled = CompiledQuery(query)
        match, match_params = compiled.match(tsv)
        where, params = _readable_passing(access, flt)
        sql = (f"SELECT {row_id}, d.id, ts_rank_cd({weights}, {tsv}, {compiled.positive}, {_NORMALISATION}) AS rank"
               f" FROM {rows} WHERE {match} AND {where} ORDER BY rank DESC, {row_id} LIMIT ?")
        args = [*compiled.positive_params, *match_params, *params, limit]
        return [(row, doc, float(rank)) for row, doc, rank in self.db.execute(sql, args)]

    # --- matching and passages -----------------------------------------------------------

    def matching_chunks(self, query: TextQuery, doc_ids: list[int]) -> set[int]:
        if not doc_ids or not query.terms:
            return set()
        match, params = CompiledQuery(query).match("tsv")
        return {r[0] for r in self.db.execute(f"SELECT id FROM chunks WHERE doc_id = ANY(?) AND {match}",
                                              [list(doc_ids), *params])}

    def doc_matches(self, query: TextQuery, doc_id: int) -> bool:
        if not query.terms:
            return False
        match, params = CompiledQuery(query).match("tsv")
        return self.db.execute(f"SELECT 1 FROM documents WHERE id = ? AND {match}",
                               [doc_id, *params]).fetchone() is not None

    def snippets(self, query: TextQuery, chunk_ids: list[int]) -> dict[int, Snippet]:
        """As SQLite's: the best passage of each matching chunk's text (up to 16 words), the matched words
        highlighted, `…` where it is cut."""
        if not chunk_ids or not query.terms:
            return {}
        compiled = CompiledQuery(query)
        match, params = compiled.match("tsv")
        rows = self.db.execute(
            f"SELECT id, text, ts_headline('{CONFIG}', text, {compiled.positive}, ?) FROM chunks"
            f" WHERE id = ANY(?) AND {match}",
            [*compiled.positive_params, HEADLINE_OPTIONS, list(chunk_ids), *params])
        return {chunk_id: read_headline(marked, text) for chunk_id, text, marked in rows}

    def chunks_with_text(self, query: TextQuery) -> list[tuple[int, int]]:
        """(chunk id, doc id) of the chunks whose body text (weight C, not the heading or title) matches."""
        if not query.terms:
            return []
        match, params = CompiledQuery(query, weight="C").match("tsv")
        return self.db.execute(f"SELECT id, doc_id FROM chunks WHERE {match}", params).fetchall()

    # --- what SQLite spells with its own functions -----------------------------------------

    def documents_revision(self) -> tuple:
        return tuple(self.db.execute("SELECT count(*), coalesce(sum(id), 0), coalesce(sum(mtime), 0),"
                                     " coalesce(max(indexed_at), '') FROM documents").fetchone())

    def subfolders(self, folder: str) -> list[str]:
        if folder:
            prefix = folder + "/"
            rows = self.db.execute(
                "SELECT DISTINCT substr(path, 1, ? + strpos(substr(path, ?), '/') - 1) FROM documents"
                " WHERE path >= ? AND path < ? AND strpos(substr(path, ?), '/') > 0",
                (len(prefix), len(prefix) + 1, prefix, folder + "0", len(prefix) + 1))
        else:
            rows = self.db.execute("SELECT DISTINCT substr(path, 1, strpos(path, '/') - 1) FROM documents"
                                   " WHERE strpos(path, '/') > 0")
        return sorted(r[0] for r in rows)

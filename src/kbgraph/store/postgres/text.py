"""PostgreSQL's own versions of the queries on full text (tsvector, tsquery compiled from TextQuery,
ts_headline), vectors and the document graph (store/sqlite/search.py, fts5.py, vectors.py,
docgraph.py) that are not portable SQL. A mixin of PostgresStore, first in its bases.

Ranking is FTS5's bm25() written in SQL, so that both backends order hits alike. For each query term
(a word, a phrase, a prefix): its document frequency n, a count over the GIN index; IDF =
ln((N - n + 0.5) / (n + 0.5)), at least 1e-6, with N the rows holding text (text_totals); its
weighted frequency f in the row, the sum of the label weights of its occurrences, which is what
ts_rank_cd returns for a one-term query with no normalisation (each occurrence is one cover worth its
label's weight; a phrase's cover its words' weight); and the row's length |D| in words (the tokens
column, counted at write time as FTS5 counts them). A row scores sum(IDF x f(k1 + 1) / (f + k1(1 - b +
b |D| / avgdl))), k1 1.2, b 0.75. The vectors are made of the words FTS5 would cut (kbg_words in the
schema), so both count the same occurrences, except where a tsvector cannot hold them: at most 256
positions per word and none past 16,383, so very long notes' frequencies count low (k1 flattens them
anyway). Vectors need nothing of their own: they are BYTEA rows that the
shared queries read, and the filter picks the rows before any top-k is taken (VectorQueries.vector_matrix).
"""

from __future__ import annotations

import re

from ...access import Access
from ...model import Snippet, TextQuery
from ..base import DocFilter
from ..sqlite.rows import EVERY_ROW
from ..sqlite.search import _readable_passing, query_prefixes, refuse_broad_prefixes
from .pool import PooledDb
from .tsquery import CONFIG, HEADLINE_OPTIONS, CompiledQuery, read_headline, tsquery_sql

# ts_rank_cd's weights, in the order {D, C, B, A} and at most 1, in the ratios of SQLite's bm25()
# column weights, and the factor that scales them back: a chunk's heading (A) 2, its document's title
# (B) 1, its text (C) 1; a document's title (A) 4, its heading paths (B) 2, its text (C) 1. D labels
# nothing (and is not 0: ts_rank_cd divides by each weight).
_CHUNK_WEIGHTS = ("'{0.5, 0.5, 0.5, 1}'::float4[]", 2.0)
_DOC_WEIGHTS = ("'{0.25, 0.25, 0.5, 1}'::float4[]", 4.0)
_K1, _B = 1.2, 0.75  # FTS5's
_TOKEN = re.compile(r"[^\W_]+")  # FTS5's unicode61 tokens: runs of letters and digits


def count_tokens(*texts: str) -> int:
    """The words FTS5 would count in these columns of a row: BM25's length of it."""
    return sum(len(_TOKEN.findall(text)) for text in texts)


class PgTextQueries:
    db: PooledDb

    # --- ranking -------------------------------------------------------------------------

    def ranked_docs(self, access: Access, query: TextQuery, flt: DocFilter, limit: int) -> list[tuple[int, float]]:
        if not query.terms:
            return []
        where, params = _readable_passing(access, flt)
        return [(doc_id, score) for doc_id, _, score in self._ranked(
            "documents", "d", "d.id", _DOC_WEIGHTS, (where, params), query, limit)]

    def ranked_chunks(self, access: Access, query: TextQuery, flt: DocFilter,
                      limit: int) -> list[tuple[int, int, float]]:
        if not query.terms:
            return []
        where, params = _readable_passing(access, flt)
        if where != EVERY_ROW:  # one hashed set of the readable documents, not a join per matching section
            where = f"c.doc_id IN (SELECT d.id FROM documents d WHERE {where})"
        return self._ranked("chunks", "c", "c.doc_id", _CHUNK_WEIGHTS, (where, params), query, limit)

    def _ranked(self, table: str, row: str, doc_id: str, weights: tuple[str, float], readable: tuple[str, list],
                query: TextQuery, limit: int) -> list[tuple[int, int, float]]:
        """(row id, document id, BM25) of the best rows of table (row: its alias, doc_id: how a row names its
        document), best first, ties by id; readable: the condition (and its parameters) on the row that the
        reader's rule and the filter set, applied in the same query, before the LIMIT.

        Each matching row's vector is read (detoasted) once, by setweight with no lexemes (a plain copy;
        `|| ''` re-sorted the whole vector and cost more than the read), and the rows are found through the
        GIN index: the tsquery comes from a CTE, so the planner cannot tell that a common word matches most
        rows, which made it scan every row and read each vector to test it (then again to rank it). The document frequencies: where the rows read are those holding any term
        (one term, or any term wanted), every row a term's count takes is among them, so they are counted
        in the same pass; where every term is wanted, those rows are fewer than the rows of one term, and
        each term is counted over the GIN index (bench/RESULTS.md §44)."""
        self._refuse_broad_prefixes(query)
        compiled = CompiledQuery(query)
        match, match_params = compiled.match("x.tsv")
        union = query.require == "any" or len(query.terms) == 1
        scan, scan_params = tsquery_sql(query.terms, "||" if union else "&&")
        where, params = readable
        weight_array, scale = weights
        n = len(compiled.terms)
        has = ", ".join(f"s.tsv @@ terms.qs[{i}]" for i in range(1, n + 1)) if union else ""
        freqs = ", ".join(f"ts_rank_cd({weight_array}, s.tsv, terms.qs[{i}], 0)" for i in range(1, n + 1))
        if union:
            dfs = [f"count(*) FILTER (WHERE seen.has[{i}])" for i in range(1, n + 1)]
            counted = "seen, totals t GROUP BY t.n"
        else:
            dfs = [f"c.df{i}" for i in range(1, n + 1)]
            counted = "(SELECT " + ", ".join(f"(SELECT count(*) FROM {table} WHERE tsv @@ terms.qs[{i}]) AS df{i}"
                                             for i in range(1, n + 1)) + " FROM terms OFFSET 0) c, totals t"
        idfs = ", ".join(f"ln(greatest((t.n - {df} + 0.5) / ({df} + 0.5), 1.000001))" for df in dfs)
        # f(k1 + 1) / (f + K) as (k1 + 1)(1 - K / (f + K)), each term's frequency read once
        per_term = " + ".join(f"idfs.v[{i}] * (1 - r.k / (r.fs[{i}] * {scale} + r.k))" for i in range(1, n + 1))
        sql = f"""
WITH totals AS MATERIALIZED (
    SELECT greatest(coalesce(sum(rows), 0), 1)::float8 AS n,
           greatest(coalesce(sum(tokens), 0)::float8 / greatest(coalesce(sum(rows), 0), 1), 1) AS avgdl
    FROM text_totals WHERE tbl = '{table}'
), terms AS MATERIALIZED (
    SELECT array_agg(to_tsquery('{CONFIG}', u.text) ORDER BY i) AS qs, {scan} AS scan
    FROM unnest(?::text[]) WITH ORDINALITY AS u(text, i)
), seen AS MATERIALIZED (  -- the rows read: which terms each holds, and for the rows kept their frequencies
    SELECT s.id, s.doc_id, s.k, s.keep, ARRAY[{has}]::bool[] AS has, CASE WHEN s.keep THEN ARRAY[{freqs}] END AS fs
    FROM (SELECT x.id, x.doc_id, x.k, x.tsv, x.readable AND {match} AS keep
          FROM (SELECT {row}.id, {doc_id} AS doc_id, {_K1} * ({1 - _B} + {_B} * {row}.tokens / totals.avgdl) AS k,
                       setweight({row}.tsv, 'A', '{{}}'::text[]) AS tsv, {where} AS readable
                FROM {table} {row} CROSS JOIN totals CROSS JOIN terms WHERE {row}.tsv @@ terms.scan OFFSET 0) x
          OFFSET 0) s, terms
), idfs AS MATERIALIZED (
    SELECT ARRAY[{idfs}] AS v FROM {counted}
)
SELECT r.id, r.doc_id, {_K1 + 1} * ({per_term}) AS rank
FROM seen r, idfs WHERE r.keep
ORDER BY rank DESC, r.id LIMIT ?"""
        args = [*scan_params, compiled.terms, *match_params, *params, limit]
        return [(row_id, doc, float(rank)) for row_id, doc, rank in self.db.execute(sql, args)]

    def _refuse_broad_prefixes(self, query: TextQuery) -> None:
        """SQLite's bound (store/sqlite/search.py): a prefix stands for the indexed words that begin with its
        lexeme (the word as the text configuration stems and folds it, as to_tsquery reads `word:*`), which
        the GIN index would scan one by one; counted in text_words, an index range, before the query runs."""
        prefixes = query_prefixes(query)
        if not prefixes:
            return
        rows = self.db.execute(
            f"SELECT p.word, (SELECT count(*) FROM text_words w, unnest(tsvector_to_array(to_tsvector('{CONFIG}',"
            " p.word))) AS l(lexeme) WHERE w.word >= l.lexeme AND w.word < l.lexeme || chr(1114111))"
            " FROM unnest(?::text[]) WITH ORDINALITY AS p(word, i) ORDER BY p.i", [prefixes])
        refuse_broad_prefixes({word: int(n) for word, n in rows})

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

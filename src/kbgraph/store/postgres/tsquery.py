"""A TextQuery as PostgreSQL full-text SQL: the tsquery expressions to match and rank with, and
ts_headline's passage with its highlights read back as offsets. The twin of store/sqlite/fts5.py.

Each term is one `to_tsquery('kbg', ?)` whose text is built here from the term's words, each quoted as
a lexeme ('word'), so no word can act as an operator; a phrase is its words joined by `<->`, a prefix
term's last word ends in `:*`. The terms are combined in SQL (`&&` or `||`, never both in one
expression, so precedence cannot bite), and the exclusions are a second tsquery the text must not
match: `tsv @@ positive AND NOT tsv @@ excluded`, which also keeps a query whose words all vanish
(none left after parsing) from turning into a bare negation that would match nearly every row.
"""

from __future__ import annotations

import re

from ...model import Snippet, Term, TextQuery
from ..sqlite.fts5 import CLOSE, OPEN, read_marked

CONFIG = "kbg"  # the text search configuration of schema p001: English stems, accents folded, no stop words

# ts_headline's options: one passage of up to 16 words around the best match (FTS5's snippet(…, 16)).
HEADLINE_OPTIONS = f"StartSel={OPEN}, StopSel={CLOSE}, MaxWords=16, MinWords=15, MaxFragments=1"
_WORD = re.compile(r"[^\W_]")


def tsquery_sql(terms: tuple[Term, ...], joiner: str, weight: str = "") -> tuple[str, list[str]]:
    """SQL of one tsquery matching the terms, all (joiner "&&") or any ("||"), and its parameters.
    weight: a label (A-D) the lexemes must carry, e.g. "C" for a chunk's body only."""
    if not terms:
        raise ValueError("no terms: nothing to build a tsquery from")
    pieces = [f"to_tsquery('{CONFIG}', ?)"] * len(terms)
    return f"({f' {joiner} '.join(pieces)})", [_term_text(term, weight) for term in terms]


def _term_text(term: Term, weight: str) -> str:
    """A term in to_tsquery's syntax: `'big' <-> 'cat'`, `'rotat':*`, `'budget':C`."""
    lexemes = [_quoted(word) for word in term.words]
    lexemes[-1] += ":*" if term.prefix else ""
    if weight:
        lexemes = [lexeme + (weight if lexeme.endswith(":*") else f":{weight}") for lexeme in lexemes]
    return " <-> ".join(lexemes)


def _quoted(word: str) -> str:
    # A Term's words are letters and digits only; the escapes make that no precondition of safety.
    return "'" + word.replace("\\", "\\\\").replace("'", "''") + "'"


class CompiledQuery:
    """A TextQuery compiled once: `match(column)` is the WHERE condition (with its parameters) and
    `positive` the tsquery SQL ranking and headlines use (the exclusions match nothing they could score)."""

    def __init__(self, query: TextQuery, weight: str = ""):
        if not query.terms:
            raise ValueError("a query with no terms matches nothing: it has no tsquery")
        self.positive, self.positive_params = tsquery_sql(query.terms, "&&" if query.require == "all" else "||",
                                                          weight)
        self.terms = list(self.positive_params)  # each term's own tsquery text, for ranking term by term
        self.excluded: tuple[str, list[str]] | None = (
            tsquery_sql(query.exclusions, "||") if query.exclusions else None)

    def match(self, column: str) -> tuple[str, list[str]]:
        sql, params = f"{column} @@ {self.positive}", list(self.positive_params)
        if self.excluded is not None:
            sql += f" AND NOT {column} @@ {self.excluded[0]}"
            params += self.excluded[1]
        return sql, params


def read_headline(marked: str, text: str) -> Snippet:
    """ts_headline's passage of text as a Snippet shaped as FTS5's snippet: `…` where it cuts words off,
    and the text's own leading or trailing punctuation where it reaches an end (ts_headline drops it).
    The highlights are offsets in the snippet's text, the `…` included."""
    plain = marked.replace(OPEN, "").replace(CLOSE, "")
    at = text.find(plain) if plain else -1
    if at >= 0:
        before, after = text[:at], text[at + len(plain):]
        marked = ("…" if _WORD.search(before) else before) + marked + ("…" if _WORD.search(after) else after)
    return read_marked(marked)

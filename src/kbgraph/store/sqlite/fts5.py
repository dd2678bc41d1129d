"""A TextQuery in FTS5's dialect: the MATCH expression to run, and highlight markers read back as
offsets. This is the only place that writes FTS5 query syntax for search.

Every term becomes an FTS5 string ("..."), so no word can act as an operator (AND, NEAR), a column
filter (title:) or a prefix; a `"` inside one is doubled, though a Term's words hold letters and
digits only. A prefix term is the string followed by `*`, which FTS5 reads as "its last word is a
prefix".
"""

from __future__ import annotations

from ...model import Snippet, Term, TextQuery

OPEN, CLOSE = "\x02", "\x03"  # what snippet() is asked to put around each matched word


def match_expression(query: TextQuery) -> str:
    """The MATCH string for query, which must have terms: `"a" AND "b c"*`, and with exclusions
    `("a" AND "b") NOT ("x" OR "y")`."""
    if not query.terms:
        raise ValueError("a query with no terms matches nothing: it has no MATCH expression")
    joiner = " AND " if query.require == "all" else " OR "
    positive = joiner.join(_string(term) for term in query.terms)
    if not query.exclusions:
        return positive
    return f"({positive}) NOT ({' OR '.join(_string(term) for term in query.exclusions)})"


def _string(term: Term) -> str:
    text = " ".join(term.words).replace('"', '""')
    return f'"{text}"' + ("*" if term.prefix else "")


def read_marked(marked: str) -> Snippet:
    """snippet()'s text, its OPEN/CLOSE markers taken out and kept as highlight offsets. A marker
    out of place (a control character in the note's own text) is dropped rather than trusted."""
    text: list[str] = []
    spans: list[tuple[int, int]] = []
    start, length = None, 0
    for char in marked:
        if char == OPEN:
            start = length if start is None else start
        elif char == CLOSE:
            if start is not None and length > start:
                spans.append((start, length))
            start = None
        else:
            text.append(char)
            length += 1
    return Snippet("".join(text), tuple(spans))

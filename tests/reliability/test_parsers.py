"""Every parser of what a user writes takes any text: a value, or the one error it documents.

Whole notes (frontmatter, headings, fences, wikilinks, `## Relations` lines, in any mix and in pieces),
relation lines alone, and search queries. A crash here stops an indexing run or a search for everyone
whose notes contain the text that caused it.
"""

from __future__ import annotations

from hypothesis import given, strategies as st

from kbgraph.config import Config
from kbgraph.ingest.parse import parse_document
from kbgraph.base.vault import FrontmatterError, RawFile
from kbgraph.pages.relation_lines import parse_relation_lines
from kbgraph.search.query import parse_query

from ..conftest import fast

PIECES = st.sampled_from([
    "---\n", "title: x\n", "tags: [a, b\n", "aliases:\n  - A\n", "type: person\n", "date: 2026-13-45\n",
    "visibility: private\n", "&a [*a]\n", "!!python/object:os.system\n", "\t", "# Title\n", "## Relations\n",
    "- reports-to [[Ana Lima]] (since 2026-03)\n", "- [[\n", "- works-with [[]]\n", "- uses [[X|Y]] — because\n",
    "```\n", "~~~\n", "[[Ana Lima]]", "[[a#b|c]]", "[x](y.md)", "[[", "]]", "|", "\u0000", "\ufeff", "\r\n",
    "Ana Lima said", "é", "🙂", "\u202e", " " * 3, "\n\n",
])
NOTE = st.lists(st.one_of(PIECES, st.text(max_size=20)), max_size=40).map("".join)
PATHS = st.sampled_from(["people/ana.md", "meetings/2026/03/2026-03-02-sync.md", "notes/x.txt", "a.md"])


@fast(300)
@given(PATHS, NOTE)
def test_a_note_parses_or_is_refused_as_frontmatter(path, text):
    raw = RawFile(text, "hash", len(text.encode("utf-8", "surrogatepass")), 0.0)
    try:
        parsed = parse_document(path, raw, Config())
    except FrontmatterError:
        return
    assert parsed.path == path


@fast(300)
@given(NOTE, st.integers(0, 50))
def test_relation_lines_parse_from_any_offset(text, offset):
    offset = min(offset, len(text))
    lines, problems = parse_relation_lines(text, offset)
    count = text.count("\n") + 1
    assert all(line.type and 1 <= line.line <= count for line in lines)
    assert all(1 <= problem.line <= count and problem.message for problem in problems)


@fast(500)
@given(st.one_of(st.text(max_size=200), NOTE))
def test_a_query_parses_from_any_text(text):
    query = parse_query(text)
    assert len(query.terms) <= 64 and len(query.exclusions) <= 64
    assert all(term.words and all(word.strip() for word in term.words) for term in query.terms)

"""The neutral keyword query: TextQuery holds words, not syntax; SQLite's compiler turns it into an
FTS5 MATCH string that FTS5 accepts and that finds what the terms say; snippets come back as text
plus highlight offsets, which land on the matched words."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbgraph.access import LOCAL
from kbgraph.cli.output import highlight
from kbgraph.config import Config
from kbgraph.ingest.parse import parse_document
from kbgraph.base.vault import RawFile
from kbgraph.model import Snippet, Term, TextQuery
from kbgraph.search import parse_query, search
from kbgraph.search.snippets import tidy
from kbgraph.store.sqlite.fts5 import CLOSE, OPEN, match_expression, read_marked
from kbgraph.store.sqlite.store import SqliteStore

from .conftest import fast

A_WORD = re.compile(r"[^\W_]+")
TOKENIZER = "porter unicode61 remove_diacritics 2"  # the index's (store/sqlite/migrations.py)


# --- the value ---------------------------------------------------------------------------------

@pytest.mark.parametrize("words", [(), ("",), ('a"b',), ("a b",), ("kafka*",), ("-x",), ("title:x",), ("a_b",),
                                   ("NEAR(a",), (3,)])
def test_a_term_holds_only_words_of_letters_and_digits(words):
    with pytest.raises(ValueError):
        Term(words)


def test_a_query_requires_all_or_any():
    with pytest.raises(ValueError):
        TextQuery((Term(("a",)),), require="most")
    assert TextQuery((Term(("a",)),)).requiring("any").require == "any"


# --- the compiler, a pure function ---------------------------------------------------------------

@pytest.mark.parametrize("query, expected", [
    ("kafka", '"kafka"'),
    ("token rotation", '"token" AND "rotation"'),
    ("kube-proxy", '"kube proxy"'),
    ("rotation*", '"rotation"*'),
    ('"key rotation" -staging', '("key rotation") NOT ("staging")'),
    ("budget ops -kafka -zoo", '("budget" AND "ops") NOT ("kafka" OR "zoo")'),
    ("AND", '"AND"'),  # a connector alone is a word, quoted like any other
])
def test_the_fts5_string_is_the_one_search_always_ran(query, expected):
    assert match_expression(parse_query(query)) == expected


def test_any_term_joins_with_or_and_a_phrase_may_end_in_a_prefix():
    query = TextQuery((Term(("pod", "start"), prefix=True), Term(("kafka",))), require="any")
    assert match_expression(query) == '"pod start"* OR "kafka"'


def test_a_query_with_no_terms_has_no_expression_and_the_store_matches_nothing():
    with pytest.raises(ValueError):
        match_expression(TextQuery(exclusions=(Term(("x",)),)))
    store = SqliteStore.open(":memory:")
    try:
        nothing = parse_query("-")
        assert store.ranked_docs(LOCAL, nothing, _no_filter(), 5) == [] and store.snippets(nothing, [1]) == {}
        assert store.matching_chunks(nothing, [1]) == set() and not store.doc_matches(nothing, 1)
    finally:
        store.close()


def _no_filter():
    from kbgraph.store.base import DocFilter

    return DocFilter()


word = st.text(st.characters(categories=("L", "N")), min_size=1, max_size=6).filter(A_WORD.fullmatch)
term = st.builds(Term, st.lists(word, min_size=1, max_size=3).map(tuple), st.booleans())
text_query = st.builds(TextQuery, st.lists(term, min_size=1, max_size=5).map(tuple),
                       st.lists(term, max_size=3).map(tuple), st.sampled_from(["all", "any"]))


@pytest.fixture(scope="module")
def hostile_table():
    with closing(sqlite3.connect(":memory:")) as db:
        db.execute(f"CREATE VIRTUAL TABLE t USING fts5 (title, heading, body, tokenize = '{TOKENIZER}')")
        db.execute("INSERT INTO t VALUES ('Kafka', 'Notes > 東京', 'naïve AND OR NEAR(x) \"quoted\" title:body')")
        yield db


@fast(200)
@given(query=text_query)
def test_fts5_accepts_every_compiled_query(hostile_table, query):
    hostile_table.execute("SELECT rowid, snippet(t, 2, ?, ?, '…', 16) FROM t WHERE t MATCH ?",
                          (OPEN, CLOSE, match_expression(query))).fetchall()


VOCABULARY = ["ab", "abc", "b", "ba", "cab"]  # prefixes of each other, so prefix terms matter
document = st.lists(st.sampled_from(VOCABULARY), max_size=6)
small_term = st.builds(Term, st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=2).map(tuple), st.booleans())
small_query = st.builds(TextQuery, st.lists(small_term, min_size=1, max_size=3).map(tuple),
                        st.lists(small_term, max_size=2).map(tuple), st.sampled_from(["all", "any"]))


def _holds(words: list[str], t: Term) -> bool:
    """The oracle: the term's words appear in order, the last one as a prefix when asked."""
    n = len(t.words)
    for i in range(len(words) - n + 1):
        here = words[i:i + n]
        if here[:-1] == list(t.words[:-1]) and (
                here[-1].startswith(t.words[-1]) if t.prefix else here[-1] == t.words[-1]):
            return True
    return False


def _expected(words: list[str], query: TextQuery) -> bool:
    found = [_holds(words, t) for t in query.terms]
    wanted = all(found) if query.require == "all" else any(found)
    return wanted and not any(_holds(words, t) for t in query.exclusions)


@fast(300)
@given(documents=st.lists(document, min_size=1, max_size=8), query=small_query)
def test_a_compiled_query_finds_exactly_what_its_terms_say(documents, query):
    """Without stemming (plain unicode61), so the oracle is exact; the index stems on top of this."""
    with closing(sqlite3.connect(":memory:")) as db:
        db.execute("CREATE VIRTUAL TABLE t USING fts5 (body, tokenize = 'unicode61')")
        db.executemany("INSERT INTO t (rowid, body) VALUES (?, ?)",
                       [(i, " ".join(words)) for i, words in enumerate(documents, 1)])
        found = {r[0] for r in db.execute("SELECT rowid FROM t WHERE t MATCH ?", (match_expression(query),))}
    assert found == {i for i, words in enumerate(documents, 1) if _expected(words, query)}


# --- highlights ----------------------------------------------------------------------------------

def _old_markdown(marked: str) -> str:
    """How snippets were made before highlights were offsets: markers replaced by ** in the string."""
    text = re.sub("\x02(.*?)\x03", lambda m: f"**{m.group(1)}**", marked, flags=re.DOTALL)
    return " ".join(text.split())


piece = st.one_of(st.text(st.characters(blacklist_characters=OPEN + CLOSE), max_size=8),
                  st.sampled_from([" ", "\n\n", "\t", "…", "**", "word"]))
matched = st.text(st.characters(categories=("L", "N")), min_size=1, max_size=6).map(lambda w: OPEN + w + CLOSE)
marked_text = st.lists(st.one_of(piece, matched), max_size=12).map("".join)


@fast(300)
@given(marked=marked_text)
def test_offsets_give_the_same_marked_snippet_as_fts5_markers_did(marked):
    snippet = tidy(read_marked(marked))
    assert snippet.marked() == _old_markdown(marked)
    assert OPEN not in snippet.text and CLOSE not in snippet.text


def test_read_marked_keeps_offsets_and_drops_stray_markers():
    assert read_marked("a \x02bc\x03 d\x03 \x02e\x02f\x03") == Snippet("a bc d ef", ((2, 4), (7, 9)))
    assert tidy(Snippet("  a\n\n b  c ", ((2, 7),))) == Snippet("a b c", ((0, 3),))


DOCUMENTS = {
    "notes/kafka.md": "# Kafka\n\nAna Lima walked through the Kafka migration.\nConsumers lag during rebalancing.\n",
    "notes/bold.md": "# Bold\n\nThis **really** matters: the kafka budget, **twice**.\n",
}


@pytest.fixture(scope="module")
def store():
    store = SqliteStore.open(":memory:")
    with store.transaction():
        for path, text in DOCUMENTS.items():
            raw = RawFile(text=text, content_hash=str(hash(text)), size=len(text.encode()), mtime=0.0)
            store.write_document(parse_document(path, raw, Config()), None)
    yield store
    store.close()


def _highlighted(hit) -> list[str]:
    return [hit.snippet[a:b] for a, b in hit.highlights]


@pytest.mark.parametrize("query, words", [
    ("kafka", {"kafka"}),
    ("walking", {"walked"}),  # stemmed: the store knows what matched, the words alone do not
    ("kaf*", {"kafka"}),
    ('"kafka migration"', {"kafka migration"}),
    ("lima -budget", {"lima"}),
])
def test_highlights_land_on_the_matched_words(store, query, words):
    hits = search(store, query, mode="bm25", access=LOCAL).hits
    assert hits and all(_highlighted(hit) for hit in hits)
    assert {w.casefold() for hit in hits for w in _highlighted(hit)} == words


def test_the_marked_snippet_wraps_only_the_matches_and_the_table_bolds_only_them(store):
    hit = next(h for h in search(store, "budget", mode="bm25", access=LOCAL).hits if h.path == "notes/bold.md")
    assert "**budget**" in hit.marked_snippet() and "**really**" in hit.snippet  # the note's own asterisks
    text = highlight(hit.snippet, hit.highlights)
    assert [text.plain[s.start:s.end] for s in text.spans] == ["budget"]

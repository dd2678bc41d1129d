"""Property tests for keyword search: any text a user types is safe, and what is
indexed can be found.

The store is a real in-memory SQLite store (FTS5) holding a few documents written
through parse_document + write_document, built once for the module. Hypothesis
runs derandomized and without an example database, so runs are deterministic.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbgraph.access import LOCAL
from kbgraph.config import Config
from kbgraph.errors import InvalidInput
from kbgraph.ingest.parse import parse_document
from kbgraph.search import MAX_TERMS, parse_query, search
from kbgraph.store.base import DocFilter
from kbgraph.store.sqlite.store import SqliteStore
from kbgraph.base.vault import RawFile

from .conftest import fast


DOCUMENTS = {
    "meetings/2026/01/15/platform-sync.md": (
        "---\ntitle: Platform sync\ntype: meeting\ntags: [infra, kafka]\nattendees: [Ana Lima, Zoë Ng]\n---\n"
        "# Platform sync\n\nAna Lima walked through the Kafka migration. Consumers lag during rebalancing.\n\n"
        "## Decisions\n\n- Move authsvc to the new cluster before March.\n"
        "- Zoë owns the runbook (naïve retries are out).\n"
    ),
    "people/ana-lima.md": (
        "---\ntype: person\naliases: [Ana]\nteam: Platform\n---\n# Ana Lima\n\nStaff engineer on the platform team. "
        "Speaks Portuguese; based in Lisbon. Likes AND/OR puzzles and NEAR-misses.\n"
    ),
    "notes/tokyo.md": (
        "# 東京 trip notes 🚄\n\nShinkansen from Tokyo to Kyoto. Café au lait at the station, crème brûlée later.\n\n"
        "```python\nprint('kafka inside code')\n```\n\n"
        + " ".join(f"Sentence number {i} about offsite planning and budgets." for i in range(60))
        + "\n"
    ),
    "ideas.txt": (
        "Plain text idea: snake_case_identifiers, C++ and C# notes, email ana@example.com, 50% done *really*.\n"
    ),
}

CONFIG = Config(chunk_chars=300)


@pytest.fixture(scope="module")
def store():
    store = SqliteStore.open(":memory:")
    with store.transaction():
        for path, text in DOCUMENTS.items():
            raw = RawFile(text=text, content_hash=str(hash(text)), size=len(text.encode()), mtime=0.0)
            store.write_document(parse_document(path, raw, CONFIG), None)
    yield store
    store.close()


def _doc_ids(store) -> dict[str, int]:
    return {path: state.id for path, state in store.doc_states().items()}


def _chunks(store) -> dict[int, dict]:
    return {c["id"]: c for doc_id in _doc_ids(store).values() for c in store.document_chunks(LOCAL, doc_id)}


# Hostile input: FTS5 syntax, quotes, unbalanced brackets, connectors, unicode and
# emoji, mixed with words that really occur in the documents.
query_piece = st.one_of(
    st.sampled_from([
        '"', "'", "(", ")", "*", "-", "+", "^", ":", "{", "}", "[", "]", "NEAR", "NEAR(", "AND", "OR", "NOT",
        "and", "or", "not", "-kafka", "kafka*", '"kafka', 'kafka"', "*kafka", "title:kafka", "body:", "NEAR/2",
        "_", "__", "_*", "-_", "²", "🚄", "東京", "Zoë", "naïve", "C++", "C#", "ana@example.com", "50%",
        "\x00", "\t", "\n", "\u2028", "\ufeff", "\u0301", " ", "Ana", "Lima", "platform", "budgets",
    ]),
    st.text(max_size=8),
)
hostile_query = st.one_of(
    st.text(max_size=60),
    st.lists(query_piece, max_size=12).map("".join),
    st.lists(query_piece, max_size=12).map(" ".join),
)


@fast(250)
@given(query=hostile_query, limit=st.integers(1, 5))
def test_search_accepts_any_text_and_rejects_only_blank_queries(store, query, limit):
    try:
        result = search(store, query, limit=limit, access=LOCAL)
    except InvalidInput:
        assert not query.strip(), f"InvalidInput for non-blank {query!r}"
        return
    assert query.strip(), f"blank query {query!r} was accepted"
    assert result.mode in {"empty", "all-terms", "any-term", "all-terms+any-term"}
    assert len(result.hits) <= limit
    assert len({hit.doc_id for hit in result.hits}) == len(result.hits)  # one hit per document
    assert all("\x02" not in hit.snippet and "\x03" not in hit.snippet for hit in result.hits)
    for hit in result.hits:  # highlights are in order, inside the snippet, on words
        ends = [0, *(x for span in hit.highlights for x in span), len(hit.snippet)]
        assert ends == sorted(ends) and all(hit.snippet[a:b].strip() for a, b in hit.highlights)


@fast(60)
@given(query=hostile_query, kinds=st.lists(st.sampled_from(["note", "meeting", "person", "x"]), max_size=2),
       prefix=st.sampled_from([None, "notes", "meetings/", "people/ana", "*", "[", ""]))
def test_search_with_filters_never_raises_for_any_text(store, query, kinds, prefix):
    flt = DocFilter(kinds=tuple(kinds), path_prefix=prefix)
    try:
        result = search(store, query, flt=flt, access=LOCAL)
    except InvalidInput:
        assert not query.strip()
        return
    docs = {d["id"]: d for d in store.list_documents(LOCAL, DocFilter())}
    for hit in result.hits:
        assert not kinds or docs[hit.doc_id]["kind"] in kinds
        if prefix in ("notes", "meetings/"):
            assert hit.path.startswith(prefix.rstrip("/") + "/")


A_WORD = re.compile(r"[^\W_]+")


long_query = st.builds(
    lambda piece, n: piece * n, st.lists(query_piece, min_size=1, max_size=6).map(" ".join), st.integers(200, 3000)
)


@fast(120)
@given(query=st.one_of(hostile_query, long_query, st.just("x " * 6000)))
def test_parse_query_yields_plain_words_within_the_term_limit(query):
    """The neutral value holds no query syntax of any backend: its words are letters and digits."""
    parsed = parse_query(query)
    assert len(parsed.terms) <= MAX_TERMS and len(parsed.exclusions) <= MAX_TERMS
    for term in (*parsed.terms, *parsed.exclusions):
        assert term.words and all(A_WORD.fullmatch(word) for word in term.words), term
        assert not term.prefix or len(term.words) == 1
    assert len(set(parsed.terms)) == len(parsed.terms) and len(set(parsed.exclusions)) == len(parsed.exclusions)


@fast(100)
@given(words=st.lists(st.text(st.characters(categories=("L", "Nd")), min_size=1, max_size=8), min_size=1, max_size=8))
def test_parse_query_quotes_plain_words_in_order_without_duplicates(words):
    connectors = {"AND", "OR", "NOT", "NEAR"}
    only_connectors = set(words) <= connectors  # then they are the words looked for
    expected = [(w,) for w in dict.fromkeys(w for w in words if only_connectors or w not in connectors)]
    assert [term.words for term in parse_query(" ".join(words)).terms] == expected[:MAX_TERMS]


def test_every_word_of_an_indexed_chunk_finds_its_document(store):
    ids = _doc_ids(store)
    missing = []
    for path, doc_id in ids.items():
        words = {w for chunk in store.document_chunks(LOCAL, doc_id) for w in re.findall(r"\w+", chunk["text"])}
        for w in sorted(words):
            for query in (w, w.upper(), f'"{w}"'):
                if query in {"AND", "OR", "NOT", "NEAR"}:
                    continue  # bare upper-case connectors are dropped on purpose; quoted they still match
                if doc_id not in {hit.doc_id for hit in search(store, query, access=LOCAL).hits}:
                    missing.append((path, query))
    assert not missing


def _words(text: str) -> list[str]:
    """Words as FTS5's unicode61 tokenizer sees them (underscores separate words)."""
    return re.findall(r"[^\W_]+", text.casefold())


def _contains_phrase(words: list[str], phrase: list[str]) -> bool:
    n = len(phrase)
    return any(words[i : i + n] == phrase for i in range(len(words) - n + 1))


@fast(60)
@given(data=st.data())
def test_a_phrase_copied_from_a_chunk_finds_that_chunks_document(store, data):
    owners = {c["id"]: doc_id for doc_id in _doc_ids(store).values() for c in store.document_chunks(LOCAL, doc_id)}
    chunk = data.draw(st.sampled_from(sorted(_chunks(store).values(), key=lambda c: c["id"])))
    words = re.findall(r"\w+", chunk["text"])
    start = data.draw(st.integers(0, len(words) - 1))
    phrase = " ".join(words[start : start + data.draw(st.integers(1, 4))])
    found = {hit.doc_id for hit in search(store, f'"{phrase}"', limit=10, access=LOCAL).hits}
    assert owners[chunk["id"]] in found, phrase


@fast(80)
@given(
    positive=st.sampled_from(["kafka", "ana", "platform", "tokyo", "sentence", "team", "notes", "the"]),
    negative=st.sampled_from(["kafka", "lima", "rebalancing", "budgets", "lisbon", "snake_case_identifiers", "zoë"]),
)
def test_an_excluded_term_never_appears_in_a_returned_chunk(store, positive, negative):
    chunks = _chunks(store)
    titles = {d["id"]: d["title"] for d in store.list_documents(LOCAL, DocFilter())}
    result = search(store, f"{positive} -{negative}", access=LOCAL)
    for hit in result.hits:
        chunk = chunks[hit.chunk_id]
        # FTS5 matches title, heading and body; stemming and diacritic folding only exclude more.
        seen = _words(f"{titles[hit.doc_id]} \n {chunk['heading']} \n {chunk['text']}")
        assert not _contains_phrase(seen, _words(negative)), (hit.path, positive, negative)
    if positive == negative:
        assert result.hits == ()

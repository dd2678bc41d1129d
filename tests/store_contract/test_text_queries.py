"""Keyword queries mean the same on every backend: terms, phrases, prefixes, exclusions and any-term,
stems and accents, the columns each read looks at and how they weigh, ties by id, filters before the
limit, and passages with their highlights."""

from __future__ import annotations

import pytest

from kbgraph.access import LOCAL
from kbgraph.model import Term, TextQuery
from kbgraph.search.query import parse_query
from kbgraph.store.base import DocFilter

from .text_builders import body, note


@pytest.fixture
def harbour(store):
    ids = {
        "approved": note(store, "a.md", body("The harbour budget was approved by the council")),
        "for": note(store, "b.md", body("A budget for the harbour and its cranes")),
        "rotation": note(store, "c.md", body("Harbour rotation schedule for the night shift")),
        "cafe": note(store, "d.md", body("Café opening hours in Zürich")),
    }
    return store, ids


CASES = [
    ("harbour budget", {"approved", "for"}),
    ('"harbour budget"', {"approved"}),
    ('"for the harbour"', {"for"}),  # no stop words: every word of a phrase counts
    ("the", {"approved", "for", "rotation"}),
    ("rotat*", {"rotation"}),
    ("harbour -budget", {"rotation"}),
    (TextQuery((Term(("harbour",)),), (Term(("rotation", "schedule")),)), {"approved", "for"}),
    (TextQuery((Term(("harbour",)),), (Term(("schedule", "rotation")),)), {"approved", "for", "rotation"}),
    ("approve", {"approved"}),  # stems
    ("cafe zurich", {"cafe"}),  # accents folded
    ("café", {"cafe"}),
    ("-harbour", set()),  # only exclusions: nothing to match
    ("kraken", set()),
]


@pytest.mark.parametrize("text, expected", CASES)
def test_every_read_matches_what_the_query_means(harbour, text, expected):
    store, ids = harbour
    query = parse_query(text) if isinstance(text, str) else text
    names = {v: k for k, v in ids.items()}
    assert {names[d] for _, d, _ in store.ranked_chunks(LOCAL, query, DocFilter(), 10)} == expected
    assert {names[d] for d, _ in store.ranked_docs(LOCAL, query, DocFilter(), 10)} == expected
    assert {names[d] for d in ids.values() if store.doc_matches(query, d)} == expected
    chunks = {c["id"]: c["id"] for d in ids.values() for c in store.document_chunks(LOCAL, d)}
    matched = store.matching_chunks(query, list(ids.values()))
    assert matched == {c for c, _, _ in store.ranked_chunks(LOCAL, query, DocFilter(), 10)} and matched <= set(chunks)
    assert {names[d] for _, d in store.chunks_with_text(query)} == expected


def test_any_term_matches_either_and_all_terms_both(harbour):
    store, ids = harbour
    query = parse_query("rotation cranes")
    assert store.ranked_docs(LOCAL, query, DocFilter(), 10) == []
    found = {d for d, _ in store.ranked_docs(LOCAL, query.requiring("any"), DocFilter(), 10)}
    assert found == {ids["rotation"], ids["for"]}
    prefix_phrase = TextQuery((Term(("harbour", "rot"), prefix=True),))
    assert {d for d, _ in store.ranked_docs(LOCAL, prefix_phrase, DocFilter(), 10)} == {ids["rotation"]}


def test_a_heading_outweighs_body_text_and_a_title_outweighs_both(store):
    in_body = note(store, "body.md", (("Minutes",), "we talked about the harbour and other things"))
    in_heading = note(store, "heading.md", (("Harbour",), "we talked about the port and other things"))
    in_title = note(store, "Harbour plan.md", (("Minutes",), "we talked about the port and other things"))
    query = parse_query("harbour")
    sections = [d for _, d, _ in store.ranked_chunks(LOCAL, query, DocFilter(), 10)]
    assert sections.index(in_heading) < sections.index(in_body)
    documents = [d for d, _ in store.ranked_docs(LOCAL, query, DocFilter(), 10)]
    assert documents[0] == in_title and documents.index(in_heading) < documents.index(in_body)


def test_equal_scores_are_ordered_by_id(store):
    ids = [note(store, f"same/{i}.md", body("harbour budget"), title="Same") for i in range(5)]
    chunks = store.ranked_chunks(LOCAL, parse_query("harbour"), DocFilter(), 10)
    assert [d for _, d, _ in chunks] == sorted(ids) and len({s for _, _, s in chunks}) == 1
    assert [d for d, _ in store.ranked_docs(LOCAL, parse_query("harbour"), DocFilter(), 3)] == sorted(ids)[:3]


def test_filters_apply_before_the_limit(store):
    loud = note(store, "inbox/loud.md", body("harbour " * 20), kind="meeting", date="2026-01-01", tags=("ops",))
    quiet = note(store, "projects/quiet.md", body("harbour once"), kind="note", date="2026-03-01", tags=("plan",))
    query = parse_query("harbour")
    for flt in (DocFilter(kinds=("note",)), DocFilter(path_prefix="projects"), DocFilter(path_prefix="projects/*.md"),
                DocFilter(date_from="2026-02-01"), DocFilter(tags=("plan",))):
        assert [d for _, d, _ in store.ranked_chunks(LOCAL, query, flt, 1)] == [quiet], flt
        assert [d for d, _ in store.ranked_docs(LOCAL, query, flt, 1)] == [quiet], flt
    assert [d for d, _ in store.ranked_docs(LOCAL, query, DocFilter(), 1)] == [loud]


def test_rewritten_and_deleted_documents_leave_the_text_index(store):
    doc = note(store, "a.md", body("harbour budget"))
    note(store, "a.md", body("kraken sighting"), doc_id=doc)
    assert store.ranked_docs(LOCAL, parse_query("harbour"), DocFilter(), 10) == []
    assert [d for d, _ in store.ranked_docs(LOCAL, parse_query("kraken"), DocFilter(), 10)] == [doc]
    with store.transaction():
        store.delete_document(doc)
    assert store.ranked_chunks(LOCAL, parse_query("kraken"), DocFilter(), 10) == []
    empty = note(store, "empty.md", title="kraken")  # no section: nothing a hit could show
    assert store.ranked_docs(LOCAL, parse_query("kraken"), DocFilter(), 10) == []
    assert not store.doc_matches(parse_query("kraken"), empty)


def test_document_reads_see_headings_and_titles_but_body_reads_only_text(store):
    heading = note(store, "h.md", (("Harbour", "Cranes"), "nothing about ports"))
    titled = note(store, "Harbour.md", body("nothing about ports"))
    text = note(store, "t.md", body("the harbour cranes"))
    query = parse_query("harbour")
    assert {d for d in (heading, titled, text) if store.doc_matches(query, d)} == {heading, titled, text}
    assert store.chunks_with_text(query) == [(store.document_chunks(LOCAL, text)[0]["id"], text)]


LONG = ("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen. "
        "The harbour budget was approved after a long debate about seventeen eighteen nineteen twenty "
        "twentyone twentytwo twentythree twentyfour twentyfive.")


def test_snippets_show_the_matching_words_of_matching_chunks(store):
    long_doc = note(store, "long.md", body(LONG))
    short_doc = note(store, "short.md", body("Harbour cranes, rotated."))
    other = note(store, "other.md", body("nothing to see"))
    chunk = {d: store.document_chunks(LOCAL, d)[0]["id"] for d in (long_doc, short_doc, other)}
    found = store.snippets(parse_query("harbour budget"), list(chunk.values()))
    assert set(found) == {chunk[long_doc]}
    long = found[chunk[long_doc]]
    assert long.text.startswith("…") and long.text.endswith("…") and len(long.text.split()) <= 18
    assert [long.text[a:b] for a, b in long.highlights] == ["harbour", "budget"]
    assert long.text.strip("…").strip() in LONG

    short = store.snippets(parse_query("rotat* harbour"), [chunk[short_doc]])[chunk[short_doc]]
    assert short.text == "Harbour cranes, rotated."
    assert [short.text[a:b] for a, b in short.highlights] == ["Harbour", "rotated"]
    assert store.snippets(parse_query("harbour -cranes"), [chunk[short_doc]]) == {}
    assert store.snippets(parse_query("-cranes"), [chunk[short_doc]]) == {}


def test_prefixes_that_together_stand_for_too_many_indexed_words_are_refused_on_every_backend(store, monkeypatch):
    """The bound on a query's cost (issue 18): its prefixes may stand for at most MAX_PREFIX_WORDS indexed
    words together, counted as the index holds them now (a deleted note's words no longer count)."""
    from kbgraph.errors import InvalidInput
    from kbgraph.store.sqlite import search as sqlite_search

    monkeypatch.setattr(sqlite_search, "MAX_PREFIX_WORDS", 6)
    note(store, "v.md", body("kv1 kv2 kv3 kv4 harbour"), title="one")
    gone = note(store, "w.md", body("kw1 kw2 kw3 kw4 harbour"), title="two")
    assert store.ranked_chunks(LOCAL, parse_query("kv*"), DocFilter(), 10)  # 4 words: under the cap
    for text in ("kv* kw*", "harbour -kv* -kw*"):
        with pytest.raises(InvalidInput, match=r"prefixes stand for 8 indexed words together \(kv\* \(4\), kw\* \(4\)\)"):
            store.ranked_chunks(LOCAL, parse_query(text), DocFilter(), 10)
    with pytest.raises(InvalidInput):
        store.ranked_docs(LOCAL, parse_query("kv* kw*"), DocFilter(), 10)
    kept = note(store, "v.md", body("kv1 kv2 kw1 harbour"), title="one",
                doc_id=store.get_document(LOCAL, path="v.md")["id"])
    with store.transaction():
        store.delete_document(gone)
    assert [d for d, _ in store.ranked_docs(LOCAL, parse_query("kv* kw*"), DocFilter(), 10)] == [kept]  # 3 words

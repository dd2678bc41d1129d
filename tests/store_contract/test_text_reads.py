"""The reads graph-aware search makes around the text index, on every backend: chunk and document
details by id, documents and sections that mention entities or are their pages, how widely an entity
is named and related, and what moves when documents change."""

from __future__ import annotations

from kbgraph.access import LOCAL, Access
from kbgraph.docgraph.edges import Edge
from kbgraph.entities.sync import sync_entities
from kbgraph.model import EntityRecord, Mention
from kbgraph.store.base import DocFilter

from .builders import NOW, entities, relation
from .text_builders import body, note

BEN = Access.of("ben", ["public"], "normal")


def _chunks(store, doc_id):
    return [c["id"] for c in store.document_chunks(LOCAL, doc_id)]


def _mention(store, doc_id, found):
    """found: (chunk id, entity id) pairs, one mention each."""
    with store.transaction():
        store.replace_mentions([(doc_id, [(chunk, Mention(entity, 0, 3, "Ana", "text")) for chunk, entity in found])])


def test_details_by_id(store):
    a = note(store, "a.md", (("Intro",), "first part"), (("Intro", "More"), "second part"), date="2026-02-03")
    b = note(store, "folder/b.md", body("other text"), date=None, owner="ben", visibility="public")
    a1, a2 = _chunks(store, a)
    (b1,) = _chunks(store, b)
    assert store.chunk_texts([a2, b1]) == {a2: "second part", b1: "other text"}
    assert store.doc_chunk_texts([b, a]) == [(a1, a, "first part"), (a2, a, "second part"), (b1, b, "other text")]
    assert store.doc_dates([a, b]) == {a: "2026-02-03", b: None}
    assert store.doc_paths([a, b]) == {a: "a.md", b: "folder/b.md"}
    assert store.doc_chunk_texts([]) == [] and store.chunk_texts([]) == {} and store.doc_paths([]) == {}
    rows = store.chunk_rows(LOCAL, [a2, b1], DocFilter())
    assert set(rows) == {a2, b1}
    assert {k: rows[a2][k] for k in ("id", "path", "title", "kind", "date", "chunk_id", "heading", "line")} == {
        "id": a, "path": "a.md", "title": "a", "kind": "note", "date": "2026-02-03", "chunk_id": a2,
        "heading": "Intro > More", "line": 3}
    assert rows[b1]["tags"] == [] and rows[b1]["owner"] == "ben" and rows[b1]["visibility"] == "public"
    assert set(store.chunk_rows(BEN, [a2, b1], DocFilter())) == {b1}
    assert set(store.chunk_rows(LOCAL, [a2, b1], DocFilter(path_prefix="folder"))) == {b1}
    assert store.docs_passing(LOCAL, [a, b], DocFilter(path_prefix="folder")) == {b}
    assert store.doc_passes(BEN, b, DocFilter()) and not store.doc_passes(BEN, a, DocFilter())


def test_documents_and_sections_that_mention_entities_or_are_their_pages(store):
    page = note(store, "people/ana.md", body("about Ana"), body("more about her"))
    meeting = note(store, "m.md", body("Ana spoke"), body("Ana again, and Ana"))
    hidden = note(store, "h.md", body("Ana in secret"), owner="ana", visibility="private")
    with store.transaction():
        ids = sync_entities(store, [EntityRecord("person:ana", "person", "Ana", (), page, (("Ana", "name"),), {},
                                                 page_docs=(page,)),
                                    EntityRecord("person:cy", "person", "Cy", (), None, (("Cy", "name"),), {})], NOW)
    ana, cy = ids["person:ana"], ids["person:cy"]
    m1, m2 = _chunks(store, meeting)
    _mention(store, meeting, [(m1, ana), (m2, ana), (m2, ana), (m2, cy)])
    _mention(store, hidden, [(_chunks(store, hidden)[0], ana)])

    docs = store.docs_mentioning(LOCAL, [ana], DocFilter())
    assert sorted(docs) == sorted([(meeting, ana, 3, m1, 0), (hidden, ana, 1, _chunks(store, hidden)[0], 0),
                                   (page, ana, 1, _chunks(store, page)[0], 1)])
    assert docs[0] == (meeting, ana, 3, m1, 0)  # most mentioned first
    assert {d for d, *_ in store.docs_mentioning(BEN, [ana], DocFilter())} == set()
    assert {d for d, *_ in store.docs_mentioning(LOCAL, [ana], DocFilter(path_prefix="people"))} == {page}
    assert len(store.docs_mentioning(LOCAL, [ana], DocFilter(), limit=1)) == 1

    sections = store.chunks_mentioning(LOCAL, [ana, cy], DocFilter())
    assert sections[0] == (meeting, ana, 2, m2, 0)
    assert sorted(sections) == sorted([(meeting, ana, 2, m2, 0), (meeting, ana, 1, m1, 0), (meeting, cy, 1, m2, 0),
                                       (hidden, ana, 1, _chunks(store, hidden)[0], 0),
                                       *[(page, ana, 1, c, 1) for c in _chunks(store, page)]])
    assert store.docs_mentioning(LOCAL, [], DocFilter()) == [] == store.chunks_mentioning(LOCAL, [], DocFilter())
    assert store.entity_doc_counts(LOCAL, [ana, cy]) == {ana: 3, cy: 1}  # no filter: how widely it is named
    assert store.entity_doc_counts(Access.of("ana"), [ana, cy]) == {ana: 1}  # of what the reader may read
    assert store.entity_names([ana, cy]) == {ana: "Ana", cy: "Cy"}
    assert store.entity_tiers(LOCAL, [ana]) == {ana: 1} and store.entity_tiers(LOCAL, []) == {}


def test_degrees_and_neighbours_count_relations_true_today(store):
    ids = entities(store, [("person", "Ana"), ("person", "Ben"), ("person", "Cy"), ("org", "Acme")])
    relation(store, ids["Ana"], ids["Acme"], "works-at", strength=3)
    relation(store, ids["Ben"], ids["Ana"], "knows")
    relation(store, ids["Cy"], ids["Ana"], "knows", valid_until="2020-01-01")  # ended
    relation(store, ids["Ana"], ids["Cy"], "mentors", valid_from="2999-01-01")  # not begun
    assert store.entity_degrees(LOCAL, [ids["Ana"], ids["Acme"], ids["Cy"]], "2026-03-01") == {
        ids["Ana"]: 3, ids["Acme"]: 1, ids["Cy"]: 1}  # a relation yet to begin has no end date
    around = store.active_neighbours(LOCAL, [ids["Ana"]], "2026-03-01", 5)
    assert sorted(around) == sorted([(ids["Ana"], ids["Acme"], "works-at", "out"), (ids["Ana"], ids["Ben"], "knows", "in")])
    assert store.active_neighbours(LOCAL, [ids["Ana"]], "2026-03-01", 1) == around  # one per direction
    assert store.active_neighbours(LOCAL, [], "2026-03-01", 5) == []


def test_duplicate_pairs_read_the_document_graph(store):
    a, b, c = (note(store, f"{n}.md", body("same words")) for n in "abc")
    with store.transaction():
        store.add_doc_relations([Edge(b, a, "duplicate-of", 1.0, "same text"), Edge(c, a, "references", 0.5, "link")])
    assert store.duplicate_pairs([a, b, c]) == [(b, a)]
    assert store.duplicate_pairs([b, c]) == [] and store.duplicate_pairs([]) == []


def test_the_documents_revision_moves_with_every_change(store):
    seen = {store.documents_revision()}
    doc = note(store, "a.md", body("one"))
    seen.add(store.documents_revision())
    with store.transaction():
        store.touch_document(doc, 10, 99.5)
    seen.add(store.documents_revision())
    note(store, "b.md", body("two"))
    seen.add(store.documents_revision())
    with store.transaction():
        store.delete_document(doc)
    seen.add(store.documents_revision())
    assert len(seen) == 5
    assert store.documents_revision() == store.documents_revision()

"""Unlinked mentions on every backend: text that names an entity where the document never links it,
one row per (entity, document) with its first mention, and the mentions a user took back."""

from __future__ import annotations

from kbgraph.access import LOCAL, Access
from kbgraph.entities.sync import sync_entities
from kbgraph.model import EntityRecord, Mention

from .builders import NOW, document

TEXT = "Met Sam Li today.\nSam said the Atlas launch slips; Sam Li will write it up."


def _people(store, page_doc_id: int | None = None) -> dict[str, int]:
    records = [EntityRecord(key=f"person:{n.lower()}", type="person", name=n, aliases=(), forms=((n, "name"),),
                            page_doc_id=page_doc_id if n == "Sam Li" else None, attributes={})
               for n in ("Sam Li", "Ana")]
    with store.transaction():
        ids = sync_entities(store, records, NOW)
    return {"Sam Li": ids["person:sam li"], "Ana": ids["person:ana"]}


def _mentions(store, doc_id: int, found: list[Mention]) -> None:
    [chunk] = store.document_chunks(LOCAL, doc_id)
    with store.transaction():
        store.replace_mentions([(doc_id, [(chunk["id"], m) for m in found])])


def test_each_entity_and_document_is_one_row_with_its_first_mention_in_context(store):
    b = document(store, "notes/b.md", TEXT)
    a = document(store, "notes/a.md", TEXT)
    ids = _people(store)
    sam, ana = ids["Sam Li"], ids["Ana"]
    later = TEXT.index("Sam Li will")
    _mentions(store, b, [Mention(sam, later, later + 6, "Sam Li", "text"), Mention(sam, 4, 10, "Sam Li", "text"),
                         Mention(ana, 18, 21, "Sam", "text")])
    _mentions(store, a, [Mention(sam, 4, 10, "Sam Li", "text")])
    rows = store.unlinked_mentions(LOCAL)
    assert [(r["entity"], r["path"], r["count"]) for r in rows] == [
        ("Ana", "notes/b.md", 1), ("Sam Li", "notes/a.md", 1), ("Sam Li", "notes/b.md", 2)]
    assert rows[2] == {"entity_id": sam, "entity": "Sam Li", "entity_type": "person", "path": "notes/b.md",
                       "count": 2, "surface": "Sam Li", "start": 4, "context": "Met Sam Li today."}
    assert [r["path"] for r in store.unlinked_mentions(LOCAL, sam)] == ["notes/a.md", "notes/b.md"]
    assert [r["entity"] for r in store.unlinked_mentions(LOCAL, limit=1)] == ["Ana"]


def test_a_document_that_links_the_entity_or_is_its_page_has_none(store):
    page = document(store, "people/sam-li.md", TEXT)
    linked = document(store, "notes/linked.md", TEXT)
    unpositioned = document(store, "notes/frontmatter.md", TEXT)
    ids = _people(store, page_doc_id=page)
    sam = ids["Sam Li"]
    _mentions(store, page, [Mention(sam, 4, 10, "Sam Li", "text")])
    _mentions(store, linked, [Mention(sam, 4, 10, "Sam Li", "text"), Mention(sam, 30, 40, "Sam Li", "wikilink")])
    _mentions(store, unpositioned, [Mention(sam, None, None, "Sam Li", "text")])
    assert store.unlinked_mentions(LOCAL) == []


def test_only_documents_and_entities_the_reader_may_read(store):
    public = document(store, "notes/public.md", TEXT, visibility="public")
    private = document(store, "notes/private.md", TEXT)
    ids = _people(store)
    with store.transaction():
        store.set_entity_governance(ids["Sam Li"], None, "public", "normal")
    for doc_id in (public, private):
        _mentions(store, doc_id, [Mention(ids["Sam Li"], 4, 10, "Sam Li", "text"),
                                  Mention(ids["Ana"], 18, 21, "Sam", "text")])
    guest = Access.of("guest")
    assert [(r["entity"], r["path"]) for r in store.unlinked_mentions(guest)] == [("Sam Li", "notes/public.md")]
    assert len(store.unlinked_mentions(LOCAL)) == 4


def test_mentions_taken_back_are_found_by_document_and_entity(store):
    doc_id = document(store, "notes/a.md", TEXT)
    ids = _people(store)
    with store.transaction():
        store.add_unlink("person:sam li", "Sam Li", "notes/a.md", NOW)
        store.add_unlink("person:ana", "Ana", "notes/gone.md", NOW)  # no such document: nothing to find
        store.add_unlink("person:gone", "Gone", "notes/a.md", NOW)  # no such entity
    assert store.unlinked_entities_by_doc() == {doc_id: {ids["Sam Li"]}}

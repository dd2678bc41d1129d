"""Entity resolution's bookkeeping on every backend: the decision log, names linked in one document,
mentions taken back, and the documents that claim a name."""

from __future__ import annotations

from kbgraph.access import LOCAL, Access
from kbgraph.model import Chunk, EntityDecl, ParsedDocument

from .builders import NOW

LATER = "2026-03-02T09:00:00+00:00"


def _decision(surface: str = "Sam", candidate: str | None = "person:sam li", outcome: str = "asked", **fields) -> dict:
    return {"surface": surface, "surface_key": surface.lower(), "surface_type": "person", "candidate_key": candidate,
            "candidate_name": candidate.split(":")[1].title() if candidate else None, "score": 0.75,
            "features": {"exact": False, "tokens": 1}, "outcome": outcome, "decided_by": "resolver",
            "doc_path": "notes/a.md", "created_at": NOW, **fields}


def test_a_decision_reads_back_as_logged(store):
    with store.transaction():
        first = store.add_decision(_decision())
        second = store.add_decision(_decision("Ana", None, "new", score=None, features=None, doc_path=None))
    assert isinstance(first, int) and second > first
    assert store.get_decision(LOCAL, first) == {
        "id": first, "surface": "Sam", "surface_key": "sam", "surface_type": "person",
        "candidate_key": "person:sam li", "candidate_name": "Sam Li", "score": 0.75,
        "features": {"exact": False, "tokens": 1}, "outcome": "asked", "decided_by": "resolver",
        "doc_path": "notes/a.md", "created_at": NOW, "decided_at": None}
    assert store.get_decision(LOCAL, second)["features"] == {}
    assert [d["id"] for d in store.decisions(LOCAL)] == [first, second]
    assert [d["id"] for d in store.decisions(LOCAL, "new")] == [second]
    assert [d["id"] for d in store.decisions(LOCAL, ids=(second, 999))] == [second]
    assert store.get_decision(LOCAL, 999) is None
    assert store.decisions(Access.of("guest", ("public", "team"))) == []  # the log is the vault owner's


def test_answering_a_question_and_the_latest_answer_per_pair(store):
    with store.transaction():
        asked = store.add_decision(_decision())
        store.add_decision(_decision("Sam", "person:sam ortiz", "rejected"))
        store.add_decision(_decision("Ana", None, "new"))
        store.add_decision(_decision("Ana", None, "new"))
        store.decide(asked, "confirmed", "user", LATER)
    done = store.get_decision(LOCAL, asked)
    assert (done["outcome"], done["decided_by"], done["decided_at"]) == ("confirmed", "user", LATER)
    assert store.decided_pairs() == {("sam", "person:sam li"): "confirmed", ("sam", "person:sam ortiz"): "rejected"}
    with store.transaction():
        store.add_decision(_decision("Sam", "person:sam li", "rejected"))
    assert store.decided_pairs()[("sam", "person:sam li")] == "rejected"
    assert store.logged_new_keys() == {"ana"}


def test_questions_no_name_raises_any_more_are_withdrawn(store):
    with store.transaction():
        kept = store.add_decision(_decision())
        gone = store.add_decision(_decision("Sam", "person:sam ortiz"))
        answered = store.add_decision(_decision("Al", "person:al", "confirmed"))
        assert store.drop_open_questions({("sam", "person:sam li")}) == 1
    assert [d["id"] for d in store.decisions(LOCAL)] == [kept, answered]
    assert store.get_decision(LOCAL, gone) is None


def test_an_imported_log_replaces_the_whole_log(store):
    with store.transaction():
        store.add_decision(_decision())
        store.replace_decisions([_decision("Al", "person:al", "confirmed", decided_at=LATER)])
    [only] = store.decisions(LOCAL)
    assert (only["surface"], only["outcome"], only["decided_at"]) == ("Al", "confirmed", LATER)


def test_a_name_linked_in_one_document_is_kept_once_and_relinked_in_place(store):
    with store.transaction():
        store.add_reference_link("notes/b.md", "person", "sam", "person:sam li", "Sam Li", NOW)
        store.add_reference_link("notes/a.md", "person", "sam", "person:sam li", "Sam Li", NOW)
        store.add_reference_link("notes/b.md", "person", "sam", "person:sam ortiz", "Sam Ortiz", LATER)
    assert store.reference_links() == [
        {"doc_path": "notes/a.md", "type": "person", "name_key": "sam", "entity_key": "person:sam li",
         "entity_name": "Sam Li", "created_at": NOW},
        {"doc_path": "notes/b.md", "type": "person", "name_key": "sam", "entity_key": "person:sam ortiz",
         "entity_name": "Sam Ortiz", "created_at": LATER}]


def test_links_of_a_name_to_one_entity_are_taken_back_together(store):
    with store.transaction():
        store.add_reference_link("notes/a.md", "person", "sam", "person:sam li", "Sam Li", NOW)
        store.add_reference_link("notes/b.md", "person", "sam", "person:sam li", "Sam Li", NOW)
        store.add_reference_link("notes/c.md", "person", "sam", "person:sam ortiz", "Sam Ortiz", NOW)
        assert store.remove_reference_links("person", "sam", "person:sam li") == 2
    assert [r["doc_path"] for r in store.reference_links()] == ["notes/c.md"]


def test_a_mention_taken_back_is_kept_once_and_can_be_given_back(store):
    with store.transaction():
        assert store.add_unlink("person:sam li", "Sam Li", "notes/b.md", NOW)
        assert not store.add_unlink("person:sam li", "Sam Li", "notes/b.md", LATER)  # already taken back
        assert store.add_unlink("person:al", "Al", "notes/a.md", NOW)
    assert store.unlinks() == [
        {"entity_key": "person:al", "entity_name": "Al", "doc_path": "notes/a.md", "created_at": NOW},
        {"entity_key": "person:sam li", "entity_name": "Sam Li", "doc_path": "notes/b.md", "created_at": NOW}]
    with store.transaction():
        assert store.remove_unlink("person:al", "notes/a.md")
        assert not store.remove_unlink("person:al", "notes/a.md")
    assert [u["entity_key"] for u in store.unlinks()] == ["person:sam li"]


def test_a_renamed_entity_keeps_its_answers_links_unlinks_and_merges(store):
    from kbgraph.model import Merge

    with store.transaction():
        store.add_decision(_decision("T. Becker", "person:tom becker", "confirmed", decided_at=LATER))
        store.add_decision(_decision("Sam", "person:sam li", "rejected"))
        store.add_reference_link("notes/a.md", "person", "tb", "person:tom becker", "Tom Becker", NOW)
        store.add_unlink("person:tom becker", "Tom Becker", "notes/a.md", NOW)
        store.add_unlink("person:tom becker", "Tom Becker", "notes/b.md", NOW)
        store.add_unlink("person:thomas becker", "Thomas Becker", "notes/b.md", NOW)
        store.add_merge(Merge("person:tb", "person", "TB", "person:tom becker", "person", "Tom Becker"), [], NOW)
        store.add_merge(Merge("person:thomas becker", "person", "Thomas Becker", "person:tom becker", "person",
                              "Tom Becker"), [], NOW)  # the new name, linked before: now the entity's own
        store.rename_entity_key("person:tom becker", "person:thomas becker", "Thomas Becker")
    assert [(d["candidate_key"], d["candidate_name"]) for d in store.decisions(LOCAL)] == [
        ("person:thomas becker", "Thomas Becker"), ("person:sam li", "Sam Li")]
    assert [(r["entity_key"], r["entity_name"]) for r in store.reference_links()] == [
        ("person:thomas becker", "Thomas Becker")]
    assert sorted((u["entity_key"], u["doc_path"]) for u in store.unlinks()) == [
        ("person:thomas becker", "notes/a.md"), ("person:thomas becker", "notes/b.md")]
    assert [(m.into_key, m.into_name) for m in store.merges()] == [("person:thomas becker", "Thomas Becker")]


def _document(store, path: str, entities: tuple[EntityDecl, ...] = (), text: str = "some words") -> int:
    chunk = Chunk(key=f"{path}#0", ordinal=0, heading_path=("Notes",), start=0, end=len(text), line=1, text=text)
    parsed = ParsedDocument(
        path=path, title=path, kind="note", date=None, frontmatter={}, tags=(), content_hash=f"hash-{path}",
        size=len(text), mtime=1.0, body_offset=0, chunks=(chunk,), links=(), entities=entities)
    with store.transaction():
        return store.write_document(parsed, None)


def test_the_documents_that_claim_a_name_other_than_its_page(store):
    _document(store, "people/sam-li.md", (EntityDecl("person", "Sam Li", role="page"),))
    _document(store, "notes/b.md", (EntityDecl("person", "Sam Li", ref_field="attendees"),
                                    EntityDecl("person", "Sam Li", ref_field="owner")))
    _document(store, "notes/a.md", (EntityDecl("person", "Sam Li", ref_field="attendees"),))
    _document(store, "notes/c.md", (EntityDecl("project", "Sam Li"),))
    assert store.docs_claiming("person", "Sam Li") == ["notes/a.md", "notes/b.md"]
    assert store.docs_claiming("person", "Nobody") == []


def test_the_open_questions_about_one_name_are_read_by_its_key_through_access(store):
    """A lookup lists a name's open questions with its candidates (entities/lookup.py): only the asked
    ones about that name, only those the access may read."""
    from kbgraph.access import Governance

    with store.transaction():
        li = store.add_decision(_decision())
        ortiz = store.add_decision(_decision(candidate="person:sam ortiz"))
        store.add_decision(_decision(candidate="person:sam roe", outcome="rejected"))
        store.add_decision(_decision("Ana", "person:ana lee"))
        store.set_decision_governance(li, Governance("ana", "team", "normal"))
        store.set_decision_governance(ortiz, Governance("ana", "private", "normal"))
    assert [q["id"] for q in store.open_questions_about(LOCAL, "sam")] == [li, ortiz]
    assert store.open_questions_about(LOCAL, "sam")[0]["candidate_name"] == "Sam Li"
    bob = Access("bob", frozenset({"team", "public"}), "normal")
    assert [q["id"] for q in store.open_questions_about(bob, "sam")] == [li]
    assert store.open_questions_about(LOCAL, "nobody") == []

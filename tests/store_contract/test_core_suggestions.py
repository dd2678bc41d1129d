"""Suggestions on every backend: evidence per document and kind, ends not known yet, the pending queue,
decisions, and co-occurrence of people listed together in meetings."""

from __future__ import annotations

from kbgraph.access import LOCAL, Access
from kbgraph.model import Mention

from .builders import NOW, entities, relation
from .core_builders import parsed, write


def _found(sentence: str, start: int, **ends) -> dict:
    return {"type": "works-with", "confidence": "auto-high", "rule": "pattern:with", "start": start,
            "end": start + len(sentence), "sentence": sentence, **ends}


def test_evidence_makes_suggestions_and_losing_it_drops_the_pending_ones(store):
    ids = entities(store, [("person", "Ana"), ("person", "Ben")])
    a = write(store, parsed("a.md", "text"))
    b = write(store, parsed("b.md", "text"))
    with store.transaction():
        store.replace_suggestion_evidence(a, "a.md", [_found("Ana works with Ben.", 0, source_id=ids["Ana"],
                                                             target_id=ids["Ben"]),
                                                      _found("Ana works with Zoe.", 20, source_id=ids["Ana"],
                                                             target_new="person:Zoe")], NOW)
        store.replace_suggestion_evidence(b, "b.md", [_found("Ben and Ana work together.", 5,
                                                             source_id=ids["Ana"], target_id=ids["Ben"])], NOW)
        store.drop_unstated_suggestions()
    got = store.suggestions(LOCAL, status="pending")
    assert [(s["source"], s["target"], s["target_type"], s["new_target"], s["strength"], s["evidence"],
             s["source_doc"]) for s in got] == [
        ("Ana", "Ben", "person", False, 2, "Ana works with Ben.", "a.md"),
        ("Ana", "Zoe", "person", True, 1, "Ana works with Zoe.", "a.md")]
    known = got[0]["id"]
    assert [e["doc_path"] for e in store.suggestion_evidence(known)] == ["a.md", "b.md"]
    assert [s["id"] for s in store.suggestions(LOCAL, doc_path="b.md")] == [known]

    with store.transaction():  # a.md no longer says either; b.md still states the first
        store.replace_suggestion_evidence(a, "a.md", [], NOW)
        store.drop_unstated_suggestions()
    assert [s["id"] for s in store.suggestions(LOCAL)] == [known]
    assert store.suggestion_evidence(known) == [
        {"doc_id": b, "doc_path": "b.md", "start": 5, "end": 31, "sentence": "Ben and Ana work together."}]


def test_a_decision_is_kept_and_a_pending_suggestion_the_graph_holds_is_not_asked(store):
    ids = entities(store, [("person", "Ana"), ("person", "Ben"), ("person", "Cy")])
    doc = write(store, parsed("a.md", "text"))
    with store.transaction():
        store.replace_suggestion_evidence(doc, "a.md", [
            _found("Ana works with Ben.", 0, source_id=ids["Ana"], target_id=ids["Ben"]),
            _found("Ana works with Cy.", 30, source_id=ids["Ana"], target_id=ids["Cy"])], NOW)
    first, second = (s["id"] for s in store.suggestions(LOCAL, status="pending"))
    with store.transaction():
        store.decide_suggestion(first, "rejected", "2026-03-02T00:00:00+00:00")
    relation(store, ids["Ana"], ids["Cy"], "works-with")
    assert store.suggestions(LOCAL, status="pending") == []
    rejected = store.get_suggestion(LOCAL, first)
    assert (rejected["status"], rejected["decided_at"]) == ("rejected", "2026-03-02T00:00:00+00:00")
    assert [s["id"] for s in store.suggestions(LOCAL, confidence=("auto-low",))] == []
    assert store.get_suggestion(LOCAL, second)["status"] == "pending"
    with store.transaction():
        store.delete_document(doc)
    assert [s["id"] for s in store.suggestions(LOCAL)] == [first]  # decided: kept without its evidence
    reader = Access.of("ana", ("public", "private"))
    assert store.get_suggestion(reader, first)["id"] == first
    with store.transaction():
        store.set_entity_governance(ids["Ben"], None, "team", "normal")
    assert store.get_suggestion(reader, first) is None  # an end it may not read


def _meeting(store, path: str, attendees, mentioned: list[tuple[int, str]]) -> int:
    doc = write(store, parsed(path, "notes", kind="meeting", date="2026-02-01", title=path.split(".")[0],
                              frontmatter={"attendees": attendees}))
    with store.transaction():
        store.replace_mentions([(doc, [(None, Mention(entity, None, None, surface, "frontmatter"))
                                       for entity, surface in mentioned])])
    return doc


def test_people_listed_together_in_meetings_cooccur(store):
    ids = entities(store, [("person", "Ana Lee"), ("person", "Ben"), ("person", "Cy")])
    ana, ben, cy = ids["Ana Lee"], ids["Ben"], ids["Cy"]
    one = _meeting(store, "m1.md", ["Ana Lee", "Ben"], [(ana, "Ana Lee"), (ben, "Ben")])
    two = _meeting(store, "m2.md", "ana lee, ben and cy", [(ana, "Ana Lee"), (ben, "Ben"), (cy, "Cy")])
    _meeting(store, "m3.md", ["Ana Lee"], [(ana, "Ana Lee"), (cy, "Cy")])  # Cy is not listed: not there
    pairs = store.cooccurring_people(2)
    assert [(a, b, sorted(m)) for a, b, m in pairs] == [
        (ana, ben, [(one, "m1.md", "m1 (2026-02-01)"), (two, "m2.md", "m2 (2026-02-01)")])]
    assert store.count_meetings([one, two]) == 2
    assert sorted((a, b) for a, b, _ in store.cooccurring_people(1)) == [(ana, ben), (ana, cy), (ben, cy)]
    with store.transaction():
        store.replace_cooccurrence(pairs, NOW)
    got = store.suggestions(LOCAL, confidence=("auto-low",))
    assert [(s["source"], s["target"], s["type"], s["rule"], s["strength"]) for s in got] == [
        ("Ana Lee", "Ben", "collaborates-with", "co-occurrence", 2)]
    assert store.suggestion_evidence(got[0]["id"])[0]["sentence"] == "together in m1 (2026-02-01)"
    with store.transaction():
        store.replace_cooccurrence([], NOW)
    assert store.suggestions(LOCAL, confidence=("auto-low",)) == []

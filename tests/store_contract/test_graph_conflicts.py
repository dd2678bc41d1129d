"""Recorded contradictions between relations on every backend: newest first, by status, readable with their subject."""

from __future__ import annotations

from kbgraph.access import LOCAL, Access

from .builders import NOW, entities

LATER = "2026-03-02T09:00:00+00:00"


def _conflict(subject: str = "Ana", status: str = "open", **fields) -> dict:
    return {"kind": "temporal", "type": "reports-to", "subject_key": f"person:{subject.lower()}",
            "subject_name": subject, "old_relation_id": 1, "old_other": "Ben", "new_relation_id": 2,
            "new_other": "Cy", "status": status, **fields}


def test_a_conflict_reads_back_as_recorded_newest_first(store):
    with store.transaction():
        first = store.add_conflict(_conflict(note="moved teams"), NOW)
        second = store.add_conflict(_conflict(status="resolved", resolution="keep-new", old_relation_id=None,
                                              kind="factual"), LATER)
    assert isinstance(first, int) and second > first
    assert [c["id"] for c in store.conflicts(LOCAL)] == [second, first]
    assert store.get_conflict(LOCAL, first) == {
        "id": first, "kind": "temporal", "type": "reports-to", "subject_key": "person:ana", "subject_name": "Ana",
        "old_relation_id": 1, "old_other": "Ben", "new_relation_id": 2, "new_other": "Cy", "status": "open",
        "resolution": None, "note": "moved teams", "created_at": NOW, "resolved_at": None}
    resolved = store.get_conflict(LOCAL, second)
    assert (resolved["resolution"], resolved["resolved_at"], resolved["old_relation_id"]) == ("keep-new", LATER, None)
    assert store.get_conflict(LOCAL, 999) is None


def test_resolving_a_conflict_moves_it_between_statuses(store):
    with store.transaction():
        conflict = store.add_conflict(_conflict(), NOW)
    assert [c["id"] for c in store.conflicts(LOCAL, "open")] == [conflict]
    with store.transaction():
        store.resolve_conflict(conflict, "keep-both", LATER)
    assert store.conflicts(LOCAL, "open") == []
    [done] = store.conflicts(LOCAL, "resolved")
    assert (done["status"], done["resolution"], done["resolved_at"]) == ("resolved", "keep-both", LATER)


def test_a_conflict_between_two_relations_is_found_either_way_round(store):
    with store.transaction():
        store.add_conflict(_conflict(old_relation_id=7, new_relation_id=9), NOW)
    assert store.open_conflict_between(7, 9) and store.open_conflict_between(9, 7)
    assert not store.open_conflict_between(7, 8)


def test_a_conflict_is_read_only_by_who_may_read_its_subject(store):
    ids = entities(store, [("person", "Ana"), ("person", "Ben")])
    with store.transaction():
        store.set_entity_governance(ids["Ana"], None, "public", "normal")
        on_public = store.add_conflict(_conflict("Ana"), NOW)
        on_private = store.add_conflict(_conflict("Ben"), NOW)
        unknown_subject = store.add_conflict(_conflict("Zed"), NOW)
    guest = Access.of("guest")
    assert [c["id"] for c in store.conflicts(guest)] == [unknown_subject, on_public]
    assert store.get_conflict(guest, on_private) is None
    assert [c["id"] for c in store.conflicts(LOCAL)] == [unknown_subject, on_private, on_public]


def test_a_loop_conflict_of_either_kind_is_kept(store):
    """A hierarchy stated both ways ('inverse') or round a loop ('cycle'): m020 / p003 widened the kinds."""
    with store.transaction():
        ids = [store.add_conflict(_conflict(kind=kind, old_other="Ben", new_other="Ben"), NOW)
               for kind in ("inverse", "cycle")]
    assert [store.get_conflict(LOCAL, i)["kind"] for i in ids] == ["inverse", "cycle"]

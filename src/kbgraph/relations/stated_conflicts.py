"""Contradictions the notes state: two current relations of a one-at-a-time type on one end, at least
one of them stated on a page (two `reports-to` lines on one person's page; two people's pages that
each say they lead one project). `kbg index` finds them with the rules `relate` uses
(relations.conflicts) and records each pair once.

The files are the relations' home, so the index changes neither relation: a contextual pair is
recorded as settled (both hold, each in its context); a temporal or factual one stays open until the
user ends a line or settles it (`kbg graph resolve`), which writes the end into the page. A loop of a
hierarchical type that a page states part of (Ana's page: reports-to Ben; Ben's page: reports-to Ana)
is recorded open too, once, the latest-made relation as the new one.

A merge can make the same contradictions out of two entities' relations (each had a manager): they are
recorded for the merged entity the same way (record_conflicts_of), whatever stated them.
"""

from __future__ import annotations

from ..access import LOCAL
from ..store.base import Store
from .conflicts import LOOP_KINDS, Claim, Conflict, claim_of, classify, loop_conflict, loop_note, record, shortest_chain
from .records import is_active
from ..vocabulary import RelationType, Vocabulary


def find_stated_conflicts(store: Store, vocab: Vocabulary, today: str) -> list[Conflict]:
    """The contradicting pairs among current relations, where one is page-stated and not yet recorded."""
    out: list[Conflict] = []
    for rtype in vocab.types.values():
        if rtype.functional in ("source", "target") and not rtype.symmetric:
            for subject_id, rows in _by_subject(store, rtype, today).items():
                out.extend(_pairs(store, rtype, subject_id, rows))
        if rtype.hierarchical and not rtype.symmetric:
            out.extend(_loops(store, rtype, _current(store, rtype, today), lambda rows: any(
                r["origin"] == "page" for r in rows)))
    return out


def record_conflicts_of(store: Store, vocab: Vocabulary, entity_id: int, today: str, now: str) -> list[dict]:
    """Find and record the contradictions among current relations of one entity (after a merge gave it
    the relations of another), however they were stated; returns them as the library shows them."""
    found: list[Conflict] = []
    for rtype in vocab.types.values():
        if rtype.symmetric:
            continue
        rows = _current(store, rtype, today)
        if rtype.functional in ("source", "target"):
            end = "source_id" if rtype.functional == "source" else "target_id"
            mine = [r for r in rows if r[end] == entity_id]
            if len(mine) > 1:
                found.extend(_pairs(store, rtype, entity_id, mine, need_page=False))
        if rtype.hierarchical:
            found.extend(_loops(store, rtype, rows, lambda loop: any(entity_id in (r["source_id"], r["target_id"])
                                                                     for r in loop)))
    return [_record(store, conflict, now) for conflict in found]


def record_stated_conflicts(store: Store, vocab: Vocabulary, today: str, now: str) -> list[dict]:
    """Find and record the conflicts the pages state; returns them as the library shows them."""
    return [_record(store, conflict, now) for conflict in find_stated_conflicts(store, vocab, today)]


def _record(store: Store, conflict: Conflict, now: str) -> dict:
    """Record one found conflict without changing either relation: open unless the contexts differ."""
    if conflict.kind in LOOP_KINDS:
        status, resolution, note = "open", None, loop_note(conflict)
    elif conflict.kind == "contextual":
        status, resolution, note = "resolved", "both kept, each in its context", None
    elif conflict.kind == "temporal":
        status, resolution, note = "open", None, (
            f"stated without an end: {conflict.old.other} was true until {conflict.loser_until()} if "
            f"{conflict.new.other} took over then; end its line, or say which holds")
    else:
        status, resolution, note = "open", None, "undated: say which holds, or that both do"
    return record(store, conflict, conflict.new.relation_id, status, resolution, note, now)


def _by_subject(store: Store, rtype: RelationType, today: str) -> dict[int, list[dict]]:
    """Current relations of rtype grouped by their one-at-a-time end, where one of them is page-stated."""
    end = "source_id" if rtype.functional == "source" else "target_id"
    groups: dict[int, list[dict]] = {}
    for row in _current(store, rtype, today):
        groups.setdefault(row[end], []).append(row)
    return {subject: rows for subject, rows in groups.items()
            if len(rows) > 1 and any(r["origin"] == "page" for r in rows)}


def _current(store: Store, rtype: RelationType, today: str) -> list[dict]:
    return [row for row in store.relations_of_type(LOCAL, rtype.name)  # the index reading its own rows
            if is_active(row, today)]


def _loops(store: Store, rtype: RelationType, rows: list[dict], wanted) -> list[Conflict]:
    """Each loop among rows not yet recorded, once, where wanted(its rows): the latest-made relation in
    it as the new one, against the shortest chain back from its target."""
    links: dict[int, list[dict]] = {}
    for row in rows:
        links.setdefault(row["source_id"], []).append(row)
    seen: set[frozenset[int]] = set()
    out = []
    for row in sorted(rows, key=lambda r: -r["id"]):
        chain = shortest_chain(lambda node: links.get(node, []), row["target_id"], row["source_id"])
        if chain is None:
            continue
        ids = frozenset([row["id"], *(link["id"] for link in chain)])
        if ids in seen:
            continue
        seen.add(ids)  # a loop recorded in an earlier run is seen too: its other links are not new ones
        if not wanted([row, *chain]) or _loop_recorded(store, row, chain):
            continue
        src, tgt = store.get_entity(LOCAL, row["source_id"]), store.get_entity(LOCAL, row["target_id"])
        out.append(loop_conflict(rtype, src, tgt, chain, row["id"]))
    return out


def _loop_recorded(store: Store, row: dict, chain: list[dict]) -> bool:
    """Whether this loop has a conflict already, recorded with any of its relations as the new one."""
    loop = [*chain, row]
    return any(store.open_conflict_between(loop[i - 1]["id"], loop[i]["id"]) for i in range(len(loop)))


def _pairs(store: Store, rtype: RelationType, subject_id: int, rows: list[dict],
           need_page: bool = True) -> list[Conflict]:
    """Each contradicting pair once, the earlier as old: undated first, then by date, then as made."""
    subject = store.get_entity(LOCAL, subject_id)
    claims: list[tuple[Claim, dict]] = sorted(((claim_of(r, subject_id), r) for r in rows),
                                              key=lambda pair: (pair[0].since or "", pair[1]["id"]))
    out = []
    for index, (old, old_row) in enumerate(claims):
        for new, new_row in claims[index + 1:]:
            kind = classify(old, new)
            if (kind is None or (need_page and "page" not in (old_row["origin"], new_row["origin"]))
                    or store.open_conflict_between(old_row["id"], new_row["id"])):
                continue
            out.append(Conflict(kind, subject, rtype, old_row, old, new))
    return out

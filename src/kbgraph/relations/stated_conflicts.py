"""Contradictions the notes state: two current relations of a one-at-a-time type on one end, at least
one of them stated on a page (two `reports-to` lines on one person's page; two people's pages that
each say they lead one project). `kbg index` finds them with the rules `relate` uses
(relations.conflicts) and records each pair once.

The files are the relations' home, so the index changes neither relation: a contextual pair is
recorded as settled (both hold, each in its context); a temporal or factual one stays open until the
user ends a line or settles it (`kbg graph resolve`), which writes the end into the page.
"""

from __future__ import annotations

from ..access import LOCAL
from ..store.base import Store
from .conflicts import Claim, Conflict, claim_of, classify, record
from .records import is_active
from .vocabulary import RelationType, Vocabulary


def find_stated_conflicts(store: Store, vocab: Vocabulary, today: str) -> list[Conflict]:
    """The contradicting pairs among current relations, where one is page-stated and not yet recorded."""
    out: list[Conflict] = []
    for rtype in vocab.types.values():
        if rtype.functional in ("source", "target") and not rtype.symmetric:
            for subject_id, rows in _by_subject(store, rtype, today).items():
                out.extend(_pairs(store, rtype, subject_id, rows))
    return out


def record_stated_conflicts(store: Store, vocab: Vocabulary, today: str, now: str) -> list[dict]:
    """Find and record the conflicts the pages state; returns them as the library shows them."""
    recorded = []
    for conflict in find_stated_conflicts(store, vocab, today):
        if conflict.kind == "contextual":
            status, resolution, note = "resolved", "both kept, each in its context", None
        elif conflict.kind == "temporal":
            status, resolution, note = "open", None, (
                f"stated without an end: {conflict.old.other} was true until {conflict.loser_until()} if "
                f"{conflict.new.other} took over then; end its line, or say which holds")
        else:
            status, resolution, note = "open", None, "undated: say which holds, or that both do"
        recorded.append(record(store, conflict, conflict.new.relation_id, status, resolution, note, now))
    return recorded


def _by_subject(store: Store, rtype: RelationType, today: str) -> dict[int, list[dict]]:
    """Current relations of rtype grouped by their one-at-a-time end, where one of them is page-stated."""
    end = "source_id" if rtype.functional == "source" else "target_id"
    groups: dict[int, list[dict]] = {}
    for row in store.relations_of_type(LOCAL, rtype.name):  # the index reading its own rows
        if is_active(row, today):
            groups.setdefault(row[end], []).append(row)
    return {subject: rows for subject, rows in groups.items()
            if len(rows) > 1 and any(r["origin"] == "page" for r in rows)}


def _pairs(store: Store, rtype: RelationType, subject_id: int, rows: list[dict]) -> list[Conflict]:
    """Each contradicting pair once, the earlier as old: undated first, then by date, then as made."""
    subject = store.get_entity(LOCAL, subject_id)
    claims: list[tuple[Claim, dict]] = sorted(((claim_of(r, subject_id), r) for r in rows),
                                              key=lambda pair: (pair[0].since or "", pair[1]["id"]))
    out = []
    for index, (old, old_row) in enumerate(claims):
        for new, new_row in claims[index + 1:]:
            kind = classify(old, new)
            if (kind is None or "page" not in (old_row["origin"], new_row["origin"])
                    or store.open_conflict_between(old_row["id"], new_row["id"])):
                continue
            out.append(Conflict(kind, subject, rtype, old_row, old, new))
    return out

"""Typed relations between entities: create, remove, read (with inverses), expiry, and page sync.

A relation the user asserts is stored once, in canonical direction. When its
source entity has a page, it is also mirrored there as a `## Relations` line,
and that line becomes the relation's home: indexing reads page lines back, so
editing or deleting a line in any editor changes the relation on the next index.
Relations of entities without a page live in the database (origin 'user').
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any
from .. import clock
from ..access import LOCAL, Access
from ..errors import Ambiguous, InvalidInput, NotFound
from ..entities.lookup import find_entity
from ..model import Entity, Problem
from ..entities.names import name_key, page_link_keys
from .reading import read_from
from ..vocabulary import RelationType, Vocabulary
from ..store.base import Store



# The one clock (kbgraph/clock.py), here too, where the relation modules have always found it.
now_iso, today_iso = clock.now_iso, clock.today_iso


def stamp_after(row: dict, now: str | None = None) -> str:
    """The stamp of a change to a stored relation: never before the version it ends began (a clock set
    back would end it before it began, and valid_until before it was recorded: true at no date)."""
    return clock.after(row.get("created_at"), row.get("updated_at"), now=now)


def is_active(row: dict, today: str) -> bool:
    return row["valid_until"] is None or row["valid_until"] >= today


def parse_valid_until(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value.strip()).isoformat()
    except ValueError:
        raise InvalidInput(f"`valid_until` {value!r}: use a real date as YYYY-MM-DD", param="valid_until") from None


def canonical(vocab: Vocabulary, source: Entity, type_name: str, target: Entity) -> tuple[RelationType, Entity, Entity]:
    """The relation in canonical direction, checked against the vocabulary; refuses self-relations."""
    normal = vocab.normalise(type_name)
    src, tgt = (target, source) if normal.swapped else (source, target)
    if src.id == tgt.id:
        raise InvalidInput(f"{source.name!r} cannot be related to itself")
    for entity in (src, tgt):
        if entity.status != "active":
            raise InvalidInput(f"{entity.name!r} was merged into another entity; relate that one instead")
    vocab.check_pair(normal.type, (src.name, src.type), (tgt.name, tgt.type))
    if normal.type.symmetric and src.id > tgt.id:
        src, tgt = tgt, src  # one row for both directions
    return normal.type, src, tgt


def view_row(row: dict, vocab: Vocabulary, entity_id: int, today: str) -> tuple[str, dict]:
    """("relations" | "inverse_relations", the row as seen from entity_id): subject, type and object
    state it as a sentence from that entity; `target` / `source` name the other end (kept for
    compatibility: an inverse row's `source` is the other end, not the subject)."""
    rtype = vocab.types.get(row["type"])
    symmetric = bool(rtype and rtype.symmetric)
    outgoing = row["source_id"] == entity_id
    other = row["target"] if outgoing else row["source"]
    reading = read_from(vocab, row["type"], row["source"], row["target"], outgoing)
    data = {
        "subject": reading.subject, "type": reading.type, "object": reading.object,
        ("target" if outgoing or symmetric else "source"): other,
        **_details(row, today),
    }
    return ("relations" if outgoing or symmetric else "inverse_relations"), data


def _details(row: dict, today: str) -> dict:
    """What every view of a relation shows besides its ends and type."""
    return {
        "reason": row["reason"],
        "since": row.get("valid_from") or (row["created_at"] or "")[:10] or None,
        "valid_until": row["valid_until"],
        "confidence": row["confidence"],
        "source_doc": row["source_doc"],
        "strength": row["strength"],
        "expired": not is_active(row, today),
    }


def entity_relations(
    store: Store, vocab: Vocabulary, entity: Entity, type_name: str | None = None, include_expired: bool = False,
    today: str | None = None, limit: int | None = None, *, access: Access, with_unresolved: bool = False,
) -> dict:
    """An entity's relations and inverse relations, optionally of one type (either direction's name).

    limit caps the rows read per direction (a hub can have thousands); "total" always counts all.
    with_unresolved adds "unresolved": its page's lines whose [[target]] the last index could not link.
    """
    today = today or today_iso()
    active_on = None if include_expired else today
    canonical_type, directions = _directions(vocab, type_name)
    out: dict[str, Any] = {"entity": entity.name, "entity_id": entity.id, "entity_type": entity.type,
           "relations": [], "inverse_relations": [], "total": {"relations": 0, "inverse_relations": 0}}
    for direction in directions:
        for row in store.relations_from(access, entity.id, direction, canonical_type, active_on, limit):
            side, data = view_row(row, vocab, entity.id, today)
            out[side].append(data)
    for (direction, rel_type), count in store.relation_counts(access, entity.id, active_on).items():
        if direction in directions and canonical_type in (None, rel_type):
            rtype = vocab.types.get(rel_type)
            side = "relations" if direction == "out" or (rtype and rtype.symmetric) else "inverse_relations"
            out["total"][side] += count
    out["truncated"] = (len(out["relations"]) + len(out["inverse_relations"])
                        < out["total"]["relations"] + out["total"]["inverse_relations"])
    if active_on is not None:  # what the default view leaves out, so an empty answer can say why
        every = sum(n for (direction, rel_type), n in store.relation_counts(access, entity.id, None).items()
                    if direction in directions and canonical_type in (None, rel_type))
        out["expired"] = every - out["total"]["relations"] - out["total"]["inverse_relations"]
    for side in ("relations", "inverse_relations"):
        out[side].sort(key=lambda r: (r["type"], r.get("target") or r.get("source") or ""))
    if with_unresolved:  # not relations (an end would be a phantom), but what the page says
        page = entity.page_path and store.get_document(access, path=entity.page_path)
        out["unresolved"] = [u for u in unresolved_targets(store, [page["path"]])
                             if canonical_type in (None, _canonical_name(vocab, u["type"]))] if page else []
    return out


def _canonical_name(vocab: Vocabulary, type_name: str) -> str | None:
    try:
        return vocab.normalise(type_name).type.name
    except InvalidInput:
        return None


def _directions(vocab: Vocabulary, type_name: str | None) -> tuple[str | None, tuple[str, ...]]:
    """The canonical type to read, and from which end ("out": the entity is the source). A type named
    in either direction reads both ends: "--type leads" on a project shows who leads it (led-by)."""
    if not type_name:
        return None, ("out", "in")
    return vocab.normalise(type_name).type.name, ("out", "in")


def relations_of_type(store: Store, vocab: Vocabulary, type_name: str, include_expired: bool = False,
                      today: str | None = None, *, access: Access) -> list[dict]:
    """Every relation of a type across the graph, read in the direction the type was named."""
    today = today or today_iso()
    normal = vocab.normalise(type_name)
    out = []
    for row in store.relations_of_type(access, normal.type.name):
        if not include_expired and not is_active(row, today):
            continue
        reading = read_from(vocab, row["type"], row["source"], row["target"], not normal.swapped)
        out.append({
            "subject": reading.subject, "type": reading.type, "object": reading.object,
            "source": reading.subject, "target": reading.object, **_details(row, today),
        })
    return out


def relation_summary(store: Store, vocab: Vocabulary, entity: Entity, today: str | None = None,
                     *, access: Access) -> dict[str, list[str]]:
    """Active relations grouped by how they read from the entity: {"reports_to": [...], "manages": [...]}."""
    data = entity_relations(store, vocab, entity, today=today, access=access)
    return grouped_by_reading((item["type"], item.get("target") or item.get("source"))
                              for item in data["relations"] + data["inverse_relations"])


def grouped_by_reading(pairs) -> dict[str, list[str]]:
    """(type as read from an entity, other end) pairs as {"reports_to": [names], ...}: keys sorted,
    names sorted and once each."""
    summary: dict[str, list[str]] = {}
    for label, other in pairs:
        summary.setdefault(label.replace("-", "_"), []).append(other)
    return {k: sorted(set(v)) for k, v in sorted(summary.items())}


# --- page lines -> relations (an indexing stage) -----------------------------------


def sync_page_relations(store: Store, vocab: Vocabulary, now: str) -> list[Problem]:
    """Make origin-'page' relations equal to what the pages' `## Relations` lines say; report bad lines."""
    pages = store.page_entity_ids()
    desired: dict[tuple[int, int, str], list[dict]] = {}
    problems: list[Problem] = []
    stems: dict[str, set[int]] = {}  # a page's file name, as a [[link]] may give it; built when first needed
    found: dict = {}  # (name, type hint) -> its entity or why none: a run asks find_entity once per name
    for line in store.page_relation_lines():
        where = f"{line['path']}:{line['line']}"
        if line["problem"]:
            problems.append(Problem(where, line["problem"], "warning"))
            continue
        page = pages.get(line["doc_id"])
        if page is None:
            continue
        try:
            key, fields = _line_relation(store, vocab, page, line, stems, found)
        except (InvalidInput, NotFound) as exc:
            problems.append(Problem(where, str(exc), "warning"))
            continue
        desired.setdefault(key, []).append(fields)
    existing = {(r["source_id"], r["target_id"], r["type"]): r for r in store.page_relations()}
    # Two pages may state one relation; the page it was last written to keeps being its home. Within a
    # page a `## Relations` line wins over a frontmatter value: only a line can say until when. What the
    # chosen line or value says is the relation, as a rebuild would read it: a value says no end, so a
    # relation whose `(until …)` line is gone is current again (its ended version stays in history).
    for options in desired.values():
        options.sort(key=lambda f: f["from_frontmatter"])
    desired = {key: _dated(next((f for f in options if key in existing
                                 and f["origin_doc_id"] == existing[key]["origin_doc_id"]), options[0]), options)
               for key, options in desired.items()}
    for key, row in existing.items():
        if key not in desired:
            store.end_relation(row["id"], stamp_after(row, now))
    for key, fields in desired.items():
        current = existing.get(key) or store.get_relation(*key)
        if current is None:
            store.upsert_relation({"source_id": key[0], "target_id": key[1], "type": key[2], **fields}, now,
                                  bump=False)
            continue
        if current["origin"] != "page" or any(current[k] != fields[k] for k in (
                "reason", "valid_until", "valid_from", "context", "origin_doc_id")):
            # The line is the relation's home: its reason, dates and context win; evidence and history stay.
            store.set_page_origin(current["id"], fields["reason"], fields["valid_until"], fields["origin_doc_id"],
                                  stamp_after(current, now), fields["valid_from"], fields["context"])
    return problems


def _line_relation(store: Store, vocab: Vocabulary, page: tuple[int, str, str], line: dict, stems: dict[str, set[int]],
                   found: dict | None = None):
    from ..errors import Ambiguous

    memo: dict = {} if found is None else found
    if ("\0page", page[0]) not in memo:
        memo[("\0page", page[0])] = store.get_entity(LOCAL, page[0])  # the index reading its own pages
    page_entity = memo[("\0page", page[0])]
    hint = vocab.target_type_hint(line["type"], page_entity.type)
    try:
        other = _found(store, line["target"], hint, memo)
    except Ambiguous as exc:
        why = str(exc).removeprefix("ambiguous: ")
        raise InvalidInput(f"{_UNRESOLVED_AMBIGUOUS}{line['type']} [[{line['target']}]]: {why}; write the full name "
                           "in [[...]]") from None
    except NotFound:
        if not stems:
            for entity in store.list_entities(LOCAL):
                for key in page_link_keys(entity.page_path) if entity.page_path else ():
                    stems.setdefault(key, set()).add(entity.id)
        by_file = stems.get(name_key(line["target"]), set())
        if len(by_file) > 1 or (line["source"] or "").startswith("frontmatter:"):
            raise
        if not by_file:
            raise NotFound(unresolved_reason(line["type"], line["target"])) from None
        other = store.get_entity(LOCAL, next(iter(by_file)))
    rtype, src, tgt = canonical(vocab, page_entity, line["type"], other)
    return (src.id, tgt.id, rtype.name), {
        "reason": line["reason"], "valid_until": line["valid_until"], "valid_from": line["valid_from"],
        "context": line["context"], "origin": "page",
        "origin_doc_id": line["doc_id"], "source_doc_id": line["doc_id"], "confidence": "manual",
        "from_frontmatter": (line["source"] or "").startswith("frontmatter:"),
        "doc_date": line.get("doc_date"),
    }


def _found(store: Store, target: str, hint: str | None, memo: dict):
    """find_entity, asked once per (name, type) in a run over every line: 654 KEPs name sig-node 654 times."""
    key = (target, hint)
    if key not in memo:
        try:
            memo[key] = find_entity(store, target, hint, access=LOCAL)  # the index resolving its own lines
        except (Ambiguous, InvalidInput, NotFound) as exc:
            memo[key] = exc
    found = memo[key]
    if isinstance(found, Exception):
        raise found
    return found


def _dated(chosen: dict, options: list[dict]) -> dict:
    """The chosen line's relation, starting when the notes say it did: the `(since DATE)` the user wrote,
    else the earliest date of the notes that state it (a page's frontmatter date or dated path). With
    neither it stays open (None): it reads as starting on the day kbgraph first recorded it (created_at),
    which an index keeps, where a date stamped here would be each run's."""
    fields = {k: v for k, v in chosen.items() if k != "doc_date"}
    if fields["valid_from"] is None:
        dates = [f["doc_date"][:10] for f in options if f.get("doc_date")]
        fields["valid_from"] = min(dates, default=None)
    return fields


_UNRESOLVED = "relation target not found: "
_UNRESOLVED_AMBIGUOUS = "relation target ambiguous: "
_UNRESOLVED_TARGET = re.compile(
    r"^relation target (?P<why>not found|ambiguous): (?P<type>\S+) \[\[(?P<target>[^\[\]]+)\]\]")


def unresolved_reason(type_name: str, target: str) -> str:
    """The problem an index records for a `## Relations` line whose [[target]] names no entity."""
    return (f"{_UNRESOLVED}{type_name} [[{target}]]: no page, name or alias spells it; the line links on the next "
            "index once one does (a new page, an alias), or relate it with --create TYPE")


def unresolved_summary(problems) -> str | None:
    """One line naming the `## Relations` targets an index could not link, or None when there are none."""
    found = []
    for problem in problems:
        match = _UNRESOLVED_TARGET.match(problem.reason)
        path, _, line = problem.path.rpartition(":")
        if match and line.isdigit():
            ambiguous = " (ambiguous)" if match["why"] == "ambiguous" else ""
            found.append(f"[[{match['target']}]] in {path} line {line}{ambiguous}")
    if not found:
        return None
    shown = ", ".join(found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
    return (f"{len(found)} relation target{'s' if len(found) != 1 else ''} not linked: {shown} (kept by name; "
            "linked on the index after a page or alias names them)")


def unresolved_targets(store: Store, page_paths: list[str]) -> list[dict]:
    """The `## Relations` lines of these pages that the last index could not link, by name and line."""
    out = []
    for problem in store.problems():
        path, _, line = problem.path.rpartition(":")
        found = _UNRESOLVED_TARGET.match(problem.reason) if path in page_paths and line.isdigit() else None
        if found:
            out.append({"type": found["type"], "target": found["target"], "page": path, "line": int(line),
                        "why": found["why"]})
    return sorted(out, key=lambda u: (u["page"], u["line"]))


def line_matcher(vocab: Vocabulary, page_entity: Entity, rtype: RelationType, src: Entity, tgt: Entity):
    """A predicate for the page line (in page_entity's page) that states this relation."""
    other = tgt if page_entity.id == src.id else src
    keys = {name_key(other.name), *(name_key(a) for a in other.aliases)}

    def matches(line) -> bool:
        try:
            normal = vocab.normalise(line.type)
        except InvalidInput:
            return False
        if normal.type.name != rtype.name or name_key(line.target) not in keys:
            return False
        if rtype.symmetric:
            return True
        page_is_source = not normal.swapped
        return page_is_source == (page_entity.id == src.id)

    return matches


def display_line_type(rtype: RelationType, page_is_source: bool) -> str:
    return rtype.name if page_is_source or rtype.symmetric else (rtype.inverse or rtype.name)

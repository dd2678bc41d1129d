"""Finding one entity by a name a person types: never picks silently among several.

The cascade: exact name or alias (and a name the user confirmed for an entity) -> a
person's first name -> nothing, with close spellings suggested. A level that matches
several entities is an Ambiguous error listing them. A name still waiting for an answer
(`kbg resolve pending`) is listed with every entity it was asked about, and where it appears.
"""

from __future__ import annotations

from ..access import Access
from ..errors import Ambiguous, InvalidInput, NotFound
from ..model import Entity, as_dict
from .mentions import IMPLICIT_KINDS
from .names import name_key
from ..store.base import Store

# A name a user confirmed for an entity in some notes (`kbg resolve confirm` on "Sam", "T. Becker"):
# it finds the entity, but, like a derived first name, it never outranks another entity's own name.
CONFIRMED = "confirmed"
WEAK_KINDS = IMPLICIT_KINDS  # the kinds the mention scan does not let outrank a name: the same rule


def find_entity(store: Store, name: str, entity_type: str | None = None, *, access: Access,
                questions: bool = False) -> Entity:
    """The one entity the access may read that name names (Ambiguous if several, NotFound if none).

    questions: a name that is still a question (a placeholder entity, "Sam" in a meeting, asked about as
    Sam Li and as Sam Ortiz) is Ambiguous, listing it with every candidate: what a person looking the
    name up must see. Off for a command that names the placeholder itself (`kbg entity merge Sam ...`)."""
    key = name_key(name or "")
    if not key or not any(ch.isalnum() for ch in key):
        raise InvalidInput(f"{name!r} is not a name: give an entity's name or alias")
    if len(key) > 500:
        raise InvalidInput("name too long (over 500 characters)")
    named = entities_named(store, key, entity_type, access=access)
    if not named:
        named = _by_handle(store, key, entity_type, access) or _by_identifier(store, key, entity_type, access)
    unresolved = _open_questions(store, name, named, entity_type, access) if questions else []
    if len(named) == 1 and not unresolved:
        return named[0]
    if named or unresolved:
        raise _ambiguous(store, name, named, unresolved, access)
    suggestions = similar_names(store, name, entity_type, access=access)
    what = entity_type or "entity"
    hint = f"; did you mean {', '.join(repr(s) for s in suggestions)}?" if suggestions else ""
    raise NotFound(f"no {what} named {name!r}{hint}")


def _by_identifier(store: Store, key: str, entity_type: str | None, access: Access) -> list[Entity]:
    """An identifier in any common spelling: "kep 2291", "KEP2291", "kep-02291" find KEP-2291."""
    import re

    from .values import identifier_of

    found = identifier_of(key.upper())
    if found is None:
        return []
    prefix, number = found
    digits = re.sub(r"\D", "", key)
    for spelling in dict.fromkeys((f"{prefix}-{number}", f"{prefix}-{digits}", f"{prefix} {number}",
                                   f"{prefix}{number}", f"{prefix} {digits}")):
        named = entities_named(store, name_key(spelling), entity_type, access=access)
        if named and name_key(spelling) != key:
            return named
    return []


def _by_handle(store: Store, key: str, entity_type: str | None, access: Access) -> list[Entity]:
    """A handle is one person however it is written: "liggitt" finds @liggitt, "@liggitt" the page
    named Liggitt (a lone word only: "Ana Lima" is no handle)."""
    from .values import LONE_HANDLE, identifier_of

    if key.startswith("@") and LONE_HANDLE.fullmatch(key):
        other = key[1:]
    elif not key.startswith("@") and LONE_HANDLE.fullmatch("@" + key) and identifier_of(key) is None:
        other = "@" + key
    else:
        return []
    return [e for e in entities_named(store, other, entity_type, access=access) if e.type == "person"]


def entities_named(store: Store, key: str, entity_type: str | None = None, *, access: Access) -> list[Entity]:
    """The entities a folded name names: those whose name or alias it is, with those it was confirmed
    for; else those whose derived first name it is. A confirmed name was the user's answer about some
    notes, not a claim that it names nobody else: where it is confirmed, the first names that share it
    are listed too ("Sam" confirmed for Sam Li still lists Sam Ortiz). More than one means ambiguous."""
    matches = list({e.id: e for e in store.entities_by_name_key(access, key) if entity_type in (None, e.type)}.values())
    kinds: dict[int, set[str]] = {}
    for entity_id, kind in store.name_kinds(key):
        kinds.setdefault(entity_id, set()).add(kind)
    explicit = [e for e in matches if kinds.get(e.id, set()) - WEAK_KINDS]
    confirmed = [e for e in matches if CONFIRMED in kinds.get(e.id, set())]
    if confirmed:
        return explicit + [e for e in matches if e not in explicit]
    return explicit or matches


def key_of(store: Store, entity: Entity) -> str:
    """The entity's stored key: entity_key(type, name), unless its page is one of namesakes whose identifiers
    disagree (entities/namesakes.py), which are keyed apart."""
    from .assemble import entity_key

    plain = entity_key(entity.type, entity.name)
    ids = store.entity_ids_by_key()
    if ids.get(plain) == entity.id:
        return plain
    return next((key for key, entity_id in ids.items() if entity_id == entity.id), plain)


def similar_names(store: Store, name: str, entity_type: str | None, limit: int = 3,
                  *, access: Access) -> list[str]:
    """The names of the entities the access may read with a spelling closest to name (trigram similarity,
    found by the store): "Arjun Metha" suggests Arjun Mehta, even where his first name "Arjun" is closer."""
    return [m.name for m in store.similar_entity_names(access, name_key(name), entity_type, limit)]


def _open_questions(store: Store, name: str, named: list[Entity], entity_type: str | None,
                    access: Access) -> list[dict]:
    """The names spelled like name that are still questions: {"type", "entity" (its placeholder, or None for a
    name in prose, which makes none), "questions"}. "Sam" in a meeting, asked about as Sam Li and as Sam
    Ortiz, is not settled, so a lookup of "Sam" must show it with those candidates rather than answer
    with the placeholder. A name an entity's page carries is that entity: its questions (a duplicate
    page's) do not stand in the way of its profile."""
    if named and all(e.page_path is not None for e in named):
        return []
    # A type where one page carries the name is that page's entity; where several do (namesakes whose
    # identifiers disagree), the name's questions are listed as for any name still asked about.
    paged_count: dict[str, int] = {}
    for e in named:
        if e.page_path is not None:
            paged_count[e.type] = paged_count.get(e.type, 0) + 1
    paged = {t for t, n in paged_count.items() if n == 1}
    placeholders = {e.type: e for e in named if e.page_path is None}
    by_type: dict[str, list[dict]] = {}
    for q in store.open_questions_about(access, _question_key(name)):
        if q["candidate_key"] and entity_type in (None, q["surface_type"]) and q["surface_type"] not in paged:
            by_type.setdefault(q["surface_type"], []).append(q)
    return [{"type": t, "entity": placeholders.get(t), "questions": qs} for t, qs in sorted(by_type.items())]


def _question_key(name: str) -> str:
    """The key the resolver files its questions about a name under (entities/keys.py surface_key)."""
    from ..errors import MissingDependency
    from .keys import surface_key

    try:
        return surface_key(name)
    except (InvalidInput, MissingDependency):  # nothing to match, or no resolver to have asked anything
        return name_key(name)


def _ambiguous(store: Store, name: str, named: list[Entity], unresolved: list[dict], access: Access) -> Ambiguous:
    """Every candidate: the entities the name names, those its open questions ask about, and each
    unresolved name itself with the documents it appears in and its question numbers."""
    pending = {u["entity"].id for u in unresolved if u["entity"] is not None}
    listed = {e.id: e for e in named if e.id not in pending}
    ids = store.entity_ids_by_key() if unresolved else {}
    for u in unresolved:
        for q in u["questions"]:
            for e in store.entities_by_name_key(access, name_key(q["candidate_name"] or "")):
                if ids.get(q["candidate_key"]) == e.id and e.id not in pending:
                    listed.setdefault(e.id, e)
    candidates = [_candidate(e) for e in listed.values()]
    for u in unresolved:
        questions = u["questions"]
        docs = sorted({q["doc_path"] for q in questions if q["doc_path"]})
        asked = ", ".join(f"#{q['id']}" for q in questions)
        itself = _candidate(u["entity"]) if u["entity"] is not None else {
            "id": None, "type": u["type"], "name": questions[0]["surface"], "aliases": [], "page_path": None,
            "mention_count": 0}
        candidates.append({**itself, "unresolved": True, "documents": docs, "questions": [q["id"] for q in questions],
                           "note": f"unresolved, in {', '.join(docs) or 'no document'}; questions {asked}"})
    names = [c["name"] if not c.get("unresolved") else f"the unresolved {c['name']!r}" for c in candidates]
    shown = names[:5] + ([f"{len(names) - 5} more"] if len(names) > 5 else [])
    listing = " and ".join(shown) if len(shown) <= 2 else ", ".join(shown[:-1]) + " and " + shown[-1]
    hint = "or answer the open questions about it (list the pending questions to see them)" if unresolved else None
    return Ambiguous(f"ambiguous: {name!r} matches {listing} — give the full name", candidates, hint=hint)


def _candidate(entity: Entity) -> dict:
    data = as_dict(entity)
    return {k: data[k] for k in ("id", "type", "name", "aliases", "page_path", "mention_count")}

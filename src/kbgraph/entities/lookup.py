"""Finding one entity by a name a person types: never picks silently among several.

The cascade: exact name or alias -> a person's first name -> nothing, with close
spellings suggested. A level that matches several entities is an Ambiguous error
listing them.
"""

from __future__ import annotations

from ..access import LOCAL, Access
from ..errors import Ambiguous, InvalidInput, NotFound
from ..model import Entity, as_dict
from .names import name_key
from ..store.base import Store


def find_entity(store: Store, name: str, entity_type: str | None = None, access: Access = LOCAL) -> Entity:
    """The one entity the access may read that name names (Ambiguous if several, NotFound if none)."""
    key = name_key(name or "")
    if not key or not any(ch.isalnum() for ch in key):
        raise InvalidInput(f"{name!r} is not a name: give an entity's name or alias")
    if len(key) > 500:
        raise InvalidInput("name too long (over 500 characters)")
    named = entities_named(store, key, entity_type, access)
    if len(named) == 1:
        return named[0]
    if len(named) > 1:
        names = " and ".join(e.name for e in named[:5])
        raise Ambiguous(f"ambiguous: {name!r} matches {names} — give the full name", [_candidate(e) for e in named])
    suggestions = similar_names(store, name, entity_type, access=access)
    what = entity_type or "entity"
    hint = f"; did you mean {', '.join(repr(s) for s in suggestions)}?" if suggestions else ""
    raise NotFound(f"no {what} named {name!r}{hint}")


def entities_named(store: Store, key: str, entity_type: str | None = None, access: Access = LOCAL) -> list[Entity]:
    """The entities a folded name names: those whose name or alias it is, else those whose derived
    first name it is. More than one means the name is ambiguous."""
    matches = list({e.id: e for e in store.entities_by_name_key(access, key) if entity_type in (None, e.type)}.values())
    kinds: dict[int, set[str]] = {}
    for entity_id, kind in store.name_kinds(key):
        kinds.setdefault(entity_id, set()).add(kind)
    explicit = [e for e in matches if kinds.get(e.id, set()) - {"first-name"}]
    return explicit or matches


def similar_names(store: Store, name: str, entity_type: str | None, limit: int = 3,
                  access: Access = LOCAL) -> list[str]:
    """The names of the entities the access may read with a spelling closest to name (trigram similarity,
    found by the store): "Arjun Metha" suggests Arjun Mehta, even where his first name "Arjun" is closer."""
    return [m.name for m in store.similar_entity_names(access, name_key(name), entity_type, limit)]


def _candidate(entity: Entity) -> dict:
    data = as_dict(entity)
    return {k: data[k] for k in ("id", "type", "name", "aliases", "page_path", "mention_count")}

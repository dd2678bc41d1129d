"""Relations in time: what an entity's relations were on a date, and every version that stopped.

Nothing a user asserted is hard-deleted (the store keeps each superseded version with its valid
time and recorded time); this module reads that history the way people ask: "who did Dana report
to in March?" is relations_as_of(..., as_of="2026-03-31", type_name="reports-to").
"""

from __future__ import annotations

import datetime as dt

from .. import clock
from ..access import Access
from ..errors import InvalidInput
from ..model import Entity, as_dict
from ..store.base import Store
from ..vocabulary import Vocabulary


def parse_as_of(value: str, param: str = "as_of") -> str:
    """A date (YYYY-MM-DD) or a timestamp's date; anything else is a clear error."""
    text = (value or "").strip()
    for read in (dt.date.fromisoformat, lambda t: dt.datetime.fromisoformat(t).date()):
        try:
            return read(text).isoformat()
        except ValueError:
            continue
    raise InvalidInput(f"`{param}` {value!r} is not a date", param=param, hint="give a date as YYYY-MM-DD")


def as_of_date(value: str, today: str | None = None) -> str:
    """A date to read the graph as of: a real date, and not after today (nothing is known of later)."""
    day = parse_as_of(value)
    today = today or clock.today_iso()
    if day > today:
        raise InvalidInput(f"`as_of` {day} is in the future; the graph is known up to today ({today})",
                           param="as_of", hint="give today's date or an earlier one")
    return day


def relations_as_of(store: Store, vocab: Vocabulary, entity: Entity, as_of: str, type_name: str | None = None,
                    known_at: str | None = None, *, access: Access) -> dict:
    """An entity's relations that were true on as_of (as kbgraph knew them at known_at, default now),
    both directions, each with when it was true and whether it still is."""
    day = as_of_date(as_of)
    first = store.first_relation_record()
    if first is None or day < first[:10] and not _any_stated_before(store, entity, day, access):
        raise InvalidInput(f"`as_of` {day} is before any relation kbgraph recorded"
                           + (f" (the first: {first[:10]})" if first else " (there are none yet)"), param="as_of")
    canonical = vocab.normalise(type_name).type.name if type_name else None
    out: dict = {"entity": entity.name, "entity_id": entity.id, "as_of": day, "relations": [], "inverse_relations": []}
    first_seen: dict[int, str] = {}  # a version with no stated start began when kbgraph first recorded it
    for old in store.relation_history(access, entity.id):
        first_seen[old.relation_id] = min(old.recorded_at, first_seen.get(old.relation_id, old.recorded_at))
    for direction, side in (("out", "relations"), ("in", "inverse_relations")):
        for version in store.relations_as_of(access, entity.id, direction, canonical, day, known_at):
            item = as_dict(version)
            if item["valid_from"] is None:  # what the as-of filter took as its start, shown as From
                item["valid_from"] = min(version.recorded_at, first_seen.get(version.relation_id, version.recorded_at))[:10]
            item["current"] = version.change == "current"
            # The sentence the version states, true as written: `type` here is the stored (canonical) name,
            # so it reads from the source; read_as and other give it as the entity reads it.
            item["subject"], item["object"] = version.source, version.target
            # As the entity reads it: "reports-to Ben" from Ana, "manages Ana" from Ben.
            item["read_as"] = vocab.label(version.type, side == "relations")
            item["other"] = version.target if side == "relations" else version.source
            out[side].append(item)
    return out


def relation_history(store: Store, entity: Entity | None = None, *, access: Access) -> list[dict]:
    """Every version of a relation that stopped being current (of one entity's relations, or all)."""
    return [as_dict(v) for v in store.relation_history(access, entity.id if entity else None)]


def _any_stated_before(store: Store, entity: Entity, day: str, access: Access) -> bool:
    """A relation recorded later may say it was true since a date before day (valid_from)."""
    return any(v.valid_from and v.valid_from <= day
               for direction in ("out", "in")
               for v in store.relations_as_of(access, entity.id, direction, None, day))

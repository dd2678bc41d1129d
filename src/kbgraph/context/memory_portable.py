"""Facts and loops in `kbg export` / `kbg import`: every version, with its source and recorded time.

Export numbers each fact (its id in this vault) so that superseded_by can name the fact that replaced
it. Import runs after the notes were indexed: a fact or loop a page of this vault states already (same
entity, words and date) is that row, and gets the exported source and times; anything else is added
(origin "user": the index keeps it). A row already there with the same recorded time is skipped, so
importing one file twice adds nothing.
"""

from __future__ import annotations

from dataclasses import asdict

from ..access import LOCAL
from ..errors import InvalidInput
from ..pages.memory_lines import FACT_KINDS
from ..store.base import Store

_FACT_KEYS = ("id", "entity_key", "entity", "kind", "text", "date", "source", "origin", "page", "recorded_at",
              "superseded_at", "superseded_by", "change", "owner", "visibility", "sensitivity")
_LOOP_KEYS = ("entity_key", "entity", "text", "due", "status", "resolved_on", "source", "origin", "page",
              "recorded_at", "updated_at", "owner", "visibility", "sensitivity")
_CHANGES = ("superseded", "edited", "removed")
_STATUSES = ("open", "resolved", "dropped")


def export_memory(store: Store) -> dict:
    facts = [{k: v for k, v in asdict(f).items() if k in _FACT_KEYS} for f in store.facts(LOCAL, None, True)]
    loops = [{k: v for k, v in asdict(x).items() if k in _LOOP_KEYS}
             for x in store.loops(LOCAL, None, _STATUSES)]
    return {"facts": sorted(facts, key=lambda f: f["id"]), "loops": loops}


def valid_memory(data: dict) -> tuple[list[dict], list[dict]]:
    """The facts and loops of an export, checked before anything is written."""
    facts, loops = data.get("facts", []), data.get("loops", [])
    if not isinstance(facts, list) or not isinstance(loops, list):
        raise InvalidInput("not a kbgraph export: facts and loops must be lists")
    ids = {f.get("id") for f in facts if isinstance(f, dict)}
    for i, fact in enumerate(facts):
        where = f"fact #{i + 1}"
        _texts(where, fact, ("entity_key", "entity", "text", "source", "recorded_at"))
        if fact.get("kind") not in FACT_KINDS:
            raise InvalidInput(f"{where}: kind {fact.get('kind')!r} is not one of {', '.join(FACT_KINDS)}")
        if fact.get("superseded_by") is not None and fact["superseded_by"] not in ids:
            raise InvalidInput(f"{where}: superseded_by {fact['superseded_by']!r} names no fact in the file")
        if fact.get("superseded_at") is not None and fact.get("change") not in _CHANGES:
            raise InvalidInput(f"{where}: change must be one of {', '.join(_CHANGES)}")
    for i, loop in enumerate(loops):
        where = f"loop #{i + 1}"
        _texts(where, loop, ("entity_key", "entity", "text", "source", "recorded_at", "updated_at"))
        if loop.get("status") not in _STATUSES:
            raise InvalidInput(f"{where}: status {loop.get('status')!r} is not one of {', '.join(_STATUSES)}")
    return facts, loops


def _texts(where: str, item: object, keys: tuple[str, ...]) -> None:
    if not isinstance(item, dict):
        raise InvalidInput(f"{where}: not an object")
    for key in keys:
        if not isinstance(item.get(key), str) or not item[key].strip():
            raise InvalidInput(f"{where}: {key} must be non-empty text")


def import_memory(store: Store, facts: list[dict], loops: list[dict]) -> tuple[int, int]:
    """Restore facts and loops (inside the caller's transaction); returns how many of each were added."""
    added_facts, added_loops = 0, 0
    present = {(f.entity_key, f.kind, f.text, f.date, f.recorded_at, f.source): f.id
               for f in store.facts(LOCAL, None, True)}
    on_pages = {(f.entity_key, f.kind, f.text, f.date): f for f in store.facts(LOCAL) if f.origin == "page"}
    new_ids: dict[int, int] = {}
    for fact in sorted(facts, key=lambda f: f["id"]):
        key = (fact["entity_key"], fact["kind"], fact["text"], fact.get("date"), fact["recorded_at"], fact["source"])
        if key in present:
            new_ids[fact["id"]] = present[key]
            continue
        page_row = on_pages.pop(key[:4], None) if fact.get("superseded_at") is None else None
        if page_row is not None:  # this vault's page says it: that row, with the exported provenance
            store.set_memory_provenance("facts", page_row.id, fact["source"], fact["recorded_at"])
            new_ids[fact["id"]] = page_row.id
            continue
        history = fact.get("superseded_at") is not None  # a version that stopped keeps where it lived
        new_ids[fact["id"]] = store.add_fact({**_row(fact, history), "kind": fact["kind"], "date": fact.get("date")})
        added_facts += 1
    for fact in facts:
        if fact.get("superseded_at") is not None:
            by = new_ids.get(fact["superseded_by"]) if fact.get("superseded_by") is not None else None
            store.supersede_fact(new_ids[fact["id"]], by, fact["change"], fact["superseded_at"])
    present_loops = {(x.entity_key, x.text, x.due, x.recorded_at, x.source) for x in store.loops(LOCAL, None, _STATUSES)}
    page_loops = {(x.entity_key, x.text, x.due): x for x in store.loops(LOCAL, None, ("open", "resolved"))
                  if x.origin == "page"}
    for loop in loops:
        if (loop["entity_key"], loop["text"], loop.get("due"), loop["recorded_at"], loop["source"]) in present_loops:
            continue
        page_loop = page_loops.pop((loop["entity_key"], loop["text"], loop.get("due")), None)
        if page_loop is not None and loop["status"] != "dropped":
            store.set_memory_provenance("loops", page_loop.id, loop["source"], loop["recorded_at"])
            continue
        store.add_loop({**_row(loop, loop["status"] == "dropped"), "due": loop.get("due"), "status": loop["status"],
                        "resolved_on": loop.get("resolved_on"), "updated_at": loop["updated_at"]})
        added_loops += 1
    return added_facts, added_loops


def _row(item: dict, history: bool) -> dict:
    """A row restored; only history keeps its page origin (its line is gone anyway): a current row no page of
    this vault states is the index's to keep."""
    page = history and item.get("origin") == "page"
    return {"entity_key": item["entity_key"], "entity_name": item["entity"], "text": item["text"],
            "source": item["source"], "origin": "page" if page else "user",
            "origin_path": item.get("page") if page else None, "recorded_at": item["recorded_at"],
            "owner": item.get("owner"), "visibility": item.get("visibility") or "private",
            "sensitivity": item.get("sensitivity") or "normal"}

"""Facts about an entity: add, list (with history) and supersede. Append-only: a correction is a new fact
that supersedes the old one, which stays readable with what superseded it and when."""

from __future__ import annotations

from .. import clock
from ..access import Access
from ..entities.lookup import find_entity
from ..errors import InvalidInput, NotFound
from ..model import Fact
from ..pages.files import write_lock
from ..pages.memory_lines import FACT_KINDS, FACTS, append_line, format_fact, read_fact, replace_line
from ..store.base import Store
from ..base.workspace import Workspace
from .memory import (Recorded, append_once, as_merged, clean, edit, home_page, keys_of, now_iso, page_row, parse_day,
                     reread, source_of, subject)

KIND_WORDS = {"int": "interest", "interests": "interest", "roles": "role", "notes": "note", "events": "event"}


def fact_kind(kind: str | None) -> str:
    """A kind as the user typed it -> one of FACT_KINDS ("int" is "interest"); anything else names `kind`."""
    word = (kind or "").strip().lower()
    word = KIND_WORDS.get(word, word)
    if word not in FACT_KINDS:
        raise InvalidInput(f"`kind` {kind!r} is not a fact kind; use one of {', '.join(FACT_KINDS)}", param="kind")
    return word


def add_fact(ws: Workspace, entity_name: str, kind: str, text: str, date: str | None = None,
             source: str | None = "manual") -> Recorded:
    """Record a fact about an entity: a `## Facts` line on its page (when it has one), and the row."""
    kind, text, day = fact_kind(kind), clean(text), parse_day(date, "date")
    _check_line(kind, text, day)
    entity, key = subject(ws, entity_name)
    origin_source = source_of(ws, source)
    with write_lock(ws.root):
        page = home_page(ws, entity)
        same = [f for f in ws.store.facts(ws.access, key) if (f.kind, f.text, f.date) == (kind, text, day)]
        if same:  # recorded already: a run killed before its page was re-read, or the same fact again
            if page:
                reread(ws, page)
            return Recorded(same[0], page)
        if page:
            append_once(ws, page, FACTS, format_fact(kind, text, day))
        with ws.store.transaction():
            fact_id = ws.store.add_fact({"entity_key": key, "entity_name": entity.name, "kind": kind, "text": text,
                                         "date": day, "source": origin_source, "recorded_at": now_iso(),
                                         **page_row(ws, page)})
        if page:
            reread(ws, page)
    return Recorded(_fact(ws.store, ws.access, fact_id), page)


def supersede_fact(ws: Workspace, fact_id: int, text: str, kind: str | None = None, date: str | None = None,
                   source: str | None = None) -> Recorded:
    """Correct a fact: a new fact supersedes it (its page line is replaced by the new one); the old one stays
    in history. The kind and the date not given are the old fact's. A fact already superseded is an error,
    and nothing changes."""
    old = _fact(ws.store, ws.access, fact_id)
    if old.superseded_at is not None:
        by = f" by fact {old.superseded_by}" if old.superseded_by else ""
        raise InvalidInput(f"fact {fact_id} was already {old.change or 'superseded'}{by} on {old.superseded_at[:10]};"
                           " nothing was changed", param="fact_id",
                           hint=f"supersede fact {old.superseded_by} instead" if old.superseded_by else None)
    new_kind, new_text = fact_kind(kind) if kind else old.kind, clean(text)
    day = parse_day(date, "date") if date is not None else old.date
    if (new_kind, new_text, day) == (old.kind, old.text, old.date):
        raise InvalidInput(f"the correction says what fact {fact_id} says; nothing was changed", param="text")
    _check_line(new_kind, new_text, day)
    origin_source = source_of(ws, source) if source else old.source
    with write_lock(ws.root):
        page = old.page if old.origin == "page" else None
        if page:
            line = format_fact(new_kind, new_text, day)
            identity = (old.kind, old.text, old.date)

            def change(t: str, off: int) -> str:
                replaced = replace_line(t, off, FACTS, line, lambda v: (v.kind, v.text, v.date) == identity)
                return replaced if replaced != t else append_line(t, off, FACTS, line)

            edit(ws, page, change)
        now = clock.after(old.recorded_at)  # a correction is recorded after what it corrects
        with ws.store.transaction():
            new_id = ws.store.add_fact({"entity_key": old.entity_key, "entity_name": old.entity, "kind": new_kind,
                                        "text": new_text, "date": day, "source": origin_source, "recorded_at": now,
                                        **page_row(ws, page)})
            ws.store.supersede_fact(old.id, new_id, "superseded", now)
        if page:
            reread(ws, page)
    return Recorded(_fact(ws.store, ws.access, new_id), page, replaced=_fact(ws.store, ws.access, old.id))


def list_facts(store: Store, access: Access, entity_name: str | None = None,
               include_superseded: bool = False) -> list[Fact]:
    """The current facts of an entity (or of all), oldest first; with include_superseded, history too."""
    if entity_name is None:
        return as_merged(store, store.facts(access, None, include_superseded))
    entity = find_entity(store, entity_name, access=access)
    return entity_facts(store, access, store.entity_keys([entity.id])[entity.id], include_superseded)


def entity_facts(store: Store, access: Access, key: str, include_superseded: bool = False) -> list[Fact]:
    """The facts recorded under the entity's key or a key merged into it, oldest first, named as the entity."""
    facts = [f for k in keys_of(store, key) for f in store.facts(access, k, include_superseded)]
    return as_merged(store, sorted(facts, key=lambda f: (f.date or f.recorded_at[:10], f.id)))


def _fact(store: Store, access: Access, fact_id: int) -> Fact:
    fact = store.get_fact(access, fact_id)
    if fact is None:
        raise NotFound(f"no fact {fact_id}", param="fact_id", hint="list the facts to see their ids")
    return fact


def _check_line(kind: str, text: str, date: str | None) -> None:
    value = read_fact(format_fact(kind, text, date))
    if isinstance(value, str) or (value.kind, value.text, value.date) != (kind, text, date):
        raise InvalidInput(f"`text` {text!r} would not read back from its page line", param="text",
                           hint="leave out a (YYYY-MM-DD) at its end, or give it as the date")

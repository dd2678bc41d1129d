"""Loops: open follow-ups about an entity with a due date ("ask about the surgery @2026-08-15").
Resolving one keeps it, resolved, with the day; resolving it twice is an error that changes nothing."""

from __future__ import annotations

import re

from .. import clock
from ..access import Access
from ..entities.lookup import find_entity
from ..errors import InvalidInput, NotFound
from ..model import Loop
from ..pages.files import write_lock
from ..pages.memory_lines import LOOPS, append_line, format_loop, read_loop, replace_line
from ..store.base import Store
from ..base.workspace import Workspace
from .memory import (Recorded, append_once, as_merged, clean, edit, home_page, keys_of, now_iso, page_row, parse_day,
                     reread, source_of, subject, today_iso)

DUE_WORDS = ("today", "overdue")
_LAST_AT = re.compile(r"(?:^|\s)(@\S+)$")  # a last word starting with @ (an e-mail address is text)


def split_due(text: str, due: str | None = None) -> tuple[str, str | None]:
    """("ask about the surgery", "2026-08-15") from "ask about the surgery @2026-08-15" (or from due)."""
    text = clean(text)
    value = read_loop(f"- [ ] {text}")
    if isinstance(value, str):
        raise InvalidInput(f"`text` {text!r}: {value}", param="text")
    word = _LAST_AT.search(value.text)
    if word:  # `call @yesterday`: meant as a due date, never silently text
        raise InvalidInput(f"`text` {text!r} ends with {word.group(1)!r}, which is not a due date", param="text",
                           hint="write @YYYY-MM-DD (or give the due date apart), or leave the @ out")
    given = parse_day(due, "due")
    if value.due and given and value.due != given:
        raise InvalidInput(f"two due dates: @{value.due} in the text and {given} as `due`; give one", param="due")
    text, day = value.text, value.due or given
    back = read_loop(format_loop(text, day))
    if isinstance(back, str) or (back.text, back.due) != (text, day):
        raise InvalidInput(f"`text` {text!r} would not read back from its page line", param="text",
                           hint="leave out a (resolved …) at its end")
    return text, day


def is_overdue(loop: Loop, today: str) -> bool:
    """Whether a loop is overdue: open, with a due date before today (due today is not yet)."""
    return loop.status == "open" and loop.due is not None and loop.due < today


def due_warnings(due: str | None, today: str) -> tuple[str, ...]:
    return (f"the due date {due} is in the past: the loop is overdue",) if due and due < today else ()


def add_loop(ws: Workspace, entity_name: str, text: str, due: str | None = None, source: str | None = "manual",
             today: str | None = None) -> Recorded:
    """Open a loop about an entity: a `## Loops` line on its page (when it has one), and the row. A due
    date in the past is allowed, and flagged in the warnings."""
    today = today or today_iso()
    text, day = split_due(text, due)
    entity, key = subject(ws, entity_name)
    origin_source = source_of(ws, source)
    with write_lock(ws.root):
        page = home_page(ws, entity)
        same = [loop for loop in ws.store.loops(ws.access, key) if (loop.text, loop.due) == (text, day)]
        if same:  # open already: a run killed before its page was re-read, or the same loop again
            if page:
                reread(ws, page)
            return Recorded(same[0], page, due_warnings(day, today))
        if page:
            append_once(ws, page, LOOPS, format_loop(text, day))
        now = now_iso()
        with ws.store.transaction():
            loop_id = ws.store.add_loop({"entity_key": key, "entity_name": entity.name, "text": text, "due": day,
                                         "status": "open", "resolved_on": None, "source": origin_source,
                                         "recorded_at": now, "updated_at": now, **page_row(ws, page)})
        if page:
            reread(ws, page)
    return Recorded(_loop(ws.store, ws.access, loop_id), page, due_warnings(day, today))


def resolve_loop(ws: Workspace, loop_id: int, on: str | None = None) -> Recorded:
    """Resolve an open loop (its page line is ticked: `- [x] ... (resolved DAY)`); it stays in history."""
    loop = _loop(ws.store, ws.access, loop_id)
    if loop.status != "open":
        when = f" on {loop.resolved_on}" if loop.resolved_on else ""
        raise InvalidInput(f"loop {loop_id} is already {loop.status}{when}; nothing was changed", param="loop_id")
    day = parse_day(on, "on") or today_iso()
    with write_lock(ws.root):
        page = loop.page if loop.origin == "page" else None
        if page:
            line = format_loop(loop.text, loop.due, day)
            edit(ws, page, lambda t, off: replace_line(
                t, off, LOOPS, line, lambda v: not v.done and (v.text, v.due) == (loop.text, loop.due)))
        with ws.store.transaction():
            ws.store.set_loop_status(loop.id, "resolved", day, clock.after(loop.recorded_at, loop.updated_at))
        if page:
            reread(ws, page)
    return Recorded(_loop(ws.store, ws.access, loop_id), page)


def list_loops(store: Store, access: Access, entity_name: str | None = None, due: str | None = None,
               include_closed: bool = False, today: str | None = None) -> list[Loop]:
    """Open loops (of an entity, or of all), soonest due first. due: "today" (due today or before),
    "overdue" (before today) or a day (on or before it). include_closed adds resolved and dropped ones."""
    today = today or today_iso()
    statuses = ("open", "resolved", "dropped") if include_closed else ("open",)
    word = (due or "").strip().lower()
    by = today if word == "overdue" else parse_day(due, "due", today)
    if entity_name is None:
        loops = as_merged(store, store.loops(access, None, statuses, by))
    else:
        entity = find_entity(store, entity_name, access=access)
        loops = entity_loops(store, access, store.entity_keys([entity.id])[entity.id], statuses, by)
    return [loop for loop in loops if word != "overdue" or is_overdue(loop, today)]


def entity_loops(store: Store, access: Access, key: str, statuses: tuple[str, ...] = ("open",),
                 due_by: str | None = None) -> list[Loop]:
    """The loops recorded under the entity's key or a key merged into it, soonest due first, named as it."""
    loops = [loop for k in keys_of(store, key) for loop in store.loops(access, k, statuses, due_by)]
    return as_merged(store, sorted(loops, key=lambda x: (x.due is None, x.due or "", x.id)))


def _loop(store: Store, access: Access, loop_id: int) -> Loop:
    loop = store.get_loop(access, loop_id)
    if loop is None:
        raise NotFound(f"no loop {loop_id}", param="loop_id", hint="list the loops to see their ids")
    return loop

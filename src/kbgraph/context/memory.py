"""What facts and loops share: the entity they are about, its page (their home), days, and the write order.

Order of writes, as for relations: the page line first (the file is the home), then the row, then a
re-index of that one page, which reads the line back and finds the row. A crash after the first step
loses nothing: the next index reads the line. An entity without a page keeps its facts and loops in
the index (origin "user"; exports carry them), unless `[relations] create_pages = true` gives it one.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from typing import Callable

from .. import clock
from ..access import LOCAL
from ..entities.lookup import find_entity
from ..errors import InvalidInput
from ..model import Entity, Fact, Loop
from ..pages.files import create_entity_page, edit_page
from ..pages.memory_lines import FACTS, append_line, parse_memory_lines, read_fact, read_loop
from ..pages.relation_lines import safe_target
from ..store.base import Store
from ..base.workspace import Workspace

MAX_TEXT = 2000


@dataclass(frozen=True)
class Recorded:
    """What an add, a supersede or a resolve wrote: the fact or loop, the page line written (if any), and
    warnings that did not stop it (a due date in the past)."""

    item: Fact | Loop
    page: str | None
    warnings: tuple[str, ...] = ()
    replaced: Fact | None = None  # the fact a correction superseded


def today_iso() -> str:
    return clock.today_iso()


def now_iso() -> str:
    return clock.now_iso()


def parse_day(value: str | None, param: str, today: str | None = None) -> str | None:
    """YYYY-MM-DD (or "today") -> ISO date; None stays None; anything else names `param`."""
    if value is None:
        return None
    text = value.strip().lower()
    if text == "today":
        return today or today_iso()
    try:
        return dt.date.fromisoformat(text).isoformat() if len(text) == 10 else _bad_day(value, param)
    except ValueError:
        return _bad_day(value, param)


def _bad_day(value: str, param: str) -> str:
    raise InvalidInput(f"`{param}` {value!r}: use a real date as YYYY-MM-DD", param=param)


def clean(text: str | None, param: str = "text") -> str:
    """Text on one line, spaces tidied; empty or over MAX_TEXT characters is an error naming `param`."""
    cleaned = " ".join((text or "").split())
    if not cleaned:
        raise InvalidInput(f"`{param}` is empty: say what the {'fact' if param == 'text' else param} is",
                           param=param)
    if len(cleaned) > MAX_TEXT:
        raise InvalidInput(f"`{param}` is over {MAX_TEXT} characters", param=param)
    return cleaned


def subject(ws: Workspace, name: str) -> tuple[Entity, str]:
    """The entity a name names (exact name or alias, never a guess among several), and its key."""
    entity = find_entity(ws.store, name, access=ws.access)
    if entity.status != "active":
        raise InvalidInput(f"{entity.name!r} was merged into another entity; use that one")
    return entity, ws.store.entity_keys([entity.id])[entity.id]


def merged_into(store: Store) -> dict[str, tuple[str, str]]:
    """Each merged-away entity key -> (key, name) of the entity it now is (a merge of a merge followed). Facts
    and loops keep the key they were recorded under; reads follow the merges, so unmerging gives them back."""
    into = {m.from_key: (m.into_key, m.into_name) for m in store.merges()}
    out = {}
    for key, target in into.items():
        seen = {key}
        while target[0] in into and target[0] not in seen:
            seen.add(target[0])
            target = into[target[0]]
        out[key] = target
    return out


def keys_of(store: Store, key: str) -> list[str]:
    """The entity key and every key merged into it."""
    return [key, *(old for old, (into, _) in merged_into(store).items() if into == key)]


def as_merged(store: Store, items: list) -> list:
    """Facts or loops with `entity` the name of the entity their key now belongs to."""
    into = merged_into(store)
    return [dataclasses.replace(x, entity=into[x.entity_key][1]) if x.entity_key in into else x for x in items]


def source_of(ws: Workspace, source: str | None) -> str:
    """"manual", or the vault-relative path of an indexed document."""
    if source is None or source.strip().lower() in ("", "manual"):
        return "manual"
    path = source.strip().removeprefix("./")
    if ws.store.get_document(ws.access, path=path) is None:
        from ..errors import NotFound

        raise NotFound(f"`source` {source!r} is not in the index", param="source", hint="give a vault-relative path")
    return path


def home_page(ws: Workspace, entity: Entity) -> str | None:
    """The page facts and loops about entity go to: its own, or a new one when kbgraph.toml asks for
    pages; None keeps them in the index."""
    if entity.page_path:
        return entity.page_path
    if ws.config.create_pages and safe_target(entity.name):
        path = create_entity_page(ws.root, entity.type, entity.name)
        reindex(ws, path)  # the new file becomes the entity's page; its id stays
        return path
    return None


def page_row(ws: Workspace, page: str | None) -> dict:
    """The columns that tie a row to its home: the page (origin "page") or the index (origin "user")."""
    if page is None:
        return {"origin": "user", "origin_doc_id": None, "origin_path": None}
    doc = ws.store.get_document(LOCAL, path=page)
    if doc is None:
        return {"origin": "user", "origin_doc_id": None, "origin_path": None}
    return {"origin": "page", "origin_doc_id": doc["id"], "origin_path": page, "owner": doc["owner"],
            "visibility": doc["visibility"], "sensitivity": doc.get("sensitivity") or "normal"}


def edit(ws: Workspace, page: str, change: Callable[[str, int], str]) -> None:
    edit_page(ws.root, page, change)


def append(ws: Workspace, page: str, title: str, line: str) -> None:
    """Add line to the page's `## {title}` section; refused (nothing written) when it would not read back."""
    edit_page(ws.root, page, lambda text, offset: _appended(text, offset, page, title, line))


def append_once(ws: Workspace, page: str, title: str, line: str) -> None:
    """append(), unless the section holds the line already: a first run killed after writing it (and
    before its row) is run again, and the page must not get the line twice."""
    def once(text: str, offset: int) -> str:
        return text if _count(text, offset, title, line) else _appended(text, offset, page, title, line)

    edit_page(ws.root, page, once)


def check_appends(ws: Workspace, page: str, lines: list[tuple[str, str]]) -> None:
    """Raise what appending each (title, line) in turn would raise, writing nothing: for callers that write
    several lines and must fail before the first one."""
    def dry_run(text: str, offset: int) -> str:
        out = text
        for title, line in lines:
            out = _appended(out, offset, page, title, line)
        return text

    edit_page(ws.root, page, dry_run)


def _appended(text: str, offset: int, page: str, title: str, line: str) -> str:
    out = append_line(text, offset, title, line)
    if _count(out, offset, title, line) != _count(text, offset, title, line) + 1:
        raise InvalidInput(f"a line added to {page} would not read back (is a code block there left open?);"
                           " nothing was changed", hint="check the page")
    return out


def _count(text: str, offset: int, title: str, line: str) -> int:
    facts, loops, _ = parse_memory_lines(text, offset)
    wanted = read_fact(line) if title == FACTS else read_loop(line)
    values: list = facts if title == FACTS else loops
    return sum(1 for v in values if not isinstance(wanted, str) and v.identity == wanted.identity)


def reindex(ws: Workspace, rel_path: str) -> None:
    """Index a page kbgraph needs read now (a new entity page, before anything refers to its id)."""
    ws.reindex({rel_path})


def reread(ws: Workspace, rel_path: str) -> None:
    """Re-read a page after a committed write; a running index past the wait leaves it to the next one."""
    ws.reread({rel_path})

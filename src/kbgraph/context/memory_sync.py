"""Entity pages' `## Facts` and `## Loops` lines -> facts and loops (the `memory` indexing stage).

A page is read again only when its content changed since its lines were last read. Lines match
stored rows by what they say (kind, text, date for a fact; text and due date for a loop):
- a line that matches keeps its row (and its source, its recorded time);
- a fact line that changed is an edit: the new row supersedes the old one it is most like (change "edited");
- a fact line that is gone leaves its row in history (change "removed"); a loop line that is gone
  leaves an open loop "dropped" and a resolved one as it was;
- a loop line ticked (`- [x]`) resolves its loop, unticked reopens it.
Lines that read as neither are warnings with file:line, reported on every run until fixed. While a section
has such a line, a row no line says is kept as it is (the broken line may be its own, typed into
nonsense): it is retired only once the section reads cleanly and its line is still gone, and fixing the
typo finds the same row, its id, source and recorded time.
"""

from __future__ import annotations

import datetime as dt
from difflib import SequenceMatcher
from pathlib import Path

from ..model import Problem
from ..pages.memory_lines import FACTS, LOOPS, FactLine, LoopLine, format_fact, parse_memory_lines
from ..pages.relation_lines import may_have_section
from ..store.base import Store


def sync_page_memory(store: Store, root: Path, config, now: str) -> list[Problem]:
    """Make page facts and loops equal to what the pages say (inside the caller's transaction)."""
    from ..base.vault import FrontmatterError, file_entry, read_file, split_frontmatter

    pages = {page["doc_id"]: page for page in store.memory_page_states()}
    homes = store.memory_homes()
    for page in pages.values():
        governance = (page["owner"], page["visibility"], page["sensitivity"])
        if page["synced_hash"] == page["content_hash"]:
            # Unchanged lines, but the page may be another entity's now (a merge or an unmerge): its rows
            # follow it, as a fresh index of the same notes would key them.
            if page["rehome"]:
                store.rehome_memory(page["doc_id"], page["path"], page["entity_key"], page["entity_name"], governance)
            continue
        entry = file_entry(root, page["path"])
        raw = read_file(entry, config) if entry else None
        if raw is None or isinstance(raw, Problem):
            continue  # the documents stage reports it; its lines stay as last read
        if page["doc_id"] not in homes and not any(may_have_section(raw.text, t) for t in (FACTS, LOOPS)):
            store.save_memory_page(page["doc_id"], raw.content_hash, [])  # nothing said, nothing held: no sync
            continue
        try:
            _, body_offset = split_frontmatter(raw.text)
        except FrontmatterError:
            continue
        facts, loops, problems = parse_memory_lines(raw.text, body_offset)
        store.rehome_memory(page["doc_id"], page["path"], page["entity_key"], page["entity_name"], governance)
        _sync_facts(store, page, facts, now, broken=[p.raw for p in problems if p.title == FACTS])
        _sync_loops(store, page, loops, now, broken=[p.raw for p in problems if p.title == LOOPS])
        store.save_memory_page(page["doc_id"], raw.content_hash, [(p.line, p.message) for p in problems])
    for doc_id in homes - set(pages):  # a page deleted, or no longer an entity's page
        _sync_facts(store, None, [], now, doc_id)
        _sync_loops(store, None, [], now, doc_id)
    paths = {page["path"] for page in pages.values()}
    return [Problem(f"{path}:{line}", message, "warning")
            for path, line, message in store.memory_problems() if path in paths]


def _row(page: dict, now: str) -> dict:
    return {"entity_key": page["entity_key"], "entity_name": page["entity_name"], "source": page["path"],
            "origin": "page", "origin_doc_id": page["doc_id"], "origin_path": page["path"], "recorded_at": now,
            "owner": page["owner"], "visibility": page["visibility"], "sensitivity": page["sensitivity"]}


def _split(rows: list, lines: list, identity) -> tuple[list, list]:
    """(rows no line says, lines no row holds), matching one to one by identity."""
    free: dict[tuple, list] = {}
    for row in rows:
        free.setdefault(identity(row), []).append(row)
    new = []
    for line in lines:
        held = free.get(line.identity)
        if held:
            held.pop(0)
        else:
            new.append(line)
    return [row for held in free.values() for row in held], new


def _sync_facts(store: Store, page: dict | None, lines: list[FactLine], now: str, doc_id: int | None = None,
                broken: list[str] | None = None) -> None:
    rows = store.page_facts(page["doc_id"] if page else doc_id)
    gone, new = _split(rows, lines, lambda f: (f.kind, f.text, f.date))
    edits = _pair(gone, [format_fact(*line.identity) for line in new], broken or [])
    for index, line in enumerate(new):
        fact_id = store.add_fact({**_row(page, now), "kind": line.kind, "text": line.text, "date": line.date})
        if index in edits:  # a line edited in place: the new statement supersedes the old
            store.supersede_fact(gone[edits[index]].id, fact_id, "edited", now)
    if not broken:
        for index, old in enumerate(gone):
            if index not in edits.values():
                store.supersede_fact(old.id, None, "removed", now)


def _pair(gone: list, edited: list[str], broken: list[str]) -> dict[int, int]:
    """{index in edited: index in gone}: each gone row goes to the line it is most like, an edited line or a
    broken one (which keeps it), most alike first; a row or line is used once."""
    said = [format_fact(row.kind, row.text, row.date).lower() for row in gone]
    lines = [*edited, *broken]
    scores = sorted(((-SequenceMatcher(None, said[r], lines[j].lower()).ratio(), r, j)
                     for r in range(len(gone)) for j in range(len(lines))))
    used_rows: set[int] = set()
    pairs: dict[int, int] = {}
    for _, r, j in scores:
        if r not in used_rows and j not in pairs:
            used_rows.add(r)
            pairs[j] = r
    return {j: r for j, r in pairs.items() if j < len(edited)}


def _sync_loops(store: Store, page: dict | None, lines: list[LoopLine], now: str, doc_id: int | None = None,
                broken: list[str] | None = None) -> None:
    rows = store.page_loops(page["doc_id"] if page else doc_id)
    by_identity = {(row.text, row.due): row for row in rows}
    gone, new = _split(rows, lines, lambda row: (row.text, row.due))
    today = dt.date.today().isoformat()
    for line in lines:
        row = by_identity.get(line.identity)
        if row is None or line in new:
            continue
        if line.done and (row.status != "resolved" or (line.resolved_on and line.resolved_on != row.resolved_on)):
            store.set_loop_status(row.id, "resolved", line.resolved_on or row.resolved_on or today, now)
        elif not line.done and row.status == "resolved":
            store.set_loop_status(row.id, "open", None, now)
    for line in new:
        status = "resolved" if line.done else "open"
        store.add_loop({**_row(page, now), "text": line.text, "due": line.due, "status": status,
                        "resolved_on": (line.resolved_on or today) if line.done else None, "updated_at": now})
    for old in gone if not broken else ():  # while a line is broken, it may be this loop's
        if old.status == "open":
            store.set_loop_status(old.id, "dropped", None, now)

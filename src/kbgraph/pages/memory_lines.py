"""The `## Facts` and `## Loops` sections of an entity page: reading their lines and editing them minimally.

A fact line reads `- interest: fountain pens (2026-03-02)` (the date is optional); a loop line
`- [ ] ask about the surgery @2026-08-15` when open and
`- [x] ask about the surgery @2026-08-15 (resolved 2026-08-16)` when resolved (the due date is
optional). A superseded fact leaves the page: its line is replaced by the correction's, and the
history lives in the index and in exports.

Edits touch only the line they add or replace: the frontmatter, prose and every other section stay
byte-for-byte as they were, and a page without a final newline keeps none. Pure functions over strings.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any, Callable

from ..base.markdown import parse_sections

FACTS = "Facts"
LOOPS = "Loops"
FACT_KINDS = ("interest", "role", "note", "event")

_ITEM = re.compile(r"^[ \t]*[-*+][ \t]+(?P<rest>\S.*?)[ \t]*$")
_FACT = re.compile(r"^(?P<kind>[A-Za-z][\w-]*):[ \t]+(?P<text>.+?)(?:[ \t]+\((?P<date>\d{4}-\d{1,2}-\d{1,2})\))?$")
_LOOP = re.compile(r"^\[(?P<mark>[ xX])\][ \t]+(?P<rest>.+)$")
_RESOLVED = re.compile(r"[ \t]*\(resolved[ \t]+(?P<date>[^()]*)\)$")
_DUE = re.compile(r"(?:^|[ \t]+)@(?P<date>\d\S*)$")
_DATE_SHAPE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class FactLine:
    kind: str
    text: str
    date: str | None
    line: int = 0  # 1-based line in the whole file

    @property
    def identity(self) -> tuple:
        return (self.kind, self.text, self.date)


@dataclass(frozen=True)
class LoopLine:
    text: str
    due: str | None
    done: bool
    resolved_on: str | None
    line: int = 0

    @property
    def identity(self) -> tuple:
        return (self.text, self.due)


@dataclass(frozen=True)
class MemoryProblem:
    line: int
    message: str
    title: str = ""  # the section it is in: FACTS or LOOPS
    raw: str = ""  # the line as written


def clean_text(text: str) -> str:
    return " ".join((text or "").split())


def format_fact(kind: str, text: str, date: str | None) -> str:
    return f"- {kind}: {clean_text(text)}" + (f" ({date})" if date else "")


def format_loop(text: str, due: str | None, resolved_on: str | None = None, done: bool = False) -> str:
    line = f"- [{'x' if done or resolved_on else ' '}] {clean_text(text)}" + (f" @{due}" if due else "")
    return line + (f" (resolved {resolved_on})" if resolved_on else "")


def _real_date(value: str) -> bool:
    if not _DATE_SHAPE.match(value):
        return False
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def read_fact(raw: str, line: int = 0) -> FactLine | str:
    """A fact line's value, or why it is not one."""
    item = _ITEM.match(raw)
    match = _FACT.match(item.group("rest")) if item else None
    if match is None:
        return "not a fact line"
    kind, date = match.group("kind").lower(), match.group("date")
    if kind not in FACT_KINDS:
        return f"unknown fact kind {match.group('kind')!r} (kinds: {', '.join(FACT_KINDS)})"
    if date is not None and not _real_date(date.strip()):
        return f"({date}) is not a date written YYYY-MM-DD"
    return FactLine(kind, clean_text(match.group("text")), date.strip() if date else None, line)


def read_loop(raw: str, line: int = 0) -> LoopLine | str:
    """A loop line's value, or why it is not one."""
    item = _ITEM.match(raw)
    match = _LOOP.match(item.group("rest")) if item else None
    if match is None:
        return "not a loop line"
    rest, resolved_on, due = match.group("rest").rstrip(), None, None
    resolved = _RESOLVED.search(rest)
    if resolved:
        resolved_on, rest = resolved.group("date").strip(), rest[: resolved.start()]
        if not _real_date(resolved_on):
            return f"(resolved {resolved_on}) is not a date written YYYY-MM-DD"
    at = _DUE.search(rest)
    if at:
        due, rest = at.group("date"), rest[: at.start()]
        if not _real_date(due):
            return f"@{due} is not a due date written YYYY-MM-DD"
    text = clean_text(rest)
    if not text:
        return "a loop needs text"
    done = match.group("mark") != " "
    return LoopLine(text, due, done, resolved_on if done else None, line)


def section_ranges(body: str, title: str) -> list[tuple[int, int, int]]:
    """(heading start, content start, end) of each level-2 section called title in body."""
    from .relation_lines import may_have_section

    if not may_have_section(body, title):
        return []
    sections, _ = parse_sections(body)
    out = []
    for index, section in enumerate(sections):
        if section.level == 2 and section.heading_path[-1].strip().lower() == title.lower():
            heading_end = body.find("\n", section.start)
            content_start = section.end if heading_end < 0 or heading_end >= section.end else heading_end + 1
            end = section.end
            for deeper in sections[index + 1:]:
                if deeper.level <= 2:
                    break
                end = deeper.end
            out.append((section.start, content_start, end))
    return out


def _section_lines(text: str, body_offset: int, title: str):
    """(line number, raw line, offset in text) of every line in the sections called title."""
    body = text[body_offset:]
    first_line = text.count("\n", 0, body_offset) + 1
    for _, content_start, end in section_ranges(body, title):
        line_no = first_line + body.count("\n", 0, content_start)
        offset = body_offset + content_start
        for raw in body[content_start:end].split("\n"):
            yield line_no, raw, offset
            line_no += 1
            offset += len(raw) + 1


def parse_memory_lines(text: str, body_offset: int) -> tuple[list[FactLine], list[LoopLine], list[MemoryProblem]]:
    """The fact and loop lines of a page, and the list items in those sections that are neither."""
    facts: list[FactLine] = []
    loops: list[LoopLine] = []
    problems: list[MemoryProblem] = []
    for title, read, out, shape in ((FACTS, read_fact, facts, "`- KIND: text (YYYY-MM-DD)`"),
                                    (LOOPS, read_loop, loops, "`- [ ] text @YYYY-MM-DD`")):
        for line_no, raw, _ in _section_lines(text, body_offset, title):
            if not _ITEM.match(raw):
                continue
            value = read(raw, line_no)
            if isinstance(value, str):
                problems.append(MemoryProblem(line_no, f"{value} under ## {title}: {raw.strip()[:80]!r};"
                                                       f" expected {shape}", title, raw.strip()))
            else:
                out.append(value)
    return facts, loops, problems


def replace_line(text: str, body_offset: int, title: str, new_line: str, matches: Callable[[Any], bool]) -> str:
    """text with new_line in place of the first line of the section that reads as a value matches accepts
    (unchanged when none does)."""
    read = read_fact if title == FACTS else read_loop
    for _, raw, offset in _section_lines(text, body_offset, title):
        value = read(raw)
        if not isinstance(value, str) and matches(value):
            return text[:offset] + new_line + text[offset + len(raw):]
    return text


def append_line(text: str, body_offset: int, title: str, new_line: str) -> str:
    """text with new_line after the last list item of the first section called title; a page without that
    section gets one at its end (after one blank line), and keeps or lacks a final newline as it did."""
    body = text[body_offset:]
    ranges = section_ranges(body, title)
    if ranges:
        _, content_start, end = ranges[0]
        section = body[content_start:end]
        last_item_end = _last_item_end(section)
        if last_item_end is not None:
            at = body_offset + content_start + last_item_end
            return text[:at] + "\n" + new_line + text[at:]
        stripped = section.rstrip("\n")
        trailing = section[len(stripped):]
        if stripped:  # prose but no list yet: the list goes after it
            replacement = stripped + "\n\n" + new_line + (trailing or "")
        elif body[:content_start].endswith("\n"):  # a heading followed by blank lines or nothing
            replacement = "\n" + new_line + "\n" + trailing[1:]
        else:  # the heading is the page's last line, without a newline
            replacement = "\n\n" + new_line
        at = body_offset + content_start
        return text[:at] + replacement + text[at + len(section):]
    if not text:
        return f"## {title}\n\n{new_line}\n"
    if not text.endswith("\n"):
        return text + f"\n\n## {title}\n\n{new_line}"
    return text + ("" if text.endswith("\n\n") else "\n") + f"## {title}\n\n{new_line}\n"


def _last_item_end(section: str) -> int | None:
    offset, last = 0, None
    for raw in section.split("\n"):
        if _ITEM.match(raw):
            last = offset + len(raw)
        offset += len(raw) + 1
    return last

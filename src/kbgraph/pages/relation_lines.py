"""The `## Relations` section of an entity page: reading its lines and editing them minimally.

A relation line reads `- reports-to [[Ben Okafor]] — reason (since 2026-03-01) (until 2026-06-30)
[context: dotted line]`: the reason and the three trailing parts are optional, and the parts may come
in any order at the end of the line (each once).
Edits touch only the lines they add, replace or remove: the frontmatter, prose
and every other section stay byte-for-byte as they were. Pure functions over
strings, so round trips are easy to test.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from ..base.markdown import parse_sections

_LINE = re.compile(
    r"^[ \t]*[-*+][ \t]+(?P<type>[A-Za-z][\w-]*)[ \t]+\[\[(?P<target>[^\[\]|#\n]+)(?:#[^\[\]|\n]*)?(?:\|[^\[\]\n]*)?\]\]"
    r"(?P<rest>.*)$"
)
# One trailing part of a line. `(since ...)` counts only when it looks like a date, so that a reason
# written before since existed ("— since the reorg (since January)") reads as it did.
_TAIL = re.compile(r"\s*(?:\(until[ \t]+(?P<until>[^)]*)\)|\(since[ \t]+(?P<since>\d{4}-\d\d-\d\d)\)"
                   r"|\[context:[ \t]*(?P<context>[^\]\n]*)\])\s*$")
_TAIL_PARTS = ("until", "since", "context")
_REASON_SEP = re.compile(r"^\s*(?:—|–|--|-|:)\s*")
_LIST_ITEM = re.compile(r"^[ \t]*[-*+][ \t]+\S")
SECTION_TITLE = "Relations"


@dataclass(frozen=True)
class RelationLine:
    type: str
    target: str
    reason: str | None
    valid_until: str | None  # as written; validated by the caller
    line: int  # 1-based line in the whole file
    valid_from: str | None = None  # `(since DATE)`, as written; validated by the caller
    context: str | None = None  # `[context: ...]`: where it holds ("dotted line"), beside another of its type


@dataclass(frozen=True)
class LineProblem:
    line: int
    message: str


def format_line(type_name: str, target: str, reason: str | None, valid_until: str | None,
                valid_from: str | None = None, context: str | None = None) -> str:
    text = f"- {type_name} [[{target}]]"
    if reason:
        text += f" — {' '.join(reason.split())}"
    if valid_from:
        text += f" (since {valid_from})"
    if valid_until:
        text += f" (until {valid_until})"
    if context and context.strip():
        text += f" [context: {' '.join(context.split())}]"
    return text


def _split_tail(rest: str) -> tuple[str, dict[str, str]]:
    """rest without its trailing `(since …)`, `(until …)` and `[context: …]` parts, and what they say."""
    parts: dict[str, str] = {}
    while (match := _TAIL.search(rest)) is not None:
        part = next(name for name in _TAIL_PARTS if match.group(name) is not None)
        if part in parts:
            break  # a part given twice: the earlier one stays in the reason
        parts[part] = match.group(part).strip()
        rest = rest[: match.start()]
    return rest, parts


def safe_target(name: str) -> bool:
    """Whether a name can stand inside [[...]] and read back unchanged."""
    return bool(name.strip()) and not re.search(r"[\[\]|#\n]", name)


def may_have_section(body: str, title: str) -> bool:
    """False when no line of body could be the level-2 heading `## title` (parse_sections reads ATX
    headings only): most pages have no such section, and parsing their sections to find out cost a
    second per 700 pages. The heading's text is in body, so its lower-cased title is in body lower-cased."""
    if title.lower() not in body.lower():
        return False
    return re.search(rf"(?im)^ {{0,3}}##[ \t]+{re.escape(title)}[ \t]*(?:#+[ \t]*)?$", body) is not None


def _relations_ranges(body: str) -> list[tuple[int, int, int]]:
    """(heading start, content start, end) of each level-2 `## Relations` section in body."""
    if not may_have_section(body, SECTION_TITLE):
        return []
    sections, _ = parse_sections(body)
    out = []
    for index, section in enumerate(sections):
        if section.level == 2 and section.heading_path[-1].strip().lower() == SECTION_TITLE.lower():
            heading_end = body.find("\n", section.start)
            content_start = section.end if heading_end < 0 or heading_end >= section.end else heading_end + 1
            end = section.end
            for deeper in sections[index + 1:]:  # "### People" under "## Relations" is still its content
                if deeper.level <= 2:
                    break
                end = deeper.end
            out.append((section.start, content_start, end))
    return out


def parse_relation_lines(text: str, body_offset: int) -> tuple[list[RelationLine], list[LineProblem]]:
    """Relation lines in the `## Relations` sections of a page, and list items there that are not one."""
    body = text[body_offset:]
    first_line = text.count("\n", 0, body_offset) + 1
    lines, problems = [], []
    for _, content_start, end in _relations_ranges(body):
        line_no = first_line + body.count("\n", 0, content_start)
        for raw in body[content_start:end].split("\n"):
            match = _LINE.match(raw)
            if match:
                rest, parts = _split_tail(match.group("rest"))
                reason = _REASON_SEP.sub("", rest, count=1).strip() or None
                lines.append(RelationLine(match.group("type"), match.group("target").strip(), reason,
                                          parts.get("until"), line_no, parts.get("since"),
                                          " ".join(parts.get("context", "").split()) or None))
            elif _LIST_ITEM.match(raw):
                problems.append(LineProblem(line_no, f"not a relation line: {raw.strip()[:80]!r}; expected "
                                                     "`- TYPE [[Target]] — reason (since YYYY-MM-DD) (until YYYY-MM-DD) "
                                                     "[context: …]`"))
            line_no += 1
    return lines, problems


def upsert_line(text: str, body_offset: int, new_line: str, matches: Callable[[RelationLine], bool]) -> str:
    """text with new_line replacing the first relation line that matches, or appended to `## Relations`.

    A page without the section gets one at its end.
    """
    body = text[body_offset:]
    ranges = _relations_ranges(body)
    for _, content_start, end in ranges:
        start = content_start
        for raw in body[content_start:end].split("\n"):
            parsed = _LINE.match(raw)
            if parsed and matches(_as_line(parsed)):
                return text[: body_offset + start] + new_line + text[body_offset + start + len(raw):]
            start += len(raw) + 1
    if ranges:
        _, content_start, end = ranges[0]
        section = body[content_start:end]
        last_item_end = _last_item_end(section)
        if last_item_end is not None:
            at = body_offset + content_start + last_item_end
            return text[:at] + "\n" + new_line + text[at:]
        stripped = section.rstrip("\n")
        trailing = section[len(stripped):]
        at = body_offset + content_start
        if stripped:  # prose but no list yet: the list goes after it
            return text[:at] + stripped + "\n\n" + new_line + (trailing or "\n") + text[at + len(section):]
        # The user's own empty heading: the line goes right under it and the blank lines stay below, a
        # shape unlike a section this function adds, so that removing the line leaves the heading.
        if not body[:content_start].endswith("\n"):  # the heading is the page's last line, without a newline
            return text[:at] + "\n" + new_line
        return text[:at] + new_line + "\n" + text[at:]
    # A new section at the end, after one blank line; a page without a final newline keeps none, so
    # that removal can take exactly this back.
    if not text:
        return f"## {SECTION_TITLE}\n\n" + new_line + "\n"
    if not text.endswith("\n"):
        return text + f"\n\n## {SECTION_TITLE}\n\n" + new_line
    return text + f"\n## {SECTION_TITLE}\n\n" + new_line + "\n"


def remove_lines(text: str, body_offset: int, matches: Callable[[RelationLine], bool]) -> tuple[str, int]:
    """text without the relation lines that match, and how many were removed.

    A section left empty loses its heading only when it has the shape upsert_line adds (the page's
    last section, `## Relations`, one blank line, relation lines only), together with the blank line
    before it: removing what upsert_line added restores the page byte for byte. Any other heading,
    a user's own empty one included, stays.
    """
    body = text[body_offset:]
    removed = 0
    for heading_start, content_start, end in reversed(_relations_ranges(body)):
        kept: list[str] = []
        raws = body[content_start:end].split("\n")
        dropped = 0
        for index, raw in enumerate(raws):
            parsed = _LINE.match(raw)
            if not (parsed and matches(_as_line(parsed))):
                kept.append(raw)
                continue
            dropped += 1
            rest_blank = all(not r.strip() for r in raws[index + 1:])
            if rest_blank and kept and not kept[-1].strip() and any(k.strip() for k in kept):
                kept.pop()  # the blank line that separated this line from prose above it
        if not dropped:
            continue
        removed += dropped
        content = "\n".join(kept)
        if content.strip():
            body = body[:content_start] + content + body[end:]
            continue
        before = text[:body_offset] + body[:heading_start]
        if _added_section(body, heading_start, content_start, end, before):
            final_newline = body[end - 1:end] == "\n"
            cut = (1 if final_newline else 2) if before else 0  # the separator upsert_line put before it
            body = body[:heading_start - cut] + body[end:]
        elif not kept and not body[end:] and body[content_start - 1:content_start] == "\n":
            body = body[:content_start - 1]  # the line was added under a heading that ended the page
        else:
            body = body[:content_start] + content + body[end:]
    return text[:body_offset] + body, removed


def _added_section(body: str, heading_start: int, content_start: int, end: int, before: str) -> bool:
    """Whether a Relations section has the shape upsert_line gives a page that had none."""
    if body[end:] or body[heading_start:content_start] != f"## {SECTION_TITLE}\n":
        return False
    raws = body[content_start:end].split("\n")
    final_newline = raws[-1] == ""
    items = raws[1:-1] if final_newline else raws[1:]
    if raws[0] != "" or not items or not all(_LINE.match(raw) for raw in items):
        return False
    if not before:
        return final_newline
    if final_newline:
        return before.endswith("\n\n")
    return before.endswith("\n\n") and not before.endswith("\n\n\n")


def _as_line(match: re.Match) -> RelationLine:
    return RelationLine(match.group("type"), match.group("target").strip(), None, None, 0)


def _last_item_end(section: str) -> int | None:
    """Offset just past the last list item line of a section, or None."""
    offset, last = 0, None
    for raw in section.split("\n"):
        if _LIST_ITEM.match(raw):
            last = offset + len(raw)
        offset += len(raw) + 1
    return last

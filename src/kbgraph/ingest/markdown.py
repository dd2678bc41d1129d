"""Markdown structure without a database: headings, sections, links.

A deliberately small line scanner: ATX headings outside fenced code, wikilinks and
relative markdown links. It never rewrites the text it reads.
"""

from __future__ import annotations

import re

from ..model import Link, Section

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_WIKILINK = re.compile(r"\[\[([^\[\]|#\n]+)(#[^\[\]|\n]*)?(?:\|([^\[\]\n]+))?\]\]")
_MDLINK = re.compile(r"(?<!!)\[([^\[\]\n]*)\]\(([^()\s]+)(?:[ \t]+\"[^\"\n]*\")?\)")
_URL_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def parse_sections(body: str) -> tuple[list[Section], list[tuple[int, int]]]:
    """Heading-delimited sections of body, and the (start, end) ranges of fenced code.

    Text before the first heading is a section with an empty heading path.
    """
    sections: list[Section] = []
    fences: list[tuple[int, int]] = []
    stack: list[tuple[int, str]] = []
    current_start, current_path, current_level = 0, (), 0
    fence_marker: str | None = None
    fence_start = 0
    offset = 0
    for line in body.splitlines(keepends=True):
        fence = _FENCE.match(line)
        if fence_marker is not None:
            if fence and fence.group(1)[0] == fence_marker[0] and len(fence.group(1)) >= len(fence_marker):
                fences.append((fence_start, offset + len(line)))
                fence_marker = None
        elif fence:
            fence_marker, fence_start = fence.group(1), offset
        else:
            heading = _HEADING.match(line.rstrip("\n"))
            if heading:
                if offset > current_start:
                    sections.append(_section(body, current_path, current_level, current_start, offset))
                level, title = len(heading.group(1)), heading.group(2).strip()
                while stack and stack[-1][0] >= level:
                    stack.pop()
                stack.append((level, title))
                current_start, current_path, current_level = offset, tuple(t for _, t in stack), level
        offset += len(line)
    if fence_marker is not None:
        fences.append((fence_start, len(body)))
    if len(body) > current_start:
        sections.append(_section(body, current_path, current_level, current_start, len(body)))
    return sections, fences


def _section(body: str, path: tuple[str, ...], level: int, start: int, end: int) -> Section:
    return Section(heading_path=path, level=level, start=start, end=end, text=body[start:end])


def first_h1(sections: list[Section]) -> str | None:
    for section in sections:
        if section.level == 1 and section.heading_path:
            return section.heading_path[-1]
    return None


def find_links(body: str, fences: list[tuple[int, int]]) -> list[Link]:
    """Wikilinks and relative markdown links outside fenced code, in order."""
    links: list[Link] = []
    for match in _WIKILINK.finditer(body):
        if match.group(1).strip() and not _inside(match.start(), fences):
            alias = match.group(3).strip() if match.group(3) else None
            links.append(Link(match.group(1).strip(), alias, match.start(), match.end(), "wikilink"))
    for match in _MDLINK.finditer(body):
        target = match.group(2)
        if _URL_SCHEME.match(target) or target.startswith("#") or _inside(match.start(), fences):
            continue
        links.append(Link(target.split("#", 1)[0], match.group(1) or None, match.start(), match.end(), "markdown"))
    links.sort(key=lambda link: link.start)
    return links


def _inside(position: int, ranges: list[tuple[int, int]]) -> bool:
    return any(start <= position < end for start, end in ranges)

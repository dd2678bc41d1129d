"""Markdown structure without a database: headings, sections, links.

A deliberately small line scanner: ATX headings outside fenced code, wikilinks and
relative markdown links. It never rewrites the text it reads.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Iterator

from ..model import Link, Section

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_WIKILINK = re.compile(r"\[\[([^\[\]|#\n]+)(#[^\[\]|\n]*)?(?:\|([^\[\]\n]+))?\]\]")
# Not an image (![...](...)): the look-behind comes after the bracket, so that the pattern starts with a
# literal, which re searches for fast (a pattern that starts with a look-behind is tried at every character).
_MDLINK = re.compile(r"\[(?<!!\[)([^\[\]\n]*)\]\(([^()\s]+)(?:[ \t]+\"[^\"\n]*\")?\)")
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
    for offset, line in _lines_that_may_matter(body):
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
    if fence_marker is not None:
        fences.append((fence_start, len(body)))
    if len(body) > current_start:
        sections.append(_section(body, current_path, current_level, current_start, len(body)))
    return sections, fences


# Only a line that starts (after at most three spaces) with #, ` or ~ can be a heading or a fence. The
# pattern starts with a literal newline, which re finds fast; a ^ pattern is tried at every character.
_CANDIDATE = re.compile(r"\n {0,3}[#`~]")
_AT_START = re.compile(r" {0,3}[#`~]")
_OTHER_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # line ends of str.splitlines besides \n and \r


def all_lines(body: str) -> Iterator[tuple[int, str]]:
    """(offset, line with its end) of every line, as str.splitlines(keepends=True) cuts them."""
    offset = 0
    for line in body.splitlines(keepends=True):
        yield offset, line
        offset += len(line)


def _lines_that_may_matter(body: str) -> Iterator[tuple[int, str]]:
    """The lines of body that may be a heading or a fence, with their offsets: the others change nothing
    in parse_sections. Found by one regex over the text rather than a Python step per line (a 50 MB
    note has ~1.7 million lines, a few thousand of them headings or fences)."""
    if not _only_newline_breaks(body):
        yield from all_lines(body)
        return
    starts = ([0] if _AT_START.match(body) else []) + [match.start() + 1 for match in _CANDIDATE.finditer(body)]
    for start in starts:
        end = body.find("\n", start) + 1 or len(body)
        yield start, body[start:end]


def _only_newline_breaks(body: str) -> bool:
    """Whether str.splitlines cuts body only at line feeds (alone or after a carriage return): then the
    lines a search for line feeds finds are splitlines' lines. (`in` per character: one regex class
    over 50 MB costs over a second.)"""
    if any(ch in body for ch in _OTHER_BREAKS):
        return False
    return "\r" not in body or body.count("\r") == body.count("\r\n")


def _section(body: str, path: tuple[str, ...], level: int, start: int, end: int) -> Section:
    return Section(heading_path=path, level=level, start=start, end=end, text=body[start:end])


def first_h1(sections: list[Section]) -> str | None:
    for section in sections:
        if section.level == 1 and section.heading_path:
            return section.heading_path[-1]
    return None


def find_links(body: str, fences: list[tuple[int, int]]) -> list[Link]:
    """Wikilinks and relative markdown links outside fenced code, in order."""
    inside = _Ranges(fences)
    links: list[Link] = []
    for match in _WIKILINK.finditer(body):
        target, alias = match.group(1).strip(), match.group(3)
        if target and not inside(match.start()):
            links.append(Link(target, alias.strip() if alias else None, match.start(), match.end(), "wikilink"))
    markdown: list[Link] = []
    for match in _MDLINK.finditer(body):
        target = match.group(2)
        if _URL_SCHEME.match(target) or target.startswith("#") or inside(match.start()):
            continue
        markdown.append(Link(target.split("#", 1)[0], match.group(1) or None, match.start(), match.end(),
                             "markdown"))
    if markdown:  # each list is in order already: a note of wikilinks only needs no sort
        links += markdown
        links.sort(key=lambda link: link.start)
    return links


class _Ranges:
    """Whether a position falls in one of some sorted, disjoint ranges (the fences parse_sections
    found, in order): a binary search, not a scan of every fence per link, which made a note with
    thousands of code blocks and links quadratic."""

    def __init__(self, ranges: list[tuple[int, int]]):
        self.starts = [start for start, _ in ranges]
        self.ends = [end for _, end in ranges]

    def __call__(self, position: int) -> bool:
        i = bisect_right(self.starts, position) - 1
        return i >= 0 and position < self.ends[i]

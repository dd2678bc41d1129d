"""Parsing a huge note is linear and does no per-line Python work it does not need (issue 16: one 50 MB
note spent 6-8 s in parse; bench/huge_note_parse.py measures it). Counted, not timed: how many lines
the heading and fence patterns are tried on, and how often the fences are walked; and the fast paths
give what the plain ones give."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from kbgraph.base import markdown
from kbgraph.ingest import chunking
from kbgraph.model import Section

from .conftest import fast


class _Counting:
    """A compiled pattern that counts its match calls."""

    def __init__(self, pattern: re.Pattern):
        self.pattern, self.calls = pattern, 0

    def match(self, *args):
        self.calls += 1
        return self.pattern.match(*args)


def test_only_lines_that_may_be_headings_or_fences_are_matched(monkeypatch):
    lines = ["# Title", ""] + [f"Line {i} names [[Ana Lima]] and Ben." for i in range(5000)]
    lines[2000:2000] = ["## Middle", "```", "# not a heading", "```"]
    body = "\n".join(lines) + "\n"
    fence, heading = _Counting(markdown._FENCE), _Counting(markdown._HEADING)
    monkeypatch.setattr(markdown, "_FENCE", fence)
    monkeypatch.setattr(markdown, "_HEADING", heading)
    sections, fences = markdown.parse_sections(body)
    assert [s.heading_path for s in sections] == [("Title",), ("Title", "Middle")]
    assert len(fences) == 1 and body[fences[0][0]:fences[0][1]] == "```\n# not a heading\n```\n"
    assert fence.calls <= 10 and heading.calls <= 10, "a pattern per line of 5,000 is the slow path"


class _CountingList(list):
    walks = 0

    def __iter__(self):
        _CountingList.walks += 1
        return super().__iter__()


def test_fences_are_walked_once_not_once_per_link():
    blocks = "".join(f"```\ncode {i}\n```\nSee [[Note {i}]] and [it](n{i}.md).\n" for i in range(300))
    sections, fences = markdown.parse_sections(blocks)
    _CountingList.walks = 0
    links = markdown.find_links(blocks, _CountingList(fences))
    assert len(links) == 600 and [link.start for link in links] == sorted(link.start for link in links)
    assert _CountingList.walks <= 2, f"the fences were walked {_CountingList.walks} times for 600 links"


# Text made of the pieces that matter: headings, fences, links, every line break str.splitlines knows.
_PIECES = st.sampled_from(["a", " ", "  ", "   ", "    ", "\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x85",
                           "\u2028", "\u2029", "#", "## x", "```", "~~~", "`", "~", "[[A]]", "[b](c.md)", "!",
                           "[", "]", "(", ")", "\t", "\xa0"])
_TEXT = st.lists(_PIECES, max_size=40).map("".join)


@fast(400)
@given(_TEXT)
def test_the_fast_line_scan_finds_what_every_line_finds(body):
    fast_result = markdown.parse_sections(body)
    plain = markdown._lines_that_may_matter
    try:
        markdown._lines_that_may_matter = markdown.all_lines
        assert fast_result == markdown.parse_sections(body)
    finally:
        markdown._lines_that_may_matter = plain


_OLD_MDLINK = re.compile(r"(?<!!)\[([^\[\]\n]*)\]\(([^()\s]+)(?:[ \t]+\"[^\"\n]*\")?\)")


@fast(400)
@given(_TEXT, st.lists(st.tuples(st.integers(0, 60), st.integers(1, 10)), max_size=6))
def test_links_and_fences_as_before(body, spans):
    ranges, at = [], 0
    for gap, length in spans:  # sorted, disjoint, as parse_sections gives them
        ranges.append((at + gap, at + gap + length))
        at += gap + length
    inside = markdown._Ranges(ranges)
    for position in range(at + 5):
        assert inside(position) == any(s <= position < e for s, e in ranges)
    assert ([m.span() + m.groups() for m in markdown._MDLINK.finditer(body)]
            == [m.span() + m.groups() for m in _OLD_MDLINK.finditer(body)])


@fast(400)
@given(_TEXT, st.integers(1, 6))
def test_a_heading_only_section_is_found_as_before(text, level):
    section = Section(("h",), level, 0, len(text), text)
    first_line = text.splitlines(keepends=True)[0] if text else ""
    assert chunking._heading_only(section) == (not text[len(first_line):].strip())
    assert (chunking._NON_SPACE.search(text) is None) == (not text.strip())

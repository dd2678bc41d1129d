"""The quick check before a page's sections are parsed for `## Relations`, `## Facts` and `## Loops`
never hides a section the parser finds (it only spares the parse on pages without one)."""

from __future__ import annotations

from hypothesis import given, strategies as st

from kbgraph.base.markdown import parse_sections
from kbgraph.pages.relation_lines import may_have_section

_LINES = st.sampled_from([
    "## Relations", "##  relations  ", "## RELATIONS ##", "   ## Relations", "#### Relations", "## Relations#",
    "Relations", "## Facts", "## loops", "# Relations", "```", "- mentors [[Ana Lima]]", "- [ ] call @2026-01-02",
    "- fact: likes tea", "text about relations", "## Other", "\t## Relations", "## Relations and more", "",
])


@given(st.lists(_LINES, max_size=12), st.sampled_from(["Relations", "Facts", "Loops"]))
def test_the_check_never_hides_a_section(lines, title):
    body = "\n".join(lines) + "\n"
    sections, _ = parse_sections(body)  # what the parser finds, without the check
    found = any(s.level == 2 and s.heading_path[-1].strip().lower() == title.lower() for s in sections)
    assert may_have_section(body, title) or not found

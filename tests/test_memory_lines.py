"""`## Facts` / `## Loops` lines: the formats read back, and edits touch only the line they add or replace."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbgraph.pages.memory_lines import (FACT_KINDS, FACTS, LOOPS, FactLine, LoopLine, append_line, format_fact,
                                        format_loop, parse_memory_lines, read_fact, read_loop, replace_line)

from .conftest import fast

words = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=40).map(
    lambda s: " ".join(s.split())).filter(bool)
days = st.dates().map(lambda d: f"{d.year:04d}-{d.month:02d}-{d.day:02d}")
PAGE = "---\ntype: person\nname: Ana Lima\n---\n# Ana Lima\n\nShe leads Atlas.\n\n## Relations\n\n- manages [[Ben Okafor]]\n"


def test_the_documented_lines_read():
    assert read_fact("- interest: fountain pens (2026-03-02)") == FactLine("interest", "fountain pens", "2026-03-02")
    assert read_fact("* role:   EM,  Platform") == FactLine("role", "EM, Platform", None)
    assert read_fact("- note: likes tea (green)") == FactLine("note", "likes tea (green)", None)
    assert read_loop("- [ ] ask about the surgery @2026-08-15") == LoopLine("ask about the surgery", "2026-08-15",
                                                                           False, None)
    assert read_loop("- [x] ask about it @2026-08-15 (resolved 2026-08-16)") == LoopLine(
        "ask about it", "2026-08-15", True, "2026-08-16")
    assert read_loop("- [ ] ping @ana") == LoopLine("ping @ana", None, False, None)


def test_nonsense_says_why():
    assert "unknown fact kind 'hobby'" in read_fact("- hobby: chess")
    assert "not a date" in read_fact("- event: moved (2026-13-45)")
    assert read_fact("- just words") == "not a fact line"
    assert "not a due date" in read_loop("- [ ] call @2026-02-30")
    assert read_loop("- [ ] @2026-02-03") == "a loop needs text"


@fast(200)
@given(kind=st.sampled_from(FACT_KINDS), text=words, date=st.none() | days)
def test_a_fact_line_reads_back(kind, text, date):
    value = read_fact(format_fact(kind, text, date))
    if not isinstance(value, str) and value.text == text:  # text ending in "(YYYY-MM-DD)" is refused upstream
        assert (value.kind, value.date) == (kind, date)


@fast(200)
@given(text=words, due=st.none() | days, resolved=st.none() | days)
def test_a_loop_line_reads_back(text, due, resolved):
    value = read_loop(format_loop(text, due, resolved))
    if not isinstance(value, str) and value.text == text:
        assert (value.due, value.done, value.resolved_on) == (due, resolved is not None, resolved)


pages = st.lists(st.sampled_from(["# Title", "", "prose line", "## Facts", "## Loops", "- interest: x",
                                  "- [ ] y @2026-01-02", "## Other", "- item", "```", "### Deeper"]),
                 max_size=12).map("\n".join).filter(lambda page: page.count("```") % 2 == 0)


@fast(300)
@given(body=pages, final_newline=st.booleans(), title=st.sampled_from([FACTS, LOOPS]))
def test_append_adds_one_line_and_changes_nothing_else(body, final_newline, title):
    text = "---\na: 1\n---\n" + body + ("\n" if final_newline and body else "")
    line = format_fact("note", "added here", None) if title == FACTS else format_loop("added here", "2026-05-01")
    out = append_line(text, 12, title, line)
    assert out.startswith("---\na: 1\n---\n")
    assert out.endswith("\n") == text.endswith("\n") or text == "---\na: 1\n---\n"
    kept = out.split("\n")
    kept.remove(line)
    assert [x for x in kept if x] == [x for x in text.split("\n") if x] + ([f"## {title}"] if len(
        [x for x in kept if x]) > len([x for x in text.split("\n") if x]) else [])
    facts, loops, _ = parse_memory_lines(out, 12)
    assert "added here" in [v.text for v in (facts if title == FACTS else loops)]


def test_append_to_a_page_without_the_section_or_a_final_newline():
    assert append_line(PAGE, 38, FACTS, "- note: a") == PAGE + "\n## Facts\n\n- note: a\n"
    bare = PAGE.rstrip("\n")
    assert append_line(bare, 38, LOOPS, "- [ ] b") == bare + "\n\n## Loops\n\n- [ ] b"
    with_section = PAGE + "\n## Facts\n\n- note: a"
    assert append_line(with_section, 38, FACTS, "- note: b") == with_section + "\n- note: b"


def test_replace_touches_one_line():
    page = PAGE + "\n## Loops\n\n- [ ] call @2026-01-02\n- [ ] write\n\nTrailing prose.\n"
    out = replace_line(page, 38, LOOPS, "- [x] write (resolved 2026-01-03)", lambda v: v.text == "write")
    assert out == page.replace("- [ ] write\n", "- [x] write (resolved 2026-01-03)\n")
    assert replace_line(page, 38, LOOPS, "- [x] nope", lambda v: v.text == "absent") == page


def test_problems_carry_file_lines_and_the_rest_is_kept():
    page = PAGE + "\n## Facts\n\n- interest: pens\n- hobby: chess\nprose is fine\n- role: EM (2026-01-01)\n"
    facts, loops, problems = parse_memory_lines(page, 38)
    assert [f.text for f in facts] == ["pens", "EM"] and loops == []
    assert [(p.line, "hobby" in p.message) for p in problems] == [(16, True)]
    assert page.split("\n")[15] == "- hobby: chess"

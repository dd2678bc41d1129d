"""`## Relations` lines: parsing, and edits that touch nothing else in the page (round trips)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from kbgraph.pages.relation_lines import format_line, parse_relation_lines, remove_lines, upsert_line
from kbgraph.base.vault import split_frontmatter

PAGE = """---
type: person
name: Ana Lima
aliases: [Ana]
---
# Ana Lima

Prose about Ana, with a [[Project Atlas]] link.

## Relations

- leads [[Project Atlas]] — since January
- member-of [[Platform]]

## Notes

More prose.
"""


def _offset(text):
    return split_frontmatter(text)[1]


def _is(type_name, target):
    return lambda line: line.type == type_name and line.target == target


def test_lines_parse_with_reason_and_until():
    lines, problems = parse_relation_lines(
        "## Relations\n\n- reports-to [[Ben Okafor]] — since the reorg (until 2026-06-30)\n"
        "- uses [[Kafka|the bus]]\n* manages [[Dana]]: interim\n", 0)
    assert problems == []
    assert [(l.type, l.target, l.reason, l.valid_until, l.line) for l in lines] == [
        ("reports-to", "Ben Okafor", "since the reorg", "2026-06-30", 3),
        ("uses", "Kafka", None, None, 4),
        ("manages", "Dana", "interim", None, 5),
    ]


def test_malformed_list_items_are_problems_with_their_line_and_the_rest_still_parses():
    text = "# X\n\n## Relations\n\n- reports to Ben\n- leads [[Atlas]]\nplain prose is fine\n"
    lines, problems = parse_relation_lines(text, 0)
    assert [l.target for l in lines] == ["Atlas"]
    assert [(p.line, p.message.split(":")[0]) for p in problems] == [(5, "not a relation line")]


def test_only_level_two_relations_sections_count():
    text = "# X\n\n### Relations\n\n- leads [[Atlas]]\n\n## Other\n\n- leads [[Beacon]]\n"
    assert parse_relation_lines(text, 0) == ([], [])


def test_line_numbers_count_the_frontmatter():
    lines, _ = parse_relation_lines(PAGE, _offset(PAGE))
    assert [l.line for l in lines] == [12, 13]
    assert PAGE.splitlines()[11].startswith("- leads")


def test_adding_to_an_existing_section_touches_nothing_else():
    new = upsert_line(PAGE, _offset(PAGE), format_line("reports-to", "Ben Okafor", None, None), _is("reports-to", "Ben Okafor"))
    assert new == PAGE.replace("- member-of [[Platform]]\n", "- member-of [[Platform]]\n- reports-to [[Ben Okafor]]\n")
    restored, removed = remove_lines(new, _offset(new), _is("reports-to", "Ben Okafor"))
    assert (restored, removed) == (PAGE, 1)


def test_updating_a_line_replaces_it_in_place():
    new = upsert_line(PAGE, _offset(PAGE), format_line("leads", "Project Atlas", "co-lead now", "2027-01-31"),
                      _is("leads", "Project Atlas"))
    assert new == PAGE.replace("- leads [[Project Atlas]] — since January",
                               "- leads [[Project Atlas]] — co-lead now (until 2027-01-31)")


def test_frontmatter_stays_valid_yaml_and_identical():
    import yaml

    new = upsert_line(PAGE, _offset(PAGE), format_line("mentors", "Dana", "weekly", None), _is("mentors", "Dana"))
    assert new.split("---")[1] == PAGE.split("---")[1]
    assert yaml.safe_load(new.split("---")[1])["name"] == "Ana Lima"


def test_crlf_and_missing_section_pages():
    text = "# Kafka\n\nOur message bus.\n"
    added = upsert_line(text, 0, "- uses [[Zookeeper]]", _is("uses", "Zookeeper"))
    assert added == "# Kafka\n\nOur message bus.\n\n## Relations\n\n- uses [[Zookeeper]]\n"
    assert remove_lines(added, 0, _is("uses", "Zookeeper"))[0] == text


_prose = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r#[]-*+`~"), max_size=200)


@settings(max_examples=150, deadline=None)
@given(prose=_prose, heading=st.booleans(), with_frontmatter=st.booleans())
def test_add_then_remove_restores_any_page_ending_in_a_newline(prose, heading, with_frontmatter):
    body = ("# Title\n\n" if heading else "") + prose
    if not body.endswith("\n"):
        body += "\n"
    text = ("---\ntitle: T\n---\n" if with_frontmatter else "") + body
    offset = _offset(text)
    line = format_line("uses", "Kafka", "because", None)
    added = upsert_line(text, offset, line, _is("uses", "Kafka"))
    parsed, _ = parse_relation_lines(added, offset)
    assert [(l.type, l.target, l.reason) for l in parsed][-1] == ("uses", "Kafka", "because")
    assert added.startswith(text.rstrip("\n"))
    restored, removed = remove_lines(added, offset, _is("uses", "Kafka"))
    assert removed == 1 and restored == text


@settings(max_examples=100, deadline=None)
@given(reason=st.text(max_size=60).filter(lambda r: "(until" not in r and not r.rstrip().endswith((")", "]"))),
       until=st.one_of(st.none(), st.dates().map(lambda d: d.isoformat())))
def test_any_reason_round_trips_through_a_line(reason, until):
    line = format_line("reports-to", "Ben Okafor", reason, until)
    (parsed,), problems = parse_relation_lines("## Relations\n\n" + line + "\n", 0)
    assert problems == []
    assert (parsed.reason, parsed.valid_until) == (" ".join(reason.split()) or None, until)


_dates = st.one_of(st.none(), st.dates().map(lambda d: d.isoformat()))


@settings(max_examples=200, deadline=None)
@given(reason=st.one_of(st.none(), st.text(max_size=60).filter(lambda r: not r.rstrip().endswith((")", "]")))),
       since=_dates, until=_dates, context=st.one_of(st.none(), st.text(max_size=30).filter(lambda c: "]" not in c)))
def test_since_until_and_context_round_trip_through_a_line(reason, since, until, context):
    line = format_line("reports-to", "Ben Okafor", reason, until, since, context)
    (parsed,), problems = parse_relation_lines("## Relations\n\n" + line + "\n", 0)
    assert problems == []
    assert (parsed.reason, parsed.valid_from, parsed.valid_until, parsed.context) == (
        " ".join((reason or "").split()) or None, since, until, " ".join((context or "").split()) or None)


@settings(max_examples=100, deadline=None)
@given(parts=st.permutations(["(since 2026-03-01)", "(until 2026-06-30)", "[context: dotted line]"]))
def test_the_trailing_parts_read_in_any_order(parts):
    (parsed,), _ = parse_relation_lines("## Relations\n\n- reports-to [[Ben]] — why " + " ".join(parts) + "\n", 0)
    assert (parsed.reason, parsed.valid_from, parsed.valid_until, parsed.context) == (
        "why", "2026-03-01", "2026-06-30", "dotted line")


def test_lines_written_before_since_and_context_read_as_they_did():
    text = ("## Relations\n\n- reports-to [[Ben Okafor]] — since the reorg (until 2026-06-30)\n"
            "- mentors [[Sam Li]] — weekly (since January)\n- uses [[Kafka]] — see [the runbook]\n")
    lines, problems = parse_relation_lines(text, 0)
    assert problems == []
    assert [(l.reason, l.valid_from, l.valid_until, l.context) for l in lines] == [
        ("since the reorg", None, "2026-06-30", None),
        ("weekly (since January)", None, None, None),  # not a date: still the reason's words
        ("see [the runbook]", None, None, None),
    ]


def test_edits_touch_only_their_line_when_lines_carry_since_and_context():
    page = ("# Dana\n\n## Relations\n\n- reports-to [[Ana Lima]] (until 2026-02-28)\n"
            "- reports-to [[Ben Okafor]] — interim (since 2026-03-01) [context: dotted line]\n- uses [[Kafka]]\n")
    edited = upsert_line(page, 0, format_line("reports-to", "Ana Lima", None, "2026-02-27"), _is("reports-to", "Ana Lima"))
    assert edited == page.replace("(until 2026-02-28)", "(until 2026-02-27)")
    removed, count = remove_lines(page, 0, _is("uses", "Kafka"))
    assert (removed, count) == (page.replace("- uses [[Kafka]]\n", ""), 1)


def test_lines_under_subheadings_of_relations_count_and_the_heading_stays():
    text = "# X\n\n## Relations\n\n### Work\n\n- uses [[Kafka]]\n\n## Notes\n\nprose\n"
    lines, _ = parse_relation_lines(text, 0)
    assert [(l.type, l.target) for l in lines] == [("uses", "Kafka")]
    added = upsert_line(text, 0, "- uses [[Redis]]", _is("uses", "Redis"))
    assert added == text.replace("- uses [[Kafka]]\n", "- uses [[Kafka]]\n- uses [[Redis]]\n")
    assert remove_lines(added, 0, _is("uses", "Redis"))[0] == text
    emptied, _ = remove_lines(text, 0, _is("uses", "Kafka"))
    assert "## Relations" in emptied and "### Work" in emptied, "a section with a subheading keeps its heading"


def test_mixed_line_endings_are_left_alone_by_page_edits(tmp_path):
    from kbgraph.pages.files import edit_page

    page = tmp_path / "p.md"
    page.write_bytes(b"---\r\na: 1\r\n---\n# X\n\nprose\r\n")
    edit_page(tmp_path, "p.md", lambda text, off: upsert_line(text, off, "- uses [[Kafka]]", _is("uses", "Kafka")))
    data = page.read_bytes()
    assert data.startswith(b"---\r\na: 1\r\n---\n# X\n\nprose\r\n") and data.endswith(b"- uses [[Kafka]]\n")


def test_crlf_pages_stay_crlf(tmp_path):
    from kbgraph.pages.files import edit_page

    page = tmp_path / "p.md"
    page.write_bytes(b"# X\r\n\r\nprose\r\n")
    edit_page(tmp_path, "p.md", lambda text, off: upsert_line(text, off, "- uses [[Kafka]]", _is("uses", "Kafka")))
    assert page.read_bytes() == b"# X\r\n\r\nprose\r\n\r\n## Relations\r\n\r\n- uses [[Kafka]]\r\n"

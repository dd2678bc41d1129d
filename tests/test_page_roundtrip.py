"""A page round-trips byte for byte when a relation is added and then removed: a page without a final
newline gets none, and a `## Relations` heading the user wrote stays, even empty."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbgraph.pages.relation_lines import parse_relation_lines, remove_lines, upsert_line
from kbgraph.base.vault import split_frontmatter

from .conftest import fast, kbg

# Prose that cannot itself be a heading, list item, code fence or link (as in test_relation_lines).
_prose = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r#[]-*+`~"), max_size=120)
_USER_HEADINGS = ("", "\n## Relations", "\n## Relations\n", "\n## Relations\n\n", "\n## Relations\n\n\n",
                  "\n## Relations\n## Notes\n\nmore\n", "\n## Relations\n\n## Notes\n\nmore")


def _is(target: str):
    return lambda line: (line.type, line.target) == ("uses", target)


@fast(300)
@given(prose=_prose, heading=st.sampled_from(_USER_HEADINGS), with_frontmatter=st.booleans(),
       targets=st.lists(st.sampled_from(["Kafka", "Redis", "Vault"]), min_size=1, max_size=3, unique=True),
       removal_order=st.randoms(use_true_random=False))
def test_adding_then_removing_relations_restores_any_page(prose, heading, with_frontmatter, targets, removal_order):
    text = ("---\ntitle: T\n---\n" if with_frontmatter else "") + "# Title\n\n" + prose + heading
    _, offset = split_frontmatter(text)
    page = text
    for target in targets:
        page = upsert_line(page, offset, f"- uses [[{target}]]", _is(target))
    parsed, _ = parse_relation_lines(page, offset)
    assert [line.target for line in parsed] == targets
    removal_order.shuffle(targets)
    for target in targets:
        page, removed = remove_lines(page, offset, _is(target))
        assert removed == 1
    assert page == text


def test_a_users_empty_heading_stays_and_gets_the_line_right_under_it():
    text = "# Kafka\n\n## Relations\n\n## Notes\n\nmore\n"
    added = upsert_line(text, 0, "- uses [[Zookeeper]]", _is("Zookeeper"))
    assert added == "# Kafka\n\n## Relations\n- uses [[Zookeeper]]\n\n## Notes\n\nmore\n"
    assert remove_lines(added, 0, _is("Zookeeper"))[0] == text


def test_a_page_without_a_final_newline_keeps_none():
    added = upsert_line("# Kafka\n\nOur bus.", 0, "- uses [[Zookeeper]]", _is("Zookeeper"))
    assert added == "# Kafka\n\nOur bus.\n\n## Relations\n\n- uses [[Zookeeper]]"
    assert remove_lines(added, 0, _is("Zookeeper"))[0] == "# Kafka\n\nOur bus."


def test_relate_then_unrelate_through_the_cli_leaves_pages_byte_for_byte(unmapped_vault):
    dana = unmapped_vault / "people" / "dana-kowalski.md"
    dana.write_bytes(dana.read_bytes().rstrip(b"\n"))  # no final newline
    ben = unmapped_vault / "people" / "ben-okafor.md"
    ben.write_bytes(ben.read_bytes() + b"\n## Relations\n")  # the user's own empty heading
    kbg(unmapped_vault, "index")
    pages = {path: path.read_bytes() for path in (dana, ben)}
    for name in ("Dana Kowalski", "Ben Okafor"):
        kbg(unmapped_vault, "entity", "relate", name, "--type", "works-with", "--target", "Chen Wei")
    assert all(path.read_bytes() != before for path, before in pages.items())
    for name in ("Dana Kowalski", "Ben Okafor"):
        kbg(unmapped_vault, "entity", "unrelate", name, "--type", "works-with", "--target", "Chen Wei")
    assert {path: path.read_bytes() for path in pages} == pages

"""Extraction on an entity's own page: "this proposal" names the page's entity, "See also" lines relate
it, and link markup between two mentions is not words."""

from __future__ import annotations

from kbgraph.extract.stage import extract_from_chunks
from kbgraph.entities.mentions import Form, MentionMatcher
from kbgraph.vocabulary import Vocabulary

VOCAB = Vocabulary()
TYPES = {1: "project", 2: "project", 3: "project", 4: "person"}


def _mentions(text: str, names: dict[str, int]) -> list[tuple[int, int, int, int]]:
    out = []
    for surface, entity_id in names.items():
        start = text.find(surface)
        while start >= 0:
            out.append((entity_id, 10, start, start + len(surface)))
            start = text.find(surface, start + 1)
    return out


def _found(text: str, names: dict[str, int], page: int | None = 1) -> set[tuple[int, str, int, str]]:
    rows = extract_from_chunks([(10, 0, text)], _mentions(text, names), TYPES, VOCAB, page)
    return {(r["source_id"], r["type"], r["target_id"], r["rule"]) for r in rows}


def test_this_kep_names_the_page_entity_through_link_markup():
    text = "## Status\n\nThis KEP has been replaced by [KEP 2433: Topology Aware Hints](https://x.io/issues/2433)."
    assert _found(text, {"KEP 2433": 2}) == {(2, "replaces", 1, "replaced-by")}


def test_this_proposal_is_nothing_off_an_entity_page():
    text = "This proposal depends on [Dynamic Resource Allocation](../dra.md)."
    assert _found(text, {"Dynamic Resource Allocation": 2}, page=None) == set()
    assert _found(text, {"Dynamic Resource Allocation": 2}) == {(1, "depends-on", 2, "depends-on")}


def test_a_negated_or_hedged_self_reference_states_nothing():
    assert _found("This KEP does not depend on Node Features.", {"Node Features": 2}) == set()
    assert _found("This KEP might replace Node Features.", {"Node Features": 2}) == set()


def test_see_also_relates_the_page_to_each_named_entity():
    text = "See also: [KEP-4815 (Partitionable Devices)](/keps/4815) and [[Project Atlas]]."
    assert _found(text, {"KEP-4815": 2, "Project Atlas": 3}) == {
        (1, "related-to", 2, "see-also"), (1, "related-to", 3, "see-also")}


def test_see_also_skips_a_name_buried_inside_a_longer_link_label():
    text = "* See also [Pruning for Custom Resources KEP](https://x.io/crd-pruning.md)"
    assert _found(text, {"Custom Resources": 2}) == set()


def test_see_also_needs_a_page_and_an_allowed_type_pair():
    text = "See also [[Project Atlas]] and [[Ana Lima]]."
    assert _found(text, {"Project Atlas": 3}, page=None) == set()
    # related-to is project to project: a person on the line is left alone
    assert _found(text, {"Project Atlas": 3, "Ana Lima": 4}) == {(1, "related-to", 3, "see-also")}


def test_a_numbered_name_matches_with_a_space_or_a_hyphen():
    matcher = MentionMatcher([Form(7, "KEP-2433", "name"), Form(8, "RFC 7231", "name"), Form(9, "Jean-Luc", "name")])
    found = [(surface, ids) for _, _, surface, ids in matcher.scan("KEP 2433 and RFC-7231 and KEP-2433, not Jean Luc")]
    assert found == [("KEP 2433", {7}), ("RFC-7231", {8}), ("KEP-2433", {7})]

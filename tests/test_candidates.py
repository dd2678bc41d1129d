"""Candidate entities: names the notes use that are not entities yet, with the rule that found them."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

import re

from kbgraph.extract.candidates import TECHNOLOGIES, clear_kind_candidates, find_candidates

from .conftest import fast, kbg


@pytest.mark.parametrize("text, surface, entity_type, rule", [
    ("Ping @jane-doe about it.", "jane-doe", "person", "handle"),
    ("Tracked in PROJ-1234 since May.", "PROJ-1234", "concept", "issue-key"),
    ("See https://example.com/design/v2.", "https://example.com/design/v2", "concept", "url"),
    ("The config lives in deploy/prod/values.yaml now.", "deploy/prod/values.yaml", "concept", "path"),
    ("Set a PodDisruptionBudget first.", "PodDisruptionBudget", "concept", "camel-case"),
    ("Call `reconcile_state` twice.", "reconcile_state", "concept", "code"),
    ("We moved the queue to rabbitmq.", "RabbitMQ", "technology", "technology-list"),
    ("Thanks Priya Raman for the review.", "Priya Raman", "person", "name-in-context"),
    ("Zoë O'Brien said the rollout is done.", "Zoë O'Brien", "person", "name-in-context"),
])
def test_each_rule_finds_its_kind_of_name(text, surface, entity_type, rule):
    found = [(c.surface, c.type, c.rule) for c in find_candidates(text)]
    assert (surface, entity_type, rule) in found
    for c in find_candidates(text):
        assert text[c.start:c.end].casefold() == c.surface.casefold()


@pytest.mark.parametrize("text", ["an email@example.com address", "The Decision\n\nWe chose", "version 1.2.3"])
def test_what_is_not_a_candidate(text):
    assert [c for c in find_candidates(text) if c.rule in ("handle", "name-in-context", "path")] == []


# The technology list as the plain alternation it replaces: the trie in lower-cased text must agree.
_PLAIN_TECH = re.compile(r"(?<![\w.-])(" + "|".join(re.escape(t) for t in sorted(TECHNOLOGIES, key=len, reverse=True))
                         + r")(?![\w-])", re.IGNORECASE)
_TECH_WORDS = st.sampled_from([*TECHNOLOGIES, "node", "js", "spark", "APACHE SPARK", "kafkaesque", "re-dis", "S3x"])


@fast(300)
@given(st.lists(st.one_of(_TECH_WORDS, st.sampled_from([" ", ".", "-", "_", "İ", "ß", "\n", "@", "Ω"]),
                          st.text(max_size=3)), max_size=12))
def test_technologies_found_are_those_of_the_plain_alternation(parts):
    text = "".join(parts)
    expected = [(m.start(1), m.end(1)) for m in _PLAIN_TECH.finditer(text)]
    found = [(c.start, c.end) for c in clear_kind_candidates(text) if c.rule == "technology-list"]
    assert found == expected


@fast(200)
@given(st.text(max_size=300))
def test_any_text_gives_non_overlapping_candidates_without_raising(text):
    found = find_candidates(text)
    assert all(a.end <= b.start for a, b in zip(found, found[1:]))


def test_candidates_across_the_vault_leave_out_known_entities(indexed_vault):
    rows = kbg(indexed_vault, "entity", "candidates")["candidates"]
    names = [r["surface"] for r in rows]
    assert names[:2] == ["MySQL", "Redis"] and "Kafka" not in names
    assert rows[0] == {"surface": "MySQL", "type": "technology", "rule": "technology-list", "count": rows[0]["count"],
                       "documents": rows[0]["documents"], "example": rows[0]["example"]}
    people = kbg(indexed_vault, "entity", "candidates", "--type", "person", "--min-count", "1")["candidates"]
    assert all(r["type"] == "person" for r in people)

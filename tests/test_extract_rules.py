"""Pattern extraction, scored on a labelled set of sentences (tests/data/relation_sentences.jsonl)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from kbgraph.extract.rules import Span, extract, sentences
from kbgraph.vocabulary import Vocabulary

LABELLED = Path(__file__).parent / "data" / "relation_sentences.jsonl"
VOCAB = Vocabulary()


def _spans(text: str, entities: dict[str, str]) -> list[Span]:
    spans = []
    for surface, entity_type in entities.items():
        start = text.index(surface)
        spans.append(Span(start, start + len(surface), surface, entity_type))
    # A surface inside a longer one ("Atlas" in "Project Atlas") is not a mention of its own.
    return [s for s in spans if not any(o is not s and o.start <= s.start and s.end <= o.end for o in spans)]


def _predict(case: dict) -> set[tuple[str, str, str]]:
    types = case["entities"]
    out = set()
    for found in extract(case["text"], _spans(case["text"], types)):
        rtype = VOCAB.types[found.type]
        if rtype.allows(types[found.source], types[found.target]):  # what the pipeline keeps
            source, target = found.source, found.target
            if rtype.symmetric:
                source, target = sorted((source, target))
            out.add((source, found.type, target))
    return out


def _expected(case: dict) -> set[tuple[str, str, str]]:
    out = set()
    for source, rel_type, target in case["expected"]:
        if VOCAB.types[rel_type].symmetric:
            source, target = sorted((source, target))
        out.add((source, rel_type, target))
    return out


def _cases() -> list[dict]:
    return [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_labelled_set_is_large_and_well_formed():
    cases = _cases()
    assert len(cases) >= 150
    for case in cases:
        for surface in case["entities"]:
            assert surface in case["text"], case
        for source, rel_type, target in case["expected"]:
            assert rel_type in VOCAB.types and source in case["entities"] and target in case["entities"], case


def test_precision_and_recall_on_the_labelled_set():
    true_pos = false_pos = false_neg = 0
    wrong = []
    for case in _cases():
        predicted, expected = _predict(case), _expected(case)
        true_pos += len(predicted & expected)
        false_pos += len(predicted - expected)
        false_neg += len(expected - predicted)
        wrong += [(case["text"], p) for p in predicted - expected]
    precision = true_pos / max(true_pos + false_pos, 1)
    recall = true_pos / max(true_pos + false_neg, 1)
    print(f"\nlabelled set: precision {precision:.3f}, recall {recall:.3f} ({true_pos} right, {false_pos} wrong, "
          f"{false_neg} missed)")
    assert precision >= 0.95, wrong
    assert recall >= 0.75


@pytest.mark.parametrize("category", ["negation", "hypothetical", "distractor"])
def test_negations_hypotheticals_and_distractors_yield_nothing(category):
    stated = [(c["text"], _predict(c)) for c in _cases() if c.get("note") == category and _predict(c)]
    assert stated == []


@pytest.mark.parametrize("text", [
    "Ana Lima does not report to Ben Okafor.",
    "Ana Lima no longer reports to Ben Okafor.",
    "Ana Lima might report to Ben Okafor next quarter.",
    "Does Ana Lima report to Ben Okafor?",
    "If Ana Lima reports to Ben Okafor, the org chart changes.",
])
def test_the_positive_is_not_read_into_a_negated_or_hedged_sentence(text):
    assert extract(text, _spans(text, {"Ana Lima": "person", "Ben Okafor": "person"})) == []


def test_inverse_phrasings_are_stored_canonically():
    text = "Checkout Revamp is blocked by Project Atlas."
    (found,) = extract(text, _spans(text, {"Checkout Revamp": "project", "Project Atlas": "project"}))
    assert (found.source, found.type, found.target) == ("Project Atlas", "blocks", "Checkout Revamp")
    text = "We switched from MySQL to PostgreSQL in March."
    (found,) = extract(text, _spans(text, {"MySQL": "technology", "PostgreSQL": "technology"}))
    assert (found.source, found.type, found.target, found.rule) == ("PostgreSQL", "replaces", "MySQL", "switched")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_text_splits_into_sentences_that_cover_it_without_raising(text):
    spans = sentences(text)
    assert all(0 <= s < e <= len(text) for s, e in spans)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200), st.lists(st.tuples(st.integers(0, 200), st.integers(1, 20)), max_size=4))
def test_extract_never_raises_on_any_sentence_and_spans(text, raw_spans):
    spans = [Span(min(s, len(text)), min(s + n, len(text)), i, "person") for i, (s, n) in enumerate(raw_spans)]
    for found in extract(text, spans):
        assert found.source != found.target

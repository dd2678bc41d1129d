"""Keyword search: how user text becomes a neutral TextQuery, and what comes back."""

from __future__ import annotations

import pytest

from kbgraph.access import LOCAL
from kbgraph.errors import InvalidInput
from kbgraph.model import Term
from kbgraph.search import parse_query, search
from kbgraph.store.base import DocFilter


def t(*words: str, prefix: bool = False) -> Term:
    return Term(words, prefix)


@pytest.mark.parametrize("query, terms, exclusions", [
    ("kube-proxy", [t("kube", "proxy")], []),  # a hyphen inside a word is not an exclusion
    ("budget -kafka", [t("budget")], [t("kafka")]),
    ('"key rotation" -staging', [t("key", "rotation")], [t("staging")]),
    ("rotation*", [t("rotation", prefix=True)], []),
    ("kube-prox*", [t("kube", "prox")], []),  # only a single word is a prefix
    ("cats AND dogs OR NEAR(birds)", [t("cats"), t("dogs"), t("birds")], []),
    ("AND", [t("AND")], []),  # a connector alone is a word to find
    ("_ kafka", [t("kafka")], []),
    ('kafka "kafka" -x -x', [t("kafka")], [t("x")]),  # each term once
    ("-", [], []),
])
def test_user_text_becomes_terms_phrases_prefixes_and_exclusions(query, terms, exclusions):
    parsed = parse_query(query)
    assert (list(parsed.terms), list(parsed.exclusions), parsed.require) == (terms, exclusions, "all")


def test_all_terms_first_then_any_term_fills_the_limit(indexed):
    _, store = indexed
    result = search(store, "token rotation", limit=20, access=LOCAL)
    assert result.mode == "all-terms+any-term"
    all_terms = {doc for doc, _ in store.ranked_docs(LOCAL, parse_query("token rotation"), DocFilter(), 500)}
    assert 0 < len(all_terms) < len(result.hits)
    assert {h.doc_id for h in result.hits[: len(all_terms)]} == all_terms, "documents with every term come first"


def test_one_hit_per_document_with_its_best_section(indexed):
    _, store = indexed
    hits = search(store, "Atlas", limit=50, access=LOCAL).hits
    assert len({h.doc_id for h in hits}) == len(hits)


def test_phrase_and_exclusion(indexed):
    _, store = indexed
    phrase = search(store, '"token rotation"', limit=50, access=LOCAL).hits
    assert phrase and all("token rotation" in h.snippet.lower().replace("**", "") for h in phrase)
    without = search(store, "rotation -token", limit=50, access=LOCAL).hits
    assert all("token" not in h.snippet.lower() for h in without)


def test_filters_apply_before_the_limit(indexed):
    _, store = indexed
    hits = search(store, "Atlas", DocFilter(kinds=("decision",)), limit=2, access=LOCAL).hits
    assert len(hits) == 2 and {h.kind for h in hits} == {"decision"}


def test_empty_query_is_invalid_and_punctuation_is_empty(indexed):
    _, store = indexed
    with pytest.raises(InvalidInput, match="empty query"):
        search(store, "   ", access=LOCAL)
    assert search(store, "?!…", access=LOCAL).mode == "empty"

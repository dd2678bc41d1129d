"""Passage retrieval: search(..., unit="passage") ranks sections across all documents, several per
document allowed, with the same signals, filters, access, explain and CLI as document search."""

from __future__ import annotations

import json

import pytest

from kbgraph.access import LOCAL, Access
from kbgraph.errors import InvalidInput
from kbgraph.ingest.pipeline import index_vault
from kbgraph.search import search
from kbgraph.store import open_store
from kbgraph.store.base import DocFilter

from .conftest import run_kbg

SESSION_1 = """---
type: conversation
date: 2026-03-02
participants: [Maria Garcia, Tom Becker]
visibility: public
---
# Session 1

## Maria Garcia
How was the weekend? Did the move go well?

## Tom Becker
Exhausting. We carried forty boxes up four floors.

## Maria Garcia
We finally brought home a little beagle from the shelter on Saturday!

## Tom Becker
A beagle! What did you name him?

## Maria Garcia
Biscuit. He already chewed one of my running shoes.
"""

SESSION_2 = """---
type: conversation
date: 2026-04-11
participants: [Maria Garcia, Tom Becker]
visibility: public
---
# Session 2

## Tom Becker
How is Biscuit doing?

## Maria Garcia
Great, and we adopted a grey cat too, she mostly sleeps on the radiator.

## Tom Becker
My sister is visiting next month, I should clean the flat.
"""


@pytest.fixture(scope="module")
def talks(tmp_path_factory):
    root = tmp_path_factory.mktemp("talks")
    (root / "conversations").mkdir()
    (root / "conversations" / "session-01.md").write_text(SESSION_1)
    (root / "conversations" / "session-02.md").write_text(SESSION_2)
    (root / "notes").mkdir()
    (root / "notes" / "private.md").write_text("---\nvisibility: private\nowner: tom\n---\n# Tom's list\n\n"
                                               "## Beagle\nA beagle beagle beagle shelter note, Tom's only.\n")
    report = index_vault(root)
    assert report.errors == 0, report.problems
    store = open_store(root)
    yield root, store
    store.close()


def _turns(hits):
    return [(h.path, h.line) for h in hits]


def test_several_sections_of_one_document_can_answer(talks):
    _, store = talks
    passages = search(store, "beagle", limit=10, unit="passage", mode="bm25", access=LOCAL).hits
    in_first = [h for h in passages if h.path == "conversations/session-01.md"]
    assert len(in_first) >= 2  # the adoption turn and the reply that names the beagle
    assert len({h.chunk_id for h in passages}) == len(passages)  # each section once
    documents = search(store, "beagle", limit=10, mode="bm25", access=LOCAL).hits
    assert len({h.path for h in documents}) == len(documents)  # the document unit: one hit each


def test_a_passage_hit_points_at_its_own_section(talks):
    root, store = talks
    hit = search(store, "radiator cat", limit=1, unit="passage", mode="bm25", access=LOCAL).hits[0]
    lines = (root / hit.path).read_text().splitlines()
    assert lines[hit.line - 1] == "## Maria Garcia" and "radiator" in lines[hit.line]
    assert hit.heading.endswith("Maria Garcia")


def test_passage_vectors_rank_sections_by_their_own_vector(talks):
    _, store = talks
    hits = search(store, "adopted a grey cat, sleeps on the radiator", limit=3, unit="passage", mode="vector", access=LOCAL).hits
    assert hits and "radiator" in hits[0].snippet


def test_filters_and_access_apply_to_passages_before_the_limit(talks):
    _, store = talks
    dated = search(store, "Biscuit", DocFilter(date_from="2026-04-01"), limit=5, unit="passage", mode="bm25", access=LOCAL).hits
    assert _turns(dated) == [("conversations/session-02.md", 9)]
    ana = Access.of("ana", ["public", "team"], "normal")
    seen = {h.path for h in search(store, "beagle shelter", limit=10, unit="passage", access=ana).hits}
    assert "notes/private.md" not in seen and seen
    tom = Access.of("tom", ["public", "team"], "normal")
    assert "notes/private.md" in {h.path for h in search(store, "beagle shelter", limit=10, unit="passage",
                                                         access=tom).hits}


def test_explain_names_the_passage_formula_and_each_signal(talks):
    _, store = talks
    hit = search(store, "beagle shelter", limit=1, unit="passage", explain=True, access=LOCAL).hits[0]
    assert hit.explain.formula.startswith("rrf-3/passage")
    assert {s.signal for s in hit.explain.signals} <= {"bm25", "vector", "graph"}
    assert hit.explain.signals


def test_a_pinned_entity_keeps_passages_of_its_documents(shared_sample):
    store = open_store(shared_sample)
    try:
        hits = search(store, "rollout", limit=10, unit="passage", entity="Ben Okafor", access=LOCAL).hits
    finally:
        store.close()
    assert hits
    assert all(hit.via and hit.via.startswith("Ben Okafor") for hit in hits)  # each tied, and says how


def test_unknown_unit_is_invalid(talks):
    _, store = talks
    with pytest.raises(InvalidInput) as caught:
        search(store, "beagle", unit="sentence", access=LOCAL)
    assert caught.value.param == "unit"


def test_cli_passages_flag(talks):
    root, _ = talks
    result = run_kbg("search", "beagle", "--passages", "--mode", "bm25", "--vault", str(root), "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["unit"] == "passage"
    paths = [h["path"] for h in out["hits"]]
    assert paths.count("conversations/session-01.md") >= 2
    assert all(h["line"] > 1 for h in out["hits"])


def test_auto_document_vectors_compare_a_question_with_sections_and_a_paragraph_with_whole_notes():
    import numpy as np

    from kbgraph.search.vectors import PARAGRAPH_WORDS, VectorSearch, nearest_documents

    class Fixed:  # every query embeds to the first axis
        def embed(self, texts):
            return np.array([[1.0, 0.0, 0.0]] * len(texts), dtype=np.float32)

    def unit(*v):
        a = np.array(v, dtype=np.float32)
        return a / np.linalg.norm(a)

    # document 1 answers in one section of four; every section of document 2 is about the query, loosely
    rows = [unit(1, 0, 0), unit(0, 1, 0), unit(0, 0, 1), unit(0, 1, 1), unit(.6, .8, 0), unit(.6, 0, .8),
            unit(.6, .8, 0), unit(.6, 0, .8)]
    prepared = VectorSearch(Fixed(), np.arange(1, 9), np.array([1, 1, 1, 1, 2, 2, 2, 2]), np.stack(rows), 0)
    question = nearest_documents(prepared, "what did she adopt", 2, 0.0)
    paragraph = nearest_documents(prepared, " ".join(["word"] * (PARAGRAPH_WORDS + 1)), 2, 0.0)
    assert [r.doc_id for r in question] == [1, 2] and question[0].chunk_id == 1
    assert [r.doc_id for r in paragraph] == [2, 1]
    assert [r.doc_id for r in nearest_documents(prepared, "q", 2, 0.0, by="centroid")] == [2, 1]

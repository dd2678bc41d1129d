"""The sample vault indexed into PostgreSQL reads as it does from SQLite: the same export, entities,
relations, graph answers and search hits, and writes (relate, unrelate) work the same way.

Runs where KBG_TEST_PG names a PostgreSQL database (`.ci/run` sets it); skipped elsewhere."""

from __future__ import annotations

import os
import shutil

import pytest

from kbgraph.access import LOCAL, Access
from kbgraph.config import load_config
from kbgraph.entities.lookup import find_entity
from kbgraph.graph.neighbours import neighbours
from kbgraph.graph.paths import path
from kbgraph.graph.view import GraphView
from kbgraph.ingest.pipeline import index_vault
from kbgraph.migrate import without_run_times
from kbgraph.portable import export_data
from kbgraph.relations.records import entity_relations
from kbgraph.search.engine import search
from kbgraph.workspace import Workspace

from .conftest import SAMPLE_VAULT

pytestmark = pytest.mark.postgres

URL = os.environ.get("KBG_TEST_PG")
VIEW = GraphView((), None, False, False)


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """The sample vault twice, one indexed into SQLite and one into a fresh PostgreSQL database."""
    if not URL:
        pytest.skip("set KBG_TEST_PG to a PostgreSQL URL to run the PostgreSQL backend's end-to-end tests")
    from kbgraph.store.postgres import open_store
    from kbgraph.store.sqlite.store import SqliteStore

    opened = {}
    for name in ("sqlite", "postgres"):
        root = tmp_path_factory.mktemp(name) / "vault"
        shutil.copytree(SAMPLE_VAULT, root, ignore=shutil.ignore_patterns(".kbgraph"))
        store = SqliteStore.open_vault(root) if name == "sqlite" else open_store(URL, fresh=True)
        report = index_vault(root, store=store)
        assert report.errors == 0
        opened[name] = Workspace(root, load_config(root), store)
    yield opened
    for ws in opened.values():
        ws.close()


def test_the_export_is_the_same(both):
    lite, pg = (without_run_times(export_data(ws.store, ws.config.vocabulary.symmetric_names())) for ws in both.values())
    for key in lite:
        assert pg[key] == lite[key], key


def test_stats_count_the_same(both):
    keys = ("documents", "chunks", "entities", "mentions", "relations", "links", "documents_by_kind",
            "entities_by_type")
    lite, pg = ({k: ws.store.stats()[k] for k in keys} for ws in both.values())
    assert pg == lite


def test_relations_and_graph_answers_are_the_same(both):
    answers = []
    for ws in both.values():
        vocab = ws.config.vocabulary
        ben = find_entity(ws.store, "Ben Okafor", access=LOCAL)
        relations = entity_relations(ws.store, vocab, ben, None, False, access=LOCAL)
        near = neighbours(ws.store, vocab, ben, 2, "both", VIEW, None, access=LOCAL)
        route = path(ws.store, vocab, find_entity(ws.store, "Sam Li", access=LOCAL), find_entity(ws.store, "Kafka", access=LOCAL), False, 6,
                     VIEW, access=LOCAL)
        answers.append(without_run_times((relations, near, route)))
    assert answers[0] == answers[1]


@pytest.mark.parametrize("query", ["token rotation", "kafka", "Atlas launch", "payments gateway"])
def test_keyword_search_finds_the_same_best_document(both, query):
    tops = [[h.path for h in search(ws.store, query, mode="bm25", limit=5, access=LOCAL).hits] for ws in both.values()]
    assert tops[1] and tops[1][0] == tops[0][0]
    assert len(set(tops[0]) & set(tops[1])) >= min(3, len(tops[0]))


def test_hybrid_search_and_passages_answer(both):
    ws = both["postgres"]
    hybrid = search(ws.store, "who owns the payments gateway", config=ws.config, mode="hybrid", limit=5, access=LOCAL)
    assert hybrid.hits
    passages = search(ws.store, "token rotation", config=ws.config, unit="passage", limit=5, access=LOCAL)
    assert passages.hits


def test_a_reader_sees_only_what_it_may(both):
    ws = both["postgres"]
    nobody = Access.of("nobody", ("public",), "normal")  # the sample vault says nothing is public
    assert not search(ws.store, "kafka", mode="bm25", access=nobody).hits
    assert not ws.store.list_entities(nobody)


def test_relate_and_unrelate_write_the_page_and_the_row(both):
    from kbgraph.relations.edits import relate, unrelate

    ws = both["postgres"]
    made = relate(ws, "Sam Li", "mentors", "Chen Wei")
    assert made["mirrored_to"] == "people/sam-li.md"
    assert "- mentors [[Chen Wei]]" in (ws.root / "people/sam-li.md").read_text()
    sam = find_entity(ws.store, "Sam Li", access=LOCAL)
    assert "Chen Wei" in {r["target"] for r in entity_relations(ws.store, ws.config.vocabulary, sam, "mentors",
                                                                   False, access=LOCAL)["relations"]}
    unrelate(ws, "Sam Li", "mentors", "Chen Wei")
    assert "- mentors [[Chen Wei]]" not in (ws.root / "people/sam-li.md").read_text()
    assert any(v.type == "mentors" for v in ws.store.relation_history(LOCAL))

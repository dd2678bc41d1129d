"""A feature's re-read after a write goes through the workspace's port (issue 27 item 1): the default
pipeline over the workspace's own config and store. Before, each write re-entered index_vault, which
read kbgraph.toml again (load_config) on every re-read."""

from __future__ import annotations

import dataclasses

import pytest

from kbgraph import store as store_package
from kbgraph.access import LOCAL
from kbgraph.base.workspace import Workspace as BaseWorkspace
from kbgraph.context.facts import add_fact
from kbgraph.curation.mention_edits import relink, unlink
from kbgraph.entities.lookup import find_entity
from kbgraph.ingest import pipeline
from kbgraph.relations.edits import relate, unrelate
from kbgraph.relations.records import entity_relations
from kbgraph.workspace import DefaultIndex, Workspace


@pytest.fixture
def opened(indexed_vault, monkeypatch):
    """The sample vault's workspace, opened; then kbgraph.toml and the store may not be opened again."""
    ws = Workspace.open(str(indexed_vault))

    def refused(*args, **kwargs):
        raise AssertionError("a re-read opened kbgraph.toml or the store again")

    monkeypatch.setattr(pipeline, "load_config", refused)
    monkeypatch.setattr(store_package, "open_store", refused)
    yield ws
    ws.close()


def _mentors(ws) -> list[str]:
    sam = find_entity(ws.store, "Sam Li", access=LOCAL)
    relations = entity_relations(ws.store, ws.config.vocabulary, sam, "mentors", False, access=LOCAL)
    return [r["target"] for r in relations["relations"]]


def test_writes_re_read_over_the_workspace_s_config_and_store(opened):
    ws = opened
    relate(ws, "Sam Li", "mentors", "Chen Wei")  # a page line, then ws.reread
    assert _mentors(ws) == ["Chen Wei"]
    unrelate(ws, "Sam Li", "mentors", "Chen Wei")
    assert _mentors(ws) == []
    assert add_fact(ws, "Sam Li", "interest", "sailing").page == "people/sam-li.md"
    note = "meetings/2026/03/02/auth-service-launch-review.md"
    assert unlink(ws, "Ana Lima", note)["unlinked"] is True  # ws.refresh
    assert relink(ws, "Ana Lima", note)["unlinked"] is False


def test_the_port_is_the_default_pipeline_and_survives_a_changed_reader(indexed_vault):
    with Workspace.open(str(indexed_vault)) as ws:
        assert isinstance(ws.index, DefaultIndex)
        assert isinstance(dataclasses.replace(ws, access=LOCAL).index, DefaultIndex)


def test_a_workspace_without_a_port_says_so_instead_of_importing_the_pipeline(indexed_vault):
    with Workspace.open(str(indexed_vault)) as opened:
        bare = BaseWorkspace(opened.root, opened.config, opened.store)
        with pytest.raises(TypeError, match="no index port"):
            bare.refresh()

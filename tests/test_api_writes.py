"""Writes through the HTTP API: a token writes only on what it may read; a busy vault waits or says busy,
and a refused write changes nothing."""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402

from kbgraph.ingest.pipeline import index_vault  # noqa: E402

from .conftest import copy_indexed, kbg  # noqa: E402

YURI = "---\ntype: person\nvisibility: team\n---\n# Yuri Tan\n\nRuns the harbour team.\n"
ZOE = "---\ntype: person\nvisibility: private\nowner: ana\n---\n# Zoe Hart\n\nWorks on the harbour plans.\n"


@pytest.fixture(scope="module")
def governed(indexed_sample, tmp_path_factory):
    """The sample vault plus Yuri Tan, on a page the team reads, and Zoe Hart, on ana's private page."""
    vault = copy_indexed(indexed_sample, tmp_path_factory.mktemp("writes") / "vault")
    (vault / "people/yuri-tan.md").write_text(YURI)
    (vault / "people/zoe-hart.md").write_text(ZOE)
    index_vault(vault)
    from kbgraph.access import LOCAL
    from kbgraph.store.sqlite.store import SqliteStore

    # Each entity as its page says (set here directly, whatever the index derives from pages).
    store = SqliteStore.open_vault(vault)
    with store.transaction():
        for entity in store.list_entities(LOCAL, "person"):
            if entity.name == "Yuri Tan":
                store.set_entity_governance(entity.id, None, "team", "normal")
            if entity.name == "Zoe Hart":
                store.set_entity_governance(entity.id, "ana", "private", "normal")
    store.close()
    return vault


@pytest.fixture
def vault(governed, tmp_path):
    return copy_indexed(governed, tmp_path / "vault")


def _client(vault):
    from kbgraph.api.app import create_app
    from kbgraph.workspace import Workspace

    ws = Workspace.open(str(vault))
    return ws, TestClient(create_app(ws))


def _bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def test_a_token_cannot_write_on_an_entity_it_may_not_read(vault):
    bob = kbg(vault, "token", "create", "bob")["token"]
    ana = kbg(vault, "token", "create", "ana")["token"]
    yuri_page = (vault / "people/yuri-tan.md").read_text()
    ws, client = _client(vault)
    with ws, client:
        body = {"source": "Yuri Tan", "type": "works-with", "target": "Zoe Hart"}
        refused = client.post("/relations", json=body, headers=_bearer(bob))
        assert refused.status_code == 404, refused.text
        assert "Zoe" in refused.json()["error"]["message"]
        assert (vault / "people/yuri-tan.md").read_text() == yuri_page  # nothing written
        assert client.post("/relations/remove", json=body, headers=_bearer(bob)).status_code == 404
        made = client.post("/relations", json=body, headers=_bearer(ana))  # the owner may
        assert made.status_code == 200, made.text
        assert "[[Zoe Hart]]" in (vault / "people/yuri-tan.md").read_text()
        gone = client.post("/relations/remove", json=body, headers=_bearer(bob))
        assert gone.status_code == 404  # nor take it away
        assert "[[Zoe Hart]]" in (vault / "people/yuri-tan.md").read_text()


def test_a_write_while_another_process_writes_is_busy_and_changes_nothing(vault, monkeypatch):
    from kbgraph.pages import files
    from kbgraph.relations import edits

    monkeypatch.setattr(edits, "write_lock", lambda root: files.write_lock(root, wait=0.2))
    page = (vault / "people/sam-li.md").read_text()
    ws, client = _client(vault)
    with ws, client:
        with files.write_lock(vault):  # another writer holds the vault's write lock
            response = client.post("/relations", json={"source": "Sam Li", "type": "mentors", "target": "Ana Lima"})
        assert response.status_code == 503 and response.headers["retry-after"], response.text
        assert response.json()["error"]["code"] == "busy"
        assert (vault / "people/sam-li.md").read_text() == page
        listed = client.get("/relations", params={"name": "Sam Li", "type": "mentors"}).json()
        assert not listed["relations"]


def test_a_write_while_kbg_index_runs_waits_for_it_and_is_kept(vault):
    from kbgraph.locks import index_lock

    ws, client = _client(vault)
    held = threading.Event()

    def index_running():
        with index_lock(vault):
            held.set()
            time.sleep(0.6)

    with ws, client:
        runner = threading.Thread(target=index_running)
        runner.start()
        held.wait(5)
        started = time.monotonic()
        response = client.post("/relations", json={"source": "Sam Li", "type": "mentors", "target": "Ana Lima"})
        runner.join()
        assert response.status_code == 200, response.text
        assert time.monotonic() - started >= 0.3  # it waited for the index to finish
        listed = client.get("/relations", params={"name": "Sam Li", "type": "mentors"}).json()
        assert [r["target"] for r in listed["relations"]] == ["Ana Lima"]
    assert "- mentors [[Ana Lima]]" in (vault / "people/sam-li.md").read_text()

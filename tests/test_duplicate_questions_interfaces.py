"""Duplicate-page questions (`kbg resolve duplicates`) wait in the one question queue every interface
reads: the HTTP API's /resolve/pending and MCP's resolution_pending list them with their why, and
confirming one there links the pages (same_as) as `kbg resolve confirm` does."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("mcp.server.mcpserver")

from fastapi.testclient import TestClient  # noqa: E402
from mcp import Client  # noqa: E402

from kbgraph.ingest.pipeline import index_vault  # noqa: E402
from kbgraph.resolve.duplicate_pages import find_duplicate_pages  # noqa: E402
from kbgraph.workspace import Workspace  # noqa: E402

from .conftest import copy_indexed  # noqa: E402

PAGES = {"people/jon-smith.md": "Jon Smith", "people/jonathan-smith.md": "Jonathan Smith"}


@pytest.fixture(scope="module")
def two_pages_indexed(tmp_path_factory):
    vault = tmp_path_factory.mktemp("dups") / "vault"
    (vault / "people").mkdir(parents=True)
    for path, name in PAGES.items():
        (vault / path).write_text(f"---\ntype: person\nname: {name}\nemail: jsmith@acme.io\n---\n# {name}\n\nNotes.\n")
    index_vault(vault)
    return vault


@pytest.fixture
def ws(two_pages_indexed, tmp_path):
    vault = copy_indexed(two_pages_indexed, tmp_path / "vault")
    with Workspace.open(str(vault)) as workspace:
        [asked] = find_duplicate_pages(workspace.store, workspace.access)["asked"]
        workspace.asked = asked  # type: ignore[attr-defined]
        yield workspace


def _same_as_written(ws) -> list[str]:
    return [path for path in PAGES if "same_as:" in (ws.root / path).read_text()]


def test_the_http_api_lists_and_confirms_a_duplicate_page_question(ws):
    from kbgraph.api.app import create_app

    with TestClient(create_app(ws)) as client:
        pending = client.get("/resolve/pending").json()["questions"]
        [question] = [q for q in pending if q["id"] == ws.asked["id"]]
        assert question["why"].startswith("duplicate pages: agree:") and "jsmith@acme.io" in question["why"]
        confirmed = client.post(f"/resolve/{question['id']}/confirm")
        assert confirmed.status_code == 200, confirmed.text
        assert client.get("/resolve/pending").json()["questions"] == []
        assert len(_same_as_written(ws)) == 1
        profile = client.get("/entities/profile", params={"name": "Jon Smith"}).json()
        assert sorted(profile["pages"]) == sorted(PAGES)


def test_mcp_lists_and_confirms_a_duplicate_page_question(ws):
    from kbgraph.mcp import build_server

    async def go():
        async with Client(build_server(workspace=ws)) as c:
            listed = (await c.call_tool("resolution_pending", {})).structured_content["questions"]
            done = await c.call_tool("resolution_confirm", {"question_id": ws.asked["id"]})
            after = (await c.call_tool("resolution_pending", {})).structured_content["questions"]
            return listed, done, after

    listed, done, after = asyncio.run(go())
    [question] = [q for q in listed if q["id"] == ws.asked["id"]]
    assert question["why"].startswith("duplicate pages: agree:")
    assert not done.is_error, done.content
    assert after == [] and len(_same_as_written(ws)) == 1

"""Relation conflicts over HTTP: listed as `kbg graph conflicts --json` prints them, settled as `kbg graph resolve`."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402

from .conftest import copy_indexed  # noqa: E402

# Chen Wei reports to Ben Okafor on his page; a second, undated manager is a factual conflict, left open.
SECOND_MANAGER = {"source": "Chen Wei", "type": "reports-to", "target": "Lena Fischer"}


@pytest.fixture
def client(indexed_sample, tmp_path):
    from kbgraph.api.app import create_app
    from kbgraph.workspace import Workspace

    with Workspace.open(str(copy_indexed(indexed_sample, tmp_path / "vault"))) as ws, TestClient(create_app(ws)) as c:
        yield c


def _ok(response, status: int = 200) -> dict:
    assert response.status_code == status, response.text
    return response.json()


def _open_conflict(client) -> dict:
    made = _ok(client.post("/relations", json=SECOND_MANAGER))
    assert [c["kind"] for c in made["conflicts"]] == ["factual"]
    return made["conflicts"][0]


def _chen_managers(client) -> list[str]:
    rows = _ok(client.get("/relations", params={"name": "Chen Wei", "type": "reports-to"}))["relations"]
    return sorted(r["target"] for r in rows if not r["expired"])


def test_an_open_conflict_is_listed_as_the_cli_prints_it(client):
    assert _ok(client.get("/relations/conflicts")) == {"count": 0, "conflicts": []}
    made = _open_conflict(client)
    listed = _ok(client.get("/relations/conflicts"))
    assert listed["count"] == 1 and listed["conflicts"] == [made]
    assert set(made) == {"id", "kind", "type", "subject", "old", "new", "status", "resolution", "note"}
    assert (made["subject"], made["old"]["other"], made["new"]["other"]) == ("Chen Wei", "Ben Okafor", "Lena Fischer")


def test_resolving_keeps_one_and_leaves_the_open_list(client):
    made = _open_conflict(client)
    settled = _ok(client.post(f"/relations/conflicts/{made['id']}/resolve", json={"keep": "old"}))
    assert settled["status"] == "resolved" and settled["resolution"].startswith("kept Ben Okafor")
    assert _ok(client.get("/relations/conflicts"))["count"] == 0
    assert _ok(client.get("/relations/conflicts", params={"all": True}))["conflicts"] == [settled]
    assert _chen_managers(client) == ["Ben Okafor"], "Lena Fischer is true until yesterday"


def test_keeping_both_ends_nothing(client):
    made = _open_conflict(client)
    settled = _ok(client.post(f"/relations/conflicts/{made['id']}/resolve", json={"keep": "both"}))
    assert settled["resolution"] == "both kept"
    assert _chen_managers(client) == ["Ben Okafor", "Lena Fischer"]


def test_an_unknown_conflict_is_404(client):
    body = _ok(client.post("/relations/conflicts/99999/resolve", json={"keep": "new"}), 404)
    assert body["error"]["code"] == "not_found" and "no conflict 99999" in body["error"]["message"]


def test_a_bad_keep_or_a_settled_conflict_is_400(client):
    made = _open_conflict(client)
    bad = _ok(client.post(f"/relations/conflicts/{made['id']}/resolve", json={"keep": "newest"}), 400)
    assert bad["error"]["code"] == "invalid_input" and bad["error"]["param"] == "keep"
    assert "old, new or both" in bad["error"]["message"]
    _ok(client.post(f"/relations/conflicts/{made['id']}/resolve", json={"keep": "new"}))
    again = _ok(client.post(f"/relations/conflicts/{made['id']}/resolve", json={"keep": "new"}), 400)
    assert "resolved already" in again["error"]["message"]


def test_the_body_is_checked_like_every_other(client):
    made = _open_conflict(client)
    for body in ({}, {"keep": "old", "why": "x"}, {"keep": 1}):
        assert _ok(client.post(f"/relations/conflicts/{made['id']}/resolve", json=body), 422)["error"]["code"] == \
            "invalid_request"
    assert client.post("/relations/conflicts/0/resolve", json={"keep": "old"}).status_code == 422

"""A query parameter no route reads is refused, naming it and what the route takes: it used to be ignored,
so a misspelt filter answered as if no filter had been asked for."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402

from .conftest import copy_indexed  # noqa: E402


@pytest.fixture(scope="module")
def client(indexed_sample, tmp_path_factory):
    from kbgraph.api.app import create_app
    from kbgraph.workspace import Workspace

    with Workspace.open(str(copy_indexed(indexed_sample, tmp_path_factory.mktemp("q") / "vault"))) as ws, \
            TestClient(create_app(ws)) as c:
        yield c


def test_an_unknown_filter_is_refused_not_ignored(client):
    typed = client.get("/relations", params={"name": "Ben Okafor", "type": "manages"})
    assert typed.status_code == 200
    misspelt = client.get("/relations", params={"name": "Ben Okafor", "type_name": "manages"})
    assert misspelt.status_code == 422, misspelt.json()
    error = misspelt.json()["error"]
    assert error["code"] == "invalid_request"
    assert "query.type_name" in error["message"] and "unknown parameter" in error["message"]
    assert "type" in error["message"].split("takes:")[1]  # the names it does take


def test_declared_parameters_of_every_kind_still_pass(client):
    assert client.get("/search", params={"q": "rotation", "limit": 3}).status_code == 200
    assert client.get("/relations/conflicts", params={"all": "true"}).status_code == 200  # an alias
    assert client.get("/entities/profile", params={"name": "Ana Lima"}).status_code == 200
    assert client.get("/").status_code == 200  # the web page takes no parameters and is not checked


def test_a_route_without_parameters_names_none(client):
    response = client.get("/suggestions", params={"x": "1"})
    assert response.status_code == 422
    assert "query.x" in response.json()["error"]["message"]

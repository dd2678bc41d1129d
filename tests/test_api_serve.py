"""`kbg serve` and `kbg token`: the bind rule, tokens and who a request reads as, MCP at /mcp, the extra."""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402

from kbgraph.ingest.pipeline import index_vault  # noqa: E402

from .conftest import copy_indexed, kbg, run_kbg  # noqa: E402


@pytest.fixture(scope="module")
def governed(indexed_sample, tmp_path_factory):
    vault = copy_indexed(indexed_sample, tmp_path_factory.mktemp("serve") / "vault")
    (vault / "notes/harbour-open.md").write_text("---\nvisibility: public\n---\n# Harbour\n\nThe harbour budget is open.\n")
    (vault / "notes/harbour-secret.md").write_text(
        "---\nvisibility: private\nowner: ana\n---\n# Harbour plans\n\nThe harbour budget is secret.\n")
    index_vault(vault)
    return vault


@pytest.fixture
def vault(governed, tmp_path):
    return copy_indexed(governed, tmp_path / "vault")


def _client(vault, loopback=True, mcp=False):
    from kbgraph.api.app import create_app
    from kbgraph.mcp import build_server
    from kbgraph.workspace import Workspace

    ws = Workspace.open(str(vault))
    app = create_app(ws, loopback=loopback, mcp_server=build_server(workspace=ws) if mcp else None)
    return ws, TestClient(app)


def _paths(response) -> set[str]:
    assert response.status_code == 200, response.text
    return {h["path"] for h in response.json()["hits"]}


def test_tokens_are_shown_once_stored_hashed_listed_and_revoked(vault):
    created = kbg(vault, "token", "create", "bob")
    assert created["token"].startswith("kbg_") and created["name"] == "bob"
    listed = kbg(vault, "token", "list")["tokens"]
    assert [t["name"] for t in listed] == ["bob"] and "token" not in listed[0] and "digest" not in listed[0]
    import sqlite3

    rows = sqlite3.connect(vault / ".kbgraph/index.db").execute("SELECT salt, digest FROM api_tokens").fetchall()
    assert created["token"].split("_", 2)[2] not in str(rows)
    assert kbg(vault, "token", "create", "bob", code=1)["kind"] == "InvalidInput"
    assert kbg(vault, "token", "revoke", "bob") == {"revoked": "bob"}
    assert kbg(vault, "token", "list")["tokens"] == []


def test_with_tokens_a_request_needs_a_valid_bearer(vault):
    secret = kbg(vault, "token", "create", "bob")["token"]
    ws, client = _client(vault)
    with ws, client:
        for headers in ({}, {"Authorization": "Bearer kbg_1_" + "x" * 43}, {"Authorization": "Basic abc"},
                        {"Authorization": secret}):
            response = client.get("/search", params={"q": "harbour"}, headers=headers)
            assert response.status_code == 401 and response.json()["error"]["code"] == "unauthorized"
            assert response.headers["www-authenticate"] == "Bearer"
        ok = client.get("/search", params={"q": "harbour"}, headers={"Authorization": f"Bearer {secret}"})
        assert ok.status_code == 200
        run_kbg("token", "revoke", "bob", "--vault", str(vault))
        assert client.get("/search", params={"q": "harbour"},
                          headers={"Authorization": f"Bearer {secret}"}).status_code == 200  # no tokens: local again


def test_off_loopback_a_bearer_is_needed_even_with_no_tokens_left(vault):
    ws, client = _client(vault, loopback=False)
    with ws, client:
        assert client.get("/index/status").status_code == 401


def test_a_private_document_is_invisible_to_a_token_that_may_not_read_it(vault):
    bob = kbg(vault, "token", "create", "bob")["token"]
    ana = kbg(vault, "token", "create", "ana")["token"]
    ws, client = _client(vault)
    with ws, client:
        seen = _paths(client.get("/search", params={"q": "harbour budget"}, headers={"Authorization": f"Bearer {bob}"}))
        assert "notes/harbour-open.md" in seen and "notes/harbour-secret.md" not in seen
        hidden = client.get("/documents/view", params={"target": "notes/harbour-secret.md"},
                            headers={"Authorization": f"Bearer {bob}"})
        assert hidden.status_code == 404
        owner = _paths(client.get("/search", params={"q": "harbour budget"}, headers={"Authorization": f"Bearer {ana}"}))
        assert "notes/harbour-secret.md" in owner  # the owner reads its private note


def test_serve_refuses_a_public_address_without_tokens(vault):
    result = run_kbg("serve", "--host", "0.0.0.0", "--vault", str(vault))
    assert result.returncode == 1
    assert result.stderr.startswith("error: refusing to serve on 0.0.0.0 without tokens")
    assert len(result.stderr.strip().splitlines()) == 1


def test_serve_without_the_extra_names_it(vault, monkeypatch):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # import uvicorn now raises ImportError
    result = run_kbg("serve", "--vault", str(vault))
    assert result.returncode == 1 and "pip install 'kbgraph[serve]'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_the_bind_rule():
    from kbgraph.api.tokens import is_loopback

    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost") and is_loopback("127.1.2.3")
    assert is_loopback("LOCALHOST") and is_loopback("localhost.")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.4") and not is_loopback("example.org")


def test_mcp_is_mounted_for_the_local_user_only(vault):
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                          "clientInfo": {"name": "test", "version": "0"}}}
    headers = {"Accept": "application/json, text/event-stream", "Host": "127.0.0.1:8321"}
    ws, client = _client(vault, mcp=True)
    with ws, client:
        response = client.post("/mcp/", json=request, headers=headers)
        assert response.status_code == 200, response.text
        assert "serverInfo" in response.text
        run_kbg("token", "create", "bob", "--vault", str(vault))
        assert client.post("/mcp/", json=request, headers=headers).status_code == 403


def test_the_host_rule():
    from kbgraph.api.hosts import host_rule

    local = host_rule("127.0.0.1", 8321)
    for good in ("127.0.0.1:8321", "localhost:8321", "LocalHost.:8321", "[::1]:8321"):
        assert local.allows(good), good
    for bad in ("evil.example:8321", "evil.example", "127.0.0.1:9999", "127.0.0.1", "localhost.evil.example:8321",
                "127.0.0.1:8321@evil.example", "", None):
        assert not local.allows(bad), bad
    assert host_rule("localhost", 80).allows("localhost")  # a browser leaves port 80 out
    assert host_rule("::1", 8321).allows("[::1]:8321") and host_rule("127.0.0.1", 0).allows("localhost:5555")
    lan = host_rule("192.168.1.4", 8321)
    assert lan.allows("192.168.1.4:8321") and not lan.allows("localhost:8321") and not lan.allows("evil:8321")
    anywhere = host_rule("0.0.0.0", 8321, ["kb.example.com", "10.0.0.7:8321"])
    assert anywhere.allows("kb.example.com") and anywhere.allows("KB.example.com:443")  # a proxy may keep its port
    assert anywhere.allows("10.0.0.7:8321") and not anywhere.allows("10.0.0.7:80")
    assert anywhere.allows("localhost:8321") and not anywhere.allows("evil.example:8321")
    assert not host_rule("0.0.0.0", 8321).allows("192.168.1.4:8321")  # a wildcard knows no name of its own
    from kbgraph.errors import InvalidInput

    for bad in ("0.0.0.0", "a b", "x:y", ""):
        with pytest.raises(InvalidInput):
            host_rule("0.0.0.0", 8321, [bad])


def _serve(vault, monkeypatch, check, *args):
    """`kbg serve ARGS` with uvicorn.run caught (nothing listens): check(app) runs where uvicorn would serve
    it, while the command's workspace is open. Its stderr."""
    import uvicorn

    failed = []

    def run(app, **kw):
        try:
            check(app)
        except BaseException as exc:  # noqa: BLE001  (raised again below, outside the command)
            failed.append(exc)

    monkeypatch.setattr(uvicorn, "run", run)
    result = run_kbg("serve", *args, "--vault", str(vault))
    if failed:
        raise failed[0]
    assert result.returncode == 0, result.stderr
    return result.stderr


def test_serve_answers_only_requests_addressed_to_it(vault, monkeypatch):
    def check(app):
        with TestClient(app) as client:  # the lifespan runs: /mcp is live
            foreign = client.get("/search", params={"q": "harbour"}, headers={"Host": "evil.example:8321"})
            assert foreign.status_code == 421, foreign.text
            error = foreign.json()["error"]
            assert error["code"] == "wrong_host" and "127.0.0.1:8321" in error["message"]
            assert "\n" not in error["message"] and "evil.example" in error["message"]
            for path in ("/", "/web/app.js", "/mcp/", "/openapi.json"):  # the web view and MCP as well
                assert client.get(path, headers={"Host": "evil.example:8321"}).status_code == 421, path
            for good in ("127.0.0.1:8321", "localhost:8321"):
                assert _paths(client.get("/search", params={"q": "harbour"}, headers={"Host": good})), good
            assert client.get("/", headers={"Host": "localhost:8321"}).status_code == 200

    _serve(vault, monkeypatch, check, "--port", "8321")


def test_serve_on_every_interface_answers_the_names_it_was_given(vault, monkeypatch):
    secret = kbg(vault, "token", "create", "bob")["token"]
    bearer = {"Authorization": f"Bearer {secret}"}

    def named(app):
        client = TestClient(app)
        assert client.get("/index/status", headers={**bearer, "Host": "kb.example.com"}).status_code == 200
        assert client.get("/index/status", headers={**bearer, "Host": "evil.example"}).status_code == 421

    assert "note:" not in _serve(vault, monkeypatch, named, "--host", "0.0.0.0", "--allow-host", "kb.example.com")

    def bare(app):
        client = TestClient(app)
        assert client.get("/index/status", headers={**bearer, "Host": "kb.example.com"}).status_code == 421
        assert client.get("/index/status", headers={**bearer, "Host": "localhost:8321"}).status_code == 200

    stderr = _serve(vault, monkeypatch, bare, "--host", "0.0.0.0")
    assert "only requests addressed to localhost:8321, 127.0.0.1:8321, [::1]:8321 are answered" in stderr
    assert "--allow-host" in stderr


def test_each_worker_checks_the_host_too(vault, monkeypatch):
    from kbgraph.cli import serve_worker

    for name in (serve_worker.VAULT_ENV, serve_worker.HOST_ENV, serve_worker.PORT_ENV, serve_worker.ALLOW_ENV):
        monkeypatch.setenv(name, "")  # restored after the test, whatever `kbg serve` sets

    def check(app):
        assert app == "kbgraph.cli.serve_worker:create_worker_app"

    _serve(vault, monkeypatch, check, "--workers", "2", "--allow-host", "kb.lan")
    with TestClient(serve_worker.create_worker_app()) as client:
        assert client.get("/index/status", headers={"Host": "evil.example:8321"}).status_code == 421
        assert client.get("/index/status", headers={"Host": "kb.lan"}).status_code == 200
        assert client.get("/index/status", headers={"Host": "127.0.0.1:8321"}).status_code == 200


def test_mcp_answers_every_host_the_server_answers(vault, monkeypatch):
    """The MCP SDK checked Host itself against loopback names with a port: /mcp refused an --allow-host
    name and port 80's bare 'localhost' with a plain 'Invalid Host header' while every other path answered."""
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                          "clientInfo": {"name": "test", "version": "0"}}}
    accept = {"Accept": "application/json, text/event-stream"}

    def check(hosts):
        def run(app):
            with TestClient(app) as client:
                for host in hosts:
                    response = client.post("/mcp/", json=request, headers={**accept, "Host": host})
                    assert response.status_code == 200, (host, response.text)
                    assert client.get("/index/status", headers={"Host": host}).status_code == 200, host
                refused = client.post("/mcp/", json=request, headers={**accept, "Host": "evil.example:8321"})
                assert refused.status_code == 421 and refused.json()["error"]["code"] == "wrong_host"
        return run

    _serve(vault, monkeypatch, check(["kb.lan", "kb.lan:8321", "localhost:8321"]), "--allow-host", "kb.lan")
    _serve(vault, monkeypatch, check(["localhost", "127.0.0.1:80"]), "--port", "80")

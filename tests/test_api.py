"""The HTTP API, endpoint by endpoint, with FastAPI's TestClient on copies of the indexed sample vault."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402

from kbgraph.ingest.pipeline import index_vault  # noqa: E402

from .conftest import copy_indexed  # noqa: E402

SYNC = """---
type: meeting
date: 2026-04-01
attendees: [Sam, Priya Raman]
---
# Sync

Sam will send the notes.
"""


@pytest.fixture(scope="module")
def api_vault(indexed_sample, tmp_path_factory):
    """The sample vault plus a meeting that asks about "Sam", a public note and ana's private one."""
    vault = copy_indexed(indexed_sample, tmp_path_factory.mktemp("api") / "vault")
    (vault / "meetings/2026/04/01").mkdir(parents=True)
    (vault / "meetings/2026/04/01/sync.md").write_text(SYNC)
    (vault / "notes/harbour-open.md").write_text("---\nvisibility: public\n---\n# Harbour\n\nThe harbour budget is open.\n")
    (vault / "notes/harbour-secret.md").write_text(
        "---\nvisibility: private\nowner: ana\n---\n# Harbour plans\n\nThe harbour budget is secret.\n")
    index_vault(vault)
    return vault


@pytest.fixture
def client(api_vault, tmp_path):
    from kbgraph.api.app import create_app
    from kbgraph.workspace import Workspace

    vault = copy_indexed(api_vault, tmp_path / "vault")
    with Workspace.open(str(vault)) as ws, TestClient(create_app(ws)) as c:
        c.vault = vault  # type: ignore[attr-defined]
        c.ws = ws  # type: ignore[attr-defined]
        yield c


@pytest.fixture
def sample_client(indexed_sample, tmp_path):
    """The plain sample vault, where "Sam" names two people and no entity of its own."""
    from kbgraph.api.app import create_app
    from kbgraph.workspace import Workspace

    with Workspace.open(str(copy_indexed(indexed_sample, tmp_path / "sample"))) as ws, TestClient(create_app(ws)) as c:
        yield c


def _ok(response, status: int = 200) -> dict:
    assert response.status_code == status, response.text
    return response.json()


def test_search_documents_and_passages(client):
    docs = _ok(client.get("/search", params={"q": "kafka", "limit": 5}))
    assert docs["unit"] == "document" and docs["count"] == len(docs["hits"]) > 0
    assert docs["hits"][0]["path"] == "tech/kafka.md" and "**" in docs["hits"][0]["snippet"]
    passages = _ok(client.get("/search", params={"q": "kafka", "passages": True, "explain": True}))
    assert passages["unit"] == "passage" and passages["hits"][0]["explain"]["signals"]
    assert len({h["path"] for h in passages["hits"]}) < len(passages["hits"])  # several sections per document


def test_list_and_view_documents(client):
    listed = _ok(client.get("/documents", params={"type": "person"}))
    assert listed["count"] > 0 and all(d["kind"] == "person" for d in listed["documents"])
    view = _ok(client.get("/documents/view", params={"target": "people/sam-li.md"}))
    assert view["document"]["path"] == "people/sam-li.md" and "Sam Li" in view["text"]


@pytest.mark.parametrize("target", ["../kbgraph.toml", "../../etc/passwd", "/etc/passwd", "people/../../x.md"])
def test_a_path_outside_the_vault_is_never_read(client, target):
    body = client.get("/documents/view", params={"target": target})
    assert body.status_code == 404 and body.json()["error"]["code"] == "not_found"


def test_profile_entities_and_timeline(client):
    profile = _ok(client.get("/entities/profile", params={"name": "Sam Li"}))
    assert profile["entity"]["name"] == "Sam Li" and profile["relations"]
    people = _ok(client.get("/entities", params={"type": "person"}))
    assert "Sam Li" in {e["name"] for e in people["entities"]}
    timeline = _ok(client.get("/entities/timeline", params={"name": "Sam Li"}))
    assert timeline["entity"]["name"] == "Sam Li" and timeline["count"] > 0


def test_an_ambiguous_name_is_409_with_the_candidates(sample_client):
    body = sample_client.get("/entities/profile", params={"name": "Sam"})
    assert body.status_code == 409
    error = body.json()["error"]
    assert error["code"] == "ambiguous" and {c["name"] for c in error["candidates"]} == {"Sam Li", "Sam Ortiz"}


def test_an_unknown_entity_or_id_is_404(client):
    assert client.get("/entities/profile", params={"name": "Nobody Atall"}).json()["error"]["code"] == "not_found"
    for path in ("/suggestions/99999/accept", "/resolve/99999/confirm", "/loops/99999/resolve"):
        response = client.post(path, json={}) if "loops" in path else client.post(path)
        assert response.status_code == 404, (path, response.text)
        assert response.json()["error"]["code"] == "not_found"


def test_relate_then_list_shows_it_and_the_page_line_is_written(client):
    done = _ok(client.post("/relations", json={"source": "Dana Kowalski", "type": "mentors", "target": "Sam Ortiz",
                                               "reason": "onboarding"}))
    assert done["mirrored_to"]
    listed = _ok(client.get("/relations", params={"name": "Dana Kowalski"}))
    assert any(r["type"] == "mentors" and r["target"] == "Sam Ortiz" for r in listed["relations"])
    page = (client.vault / done["mirrored_to"]).read_text(encoding="utf-8")
    assert "mentors" in page and "Sam Ortiz" in page
    _ok(client.post("/relations/remove", json={"source": "Dana Kowalski", "type": "mentors", "target": "Sam Ortiz"}))
    listed = _ok(client.get("/relations", params={"name": "Dana Kowalski"}))
    assert not any(r["type"] == "mentors" for r in listed["relations"])


def test_graph_neighbours_path_and_hubs(client):
    near = _ok(client.get("/graph/neighbours", params={"entity": "Sam Li", "depth": 2}))
    assert near["count"] > 0
    path = _ok(client.get("/graph/path", params={"source": "Sam Li", "target": "Chen Wei"}))
    assert path["paths"]
    assert _ok(client.get("/graph/hubs"))["hubs"]


def test_accept_a_suggestion(client):
    pending = _ok(client.get("/suggestions"))["suggestions"]
    first = pending[0]
    accepted = _ok(client.post(f"/suggestions/{first['id']}/accept"))
    assert accepted["relation"]["type"]
    left = {s["id"] for s in _ok(client.get("/suggestions"))["suggestions"]}
    assert first["id"] not in left
    assert _ok(client.get("/suggestions", params={"status": "accepted"}))["count"] >= 1
    _ok(client.post(f"/suggestions/{pending[1]['id']}/reject"))


def _sync_questions(client) -> dict[str, int]:
    """The open questions SYNC raises (the sample vault asks about its own 'Dan' and 'Dana K' too)."""
    return {q["candidate_name"]: q["id"] for q in _ok(client.get("/resolve/pending"))["questions"]
            if q["doc_path"] == "meetings/2026/04/01/sync.md"}


def test_confirm_and_reject_resolution_questions(client):
    questions = _sync_questions(client)
    assert set(questions) == {"Sam Li", "Sam Ortiz"}
    confirmed = _ok(client.post(f"/resolve/{questions['Sam Li']}/confirm"))
    assert confirmed["entity"] == "Sam Li"
    assert _sync_questions(client) == {}  # answering one settles the other


def test_facts_loops_and_brief(client):
    fact = _ok(client.post("/facts", json={"entity": "Arjun Mehta", "text": "fountain pens", "kind": "interest"}))
    assert fact["fact"]["text"] == "fountain pens" and fact["page"]
    newer = _ok(client.post(f"/facts/{fact['fact']['id']}/supersede", json={"text": "calligraphy"}))
    assert newer["replaced"]["id"] == fact["fact"]["id"]
    facts = _ok(client.get("/facts", params={"entity": "Arjun Mehta"}))["facts"]
    assert [f["text"] for f in facts if f["kind"] == "interest"] == ["calligraphy"]
    loop = _ok(client.post("/loops", json={"entity": "Arjun Mehta", "text": "ask about the surgery @2020-01-02"}))
    assert loop["loop"]["due"] == "2020-01-02" and loop["loop"]["overdue"] is True
    assert loop["loop"]["id"] in {x["id"] for x in _ok(client.get("/loops", params={"due": "overdue"}))["loops"]}
    _ok(client.post(f"/loops/{loop['loop']['id']}/resolve", json={}))
    assert _ok(client.get("/loops"))["count"] == 0
    assert _ok(client.get("/brief", params={"entity": "Arjun Mehta"}))["about"]
    assert _ok(client.get("/brief", params={"today": True}))["about"] == "today"


def test_recall_context_and_slice(client):
    recall = _ok(client.get("/recall", params={"q": "what does my manager think about kafka"}))
    assert recall["status"] and "passages" in recall
    context = _ok(client.get("/context", params={"for": "kafka", "budget": 300}))
    assert 0 < context["tokens"] <= 300 and context["text"]
    sliced = _ok(client.get("/slice", params=[("name", "Sam Li"), ("name", "Auth Service")]))
    assert len(sliced["entities"]) == 2 and sliced["text"]


def test_index_status(client):
    status = _ok(client.get("/index/status"))
    assert status["documents"] > 0 and "m019_api_tokens" in str(status["schema"])


def test_bad_requests_are_4xx_never_500(client):
    unknown = client.post("/relations", json={"source": "Sam Li", "type": "mentors", "target": "Ana Lima", "x": 1})
    assert unknown.status_code == 422 and unknown.json()["error"]["code"] == "invalid_request"
    wrong_type = client.post("/facts", json={"entity": 3, "text": ["a"], "kind": None})
    assert wrong_type.status_code == 422
    missing = client.get("/search")
    assert missing.status_code == 422 and "q" in missing.json()["error"]["message"]
    bad_date = client.get("/search", params={"q": "kafka", "from": "yesterday"})
    assert bad_date.status_code == 400 and bad_date.json()["error"]["param"] == "date_from"
    huge = client.post("/facts", content=b'{"entity": "' + b"x" * 2_000_000 + b'"}',
                       headers={"content-type": "application/json"})
    assert huge.status_code == 413 and huge.json()["error"]["code"] == "too_large"
    long_name = client.get("/entities/profile", params={"name": "x" * 5000})
    assert long_name.status_code == 422


def test_a_body_streamed_past_the_limit_is_413(api_vault, tmp_path):
    from kbgraph.api.app import create_app
    from kbgraph.workspace import Workspace

    with Workspace.open(str(copy_indexed(api_vault, tmp_path / "v"))) as ws, \
            TestClient(create_app(ws, max_body=1000)) as c:
        def chunks():
            for _ in range(10):
                yield b" " * 500
        response = c.post("/loops", content=chunks(), headers={"content-type": "application/json"})
        assert response.status_code == 413


def test_a_write_while_the_index_runs_is_503_busy_with_retry_after(client, monkeypatch):
    from kbgraph.errors import IndexLocked
    from kbgraph.relations import edits

    def locked(*args, **kwargs):
        raise IndexLocked("another process is indexing this vault", hint="try again when it is done")

    monkeypatch.setattr(edits, "relate", locked)
    response = client.post("/relations", json={"source": "Sam Li", "type": "mentors", "target": "Ana Lima"})
    assert response.status_code == 503 and response.headers["retry-after"]
    assert response.json()["error"]["code"] == "busy"


def test_the_error_table_has_one_row_per_class_most_specific_first():
    from kbgraph import errors as e
    from kbgraph.api.errors import STATUS, status_of

    assert status_of(e.Ambiguous("x", [])) == (409, "ambiguous")
    assert status_of(e.IndexLocked("x")) == (503, "busy")
    assert status_of(e.ModelMissing("x")) == (503, "model_unavailable")
    classes = [cls for cls, _, _ in STATUS]
    for i, cls in enumerate(classes):
        assert not any(issubclass(cls, earlier) for earlier in classes[:i]), cls


def test_openapi_is_published(client):
    spec = _ok(client.get("/openapi.json"))
    assert {"/search", "/entities/profile", "/relations", "/suggestions/{suggestion_id}/accept"} <= set(spec["paths"])

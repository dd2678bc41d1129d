"""The HTTP API's curation and capture routes (merge, unmerge, mentions, stale, extract, note, the
resolution log) and the web folder's filter, on copies of the indexed sample vault."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402

from .conftest import copy_indexed  # noqa: E402


@pytest.fixture
def client(indexed_sample, tmp_path):
    from kbgraph.api.app import create_app
    from kbgraph.workspace import Workspace

    vault = copy_indexed(indexed_sample, tmp_path / "vault")
    with Workspace.open(str(vault)) as ws, TestClient(create_app(ws)) as c:
        c.vault = vault  # type: ignore[attr-defined]
        yield c


def _error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    body = response.json()["error"]
    assert body["code"] == code, body
    return body


def _profile_name(client, name: str) -> str:
    return client.get("/entities/profile", params={"name": name}).json()["entity"]["name"]


def test_merge_makes_one_entity_and_unmerge_gives_it_back(client):
    merged = client.post("/entities/merge", json={"merged": "Sam Li", "into": "Sam Ortiz"})
    assert merged.status_code == 200, merged.text
    assert merged.json()["into"] == "Sam Ortiz" and "Sam Li" in merged.json()["aliases"]
    assert _profile_name(client, "Sam Li") == "Sam Ortiz"
    again = client.post("/entities/merge", json={"merged": "Sam Li", "into": "Sam Ortiz"})  # redoable (issue 18)
    assert again.status_code == 200 and again.json()["already"] is True and again.json()["relations_moved"] == 0

    back = client.post("/entities/unmerge", json={"merged": "Sam Li"})
    assert back.status_code == 200, back.text
    assert back.json()["unmerged"] == "Sam Li" and back.json()["from"] == "Sam Ortiz"
    assert _profile_name(client, "Sam Li") == "Sam Li"
    _error(client.post("/entities/unmerge", json={"merged": "Sam Li"}), 400, "invalid_input")


def test_merge_never_guesses_an_ambiguous_name_and_refuses_bad_input(client):
    body = _error(client.post("/entities/merge", json={"merged": "Sam", "into": "Ana Lima"}), 409, "ambiguous")
    assert {c["name"] for c in body["candidates"]} == {"Sam Li", "Sam Ortiz"}
    assert _profile_name(client, "Sam Li") == "Sam Li" and _profile_name(client, "Sam Ortiz") == "Sam Ortiz"
    _error(client.post("/entities/merge", json={"merged": "Nobody Known", "into": "Ana Lima"}), 404, "not_found")
    _error(client.post("/entities/merge", json={"merged": "Kafka", "into": "Ana Lima"}), 400, "invalid_input")
    _error(client.post("/entities/merge", json={"merged": "Sam Li", "into": "Sam Ortiz", "force": True}),
           422, "invalid_request")
    _error(client.post("/entities/merge", json={"merged": "Sam Li"}), 422, "invalid_request")
    _error(client.post("/entities/unmerge", json={"merged": ""}), 422, "invalid_request")


def test_unlinked_mentions_link_unlink_and_relink(client):
    rows = client.get("/mentions/unlinked", params={"entity": "Ana Lima", "limit": 0}).json()
    paths = {r["path"] for r in rows["mentions"]}
    assert rows["count"] == len(rows["mentions"]) and "notes/hiring-thoughts.md" in paths
    assert client.get("/mentions/unlinked", params={"limit": 2}).json()["count"] == 2

    linked = client.post("/mentions/link", json={"entity": "Ana Lima", "doc": "notes/hiring-thoughts.md"})
    assert linked.status_code == 200, linked.text
    assert linked.json()["link"] in (client.vault / "notes/hiring-thoughts.md").read_text()

    unlinked = client.post("/mentions/unlink", json={"entity": "Ana Lima", "doc": "notes/engineering-principles.md"})
    assert unlinked.status_code == 200 and unlinked.json()["changed"] is True
    after = client.get("/mentions/unlinked", params={"entity": "Ana Lima", "limit": 0}).json()["mentions"]
    assert "notes/engineering-principles.md" not in {r["path"] for r in after}
    relinked = client.post("/mentions/relink", json={"entity": "Ana Lima", "doc": "notes/engineering-principles.md"})
    assert relinked.status_code == 200 and relinked.json()["unlinked"] is False
    again = client.post("/mentions/relink", json={"entity": "Ana Lima", "doc": "notes/engineering-principles.md"})
    assert again.status_code == 200 and again.json()["changed"] is False  # redoable (issue 18): no error


def test_mention_routes_refuse_unknown_and_ambiguous_names_and_documents(client):
    _error(client.get("/mentions/unlinked", params={"entity": "Nobody Known"}), 404, "not_found")
    _error(client.post("/mentions/link", json={"entity": "Ana Lima", "doc": "no/such.md"}), 404, "not_found")
    _error(client.post("/mentions/unlink", json={"entity": "Ana Lima", "doc": "../../etc/passwd"}), 404, "not_found")
    body = _error(client.post("/mentions/unlink", json={"entity": "Sam", "doc": "notes/hiring-thoughts.md"}),
                  409, "ambiguous")
    assert len(body["candidates"]) == 2
    _error(client.post("/mentions/link", json={"entity": "Ana Lima", "path": "notes/hiring-thoughts.md"}),
           422, "invalid_request")


def test_note_stores_facts_asks_about_unsure_names_and_refuses_ambiguous_ones(client):
    stored = client.post("/note", json={"text": "person: Chen Wei; int: fountain pens"})
    assert stored.status_code == 200 and stored.json()["stored"] is True and stored.json()["entity"] == "Chen Wei"
    facts = client.get("/facts", params={"entity": "Chen Wei"}).json()["facts"]
    assert any(f["text"] == "fountain pens" for f in facts)

    asked = client.post("/note", json={"text": "person: Chen Wie; int: chess"}).json()
    assert asked["stored"] is False and asked["questions"][0]["candidate"] == "Chen Wei"
    assert asked["questions"][0]["text"].startswith("CONFIRM?")
    confirmed = client.post("/note", json={"text": "person: Chen Wie; int: chess", "confirm": True}).json()
    assert confirmed["stored"] is True and confirmed["entity"] == "Chen Wei"

    body = _error(client.post("/note", json={"text": "person: Sam; int: chess"}), 409, "ambiguous")
    assert {c["name"] for c in body["candidates"]} == {"Sam Li", "Sam Ortiz"}
    _error(client.post("/note", json={"text": "x", "when": "now"}), 422, "invalid_request")
    _error(client.post("/note", json={"text": ""}), 422, "invalid_request")


def test_free_text_goes_to_the_daily_note(client):
    data = client.post("/note", json={"text": "remember the offsite budget"}).json()
    assert data["stored"] is True and data["daily_note"]
    assert "remember the offsite budget" in (client.vault / data["daily_note"]).read_text()


def test_stale_log_suggestion_filters_and_index_status(client):
    stale = client.get("/entities/stale", params={"days": 30, "include_relations": True}).json()
    assert stale["days"] == 30 and stale["entities"] and "relations" in stale
    assert {e["type"] for e in client.get("/entities/stale", params={"type": "team"}).json()["entities"]} <= {"team"}
    _error(client.get("/entities/stale", params={"days": -1}), 422, "invalid_request")

    log = client.get("/resolve/log").json()
    assert {d["surface"] for d in log["decisions"]} == {"Arjoon Mehta", "Dan", "Dana K", "Lena Fischr"}, \
        "the sample's names (Lena Fischr in a note's prose)"
    _error(client.get("/resolve/log", params={"outcome": "maybe"}), 422, "invalid_request")

    pending = client.get("/suggestions").json()["suggestions"]
    high = client.get("/suggestions", params={"min_confidence": "high"}).json()["suggestions"]
    assert 0 < len(high) < len(pending) and {s["confidence"] for s in high} == {"auto-high"}
    doc = "meetings/2026/01/13/atlas-weekly-sync.md"
    from_doc = client.get("/suggestions", params={"from_doc": doc}).json()["suggestions"]
    assert from_doc and {s["source_doc"] for s in from_doc} == {doc}
    _error(client.get("/suggestions", params={"from_doc": "no/such.md"}), 404, "not_found")

    status = client.get("/index/status").json()
    assert status["documents"] > 0 and "problems" in status and "index_bytes" in status


def test_extract_runs_again_on_the_documents_given(client):
    one = client.post("/extract", json={"paths": ["decisions/2026-02-03-adopt-postgres-for-atlas.md"]})
    assert one.status_code == 200, one.text
    assert one.json()["documents"] == 1 and isinstance(one.json()["pending"], list)
    _error(client.post("/extract", json={"paths": ["no/such.md"]}), 404, "not_found")
    _error(client.post("/extract", json={"paths": [], "all": True}), 422, "invalid_request")
    _error(client.post("/extract", json={"paths": ["x.md"] * 101}), 422, "invalid_request")


def test_the_web_folder_serves_only_the_page_assets(client):
    for path in ("/web/app.js", "/web/app.css", "/web/index.html", "/web/vendor/cytoscape.min.js"):
        assert client.get(path).status_code == 200, path
    for path in ("/web/__init__.py", "/web/__pycache__/__init__.cpython-311.pyc", "/web/vendor/../__init__.py",
                 "/web/vendor", "/web/other/app.js", "/web/", "/web/..%2f__init__.py"):
        assert client.get(path).status_code == 404, path

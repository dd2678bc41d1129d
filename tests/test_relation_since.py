"""A relation read from a note starts when the note says: the `(since DATE)` the user wrote, else the
earliest date of the notes that state it, else the day kbgraph first saw it, and an index run later
moves none of these. The sample vault's people pages are undated; its meetings are dated 2026-01..04."""

from __future__ import annotations

import datetime as dt

import pytest

from .conftest import copy_indexed, kbg, run_kbg


def _at(monkeypatch, day: str) -> None:
    moment = dt.datetime.fromisoformat(f"{day}T12:00:00+00:00")
    monkeypatch.setattr("kbgraph.clock.wall_clock", lambda: moment)


def _since(vault, name: str, type_name: str, other: str) -> str:
    data = kbg(vault, "entity", "relations", name)
    found = [r["since"] for r in data["relations"] + data["inverse_relations"]
             if r["type"] == type_name and other in (r.get("target"), r.get("source"))]
    assert len(found) == 1, data
    return found[0]


def _as_of(vault, name: str, day: str) -> dict[str, dict]:
    result = run_kbg("entity", "relations", name, "--as-of", day, "--json", "--vault", str(vault))
    if result.returncode != 0:  # before any relation it knows: an answer with none
        assert "before any relation" in result.stderr, result.stderr
        return {}
    import json

    data = json.loads(result.stdout)
    return {item["other"]: item for item in data["relations"] + data["inverse_relations"]}


def _suggestion(vault, source: str, type_name: str, target: str) -> int:
    pending = kbg(vault, "entity", "suggestions")
    rows = pending if isinstance(pending, list) else pending.get("suggestions", pending.get("pending"))
    return next(s["id"] for s in rows if (s["source"], s["type"], s["target"]) == (source, type_name, target))


def test_an_accepted_suggestion_starts_on_its_earliest_note(indexed_vault, monkeypatch):
    # Stated in meetings of 2026-01-21 and 2026-04-08; before, it showed the day of review as Since.
    kbg(indexed_vault, "entity", "accept", str(_suggestion(indexed_vault, "María García", "contributes-to",
                                                           "Project Beacon")))
    assert _since(indexed_vault, "María García", "contributes-to", "Project Beacon") == "2026-01-21"
    then = _as_of(indexed_vault, "María García", "2026-03-01")
    assert then["Project Beacon"]["valid_from"] == "2026-01-21" and then["Project Beacon"]["current"]
    assert "Project Beacon" not in _as_of(indexed_vault, "María García", "2026-01-20")
    # The date is the file's now: a later index, or a rebuild from the notes, keeps it.
    assert "- contributes-to [[Project Beacon]] (since 2026-01-21)" in (
        indexed_vault / "people" / "maria-garcia.md").read_text()
    _at(monkeypatch, "2027-03-01")
    assert run_kbg("index", "--full", "--vault", str(indexed_vault)).returncode == 0
    assert _since(indexed_vault, "María García", "contributes-to", "Project Beacon") == "2026-01-21"


def test_a_dated_pages_relation_starts_on_its_date_and_a_written_since_wins(indexed_vault):
    page = indexed_vault / "projects" / "checkout-revamp.md"
    page.write_text(page.read_text().replace("status: blocked\n", "status: blocked\ndate: 2026-02-05\n", 1))
    assert run_kbg("index", "--vault", str(indexed_vault)).returncode == 0
    # From `lead: Lena Fischer` in the page's frontmatter.
    assert _since(indexed_vault, "Lena Fischer", "leads", "Checkout Revamp") == "2026-02-05"
    assert _as_of(indexed_vault, "Lena Fischer", "2026-03-01")["Checkout Revamp"]["valid_from"] == "2026-02-05"
    assert "Checkout Revamp" not in _as_of(indexed_vault, "Lena Fischer", "2026-02-04")
    page.write_text(page.read_text() + "\n## Relations\n\n- depends-on [[Auth Service]] (since 2025-11-01)\n")
    assert run_kbg("index", "--vault", str(indexed_vault)).returncode == 0
    assert _since(indexed_vault, "Checkout Revamp", "depends-on", "Auth Service") == "2025-11-01"


def test_relating_on_a_dated_page_starts_today_unless_since_is_given(indexed_vault, monkeypatch):
    page = indexed_vault / "projects" / "checkout-revamp.md"
    page.write_text(page.read_text().replace("status: blocked\n", "status: blocked\ndate: 2026-02-05\n", 1))
    _at(monkeypatch, "2026-06-10")
    assert run_kbg("index", "--vault", str(indexed_vault)).returncode == 0
    kbg(indexed_vault, "entity", "relate", "Checkout Revamp", "--type", "depends-on", "--target", "Auth Service")
    assert _since(indexed_vault, "Checkout Revamp", "depends-on", "Auth Service") == "2026-06-10"
    kbg(indexed_vault, "entity", "relate", "Checkout Revamp", "--type", "depends-on", "--target", "Project Atlas",
        "--since", "2026-01-02")
    assert _since(indexed_vault, "Checkout Revamp", "depends-on", "Project Atlas") == "2026-01-02"


def test_an_undated_notes_relation_keeps_the_day_it_was_first_seen(vault, monkeypatch):
    _at(monkeypatch, "2026-05-01")
    assert run_kbg("index", "--vault", str(vault)).returncode == 0
    assert _since(vault, "Ana Lima", "reports-to", "Ben Okafor") == "2026-05-01"
    _at(monkeypatch, "2026-06-15")
    page = vault / "people" / "ana-lima.md"
    page.write_text(page.read_text() + "\nEdited later.\n")
    assert run_kbg("index", "--full", "--vault", str(vault)).returncode == 0
    assert _since(vault, "Ana Lima", "reports-to", "Ben Okafor") == "2026-05-01"
    assert _as_of(vault, "Ana Lima", "2026-05-20")["Ben Okafor"]["valid_from"] == "2026-05-01"


def test_the_api_gives_the_notes_date(indexed_sample, tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from kbgraph.api.app import create_app
    from kbgraph.workspace import Workspace

    vault = copy_indexed(indexed_sample, tmp_path / "vault")
    kbg(vault, "entity", "accept", str(_suggestion(vault, "Ana Lima", "contributes-to", "Project Atlas")))
    with Workspace.open(str(vault)) as ws, TestClient(create_app(ws)) as client:
        rows = client.get("/relations", params={"name": "Ana Lima", "type": "contributes-to"}).json()["relations"]
    assert [(r["target"], r["since"]) for r in rows] == [("Project Atlas", "2026-02-17")]

"""A confirmed name is found (issue 17): `kbg resolve confirm` on a name that says little ("T. Becker",
"Sam") makes it a confirmed name of the entity, which a lookup, a search, a profile and the mention scan
use, after `kbg index --full` and through export/import too; a name two entities share is listed with
both, never given to one. A lookup of a name still waiting for an answer lists every candidate."""

from __future__ import annotations

import shutil

import pytest

from kbgraph.ingest.pipeline import index_vault

from .conftest import copy_indexed, kbg, run_kbg

PEOPLE = ("Tom Becker", "Sam Li", "Sam Ortiz")
SYNC = """---
type: meeting
date: 2026-04-01
attendees: [T. Becker, Sam, Tom Becker]
---
# Sync

T. Becker agreed to the plan.
"""
LATER = """---
type: note
date: 2026-04-09
---
# Plan review

T. Becker reviewed the plan. Sam was away.
"""


@pytest.fixture(scope="module")
def tiny_indexed(tmp_path_factory):
    """Three people and one meeting that names two of them in few words, indexed once for the module."""
    vault = tmp_path_factory.mktemp("confirmed") / "vault"
    (vault / "people").mkdir(parents=True)
    (vault / "meetings").mkdir()
    for name in PEOPLE:
        slug = name.lower().replace(" ", "-")
        (vault / f"people/{slug}.md").write_text(f"---\ntype: person\nname: {name}\n---\n# {name}\n")
    (vault / "meetings/sync.md").write_text(SYNC)
    (vault / "notes").mkdir()
    (vault / "notes/review.md").write_text(LATER)
    index_vault(vault)
    return vault


@pytest.fixture
def tiny(tiny_indexed, tmp_path):
    return copy_indexed(tiny_indexed, tmp_path / "vault")


def _question(vault, surface: str, candidate: str) -> int:
    return next(q["id"] for q in kbg(vault, "resolve", "pending")["questions"]
                if (q["surface"], q["candidate_name"]) == (surface, candidate))


def _found(vault, name: str) -> str:
    return kbg(vault, "person", "find", name)["entity"]["name"]


def test_a_confirmed_short_name_finds_its_entity_in_lookup_search_profile_and_text(tiny):
    asked = kbg(tiny, "person", "find", "T. Becker", code=1)
    assert {(c["name"], bool(c.get("unresolved"))) for c in asked["candidates"]} == {
        ("Tom Becker", False), ("T. Becker", True)}, "still a question: the name and its candidate"
    result = kbg(tiny, "resolve", "confirm", str(_question(tiny, "T. Becker", "Tom Becker")))
    assert (result["confirmed_names"], result["lookup"], result["aliases"]) == (["T. Becker"], "unique", [])
    profile = kbg(tiny, "person", "find", "T. Becker")
    assert profile["entity"]["name"] == "Tom Becker" and profile["confirmed_names"] == ["T. Becker"]
    assert "confirmed names: T. Becker" in run_kbg("person", "find", "T. Becker", "--vault", str(tiny)).stdout
    search = kbg(tiny, "search", "T. Becker review")
    assert [e["name"] for e in search["entities"]] == ["Tom Becker"], "search pass 1 recognises it"
    timeline = [d["path"] for d in kbg(tiny, "person", "timeline", "Tom Becker")["documents"]]
    assert "notes/review.md" in timeline, "the mention scan finds it in a note the answer was not about"

    index_vault(tiny, full=True)
    assert _found(tiny, "T. Becker") == "Tom Becker", "kept by --full: it comes from the decision log"


def test_a_confirmed_name_travels_through_export_and_import(tiny, tmp_path):
    kbg(tiny, "resolve", "confirm", str(_question(tiny, "T. Becker", "Tom Becker")))
    out = tmp_path / "export.json"
    kbg(tiny, "export", "-o", str(out))
    fresh = tmp_path / "fresh"
    shutil.copytree(tiny, fresh, ignore=shutil.ignore_patterns(".kbgraph"))
    index_vault(fresh)
    kbg(fresh, "import", str(out))
    assert _found(fresh, "T. Becker") == "Tom Becker"
    assert kbg(fresh, "person", "find", "T. Becker")["confirmed_names"] == ["T. Becker"]


def test_a_confirmed_name_another_entity_shares_is_listed_with_it_never_given_to_one(tiny):
    result = kbg(tiny, "resolve", "confirm", str(_question(tiny, "Sam", "Sam Li")))
    assert (result["confirmed_names"], result["lookup"], result["also_named"]) == (["Sam"], "ambiguous",
                                                                                  ["Sam Ortiz"])
    error = kbg(tiny, "person", "find", "Sam", code=1)
    assert {c["name"] for c in error["candidates"]} == {"Sam Li", "Sam Ortiz"}
    assert "notes/review.md" not in [d["path"] for d in kbg(tiny, "person", "timeline", "Sam Li")["documents"]], \
        "a 'Sam' nothing in the note corroborates stays unlinked"
    assert "meetings/sync.md" in [d["path"] for d in kbg(tiny, "person", "timeline", "Sam Li")["documents"]]


def test_find_lists_every_candidate_of_a_name_still_asked_about(tiny):
    error = kbg(tiny, "person", "find", "Sam", code=1)
    assert error["kind"] == "Ambiguous" and "Sam Li, Sam Ortiz and the unresolved 'Sam'" in error["error"]
    unresolved = next(c for c in error["candidates"] if c.get("unresolved"))
    assert unresolved["name"] == "Sam" and unresolved["documents"] == ["meetings/sync.md"]
    assert sorted(unresolved["questions"]) == sorted(_question(tiny, "Sam", n) for n in ("Sam Li", "Sam Ortiz"))
    printed = run_kbg("person", "find", "Sam", "--vault", str(tiny)).stderr
    assert "Sam Ortiz [person" in printed and "unresolved, in meetings/sync.md" in printed

    for name in ("Sam Li", "Sam Ortiz"):
        kbg(tiny, "resolve", "reject", str(_question(tiny, "Sam", name)))
    assert _found(tiny, "Sam") == "Sam", "answered: neither Sam, the name is its own entity"


def test_a_command_that_names_the_unresolved_name_itself_still_finds_it(tiny):
    """Only a lookup lists the candidates: `kbg entity merge "T. Becker" "Tom Becker"` means the name."""
    result = kbg(tiny, "entity", "merge", "T. Becker", "Tom Becker")
    assert result["into"] == "Tom Becker" and "T. Becker" in result["aliases"]


def test_an_mcp_lookup_lists_every_candidate_too(tiny):
    pytest.importorskip("mcp.server.mcpserver")
    import asyncio

    from mcp import Client

    from kbgraph.mcp import build_server
    from kbgraph.workspace import Workspace

    async def profile_of_sam():
        async with Client(build_server(workspace=ws)) as client:
            return await client.call_tool("entity_profile", {"name": "Sam"})

    with Workspace.open(str(tiny)) as ws:
        found = asyncio.run(profile_of_sam())
    assert found.is_error and "the unresolved 'Sam'" in found.content[0].text
    assert "unresolved, in meetings/sync.md" in found.content[0].text


def test_confirming_a_question_about_an_entity_deleted_since_changes_nothing(tiny):
    """Resolution turned off, the index that removed Tom Becker's page withdrew nothing: the question is
    still open about an entity that is gone. Confirming it is refused, and it stays open."""
    question = _question(tiny, "T. Becker", "Tom Becker")
    config = tiny / "kbgraph.toml"
    config.write_text((config.read_text() if config.exists() else "") + "\n[resolve]\nenabled = false\n")
    (tiny / "people/tom-becker.md").unlink()
    (tiny / "meetings/sync.md").write_text(SYNC.replace(", Tom Becker]", "]"))
    index_vault(tiny)
    before = kbg(tiny, "resolve", "log")["decisions"]
    error = kbg(tiny, "resolve", "confirm", str(question), code=1)["error"]
    assert f"question {question}: Tom Becker is no longer an entity" in error and "nothing was changed" in error
    assert kbg(tiny, "resolve", "log")["decisions"] == before, "the question stays open, unanswered"


def test_the_http_profile_lists_every_candidate_too(tiny):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from kbgraph.api.app import create_app
    from kbgraph.workspace import Workspace

    with Workspace.open(str(tiny)) as ws:
        response = TestClient(create_app(ws)).get("/entities/profile", params={"name": "Sam"})
    assert response.status_code == 409, response.text
    candidates = response.json()["error"]["candidates"]
    assert {c["name"] for c in candidates} == {"Sam Li", "Sam Ortiz", "Sam"}
    assert [c["documents"] for c in candidates if c.get("unresolved")] == [["meetings/sync.md"]]


def test_confirming_the_sample_vaults_dan_reports_the_name_it_made_findable(indexed_vault):
    """The README tour's vault: confirming "Dan" (Paystream's call) reported `aliases: []` and left "Dan"
    finding nothing; it now reports the confirmed name, and a lookup of it gives Dana Kowalski."""
    dan = next(q["id"] for q in kbg(indexed_vault, "resolve", "pending")["questions"] if q["surface"] == "Dan")
    result = kbg(indexed_vault, "resolve", "confirm", str(dan))
    assert (result["entity"], result["confirmed_names"], result["lookup"]) == ("Dana Kowalski", ["Dan"], "unique")
    assert "Dan" not in result["aliases"], "a name that says little is no alias"
    assert _found(indexed_vault, "Dan") == "Dana Kowalski"


def test_a_name_in_prose_still_asked_about_is_listed_with_its_candidate(tmp_path):
    """A name in running text makes no entity: a lookup of it was "no person named", as if nothing knew
    it; while it is a question, it is listed with the person it was asked about."""
    root = tmp_path / "vault"
    (root / "people").mkdir(parents=True)
    (root / "people/lena-fischer.md").write_text("---\ntype: person\nname: Lena Fischer\n---\n# Lena Fischer\n")
    (root / "notes").mkdir()
    (root / "notes/sync.md").write_text("---\nattendees: [Lena Fischer]\n---\n# Sync\n\nLenna asked about it.\n")
    index_vault(root)
    question = _question(root, "Lenna", "Lena Fischer")
    error = kbg(root, "person", "find", "Lenna", code=1)
    assert "matches Lena Fischer and the unresolved 'Lenna'" in error["error"]
    assert [(c["id"], c["documents"], c["questions"]) for c in error["candidates"] if c.get("unresolved")] == [
        (None, ["notes/sync.md"], [question])]
    result = kbg(root, "resolve", "confirm", str(question))
    assert (result["confirmed_names"], result["lookup"]) == (["Lenna"], "unique")
    assert _found(root, "Lenna") == "Lena Fischer"


def test_a_confirmed_name_follows_its_entity_when_the_page_is_renamed(tiny):
    """Renaming a page (its name: changes) changes its entity's key; the user's answers follow the entity."""
    kbg(tiny, "resolve", "confirm", str(_question(tiny, "T. Becker", "Tom Becker")))
    page = tiny / "people/tom-becker.md"
    page.write_text(page.read_text().replace("name: Tom Becker", "name: Thomas Becker"))
    index_vault(tiny)
    profile = kbg(tiny, "person", "find", "T. Becker")
    assert (profile["entity"]["name"], profile["confirmed_names"]) == ("Thomas Becker", ["T. Becker"])
    asked = [q["surface"] for q in kbg(tiny, "resolve", "pending")["questions"]]
    assert "T. Becker" not in asked, "answered once: not asked again after the rename"
    index_vault(tiny, full=True)
    assert _found(tiny, "T. Becker") == "Thomas Becker"


def test_a_page_renamed_to_a_name_linked_to_it_before_stays_one_entity(tiny):
    meeting = tiny / "meetings/sync.md"
    meeting.write_text(meeting.read_text().replace("Tom Becker]", "Thomas Becker]"))
    index_vault(tiny)  # 'Thomas Becker' is linked to Tom Becker (a recorded merge)
    page = tiny / "people/tom-becker.md"
    page.write_text(page.read_text().replace("name: Tom Becker", "name: Thomas Becker"))
    index_vault(tiny)
    profile = kbg(tiny, "person", "find", "Thomas Becker")
    assert (profile["entity"]["name"], profile["pages"]) == ("Thomas Becker", ["people/tom-becker.md"])
    assert not [e for e in kbg(tiny, "entity", "list")["entities"] if e["name"] == "Tom Becker"]


def test_a_confirmed_name_resolves_another_notes_frontmatter_as_a_lookup_does(tiny):
    """`attendees: [T. Becker]` in a note written after the answer is Tom Becker, as `person find` says;
    a confirmed 'Sam' another entity's first name shares is asked about again, as find lists both."""
    kbg(tiny, "resolve", "confirm", str(_question(tiny, "T. Becker", "Tom Becker")))
    kbg(tiny, "resolve", "confirm", str(_question(tiny, "Sam", "Sam Li")))
    (tiny / "meetings/later.md").write_text("---\ntype: meeting\ndate: 2026-05-01\nattendees: [T. Becker, Sam]\n"
                                            "---\n# Later\n\nShort.\n")
    index_vault(tiny)
    asked = {(q["surface"], q["candidate_name"], q["doc_path"]) for q in kbg(tiny, "resolve", "pending")["questions"]}
    assert not {q for q in asked if q[0] == "T. Becker"}, asked
    assert ("Sam", "Sam Ortiz", "meetings/later.md") in asked and ("Sam", "Sam Li", "meetings/later.md") in asked
    timeline = [d["path"] for d in kbg(tiny, "person", "timeline", "Tom Becker")["documents"]]
    assert "meetings/later.md" in timeline
    assert [e["name"] for e in kbg(tiny, "entity", "list")["entities"] if e["name"] == "T. Becker"] == []


def test_a_confirmed_short_name_can_be_taken_back_with_reject(tiny):
    """A 'T. Becker' confirmed by mistake: reject refused it ('answered already', hint: unmerge) and unmerge
    refused it too (no merge was made), so nothing could take the name back."""
    question = _question(tiny, "T. Becker", "Tom Becker")
    kbg(tiny, "resolve", "confirm", str(question))
    result = kbg(tiny, "resolve", "reject", str(question))
    assert (result["outcome"], result["entity"]) == ("rejected", "Tom Becker")
    found = kbg(tiny, "person", "find", "T. Becker")
    assert found["entity"]["name"] == "T. Becker" and found["confirmed_names"] == []
    assert kbg(tiny, "person", "find", "Tom Becker")["confirmed_names"] == []
    from kbgraph.workspace import Workspace

    with Workspace.open(str(tiny)) as ws:
        assert ws.store.reference_links() == []
    merged = kbg(tiny, "resolve", "reject", str(question))  # rejected again: the same answer, applied again
    assert merged["outcome"] == "rejected"

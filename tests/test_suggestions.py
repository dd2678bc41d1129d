"""Extraction during `kbg index` feeds suggestions; accepting makes relations, rejecting is remembered."""

from __future__ import annotations


import pytest

from kbgraph.ingest.pipeline import index_vault

from .conftest import kbg, run_kbg


@pytest.fixture
def svault(unmapped_vault):
    return unmapped_vault


def pending(vault) -> dict[tuple[str, str, str], dict]:
    return {(s["source"], s["type"], s["target"]): s for s in kbg(vault, "entity", "suggest-relations")["pending"]}


def test_index_suggests_what_the_text_states_with_its_sentence(svault):
    found = pending(svault)
    dana = found[("Dana Kowalski", "reports-to", "Ana Lima")]
    assert dana["confidence"] == "auto-high" and dana["strength"] == 2 and "Dana reports to Ana" in dana["evidence"]
    assert ("Project Atlas", "blocks", "Checkout Revamp") in found
    assert ("Chen Wei", "leads", "Project Beacon") not in found, "Chen's page already states it"


def test_accept_makes_a_relation_with_its_evidence_and_mirrors_it(svault):
    suggestion = pending(svault)[("Dana Kowalski", "reports-to", "Ana Lima")]
    result = kbg(svault, "entity", "accept", str(suggestion["id"]))
    relation = result["relation"]
    assert (relation["confidence"], relation["mirrored_to"]) == ("auto-high", "people/dana-kowalski.md")
    assert relation["source_doc"] == suggestion["source_doc"]
    assert "- reports-to [[Ana Lima]]" in (svault / "people/dana-kowalski.md").read_text()
    assert ("Dana Kowalski", "reports-to", "Ana Lima") not in pending(svault)
    again = kbg(svault, "entity", "accept", str(suggestion["id"]))  # redoable: the same relation, not re-counted
    assert again["relation"] == relation
    kbg(svault, "entity", "reject", str(suggestion["id"]), code=1)  # the other answer is refused


def test_a_rejected_suggestion_is_not_suggested_again(svault):
    suggestion = pending(svault)[("Project Atlas", "blocks", "Checkout Revamp")]
    kbg(svault, "entity", "reject", str(suggestion["id"]))
    index_vault(svault, full=True)
    assert ("Project Atlas", "blocks", "Checkout Revamp") not in pending(svault)
    rejected = kbg(svault, "entity", "suggestions", "--status", "rejected")["suggestions"]
    assert [s["id"] for s in rejected] == [suggestion["id"]]


def test_auto_accept_high_and_from_doc(svault):
    only = kbg(svault, "entity", "suggest-relations", "--from-doc", "people/arjun-mehta.md")["pending"]
    assert {(s["source"], s["type"], s["target"]) for s in only} == {
        ("Arjun Mehta", "leads", "Auth Service"), ("Project Atlas", "depends-on", "Auth Service")}
    done = kbg(svault, "entity", "suggest-relations", "--min-confidence", "high", "--auto-accept")
    assert len(done["accepted"]) == len(done["pending"]) > 3
    assert all(s["confidence"] == "auto-low" for s in pending(svault).values()), "only the weaker ones are left"


def test_a_sentence_that_is_edited_away_drops_its_pending_suggestion(svault):
    page = svault / "people/arjun-mehta.md"
    page.write_text(page.read_text().replace("Arjun is leading the Auth Service rewrite", "Arjun wrote the Auth Service"))
    index_vault(svault)
    assert ("Arjun Mehta", "leads", "Auth Service") in pending(svault), "another note still says it"
    for path in svault.rglob("*.md"):
        text = path.read_text()
        if "is leading the Auth Service" in text:
            path.write_text(text.replace("is leading the Auth Service", "talks about the Auth Service"))
    index_vault(svault)
    assert ("Arjun Mehta", "leads", "Auth Service") not in pending(svault)


def test_accepting_after_the_document_is_gone_keeps_the_sentence(svault):
    suggestion = pending(svault)[("Arjun Mehta", "contributes-to", "Auth Service")]
    (svault / suggestion["source_doc"]).unlink()  # the meeting note, gone between suggestion and acceptance
    result = kbg(svault, "entity", "accept", str(suggestion["id"]))
    assert "gone" in result["note"] and result["evidence"][0]["sentence"].startswith("- Arjun to ")
    assert result["relation"]["source_doc"] == "people/arjun-mehta.md", "the page line is what states it now"


def test_a_deleted_document_takes_its_pending_suggestions_with_it(svault):
    suggestion = pending(svault)[("Arjun Mehta", "contributes-to", "Auth Service")]
    (svault / suggestion["source_doc"]).unlink()
    index_vault(svault)
    assert ("Arjun Mehta", "contributes-to", "Auth Service") not in pending(svault)


@pytest.mark.parametrize("args, message", [
    (("entity", "accept", "9999"), "no suggestion 9999"),
    (("entity", "reject", "9999"), "no suggestion 9999"),
    (("entity", "suggest-relations", "--from-doc", "nope.md"), "is not in the index"),
])
def test_bad_suggestion_input(svault, args, message):
    result = run_kbg(*args, "--vault", str(svault))
    assert result.returncode == 1 and message in result.stderr


def test_extraction_can_be_turned_off(vault):
    config = vault / "kbgraph.toml"
    config.write_text(config.read_text() + "\n[extract]\npatterns = false\n")
    index_vault(vault)
    assert {s["rule"] for s in kbg(vault, "entity", "suggest-relations")["pending"]} == {"co-occurrence"}
    config.write_text(config.read_text() + "cooccurrence = 0\n")
    index_vault(vault, full=True)
    assert kbg(vault, "entity", "suggest-relations")["pending"] == []


def test_people_together_in_meetings_may_collaborate(svault):
    found = pending(svault)
    ana_arjun = found[("Ana Lima", "collaborates-with", "Arjun Mehta")]
    assert (ana_arjun["confidence"], ana_arjun["rule"]) == ("auto-low", "co-occurrence")
    assert ana_arjun["strength"] >= 3 and ana_arjun["evidence"].startswith("together in ")
    high = kbg(svault, "entity", "suggest-relations", "--min-confidence", "high")["pending"]
    assert all(s["confidence"] == "auto-high" for s in high)


def test_an_action_item_on_a_project_suggests_a_contribution(svault):
    found = pending(svault)
    item = found[("Arjun Mehta", "contributes-to", "Auth Service")]
    assert (item["confidence"], item["rule"]) == ("auto-low", "action-item")
    assert item["evidence"].startswith("- Arjun to ")


def test_no_suggestions_from_code_blocks_tables_or_other_languages(svault):
    note = svault / "notes/odd.md"
    note.write_text(
        "# Odd\n\n```\nProject Atlas depends on ClickHouse\n```\n\n"
        "| from | to |\n|---|---|\n| Project Atlas depends on ClickHouse | x |\n\n"
        "Project Atlas hängt von ClickHouse ab.\n\n"
        + "Because " + "the schedule slipped and " * 400 + "Project Atlas depends on ClickHouse.\n"
    )
    index_vault(svault)
    found = kbg(svault, "entity", "suggest-relations", "--from-doc", "notes/odd.md")["pending"]
    assert [(s["source"], s["type"], s["target"]) for s in found] == [("Project Atlas", "depends-on", "ClickHouse")]
    assert found[0]["evidence"].endswith("Project Atlas depends on ClickHouse.")


def test_a_technology_not_known_yet_can_end_a_suggestion_and_is_created_on_accept(svault):
    note = svault / "notes/stack.md"
    note.write_text("# Stack\n\nProject Atlas uses ClickHouse for its event log. @dana-k reports to Ana Lima.\n")
    index_vault(svault)
    found = pending(svault)
    kafka = found[("Project Atlas", "uses", "ClickHouse")]
    assert (kafka["new_target"], kafka["target_type"], kafka["target_id"]) == (True, "technology", None)
    handle = found[("@dana-k", "reports-to", "Ana Lima")]
    assert (handle["new_source"], handle["source_type"]) == (True, "person")
    assert kbg(svault, "entity", "find", "ClickHouse", code=1)  # nothing is created before the user says so

    result = kbg(svault, "entity", "accept", str(kafka["id"]))
    assert result["created"] == ["ClickHouse"]
    assert kbg(svault, "entity", "find", "ClickHouse")["entity"]["type"] == "technology"
    index_vault(svault, full=True)
    uses = kbg(svault, "entity", "relations", "Project Atlas", "--type", "uses")["relations"]
    assert [(r["target"], r["confidence"]) for r in uses] == [("ClickHouse", "auto-high")]
    accepted = {(s["source"], s["target"]) for s in kbg(svault, "entity", "suggestions", "--status", "accepted")
                ["suggestions"]}
    assert ("Project Atlas", "ClickHouse") in accepted
    assert ("Project Atlas", "uses", "ClickHouse") not in pending(svault)


def test_a_rejected_new_end_stays_rejected_and_creates_nothing(svault):
    (svault / "notes/stack.md").write_text("# Stack\n\nProject Atlas uses ClickHouse.\n")
    index_vault(svault)
    kafka = pending(svault)[("Project Atlas", "uses", "ClickHouse")]
    kbg(svault, "entity", "reject", str(kafka["id"]))
    index_vault(svault, full=True)
    assert ("Project Atlas", "uses", "ClickHouse") not in pending(svault)
    assert kbg(svault, "entity", "find", "ClickHouse", code=1)


def test_extraction_runs_on_demand_for_the_documents_named(vault):
    config = vault / "kbgraph.toml"
    original = config.read_text() + "\n[relations.frontmatter]\ndefaults = false\n"
    config.write_text(original + "\n[extract]\npatterns = false\ncooccurrence = 0\n")
    index_vault(vault)
    assert kbg(vault, "entity", "suggest-relations")["pending"] == []
    config.write_text(original)  # turned back on, and no index run since: only what is asked for is read

    one = kbg(vault, "entity", "extract", "people/arjun-mehta.md")
    assert one["documents"] == 1
    assert {(s["source"], s["type"], s["target"]) for s in one["pending"]} == {
        ("Arjun Mehta", "leads", "Auth Service"), ("Project Atlas", "depends-on", "Auth Service")}
    everything = kbg(vault, "entity", "extract")
    assert len(everything["pending"]) > len(one["pending"])
    assert "not in the index" in kbg(vault, "entity", "extract", "nope.md", code=1)["error"]


def test_names_with_apostrophes_hyphens_and_diacritics_are_ends_like_any(svault):
    (svault / "people/sean.md").write_text("---\ntype: person\nname: Seán O'Brien-Walsh\n---\n# Seán\n")
    (svault / "people/zoe.md").write_text("---\ntype: person\nname: Zoë Ng\n---\n# Zoë\n")
    (svault / "notes/org.md").write_text("# Org\n\nSean O'Brien-Walsh reports to Zoë Ng since May.\n")
    index_vault(svault)
    found = pending(svault)[("Seán O'Brien-Walsh", "reports-to", "Zoë Ng")]
    assert found["evidence"] == "Sean O'Brien-Walsh reports to Zoë Ng since May."


def test_input_that_ends_at_the_prompt_is_one_line_exit_1_and_accepts_nothing(svault, monkeypatch):
    """Ctrl-D (end of input) at 'Accept all?' was reported as 'interrupted', exit 130, as Ctrl-C is."""
    import io
    import sys

    before = pending(svault)

    class EndedTerminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", EndedTerminal(""))
    ended = run_kbg("entity", "suggest-relations", "--vault", str(svault))
    assert ended.returncode == 1 and "input ended at a prompt" in ended.stderr, ended.stderr
    assert pending(svault).keys() == before.keys()

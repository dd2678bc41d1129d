"""Correcting who a name means: unlink / relink a false mention, promote an unlinked one, unmerge."""

from __future__ import annotations

import json

import pytest

from kbgraph.ingest.pipeline import index_vault

from .conftest import kbg, tree_digest


def _unlinked(vault, name: str) -> dict[str, dict]:
    return {r["path"]: r for r in kbg(vault, "entity", "unlinked-mentions", name)["mentions"]}


def _timeline(vault, name: str) -> list[str]:
    return [d["path"] for d in kbg(vault, "entity", "timeline", name)["documents"]]


def test_unlinked_mentions_name_the_entity_without_a_link(indexed_vault):
    rows = _unlinked(indexed_vault, "Ana Lima")
    row = rows["notes/hiring-thoughts.md"]
    assert (row["surface"], row["count"], row["entity"]) == ("Ana", 1, "Ana Lima")
    assert "Chen and Ana described it" in row["context"]
    assert "people/ana-lima.md" not in rows, "an entity's own page is not an unlinked mention of it"
    linked = {d["path"] for d in kbg(indexed_vault, "entity", "unlinked-mentions")["mentions"]
              if d["entity"] == "Project Atlas"}
    assert "projects/atlas.md" not in linked


def test_unlink_drops_a_false_mention_and_survives_a_full_reindex_until_relink(indexed_vault):
    doc = "notes/hiring-thoughts.md"
    assert doc in _timeline(indexed_vault, "Ana Lima")
    before = tree_digest(indexed_vault)
    assert kbg(indexed_vault, "entity", "unlink", "Ana Lima", doc)["changed"] is True
    assert tree_digest(indexed_vault) == before, "unlink is a decision in the index, not an edit"
    for _ in range(2):
        assert doc not in _timeline(indexed_vault, "Ana Lima")
        assert doc not in _unlinked(indexed_vault, "Ana Lima")
        index_vault(indexed_vault, full=True)
    assert doc in _timeline(indexed_vault, "Chen Wei"), "only that entity's mentions there go"
    kbg(indexed_vault, "entity", "relink", "Ana Lima", doc)
    assert doc in _timeline(indexed_vault, "Ana Lima")
    again = kbg(indexed_vault, "entity", "relink", "Ana Lima", doc)  # redoable (issue 18): no error, no change
    assert again["changed"] is False and doc in _timeline(indexed_vault, "Ana Lima")


def test_link_wraps_only_the_first_unlinked_mention(indexed_vault):
    page = indexed_vault / "notes/hiring-thoughts.md"
    before = page.read_text()
    result = kbg(indexed_vault, "entity", "link", "Ana Lima", "notes/hiring-thoughts.md")
    assert result["link"] == "[[Ana Lima|Ana]]"
    after = page.read_text()
    assert after == before.replace("Chen and Ana described", "Chen and [[Ana Lima|Ana]] described", 1)
    assert "notes/hiring-thoughts.md" not in _unlinked(indexed_vault, "Ana Lima")
    mentions = kbg(indexed_vault, "entity", "timeline", "Ana Lima")["documents"]
    assert "notes/hiring-thoughts.md" in [d["path"] for d in mentions]


def test_link_reads_a_note_edited_since_it_was_indexed_before_wrapping(indexed_vault):
    """The mention moved (a line added by hand above it): the note is read again and the mention is
    wrapped where it is now. Was: "changed since it was indexed", which also blocked a rerun of a link
    killed between its page edit and its re-read (issue 18)."""
    page = indexed_vault / "notes/hiring-thoughts.md"
    page.write_text("Intro line added by hand.\n" + page.read_text())
    edited = page.read_text()
    result = kbg(indexed_vault, "entity", "link", "Ana Lima", "notes/hiring-thoughts.md")
    assert result["changed"] is True
    assert page.read_text() == edited.replace("Chen and Ana described", "Chen and [[Ana Lima|Ana]] described", 1)


def test_link_run_again_says_the_note_links_the_entity_already_and_writes_nothing(indexed_vault):
    page = indexed_vault / "notes/hiring-thoughts.md"
    kbg(indexed_vault, "entity", "link", "Ana Lima", "notes/hiring-thoughts.md")
    linked = page.read_text()
    again = kbg(indexed_vault, "entity", "link", "Ana Lima", "notes/hiring-thoughts.md")
    assert (again["changed"], again["link"], again["surface"]) == (False, None, None)
    assert page.read_text() == linked


@pytest.mark.parametrize("args, message", [
    (("link", "Ana Lima", "nope.md"), "not in the index"),
    (("link", "Nobody Here", "notes/hiring-thoughts.md"), "no entity"),
    (("link", "Ana Lima", "people/ana-lima.md"), "has no unlinked mention"),
    (("unlink", "Ana Lima", "nope.md"), "not in the index"),
    (("unmerge", "Ana Lima"), "was not merged"),
])
def test_bad_mention_edits_are_one_line_errors(indexed_vault, args, message):
    before = tree_digest(indexed_vault)
    error = kbg(indexed_vault, "entity", *args, code=1)["error"]
    assert message in error.lower(), error
    assert tree_digest(indexed_vault) == before


def test_unmerge_gives_back_names_mentions_and_relations(indexed_vault):
    vault = indexed_vault
    kbg(vault, "entity", "relate", "Sam Ortiz", "--type", "mentors", "--target", "Lena Fischer")
    kbg(vault, "entity", "relate", "Sam Li", "--type", "collaborates-with", "--target", "Sam Ortiz")
    ortiz_docs = _timeline(vault, "Sam Ortiz")
    kbg(vault, "entity", "merge", "Sam Ortiz", "Sam Li")
    assert "collaborates-with" not in (vault / "people/sam-li.md").read_text()

    result = kbg(vault, "entity", "unmerge", "Sam Ortiz")
    assert (result["unmerged"], result["from"]) == ("Sam Ortiz", "Sam Li")
    ortiz = kbg(vault, "person", "find", "Sam Ortiz")["entity"]
    assert ortiz["name"] == "Sam Ortiz"
    assert "Sam Ortiz" not in kbg(vault, "person", "find", "Sam Li")["entity"]["aliases"]
    assert sorted(_timeline(vault, "Sam Ortiz")) == sorted(ortiz_docs)
    rels = {(r["type"], r["target"]) for r in kbg(vault, "entity", "relations", "Sam Ortiz")["relations"]}
    assert ("mentors", "Lena Fischer") in rels
    assert "- collaborates-with [[Sam Ortiz]]" in (vault / "people/sam-li.md").read_text(), "the line is back"
    index_vault(vault, full=True)
    assert kbg(vault, "person", "find", "Sam Ortiz")["entity"]["name"] == "Sam Ortiz"
    assert "was not merged" in kbg(vault, "entity", "unmerge", "Sam Ortiz", code=1)["error"]


def test_unlinks_travel_in_export_and_import(indexed_vault, tmp_path):
    import shutil

    kbg(indexed_vault, "entity", "unlink", "Ana Lima", "notes/hiring-thoughts.md")
    out = tmp_path / "export.json"
    kbg(indexed_vault, "export", "-o", str(out))
    data = json.loads(out.read_text())
    assert data["unlinks"] == [{"entity": {"type": "person", "name": "Ana Lima"},
                                "doc_path": "notes/hiring-thoughts.md", "created_at": data["unlinks"][0]["created_at"]}]
    fresh = tmp_path / "fresh"
    shutil.copytree(indexed_vault, fresh, ignore=shutil.ignore_patterns(".kbgraph"))
    index_vault(fresh)
    assert kbg(fresh, "import", str(out))["unlinks"] == 1
    assert "notes/hiring-thoughts.md" not in _timeline(fresh, "Ana Lima")


def test_unmerge_moves_back_relations_that_live_only_in_the_index(indexed_vault):
    vault = indexed_vault
    kbg(vault, "entity", "relate", "Project Atlas", "--type", "uses", "--target", "Zed Queue", "--create", "technology")
    kbg(vault, "entity", "relate", "Zed Queue", "--type", "depends-on", "--target", "PostgreSQL")  # no page: index only
    deps = lambda name: [r["target"] for r in kbg(vault, "entity", "relations", name)["relations"]  # noqa: E731
                         if r["type"] == "depends-on"]
    kafka_before = deps("Kafka")
    kbg(vault, "entity", "merge", "Zed Queue", "Kafka")
    assert "PostgreSQL" in deps("Kafka")

    result = kbg(vault, "entity", "unmerge", "Zed Queue")
    assert result["relations_restored"] == 1
    assert deps("Zed Queue") == ["PostgreSQL"]
    assert deps("Kafka") == kafka_before
    users = [r["source"] for r in kbg(vault, "entity", "relations", "Zed Queue")["inverse_relations"]]
    assert users == ["Project Atlas"], "the page line names Zed Queue again"
    index_vault(vault, full=True)
    assert deps("Zed Queue") == ["PostgreSQL"]

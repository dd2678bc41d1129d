"""A page whose name changed is the same entity under a new key (entities/sync.renamed_entities): what
the user said about it (confirmed names, links, merges into it) follows it; see test_confirmed_found."""

from __future__ import annotations

from kbgraph.entities.sync import renamed_entities
from kbgraph.model import EntityClaim


def _page(doc_id: int, path: str, name: str, entity_type: str = "person") -> EntityClaim:
    return EntityClaim(doc_id, path, entity_type, name, (), "page", None, {})


def _primary(paths: dict[int, str]):
    return lambda entity_id: paths.get(entity_id)


def test_a_page_whose_name_changed_is_a_rename():
    before = {1: (10, "Tom Becker", "person"), 2: (11, "Sam Li", "person")}
    claims = [_page(1, "people/tom.md", "Thomas Becker"), _page(2, "people/sam.md", "Sam Li")]
    assert renamed_entities(before, claims, _primary({})) == {"person:tom becker": ("person:thomas becker",
                                                                                     "Thomas Becker")}


def test_a_page_merged_into_another_entity_is_no_rename_nor_a_change_of_type():
    before = {1: (10, "Jonathan Smith", "person"), 2: (10, "Jonathan Smith", "person"), 3: (12, "Atlas", "project")}
    claims = [_page(1, "people/jonathan.md", "Jonathan Smith"), _page(2, "people/jon.md", "Jon Smith"),
              _page(3, "teams/atlas.md", "Atlas Team", "team")]
    assert renamed_entities(before, claims, _primary({})) == {}


def test_an_entity_with_two_pages_renamed_goes_where_its_own_page_went():
    before = {1: (10, "Marcus Hale", "person"), 2: (10, "Marcus Hale", "person")}  # Halle's page merged into it
    claims = [_page(1, "people/hale.md", "Marcus J. Hale"), _page(2, "notes/halle.md", "Marcus Halle")]
    assert renamed_entities(before, claims, _primary({10: "people/hale.md"})) == {
        "person:marcus hale": ("person:marcus j. hale", "Marcus J. Hale")}


def test_a_page_the_user_merged_into_an_entity_without_a_page_keeps_that_merge(tmp_path):
    """Its entity is named by the merge ('Jon Smith'), not by the page ('Tom Becker'): no rename, on an
    index that reads another note or this page again with its name unchanged."""
    from kbgraph.curation.merging import merge_entities
    from kbgraph.ingest.pipeline import index_vault
    from kbgraph.workspace import Workspace

    (tmp_path / "people").mkdir()
    (tmp_path / "people/tom.md").write_text("---\ntype: person\nname: Tom Becker\n---\n# Tom Becker\n")
    (tmp_path / "people/sam.md").write_text("---\ntype: person\nname: Sam Li\n---\n# Sam Li\n")
    (tmp_path / "sync.md").write_text("---\ntype: meeting\ndate: 2026-01-10\nattendees: [Jon Smith, Sam Li]\n---\n"
                                      "# Sync\n")
    index_vault(tmp_path)
    ws = Workspace.open(str(tmp_path))
    try:
        merge_entities(ws, "Tom Becker", "Jon Smith")
    finally:
        ws.store.close()
    for note, more in (("people/sam.md", "Another note changed.\n"), ("people/tom.md", "This page, not its name.\n")):
        with open(tmp_path / note, "a") as f:
            f.write(more)
        index_vault(tmp_path)
        ws = Workspace.open(str(tmp_path))
        try:
            assert [(m.from_name, m.into_name) for m in ws.store.merges()] == [("Tom Becker", "Jon Smith")], note
        finally:
            ws.store.close()

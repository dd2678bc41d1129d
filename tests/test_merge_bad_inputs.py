"""Bad input to merging and lookup (issue 17): a merge of an entity into itself, a cycle of merges, two
pages claiming one alias, a person page without a name. Each is a one-line error with nothing changed, or
an answer that never picks one entity silently."""

from __future__ import annotations

from kbgraph.ingest.pipeline import index_vault

from .conftest import kbg, tree_digest
from .test_redoable_writes import killed_at


def _merges(vault) -> list[tuple[str, str]]:
    from kbgraph.workspace import Workspace

    with Workspace.open(vault) as ws:
        return [(m.from_name, m.into_name) for m in ws.store.merges()]


def test_a_merge_of_an_entity_into_itself_is_refused(indexed_vault):
    before, merges = tree_digest(indexed_vault), _merges(indexed_vault)
    error = kbg(indexed_vault, "entity", "merge", "Ben Okafor", "ben okafor", code=1)["error"]
    assert "are the same entity (Ben Okafor); nothing to merge" in error
    assert tree_digest(indexed_vault) == before and _merges(indexed_vault) == merges


def test_a_merge_back_the_other_way_is_refused_not_a_cycle(indexed_vault):
    kbg(indexed_vault, "entity", "merge", "Ben Okafor", "Ana Lima")
    merges = _merges(indexed_vault)
    error = kbg(indexed_vault, "entity", "merge", "Ana Lima", "Ben Okafor", code=1)["error"]
    assert "same entity" in error, "Ben Okafor is a name of Ana Lima now"
    assert _merges(indexed_vault) == merges and ("Ben Okafor", "Ana Lima") in merges


def test_a_cycle_is_refused_even_before_the_first_merge_is_re_indexed(indexed_vault):
    """A merge killed before its re-index leaves Ben Okafor his own entity in the index: only the recorded
    merges show that merging Ana Lima into him would close a cycle (it was recorded, and then ignored)."""
    killed_at("kbgraph.curation.merging:_remove_self_lines", indexed_vault, "entity", "merge", "Ben Okafor",
              "Ana Lima")
    merges = _merges(indexed_vault)
    error = kbg(indexed_vault, "entity", "merge", "Ana Lima", "Ben Okafor", code=1)["error"]
    assert "'Ben Okafor' was merged into 'Ana Lima' already" in error and "cycle" in error
    assert _merges(indexed_vault) == merges and ("Ben Okafor", "Ana Lima") in merges
    error = kbg(indexed_vault, "entity", "merge", "Ben Okafor", "Sam Li", code=1)["error"]
    assert "'Ben Okafor' was merged into 'Ana Lima' already; unmerge it first" in error
    result = kbg(indexed_vault, "entity", "merge", "Ben Okafor", "Ana Lima")  # the killed merge, finished
    assert result["into"] == "Ana Lima" and "Ben Okafor" in result["aliases"]


def test_two_pages_claiming_one_alias_make_a_lookup_ambiguous(indexed_vault):
    for slug, name in (("alex-kim", "Alex Kim"), ("alex-roe", "Alex Roe")):
        (indexed_vault / f"people/{slug}.md").write_text(f"---\ntype: person\nname: {name}\naliases: [Alex]\n---\n# {name}\n")
    index_vault(indexed_vault)
    error = kbg(indexed_vault, "person", "find", "Alex", code=1)
    assert error["kind"] == "Ambiguous" and {c["name"] for c in error["candidates"]} == {"Alex Kim", "Alex Roe"}
    assert [e["name"] for e in kbg(indexed_vault, "search", "Alex roadmap")["entities"]] == []


def test_a_person_page_without_a_name_is_named_by_its_file(indexed_vault):
    pages = {"jo-park": "type: person\n",  # no name, title or heading: the file's name
             "kim-lee": "type: person\nname: ''\n", "max-roe": "type: person\nname: [Max, Roe]\n"}
    for stem, frontmatter in pages.items():
        (indexed_vault / f"people/{stem}.md").write_text(f"---\n{frontmatter}---\nWorks on the roadmap.\n")
    index_vault(indexed_vault)
    for stem in pages:
        entity = kbg(indexed_vault, "person", "find", stem)["entity"]
        assert (entity["name"], entity["page_path"], entity["type"]) == (stem, f"people/{stem}.md", "person")

"""An import into a fresh index of the same notes gives back what was exported (what migrate-to relies on:
it indexes the notes into the target, imports the export and checks the two are equal)."""

from __future__ import annotations

import shutil
from pathlib import Path

from kbgraph.context.facts import add_fact
from kbgraph.curation.merging import merge_entities
from kbgraph.migrate import comparable
from kbgraph.portable import export_data, import_data, load_export, to_jsonl
from kbgraph.workspace import Workspace


def _exported(store, symmetric) -> dict:
    data = export_data(store, symmetric)
    return {k: comparable(k, data[k]) for k in ("entities", "facts", "relation_history", "merges", "relations")}


def _round_trip(vault: Path, change) -> tuple[dict, dict]:
    with Workspace.open(str(vault)) as ws:
        change(ws)
        symmetric = ws.config.vocabulary.symmetric_names()
        text, before = to_jsonl(export_data(ws.store, symmetric)), _exported(ws.store, symmetric)
    shutil.rmtree(vault / ".kbgraph")  # the notes stay; the index is rebuilt from them
    with Workspace.open(str(vault), create=True) as ws:
        import_data(ws, load_export(text))
        return before, _exported(ws.store, symmetric)


def test_merged_entities_are_rebuilt_as_the_export_had_them(indexed_vault: Path):
    # The merges went in after the first index of the notes, so every relation of the merged entity was made
    # and then moved, each leaving a 'removed' version the exporting vault never had (migrate-to: 'the copy
    # differs from the index in relation_history').
    def change(ws):
        add_fact(ws, "Project Atlas", "note", "uses rust")
        merge_entities(ws, "Project Atlas", "Auth Service")

    before, after = _round_trip(indexed_vault, change)
    assert after == before


def test_a_relation_two_merged_pages_state_keeps_its_home_page(indexed_vault: Path):
    # Ana Lima and María García (merged into her) both report to Ben Okafor; the relation's home was Ana's page,
    # where it was first read, but a fresh index took María's `## Relations` line over Ana's frontmatter
    # value (migrate-to: 'differs in relations').
    def change(ws):
        merge_entities(ws, "Dana Kowalski", "María García")
        merge_entities(ws, "María García", "Ana Lima")

    before, after = _round_trip(indexed_vault, change)
    assert after == before


def test_an_unconfigured_vault_imports_into_a_fresh_copy_of_its_notes(tmp_path: Path):
    # Its export names the inferred profile's types (kep, authored); the fresh copy had inferred nothing yet,
    # so import refused the file before the index that would infer them ran ("unknown entity type 'kep'").
    vault = tmp_path / "keps"
    (vault / "keps").mkdir(parents=True)
    for number, author in ((12, "@alice"), (13, "@bob"), (2291, "@alice")):
        (vault / "keps" / f"kep-{number}.md").write_text(
            f"---\ntitle: K{number}\nkep-number: {number}\nauthors: [\"{author}\"]\nowning-sig: sig-node\n---\n"
            f"# K{number}\n\nBody.\n", encoding="utf-8")
    with Workspace.open(str(vault), create=True) as ws:
        ws.reindex()

    def nothing(ws):
        pass

    before, after = _round_trip(vault, nothing)
    assert any(r["type"] == "authored" for r in before["relations"]) and after == before

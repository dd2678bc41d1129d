"""Facts and loops survive `kbg export` / `kbg import` into a rebuilt index, and a second import adds nothing."""

from __future__ import annotations

import shutil
from dataclasses import asdict
from pathlib import Path

from kbgraph.access import LOCAL
from kbgraph.context.facts import add_fact, supersede_fact
from kbgraph.context.loops import add_loop, resolve_loop
from kbgraph.portable import export_data, import_data, load_export, to_jsonl
from kbgraph.relations.edits import create_entity
from kbgraph.workspace import Workspace

_STATUSES = ("open", "resolved", "dropped")


def _state(store) -> tuple[set, set]:
    facts = {(f.entity_key, f.kind, f.text, f.date, f.source, f.origin, f.recorded_at, f.superseded_at, f.change,
              store.get_fact(LOCAL, f.superseded_by).text if f.superseded_by else None)
             for f in store.facts(LOCAL, None, True)}
    loops = {tuple(v for k, v in asdict(x).items() if k not in ("id", "updated_at")) for x in store.loops(LOCAL, None, _STATUSES)}
    return facts, loops


def test_facts_and_loops_round_trip_through_export(indexed_vault: Path):
    with Workspace.open(str(indexed_vault)) as ws:
        create_entity(ws, "person", "Zoe Park")
        old = add_fact(ws, "Arjun", "interest", "fountain pens", "2026-03-02",
                       source="people/ana-lima.md").item
        supersede_fact(ws, old.id, "calligraphy")
        add_fact(ws, "Zoe Park", "event", "moved to Lisbon", "2026-11-30")
        loop = add_loop(ws, "Arjun", "ask about the surgery @2026-08-15").item
        resolve_loop(ws, loop.id, "2026-08-16")
        add_loop(ws, "Zoe Park", "send the slides @2026-12-20")
        before = _state(ws.store)
        text = to_jsonl(export_data(ws.store, ws.config.vocabulary.symmetric_names()))
    assert '"record": "fact"' in text and '"record": "loop"' in text
    shutil.rmtree(indexed_vault / ".kbgraph")  # the notes stay; the index is rebuilt from them
    with Workspace.open(str(indexed_vault), create=True) as ws:
        counts = import_data(ws, load_export(text))
        assert (counts["facts"], counts["loops"]) == (2, 1)  # the superseded fact and Zoe's: no page says them
        assert _state(ws.store) == before
        again = import_data(ws, load_export(text))
        assert (again["facts"], again["loops"]) == (0, 0)
        assert _state(ws.store) == before


def _exported(store, symmetric) -> dict:
    from kbgraph.migrate import without_run_times

    data = without_run_times(export_data(store, symmetric))
    for fact in data["facts"]:
        fact.pop("id")
    return {k: data[k] for k in ("facts", "relation_history", "merges", "relations")}


def test_a_page_fact_follows_its_page_into_a_merge_and_back(indexed_vault: Path):
    # The fact's page became Auth Service's with the merge, but its row kept Project Atlas's key until the
    # page changed: a fresh index of the same notes keyed it to Auth Service, so migrate-to's check refused
    # the copy ("differs in facts"), and unmerging must give it back.
    from kbgraph.curation.merging import merge_entities, unmerge_entity

    with Workspace.open(str(indexed_vault)) as ws:
        add_fact(ws, "Project Atlas", "note", "uses rust")
        merge_entities(ws, "Project Atlas", "Auth Service")
        assert [(f.entity_key, f.entity) for f in ws.store.facts(LOCAL, None, True)] == [
            ("project:auth service", "Auth Service")]
        unmerge_entity(ws, "Project Atlas")
        assert [f.entity_key for f in ws.store.facts(LOCAL, None, True)] == ["project:project atlas"]


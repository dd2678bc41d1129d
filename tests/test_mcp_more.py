"""The MCP tools for curation, capture and browsing (merge, mentions, note, extract, document list and
relations, timeline, hubs, resolution log, index status) through a real in-process client session:
each answers with text naming the next call and structured content, writes read back through the
library, and bad input comes back as a tool error (an ambiguous name with its candidates, never a guess)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("mcp.server.mcpserver")

from mcp import Client  # noqa: E402

from kbgraph.access import LOCAL  # noqa: E402
from kbgraph.mcp import build_server  # noqa: E402
from kbgraph.workspace import Workspace  # noqa: E402

MORE_WRITES = {"entity_merge", "entity_unmerge", "mention_link", "mention_unlink", "mention_relink", "note", "extract"}
MORE_READS = {"mentions_unlinked", "entity_stale", "entity_candidates", "document_list", "document_relations",
              "entity_timeline", "graph_hubs", "resolution_log", "index_status"}


def run(coro):
    return asyncio.run(coro)


@pytest.fixture
def ws(indexed_vault: Path):
    with Workspace.open(str(indexed_vault)) as workspace:
        yield workspace


@pytest.fixture
def server(ws):
    return build_server(workspace=ws)


def calls(server, *requests: tuple[str, dict]) -> list:
    async def go():
        async with Client(server) as c:
            return [await c.call_tool(name, args) for name, args in requests]

    return run(go())


def test_the_new_tools_are_listed_with_honest_annotations(server):
    async def go():
        async with Client(server) as c:
            return {t.name: t for t in (await c.list_tools()).tools}

    tools = run(go())
    assert MORE_READS | MORE_WRITES <= set(tools)
    for name in MORE_READS | MORE_WRITES:
        a = tools[name].annotations
        assert a.read_only_hint is (name in MORE_READS), name
        assert None not in (a.destructive_hint, a.idempotent_hint) and a.open_world_hint is False, name
    assert tools["entity_merge"].annotations.destructive_hint is True
    assert tools["entity_unmerge"].annotations.destructive_hint is True
    assert tools["mention_unlink"].annotations.destructive_hint is True
    assert tools["note"].annotations.idempotent_hint is False


def test_merge_and_unmerge_change_who_is_who_and_read_back(server, ws):
    from kbgraph.entities.lookup import find_entity

    merged, = calls(server, ("entity_merge", {"merged": "Sam Li", "into": "Sam Ortiz"}))
    assert not merged.is_error, merged.content[0].text
    assert "Sam Li" in merged.structured_content["aliases"] and "entity_profile" in merged.content[0].text
    assert find_entity(ws.store, "Sam Li", access=LOCAL).name == "Sam Ortiz"

    back, again = calls(server, ("entity_unmerge", {"merged": "Sam Li"}), ("entity_unmerge", {"merged": "Sam Li"}))
    assert not back.is_error and back.structured_content["unmerged"] == "Sam Li"
    assert find_entity(ws.store, "Sam Li", access=LOCAL).name == "Sam Li"
    assert again.is_error and again.structured_content["kind"] == "InvalidInput"


def test_mentions_link_unlink_relink_and_list(server, ws):
    listed, linked, unlinked, after, relinked = calls(
        server,
        ("mentions_unlinked", {"entity": "Ana Lima", "limit": 100}),
        ("mention_link", {"entity": "Ana Lima", "doc": "notes/hiring-thoughts.md"}),
        ("mention_unlink", {"entity": "Ana Lima", "doc": "notes/engineering-principles.md"}),
        ("mentions_unlinked", {"entity": "Ana Lima", "limit": 100}),
        ("mention_relink", {"entity": "Ana Lima", "doc": "notes/engineering-principles.md"}),
    )
    paths = {r["path"] for r in listed.structured_content["mentions"]}
    assert {"notes/hiring-thoughts.md", "notes/engineering-principles.md"} <= paths
    assert "mention_link" in listed.content[0].text, "the next call is named"
    assert linked.structured_content["link"] in (ws.root / "notes/hiring-thoughts.md").read_text()
    assert unlinked.structured_content["changed"] is True
    assert not {"notes/hiring-thoughts.md", "notes/engineering-principles.md"} & {
        r["path"] for r in after.structured_content["mentions"]}
    assert not relinked.is_error and relinked.structured_content["unlinked"] is False


def test_note_captures_facts_asks_about_unsure_names_and_refuses_ambiguous_ones(server, ws):
    from kbgraph.context.facts import list_facts

    stored, asked, ambiguous, daily = calls(
        server,
        ("note", {"text": "person: Chen Wei; int: fountain pens; loop: send the retro notes @2026-08-15"}),
        ("note", {"text": "person: Chen Wie; int: chess"}),
        ("note", {"text": "person: Sam; int: chess"}),
        ("note", {"text": "remember the offsite budget"}),
    )
    assert stored.structured_content["stored"] is True and len(stored.structured_content["loops"]) == 1
    assert "fact_list" in stored.content[0].text
    assert [f.text for f in list_facts(ws.store, ws.access, "Chen Wei")] == ["fountain pens"]
    assert asked.structured_content["stored"] is False and "CONFIRM?" in asked.content[0].text
    assert "confirm=true" in asked.content[0].text
    assert ambiguous.is_error and {c["name"] for c in ambiguous.structured_content["candidates"]} == {"Sam Li", "Sam Ortiz"}
    assert "call note again with one of" in ambiguous.content[0].text
    assert "remember the offsite budget" in (ws.root / daily.structured_content["daily_note"]).read_text()


def test_the_read_tools_answer_with_structured_content(server):
    docs, relations, timeline, hubs, pagerank, log, status, stale, candidates, extracted = calls(
        server,
        ("document_list", {"kinds": ["meeting"], "limit": 5}),
        ("document_relations", {"target": "meetings/2026/01/13/atlas-weekly-sync.md"}),
        ("entity_timeline", {"name": "AJ"}),
        ("graph_hubs", {"limit": 3}),
        ("graph_hubs", {"limit": 3, "by": "pagerank"}),
        ("resolution_log", {}),
        ("index_status", {}),
        ("entity_stale", {"days": 30, "include_relations": True}),
        ("entity_candidates", {"limit": 5}),
        ("extract", {"paths": ["decisions/2026-02-03-adopt-postgres-for-atlas.md"]}),
    )
    for res in (docs, relations, timeline, hubs, pagerank, log, status, stale, candidates, extracted):
        assert not res.is_error, res.content[0].text
    assert docs.structured_content["count"] == 5 and {d["kind"] for d in docs.structured_content["documents"]} == {"meeting"}
    assert "document_view" in docs.content[0].text
    assert relations.structured_content["relations"] and relations.structured_content["total"] >= 1
    assert timeline.structured_content["entity"]["name"] == "Arjun Mehta" and timeline.structured_content["count"] > 0
    assert len(hubs.structured_content["hubs"]) == 3 and pagerank.structured_content["by"] == "pagerank"
    assert log.structured_content["count"] == len(log.structured_content["decisions"])
    assert status.structured_content["documents"] > 0 and "problems" in status.structured_content
    assert stale.structured_content["days"] == 30 and "relations" in stale.structured_content
    assert candidates.structured_content["candidates"][0]["surface"] == "MySQL"
    assert extracted.structured_content["documents"] == 1


BAD = [
    ("entity_merge", {"merged": "Sam Li"}),  # missing
    ("entity_merge", {"merged": 1, "into": "Sam Ortiz"}),  # wrong type
    ("entity_merge", {"merged": "", "into": "Sam Ortiz"}),  # empty
    ("mention_link", {"entity": "Ana Lima", "doc": "x" * 5000}),  # huge
    ("note", {"text": ""}),
    ("graph_hubs", {"by": "betweenness"}),
    ("entity_stale", {"days": -1}),
    ("resolution_log", {"outcome": "maybe"}),
    ("extract", {"paths": ["x.md"] * 101}),
    ("document_list", {"limit": 0}),
]


def test_bad_arguments_unknown_names_and_ambiguous_ones_are_tool_errors(server, ws):
    merges_before = ws.store.merges()  # the sample vault links 'Arjoon Mehta' by itself
    results = calls(
        server, *BAD,
        ("entity_merge", {"merged": "Sam", "into": "Ana Lima"}),
        ("entity_merge", {"merged": "Nobody Atall", "into": "Ana Lima"}),
        ("entity_merge", {"merged": "Kafka", "into": "Ana Lima"}),
        ("mention_unlink", {"entity": "Ana Lima", "doc": "../kbgraph.toml"}),
        ("mention_relink", {"entity": "Ana Lima", "doc": "notes/hiring-thoughts.md"}),
        ("entity_timeline", {"name": "Sam"}),
        ("document_relations", {"target": "no/such.md"}),
        ("extract", {"paths": ["no/such.md"]}),
    )
    for (name, args), res in zip(BAD, results):
        assert res.is_error, (name, args)
        assert "Traceback" not in res.content[0].text
    ambiguous, nobody, types, outside, not_unlinked, timeline, no_doc, no_path = results[len(BAD):]
    assert ambiguous.is_error and ambiguous.structured_content["kind"] == "Ambiguous"
    assert "call entity_merge again with one of" in ambiguous.content[0].text
    assert {c["name"] for c in ambiguous.structured_content["candidates"]} == {"Sam Li", "Sam Ortiz"}
    assert nobody.is_error and nobody.structured_content["kind"] == "NotFound"
    assert types.is_error and "only entities of one type" in types.content[0].text
    assert outside.is_error and outside.structured_content["kind"] == "NotFound"
    assert not not_unlinked.is_error and not_unlinked.structured_content["changed"] is False  # redoable (issue 18)
    assert timeline.is_error and timeline.structured_content["kind"] == "Ambiguous"
    assert no_doc.is_error and no_path.is_error and no_path.structured_content["kind"] == "NotFound"
    assert ws.store.merges() == merges_before, "nothing was merged"

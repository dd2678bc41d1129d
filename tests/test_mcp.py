"""The MCP server through a real client session: in process (the 2026 protocol and the legacy JSON-RPC
handshake), and once over stdio as `kbg mcp`. Every tool is called; writes are read back through the
library; bad arguments, ambiguous names and `../` paths come back as errors, never tracebacks."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp.server.mcpserver")

from mcp import Client, MCPError, StdioServerParameters  # noqa: E402

from kbgraph.access import LOCAL, Access  # noqa: E402
from kbgraph.ingest.pipeline import index_vault  # noqa: E402
from kbgraph.mcp import build_server  # noqa: E402
from kbgraph.workspace import Workspace  # noqa: E402

from .conftest import run_kbg  # noqa: E402
from .test_mcp_more import MORE_READS, MORE_WRITES  # noqa: E402  (the tools test_mcp_more.py calls)

MODES = ["default", "legacy"]
WRITES = {"relate", "unrelate", "suggestion_accept", "suggestion_reject", "resolution_confirm", "resolution_reject",
          "resolve_conflict", "fact_add", "fact_supersede", "loop_add", "loop_resolve"}
READS = {"search", "document_view", "recall", "context", "slice", "entity_find", "entity_list", "entity_profile",
         "relations_list", "graph_neighbours", "graph_path", "suggestions_list", "resolution_pending", "fact_list",
         "conflicts", "loop_list", "brief"}
SAMS = """---
type: meeting
date: 2026-04-01
attendees: [Sam]
---
# Sync

Sam will send the notes.
"""


def client(server, mode: str) -> Client:
    return Client(server, mode="legacy") if mode == "legacy" else Client(server)


def run(coro):
    return asyncio.run(coro)


@pytest.fixture
def ws(indexed_vault: Path):
    with Workspace.open(str(indexed_vault)) as workspace:
        yield workspace


@pytest.fixture
def server(ws):
    return build_server(workspace=ws)


@pytest.mark.parametrize("mode", MODES)
def test_a_session_lists_every_tool_with_its_annotations(server, mode):
    async def go():
        async with client(server, mode) as c:
            return c.server_info, c.instructions, (await c.list_tools()).tools, await c.list_resource_templates()

    info, instructions, tools, templates = run(go())
    assert info.name == "kbgraph" and "never guess" in instructions
    assert {t.name for t in tools} == READS | WRITES | MORE_READS | MORE_WRITES
    for tool in tools:
        a = tool.annotations
        assert a.open_world_hint is False, tool.name
        assert None not in (a.read_only_hint, a.destructive_hint, a.idempotent_hint), tool.name
        assert a.read_only_hint is (tool.name in READS | MORE_READS), tool.name
        assert tool.description and tool.input_schema["type"] == "object"
    assert {t.uri_template for t in templates.resource_templates} == {"note://{+path}", "entity://{name}"}


def _call_all(server, mode: str) -> dict:
    """Every tool once, reads then writes; the results by tool name."""
    async def go():
        out = {}
        async with client(server, mode) as c:
            async def call(tool, **args):
                res = await c.call_tool(tool, args)
                assert not res.is_error, (tool, res.content)
                assert res.content[0].text and isinstance(res.structured_content, dict), tool
                out[tool] = res
                return res.structured_content

            await call("search", query="key rotation", limit=3)
            await call("search", query="key rotation", unit="passage", explain=True, limit=2)
            await call("document_view", target="people/ana-lima.md")
            await call("recall", query="what does my manager care about")
            await call("context", topic="Project Atlas", budget=400)
            await call("slice", names=["Ana Lima", "Project Atlas"])
            await call("entity_find", name="AJ")
            await call("entity_list", entity_type="person", limit=5)
            await call("entity_profile", name="Ana Lima")
            await call("relations_list", name="Ana Lima")
            await call("graph_neighbours", name="Ana Lima", depth=2)
            await call("graph_path", source="Arjun Mehta", target="Ben Okafor")
            pending = (await call("suggestions_list"))["suggestions"]
            questions = (await call("resolution_pending"))["questions"]
            await call("relate", source="Lena Fischer", type_name="mentors", target="Chen Wei", reason="weekly 1:1")
            await call("relate", source="Chen Wei", type_name="collaborates-with", target="Sam Li")
            await call("unrelate", source="Chen Wei", type_name="collaborates-with", target="Sam Li")
            known = [s for s in pending if not (s["new_source"] or s["new_target"])]
            await call("suggestion_accept", suggestion_id=known[0]["id"])
            await call("suggestion_reject", suggestion_id=known[1]["id"])
            by_candidate = {q["candidate_name"]: q["id"] for q in questions}
            await call("resolution_reject", question_id=by_candidate["Sam Ortiz"])
            await call("resolution_confirm", question_id=by_candidate["Sam Li"])
            # A second, undated manager: a factual conflict, left open for the user.
            made = await call("relate", source="Chen Wei", type_name="reports-to", target="Lena Fischer")
            assert [c["id"] for c in (await call("conflicts"))["conflicts"]] == [made["conflicts"][0]["id"]]
            await call("resolve_conflict", conflict_id=made["conflicts"][0]["id"], keep="old")
            fact = (await call("fact_add", entity="Chen Wei", text="fountain pens", kind="interest"))["fact"]
            await call("fact_supersede", fact_id=fact["id"], text="mechanical pencils")
            await call("fact_list", entity="Chen Wei", include_superseded=True)
            loop = (await call("loop_add", entity="Chen Wei", text="send the retro notes", due="2026-08-15"))["loop"]
            await call("loop_list", entity="Chen Wei")
            await call("brief", entity="Chen Wei")
            await call("loop_resolve", loop_id=loop["id"])
        out["accepted"], out["rejected"] = known[0], known[1]
        return out

    return run(go())


@pytest.mark.parametrize("mode", MODES)
def test_every_tool_answers_and_writes_show_through_the_library(tmp_path, indexed_vault, mode):
    from kbgraph.context.facts import list_facts
    from kbgraph.context.loops import list_loops
    from kbgraph.entities.lookup import find_entity
    from kbgraph.relations.conflict_resolution import list_conflicts
    from kbgraph.relations.records import entity_relations
    from kbgraph.relations.suggestions import list_suggestions

    note = indexed_vault / "meetings/2026/04/01/sync.md"
    note.parent.mkdir(parents=True)
    note.write_text(SAMS)
    index_vault(indexed_vault)
    with Workspace.open(str(indexed_vault)) as ws:
        out = _call_all(build_server(workspace=ws), mode)
    assert set(out) - {"accepted", "rejected"} == READS | WRITES

    hit = out["search"].structured_content["hits"][0]
    assert {"path", "line", "snippet", "score", "explain"} <= set(hit)
    passage = out["search"].structured_content  # the last search: passages, explained
    assert passage["unit"] == "passage" and passage["hits"][0]["explain"]["signals"]
    assert "why:" in out["search"].content[0].text
    assert out["entity_find"].structured_content["entity"]["name"] == "Arjun Mehta"
    assert "entity_profile" in out["entity_find"].content[0].text, "the next call is named"
    assert out["graph_path"].structured_content["hops"] >= 1
    assert out["context"].structured_content["tokens"] <= 400
    assert "resolve_conflict" in out["conflicts"].content[0].text, "the next call is named"
    assert "kept Ben Okafor" in out["resolve_conflict"].content[0].text

    with Workspace.open(str(indexed_vault)) as ws:
        vocab = ws.config.vocabulary
        lena = entity_relations(ws.store, vocab, find_entity(ws.store, "Lena Fischer", access=LOCAL), access=LOCAL)
        assert any(r["type"] == "mentors" and r["target"] == "Chen Wei" for r in lena["relations"])
        chen = entity_relations(ws.store, vocab, find_entity(ws.store, "Chen Wei", access=LOCAL), access=LOCAL)
        assert not any(r["type"] == "collaborates-with" and "Sam Li" in (r["source"], r["target"])
                       for r in chen["relations"] + chen["inverse_relations"]), "unrelated"
        accepted = {s["id"] for s in list_suggestions(ws.store, "accepted", access=LOCAL)}
        assert out["accepted"]["id"] in accepted or out["suggestion_accept"].structured_content["status"] == "accepted"
        source = find_entity(ws.store, out["accepted"]["source"], access=LOCAL)
        rows = entity_relations(ws.store, vocab, source, out["accepted"]["type"], access=LOCAL)
        assert any(r["target"] == out["accepted"]["target"] for r in rows["relations"])
        assert out["rejected"]["id"] in {s["id"] for s in list_suggestions(ws.store, "rejected", access=LOCAL)}
        assert [f.text for f in list_facts(ws.store, ws.access, "Chen Wei")] == ["mechanical pencils"]
        assert list_loops(ws.store, ws.access, "Chen Wei") == []
        asked = ws.store.decisions(ws.access, "asked")
        assert [q for q in asked if q["doc_path"] == "meetings/2026/04/01/sync.md"] == [], "the sample's own stay"
        assert list_conflicts(ws) == [] and list_conflicts(ws, True)[0]["status"] == "resolved"
        managers = entity_relations(ws.store, vocab, find_entity(ws.store, "Chen Wei", access=LOCAL), "reports-to", access=LOCAL)["relations"]
        assert [r["target"] for r in managers] == ["Ben Okafor"], "the one not kept ended yesterday"
    page = (indexed_vault / "people/lena-fischer.md").read_text()
    assert "mentors" in page and "Chen Wei" in page, "relate writes the page line"
    assert "mechanical pencils" in (indexed_vault / "people/chen-wei.md").read_text()


BAD = [
    ("search", {}),  # missing
    ("search", {"query": 42}),  # wrong type
    ("search", {"query": "x", "unit": "sentence"}),  # not a choice
    ("search", {"query": "x", "limit": 0}),
    ("search", {"query": "x" * 5000}),  # huge
    ("entity_profile", {"name": ["Ana"]}),
    ("graph_neighbours", {"name": "Ana Lima", "depth": 99}),
    ("suggestion_accept", {"suggestion_id": "one"}),
    ("slice", {"names": []}),
    ("resolve_conflict", {"conflict_id": 1, "keep": "newest"}),
]


@pytest.mark.parametrize("mode", MODES)
def test_bad_arguments_unknown_ids_and_library_errors_are_tool_errors(server, mode):
    async def go():
        async with client(server, mode) as c:
            bad = [await c.call_tool(name, args) for name, args in BAD]
            missing = await c.call_tool("suggestion_accept", {"suggestion_id": 99999})
            no_conflict = await c.call_tool("resolve_conflict", {"conflict_id": 99999, "keep": "old"})
            nobody = await c.call_tool("entity_profile", {"name": "Nobody Atall"})
            empty = await c.call_tool("search", {"query": "   "})
            outside = await c.call_tool("document_view", {"target": "../kbgraph.toml"})
            return bad, missing, no_conflict, nobody, empty, outside

    bad, missing, no_conflict, nobody, empty, outside = run(go())
    for (name, args), res in zip(BAD, bad):
        assert res.is_error, (name, args)
        assert "Traceback" not in res.content[0].text
    assert missing.is_error and "no suggestion 99999" in missing.content[0].text
    assert missing.structured_content["kind"] == "NotFound"
    assert no_conflict.is_error and "no conflict 99999" in no_conflict.content[0].text
    assert nobody.is_error and "no entity named 'Nobody Atall'" in nobody.content[0].text
    assert empty.is_error and "empty query" in empty.content[0].text
    assert outside.is_error and outside.structured_content["kind"] == "NotFound"


@pytest.mark.parametrize("mode", MODES)
def test_an_ambiguous_name_lists_its_candidates_and_names_the_next_call(server, mode):
    async def go():
        async with client(server, mode) as c:
            return await c.call_tool("entity_profile", {"name": "Sam"})

    res = run(go())
    assert res.is_error
    text = res.content[0].text
    assert "ambiguous" in text and "call entity_profile again with one of: " in text
    assert {c["name"] for c in res.structured_content["candidates"]} == {"Sam Li", "Sam Ortiz"}
    assert res.structured_content["kind"] == "Ambiguous"


@pytest.mark.parametrize("mode", MODES)
def test_resources_serve_notes_and_entity_pages_and_refuse_paths_outside_the_vault(server, ws, mode):
    async def go():
        async with client(server, mode) as c:
            note = await c.read_resource("note://people/ana-lima.md")
            page = await c.read_resource("entity://Ana%20Lima")
            refused = []
            for uri in ("note://../kbgraph.toml", "note://people/../../etc/passwd", "note://%2E%2E/x.md",
                        "note:///etc/passwd", "note://people/nobody.md", "entity://Sam"):
                with pytest.raises(MCPError) as caught:
                    await c.read_resource(uri)
                refused.append(str(caught.value))
            return note, page, refused

    note, page, refused = run(go())
    text = (ws.root / "people/ana-lima.md").read_text()
    assert note.contents[0].text == text and note.contents[0].mime_type == "text/markdown"
    assert page.contents[0].text == text
    assert "is not in the index" in refused[4] and "ambiguous" in refused[5]


def test_kbg_mcp_over_stdio(shared_sample):
    import os

    entry = Path(sys.executable).parent / "kbg"
    command, args = (str(entry), []) if entry.exists() else (sys.executable, ["-m", "kbgraph.cli.app"])
    params = StdioServerParameters(command=command, args=[*args, "mcp", "--vault", str(shared_sample)],
                                   env={**os.environ, "KBG_EMBEDDER": "fake"})

    async def go():
        async with Client(params) as c:
            tools = (await c.list_tools()).tools
            return c.server_info, tools, await c.call_tool("entity_find", {"name": "Ana"})

    info, tools, found = run(go())
    assert info.name == "kbgraph" and len(tools) == len(READS | WRITES | MORE_READS | MORE_WRITES)
    assert not found.is_error and found.structured_content["entity"]["name"] == "Ana Lima"


def test_kbg_mcp_without_the_sdk_names_the_extra(shared_sample, monkeypatch):
    monkeypatch.setitem(sys.modules, "mcp.server.mcpserver", None)  # `import mcp.server.mcpserver` fails
    result = run_kbg("mcp", "--vault", str(shared_sample))
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "pip install 'kbgraph[serve]'" in result.stderr, result.stderr


def test_document_relations_and_candidates_read_as_the_workspace_reader(indexed_vault):
    """Both tools read as the local user whatever reader the workspace was opened for: a reader of public
    notes only got a private page's siblings (paths and titles), and the names in every note with an example
    path each."""
    import dataclasses

    with Workspace.open(str(indexed_vault)) as ws:
        public_only = dataclasses.replace(ws, access=Access.of("visitor"))  # the sample has no public note

        async def go(workspace):
            async with client(build_server(workspace=workspace), "default") as c:
                return (await c.call_tool("document_relations", {"target": "people/ana-lima.md"}),
                        await c.call_tool("entity_candidates", {"limit": 5}))

        (own, named), (visitor, unnamed) = run(go(ws)), run(go(public_only))
    assert not own.is_error and "people/ben-okafor.md" in own.content[0].text  # a sibling, to the local user
    assert visitor.is_error and "not in the index" in visitor.content[0].text
    assert "ben-okafor" not in visitor.content[0].text
    assert named.structured_content["count"] > 0
    assert not unnamed.is_error and unnamed.structured_content["count"] == 0, unnamed.content[0].text

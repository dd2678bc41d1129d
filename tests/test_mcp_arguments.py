"""What an MCP client sends is checked once for every tool, through a real client session (the 2026
protocol and the legacy JSON-RPC handshake): a bad value is one line naming the argument and what it
expects, an argument a tool does not take is refused with the ones it does take (never dropped), and
every tool lists its input as closed and its structured content's schema."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

pytest.importorskip("mcp.server.mcpserver")

from mcp import Client  # noqa: E402

from kbgraph.mcp import build_server  # noqa: E402
from kbgraph.workspace import Workspace  # noqa: E402

MODES = ["default", "legacy"]

# (tool, arguments, the argument at fault, what the one line says of it)
BAD = [
    ("search", {"query": 42}, "query", "`query` must be a string, got 42"),
    ("search", {}, "query", "`query` is required: a string (Plain words;"),
    ("resolve_conflict", {"conflict_id": 1}, "keep", "`keep` is required: 'old' or 'new' or 'both'"),
    ("search", {"query": None}, "query", "`query` must be a string, got null"),
    ("search", {"query": "x", "unit": "sentence"}, "unit", "`unit` must be 'document' or 'passage', got \"sentence\""),
    ("search", {"query": "x", "limit": 0}, "limit", "`limit` must be at least 1, got 0"),
    ("search", {"query": "x" * 5000}, "query", "`query` must have at most 2000 characters, got a string of 5000"),
    ("search", {"query": "x", "explain": "maybe"}, "explain", "`explain` must be true or false, got \"maybe\""),
    ("entity_profile", {"name": ["Ana"]}, "name", "`name` must be a string, got [\"Ana\"]"),
    ("graph_neighbours", {"name": "Ana Lima", "depth": 99}, "depth", "`depth` must be at most 6, got 99"),
    ("graph_neighbours", {"name": "Ana Lima", "types": [1]}, "types", "`types[0]` must be a string, got 1"),
    ("suggestion_accept", {"suggestion_id": "one"}, "suggestion_id", "`suggestion_id` must be a whole number"),
    ("slice", {"names": []}, "names", "`names` must have at least 1 item, got []"),
    ("extract", {"paths": ["x.md"] * 101}, "paths", "`paths` must have at most 100 items, got a list of 101 items"),
    # pydantic's lax mode converted these and answered (limit 1, limit 3, expired included): never again
    ("search", {"query": "atlas", "limit": True}, "limit", "`limit` must be a whole number, got true"),
    ("search", {"query": "atlas", "limit": "3"}, "limit", "`limit` must be a whole number, got \"3\""),
    ("search", {"query": "atlas", "limit": 2.0}, "limit", "`limit` must be a whole number, got 2.0"),
    ("relations_list", {"name": "Ben Okafor", "include_expired": "yes"}, "include_expired",
     "`include_expired` must be true or false, got \"yes\""),
    ("relations_list", {"name": "Ben Okafor", "include_expired": 1}, "include_expired",
     "`include_expired` must be true or false, got 1"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory, indexed_sample):
    from .conftest import copy_indexed

    vault = copy_indexed(indexed_sample, tmp_path_factory.mktemp("mcp_arguments") / "vault")
    with Workspace.open(str(vault)) as ws:
        yield build_server(workspace=ws)


def calls(server, mode: str, *wanted: tuple[str, dict]):
    async def go():
        async with (Client(server, mode="legacy") if mode == "legacy" else Client(server)) as c:
            return [await c.call_tool(name, args) for name, args in wanted], (await c.list_tools()).tools

    return asyncio.run(go())


@pytest.mark.parametrize("mode", MODES)
def test_a_bad_argument_is_one_line_naming_it_and_what_it_expects(server, mode):
    results, _ = calls(server, mode, *((name, args) for name, args, _, _ in BAD))
    for (name, args, param, says), res in zip(BAD, results):
        text = res.content[0].text
        assert res.is_error, (name, args)
        assert "\n" not in text and "pydantic" not in text and "http" not in text, text
        assert text.startswith(f"error: {name}: ") and says in text, text
        assert res.structured_content == {"error": text.removeprefix("error: "), "kind": "InvalidInput",
                                          "param": param}


@pytest.mark.parametrize("mode", MODES)
def test_two_bad_arguments_are_both_named_on_the_one_line(server, mode):
    [res], _ = calls(server, mode, ("search", {"query": "x", "limit": "ten", "unit": 3}))
    text = res.content[0].text
    assert res.is_error and "\n" not in text
    assert "`limit` must be a whole number, got \"ten\"" in text and "`unit` must be 'document' or 'passage'" in text


@pytest.mark.parametrize("mode", MODES)
def test_an_unknown_argument_is_refused_with_the_known_names(server, mode):
    results, tools = calls(server, mode, ("relations_list", {"type": "manages"}),
                           ("search", {"query": "atlas", "limt": 3}), ("index_status", {"verbose": True}))
    schemas = {t.name: list(t.input_schema["properties"]) for t in tools}
    typo, extra, none_taken = results
    assert typo.is_error and typo.structured_content["kind"] == "InvalidInput"
    assert typo.structured_content["param"] == "type"
    assert typo.structured_content["known"] == schemas["relations_list"]
    assert typo.content[0].text == ("error: relations_list has no argument `type` (did you mean `type_name`?); "
                                    "its arguments: name, type_name, include_expired, limit")
    assert extra.is_error and "`limt` (did you mean `limit`?)" in extra.content[0].text, "never searched without it"
    assert none_taken.is_error and "index_status has no argument `verbose`; its arguments: none" in none_taken.content[0].text


@pytest.mark.parametrize("mode", MODES)
def test_an_unknown_tool_names_the_close_ones(server, mode):
    [res], _ = calls(server, mode, ("relations_lst", {}))
    assert res.is_error and res.structured_content["kind"] == "NotFound"
    assert res.content[0].text.startswith("error: no tool named 'relations_lst'; did you mean relations_list")


@pytest.mark.parametrize("mode", MODES)
def test_every_tool_lists_a_closed_input_and_the_schema_of_its_answer(server, mode):
    import jsonschema

    results, tools = calls(server, mode, ("relations_list", {"type_name": "manages"}),
                           ("relations_list", {"name": "Ana Lima"}), ("search", {"query": "atlas"}))
    for tool in tools:
        assert tool.input_schema.get("additionalProperties") is False, tool.name
        schema = tool.output_schema
        assert schema and schema["type"] == "object" and schema["required"], tool.name
        assert set(schema["required"]) <= set(schema["properties"]), tool.name
        jsonschema.Draft202012Validator.check_schema(schema)
    by_name = {t.name: t.output_schema for t in tools}
    # The client already held each answer to its schema; checked here as well, so this test does not
    # rest on the client doing it.
    for name, res in zip(("relations_list", "relations_list", "search"), results):
        assert not res.is_error, res.content[0].text
        jsonschema.validate(res.structured_content, by_name[name])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"relations": "not a list"}, by_name["relations_list"])


NAMES = ["Ana Lima", "Sam", "atlas", "Kafka", "people/ana-lima.md", "", " ", "2026-03-01", "x" * 600]


def _value(prop: dict):
    """A value of the kind a property takes (hypothesis), within its bounds or not."""
    from hypothesis import strategies as st

    if "enum" in prop:
        return st.sampled_from(prop["enum"])
    if "anyOf" in prop:
        return st.one_of([_value(p) for p in prop["anyOf"]])
    kind = prop.get("type")
    if kind == "array":
        return st.lists(_value(prop.get("items", {})), max_size=4)
    return {"string": st.sampled_from(NAMES), "integer": st.integers(-2, 40_000), "boolean": st.booleans(),
            "null": st.none(), "number": st.floats(-1, 2, allow_nan=False)}.get(kind, st.none())


def test_any_arguments_to_any_read_tool_answer_in_shape_or_in_one_line(server):
    """Random arguments, of the right kind or not, known or not, to every read-only tool (straight to the
    server, no session, to try many): a valid call's answer holds to the tool's output schema, a refused
    one is a single line from the argument check, and nothing comes back as a crash."""
    import jsonschema
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    tools = [t for t in asyncio.run(server.list_tools()) if t.annotations.read_only_hint]
    json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                               lambda inner: st.lists(inner, max_size=2), max_leaves=4)

    @st.composite
    def call(draw):
        tool = draw(st.sampled_from(tools))
        props = tool.input_schema["properties"]
        args = {name: draw(_value(prop) if draw(st.integers(0, 4)) else json_values)
                for name, prop in props.items() if name in tool.input_schema.get("required", ()) or draw(st.booleans())}
        if draw(st.integers(0, 5)) == 0:
            args[draw(st.sampled_from(["type", "q", "limt", "verbose"]))] = 1
        return tool, args

    @settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
    @given(call())
    def check(drawn):
        tool, args = drawn
        res = asyncio.run(server.call_tool(tool.name, args))
        text = res.content[0].text if res.content else ""
        assert "Error executing tool" not in text and "Traceback" not in text, (tool.name, args, text)
        if res.is_error:
            assert res.structured_content and res.structured_content["kind"], (tool.name, args, text)
            if text.startswith(f"error: {tool.name}: `") or " has no argument " in text:
                assert "\n" not in text, (tool.name, args, text)
        else:
            wire = json.loads(res.model_dump_json(by_alias=True))["structuredContent"]  # as a client reads it
            jsonschema.validate(wire, tool.output_schema)

    check()


def test_the_error_examples_in_docs_mcp_are_what_the_server_says(server):
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "mcp.md").read_text(encoding="utf-8")
    examples = re.findall(r"^→ (\w+) (\{.*?\})   \(isError: true\)\n(.*)$", text, re.MULTILINE)
    assert len(examples) >= 2
    results, _ = calls(server, "default", *((name, json.loads(args)) for name, args, _ in examples))
    for (name, args, said), res in zip(examples, results):
        assert res.is_error and res.content[0].text == said, (name, args)

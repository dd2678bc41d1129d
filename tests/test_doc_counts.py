"""What the README and docs/ count or list about the servers is read from the servers themselves: the
MCP tools a client lists, the HTTP endpoints in the OpenAPI schema, the CLI's commands. The README said
"26 tools" while the server had 44; any "N tools", "N endpoints" or "N commands" written anywhere in
README.md or docs/*.md, and the lists of tools and endpoints, are checked here so they cannot drift."""

from __future__ import annotations

import asyncio
import importlib.util
import re
from pathlib import Path

import pytest

pytest.importorskip("mcp.server.mcpserver")
pytest.importorskip("fastapi")

from mcp import Client  # noqa: E402

from kbgraph.api.app import create_app  # noqa: E402
from kbgraph.mcp import build_server  # noqa: E402
from kbgraph.workspace import Workspace  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
# From two: "one command each" is no total.
NUMBER_WORDS = {w: n for n, w in enumerate("two three four five six seven eight nine ten eleven twelve thirteen "
                                           "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split(), 2)}
NOUNS = {"tool": "tools", "endpoint": "endpoints", "route": "endpoints", "command": "commands",
         "subcommand": "commands", "resource template": "resource templates"}
CLAIM = re.compile(r"\b(\d+|" + "|".join(NUMBER_WORDS) + r")\s+(?:MCP\s+|HTTP\s+|API\s+|CLI\s+|`?kbg`?\s+)?("
                   + "|".join(sorted(NOUNS, key=len, reverse=True)) + r")s?\b", re.IGNORECASE)


def _documents() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def claims(text: str) -> list[tuple[int, str, str]]:
    """(number, what it counts, the words) of every counted claim in text."""
    out = []
    for m in CLAIM.finditer(text):
        number = m.group(1).lower()
        out.append((int(number) if number.isdigit() else NUMBER_WORDS[number], NOUNS[m.group(2).lower()], m.group(0)))
    return out


def test_the_claim_scan_finds_counts_in_words_and_digits():
    text = ("An agent sees 26 tools; the API has twelve HTTP endpoints and 3 `kbg` commands, two relation types, "
            "one command each.")
    assert claims(text) == [(26, "tools", "26 tools"), (12, "endpoints", "twelve HTTP endpoints"),
                            (3, "commands", "3 `kbg` commands")]


@pytest.fixture(scope="module")
def servers(indexed_sample):
    """What the servers on the sample vault serve: tool names (in order), endpoints, resource templates."""
    with Workspace.open(str(indexed_sample)) as ws:  # only read
        async def listed():
            async with Client(build_server(workspace=ws)) as c:
                return [t.name for t in (await c.list_tools()).tools], (await c.list_resource_templates())

        tools, templates = asyncio.run(listed())
        paths = create_app(ws).openapi()["paths"]
    endpoints = {(method.upper(), re.sub(r"\{[^}]*\}", "{}", path)) for path, ops in paths.items() for method in ops}
    return {"tools": tools, "endpoints": endpoints, "resource templates": templates.resource_templates}


def _commands() -> list[str]:
    spec = importlib.util.spec_from_file_location("gen_cli_reference", REPO / "tools" / "gen_cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.command_paths()[1:]  # every `kbg ...` a user can run, groups included; not bare `kbg`


def test_every_count_in_the_readme_and_docs_is_the_servers_own(servers):
    actual = {"tools": len(servers["tools"]), "endpoints": len(servers["endpoints"]), "commands": len(_commands()),
              "resource templates": len(servers["resource templates"])}
    wrong = [f"{doc.relative_to(REPO)}: {words!r}, but there are {actual[kind]}"
             for doc in _documents() for number, kind, words in claims(doc.read_text(encoding="utf-8"))
             if number != actual[kind]]
    assert not wrong, "counts that are not true:\n  " + "\n  ".join(wrong)
    assert any(kind == "tools" for doc in _documents() for _, kind, _ in claims(doc.read_text(encoding="utf-8"))), \
        "the README's tool count is no longer found: the scan has gone blind"


def test_the_readme_lists_every_tool_in_the_servers_order(servers):
    text = (REPO / "README.md").read_text(encoding="utf-8")
    listed = re.search(r"^tools: (.*?)\n\n", text, re.MULTILINE | re.DOTALL)
    assert listed, "the README's `tools:` block is gone"
    assert [t.strip() for t in listed.group(1).split(",")] == servers["tools"]


def test_docs_mcp_has_a_row_for_every_tool(servers):
    text = (REPO / "docs" / "mcp.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (`[a-z_]+`(?: / `[a-z_]+`)*) \|", text, re.MULTILINE)
    documented = [name for row in rows for name in re.findall(r"`([a-z_]+)`", row)]
    assert sorted(documented) == sorted(servers["tools"])


def test_docs_api_has_a_row_for_every_endpoint(servers):
    """Each row of docs/api.md's table names a method and a path, and maybe siblings (`, /reject`: the
    same path with its last part replaced)."""
    text = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
    documented = set()
    for method, path, siblings in re.findall(r"^\| `(GET|POST|PUT|PATCH|DELETE) (/[^`]*)`((?:, `/[^`]*`)*) \|",
                                             text, re.MULTILINE):
        base = path.rsplit("/", 1)[0]
        for p in [path, *(base + s for s in re.findall(r"`(/[^`]*)`", siblings))]:
            documented.add((method, re.sub(r"\{[^}]*\}", "{}", p)))
    assert documented == servers["endpoints"]

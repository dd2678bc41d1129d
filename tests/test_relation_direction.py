"""Every door states a relation in its true direction, from the entity asked about, and every door states
the same facts. Asked about Ben Okafor with type manages, the answer is `Ben Okafor --manages--> Ana Lima`
(Ana reports to Ben), never the other way round; `kbg ... --json`, the HTTP API and MCP's structured
content give the same subject/type/object triples for the same questions."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("mcp.server.mcpserver")

from fastapi.testclient import TestClient  # noqa: E402
from mcp import Client  # noqa: E402

from kbgraph.relations.reading import read_from, relation_line  # noqa: E402
from kbgraph.vocabulary import Vocabulary  # noqa: E402
from kbgraph.workspace import Workspace  # noqa: E402

from .conftest import copy_indexed, kbg  # noqa: E402

VOCAB = Vocabulary()

# (entity, type or None): an entity's relations without a filter, by a canonical type, by an inverse type.
ENTITY_QUESTIONS = [("Ben Okafor", None), ("Ben Okafor", "manages"), ("Ana Lima", "manages"),
                    ("Ana Lima", "reports-to"), ("Ana Lima", None), ("Project Atlas", "led-by")]
TYPE_QUESTIONS = ["manages", "reports-to"]  # every relation of a type, read in the direction it was named
NEIGHBOURS = "Ben Okafor"
PATH = ("Ben Okafor", "Arjun Mehta")  # Ben manages Ana, who manages Arjun


def _triples(rows) -> set[tuple[str, str, str]]:
    return {(r["subject"], r["type"], r["object"]) for r in rows}


def _entity_facts(data: dict) -> set[tuple[str, str, str]]:
    return _triples(data["relations"] + data["inverse_relations"])


def _hop_facts(data: dict) -> set[tuple[str, str, str]]:
    return _triples(h for level in data["levels"] for e in level["entities"] for h in e["path"])


def _path_facts(data: dict) -> set[tuple[str, str, str]]:
    return _triples(h for p in data["paths"] for h in p)


def _cli(vault: Path) -> dict:
    answers: dict = {}
    for name, type_name in ENTITY_QUESTIONS:
        answers[name, type_name] = _entity_facts(
            kbg(vault, "entity", "relations", name, *(["--type", type_name] if type_name else [])))
    for type_name in TYPE_QUESTIONS:
        answers[type_name] = _triples(kbg(vault, "entity", "relations", "--type", type_name)["relations"])
    answers["neighbours"] = _hop_facts(kbg(vault, "graph", "neighbours", NEIGHBOURS, "--depth", "2"))
    answers["path"] = _path_facts(kbg(vault, "graph", "path", *PATH))
    return answers


def _http(ws: Workspace) -> dict:
    from kbgraph.api.app import create_app

    answers: dict = {}
    with TestClient(create_app(ws)) as client:
        def get(route: str, **params) -> dict:
            response = client.get(route, params=params)
            assert response.status_code == 200, response.text
            return response.json()

        for name, type_name in ENTITY_QUESTIONS:
            answers[name, type_name] = _entity_facts(get("/relations", name=name, **({"type": type_name} if type_name else {})))
        for type_name in TYPE_QUESTIONS:
            answers[type_name] = _triples(get("/relations", type=type_name)["relations"])
        answers["neighbours"] = _hop_facts(get("/graph/neighbours", entity=NEIGHBOURS, depth=2))
        answers["path"] = _path_facts(get("/graph/path", source=PATH[0], target=PATH[1]))
    return answers


def _mcp(ws: Workspace) -> dict:
    """The facts in each answer's structured content."""
    from kbgraph.mcp import build_server

    async def go():
        answers: dict = {}
        async with Client(build_server(workspace=ws)) as c:
            async def call(tool: str, **arguments) -> dict:
                done = await c.call_tool(tool, arguments)
                assert not done.is_error, done.content
                return done

            for name, type_name in ENTITY_QUESTIONS:
                done = await call("relations_list", name=name, **({"type_name": type_name} if type_name else {}))
                answers[name, type_name] = _entity_facts(done.structured_content)
            for type_name in TYPE_QUESTIONS:
                done = await call("relations_list", type_name=type_name)
                answers[type_name] = _triples(done.structured_content["relations"])
            answers["neighbours"] = _hop_facts((await call("graph_neighbours", name=NEIGHBOURS, depth=2)).structured_content)
            answers["path"] = _path_facts((await call("graph_path", source=PATH[0], target=PATH[1])).structured_content)
        return answers

    return asyncio.run(go())


@pytest.fixture(scope="module")
def doors(indexed_sample: Path, tmp_path_factory):
    """Each door asked every question once, on one copy of the indexed sample vault (they only read)."""
    vault = copy_indexed(indexed_sample, tmp_path_factory.mktemp("doors") / "vault")
    cli = _cli(vault)
    with Workspace.open(str(vault)) as ws:
        http = _http(ws)
        mcp = _mcp(ws)
    return cli, http, mcp


def _canonical(fact: tuple[str, str, str]) -> tuple[str, str, str]:
    """The fact as stored: an inverse name read back to its type, with the ends swapped."""
    subject, type_name, obj = fact
    normal = VOCAB.normalise(type_name)
    if normal.type.symmetric:
        return (min(subject, obj), normal.type.name, max(subject, obj))
    return (obj, normal.type.name, subject) if normal.swapped else (subject, normal.type.name, obj)


def test_the_cli_http_and_mcp_give_the_same_facts_for_the_same_questions(doors):
    cli, http, mcp = doors
    assert set(cli) == set(http) == set(mcp)
    for question in cli:
        assert cli[question], question  # a question the sample vault answers: an empty agreement proves nothing
        assert cli[question] == http[question] == mcp[question], question


def test_every_door_reads_a_relation_from_the_entity_asked_about_in_its_true_direction(doors):
    cli, *_ = doors
    ben_manages = cli["Ben Okafor", "manages"]
    assert ("Ben Okafor", "manages", "Ana Lima") in ben_manages
    assert ("Ana Lima", "manages", "Ben Okafor") not in ben_manages
    assert ("Ana Lima", "manages", "Arjun Mehta") in cli["Ana Lima", "manages"]
    assert ("Ana Lima", "reports-to", "Ben Okafor") in cli["Ana Lima", "reports-to"]
    for (name, _type), facts in ((q, f) for q, f in cli.items() if isinstance(q, tuple)):
        assert {s for s, _, _ in facts} == {name}, (name, facts)  # each a sentence about the entity asked
    # The same fact asked from either end, or as every relation of a type, is one stored relation.
    stored = {_canonical(f) for t in TYPE_QUESTIONS for f in cli[t]}
    for question, facts in cli.items():
        if isinstance(question, tuple) and question[1] in ("manages", "reports-to"):
            assert {_canonical(f) for f in facts} <= stored, question
    assert _canonical(("Ben Okafor", "manages", "Ana Lima")) == ("Ana Lima", "reports-to", "Ben Okafor")
    assert cli["manages"] == {(o, "manages", s) for s, _, o in cli["reports-to"]}


def test_mcp_relations_list_says_ben_manages_ana_not_the_other_way_round(indexed_vault: Path):
    from kbgraph.mcp import build_server

    async def go():
        with Workspace.open(str(indexed_vault)) as ws:
            async with Client(build_server(workspace=ws)) as c:
                return [(await c.call_tool("relations_list", {"name": name, "type_name": "manages"})).content[0].text
                        for name in ("Ben Okafor", "Ana Lima")]

    ben, ana = asyncio.run(go())
    assert any(line.startswith("- Ben Okafor --manages--> Ana Lima (") for line in ben.splitlines()), ben
    assert "Ana Lima --manages--> Ben Okafor" not in ben
    assert any(line.startswith("- Ana Lima --manages--> Arjun Mehta (") for line in ana.splitlines()), ana
    assert "Arjun Mehta --manages--> Ana Lima" not in ana


def test_a_hop_states_the_relation_it_walks_from_either_end(doors):
    cli, *_ = doors
    assert ("Ben Okafor", "manages", "Ana Lima") in cli["path"]
    assert ("Ana Lima", "manages", "Arjun Mehta") in cli["path"]


def test_a_relation_reads_as_a_sentence_from_either_end():
    assert read_from(VOCAB, "reports-to", "Ana Lima", "Ben Okafor", True).line() == "Ana Lima --reports-to--> Ben Okafor"
    assert read_from(VOCAB, "reports-to", "Ana Lima", "Ben Okafor", False).line() == "Ben Okafor --manages--> Ana Lima"
    # A symmetric type reads the same way from both ends, with the entity asked about first.
    assert read_from(VOCAB, "collaborates-with", "Ana", "Ben", False).line() == "Ben --collaborates-with--> Ana"
    # A type the vocabulary no longer knows has no inverse name: it keeps its stored, true direction.
    assert read_from(VOCAB, "advises", "Ana", "Ben", False).line() == "Ana --advises--> Ben"
    assert relation_line({"subject": "Ben", "type": "manages", "object": "Ana"}) == "Ben --manages--> Ana"

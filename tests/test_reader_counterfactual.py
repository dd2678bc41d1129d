"""A reader cannot tell whether notes it may not read exist: for random principals and random private,
team and confidential notes on a small vault, every answer a reader gets through the HTTP API (and the
MCP server's profile) equals the answer of an index built from only the notes that reader may read,
ids and timings aside. Counts, tiers, ranks, facets, "mentioned N x", suggestion support and status
figures included. On SQLite always; on PostgreSQL too where KBG_TEST_PG names a database."""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.util
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402

from kbgraph.access import SENSITIVITIES, VISIBILITIES, Access  # noqa: E402
from kbgraph.api.tokens import create_token  # noqa: E402
from kbgraph.config import load_config  # noqa: E402
from kbgraph.ingest.pipeline import index_vault  # noqa: E402
from kbgraph.workspace import Workspace  # noqa: E402

NOTES = {
    "people/ana-lima.md": ("type: person\nname: Ana Lima\naliases: [Ana]\nreports_to: Ben Okafor\n",
                           "# Ana Lima\n\nAna leads the platform work. She works with [[Dana Kowalski]] on "
                           "[[Project Atlas]].\n"),
    "people/ben-okafor.md": ("type: person\nname: Ben Okafor\n",
                             "# Ben Okafor\n\nBen runs engineering. [[Ana Lima]] reports to him.\n"),
    "projects/project-atlas.md": ("type: project\nname: Project Atlas\naliases: [Atlas]\nlead: Ana Lima\n",
                                  "# Project Atlas\n\nAtlas moves services onto the mesh. [[Ben Okafor]] "
                                  "sponsors it.\n"),
    "meetings/2026/01/12/atlas-sync.md": (
        "type: meeting\ndate: 2026-01-12\nattendees: [Ana Lima, Dana Kowalski]\n",
        "# Atlas sync\n\nAna Lima and Dana Kowalski planned the Atlas cutover.\n\n## Action items\n\n"
        "- Ana Lima to draft the Project Atlas cutover plan.\n"),
    "meetings/2026/02/03/atlas-review.md": (
        "type: meeting\ndate: 2026-02-03\nattendees: [Ana Lima, Ben Okafor]\n",
        "# Atlas review\n\nBen Okafor asked about the quokka budget for Project Atlas.\n\n## Action items\n\n"
        "- Ana Lima to send the Project Atlas budget.\n"),
    "notes/quokka-budget.md": ("type: note\ndate: 2026-03-01\n",
                               "# Quokka budget\n\nThe quokka budget for Project Atlas is tight; Dana Kowalski "
                               "and Ana Lima will cut the mesh spend.\n"),
}
PATHS = sorted(NOTES)
# Each page, and the other notes that name its entity in a reference or link (an index of one of them alone
# would hold the entity).
NAMED_BY = {
    "people/ana-lima.md": ("people/ben-okafor.md", "projects/project-atlas.md", "meetings/2026/01/12/atlas-sync.md",
                           "meetings/2026/02/03/atlas-review.md"),
    "people/ben-okafor.md": ("people/ana-lima.md", "projects/project-atlas.md", "meetings/2026/02/03/atlas-review.md"),
    "projects/project-atlas.md": ("people/ana-lima.md",),
}
PRINCIPALS = ("alice", "bob")
notes_governance = st.tuples(st.sampled_from(("alice", "bob", None)), st.sampled_from(VISIBILITIES),
                             st.sampled_from(("normal", "confidential")))
readers = st.builds(Access.of, st.sampled_from(PRINCIPALS), st.sampled_from([VISIBILITIES[i:] for i in range(3)]),
                    st.sampled_from(("normal", "internal", "confidential")))

# Keys that differ between two indexes of the same readable notes without telling anything about the
# others: row ids, clocks, where the index lives and how big its file is.
IGNORED = {"id", "ids", "doc_id", "chunk_id", "entity_id", "source_id", "target_id", "suggestion_id",
           "relation_id", "question_id", "decision_id", "page_doc_id", "origin_doc_id", "evidence_id",
           "indexed_at", "mtime", "created_at", "updated_at", "decided_at", "recorded_at", "last_indexed",
           "last_run_seconds", "took_ms", "elapsed_ms", "index_path", "index_bytes", "vault", "schema"}


# Search's text scores are left out, hits compared as a set: BM25 weighs a word by how many documents of
# the whole index have it (FTS5's bm25() and its PostgreSQL twin), which an index of fewer notes changes.
SCORES = {"score", "explain"}


def _plain(value, ignored=frozenset(IGNORED)):
    """value without the keys of ignored, at any depth."""
    if isinstance(value, dict):
        return {k: _plain(v, ignored) for k, v in value.items() if k not in ignored}
    if isinstance(value, list):
        return [_plain(v, ignored) for v in value]
    return value


def _answer(route: str, body):
    if route != "/search" or not isinstance(body, dict) or "hits" not in body:
        return _plain(body)
    hits = sorted((_plain(h, IGNORED | SCORES) for h in body["hits"]), key=repr)
    return {**_plain({k: v for k, v in body.items() if k != "hits"}), "hits": hits}


def _write_vault(root: Path, governance: dict[str, tuple], only: set[str] | None = None) -> None:
    for path in PATHS:
        if only is not None and path not in only:
            continue
        owner, visibility, sensitivity = governance[path]
        head, body = NOTES[path]
        lines = head + f"visibility: {visibility}\nsensitivity: {sensitivity}\n" + (f"owner: {owner}\n" if owner else "")
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(f"---\n{lines}---\n{body}", encoding="utf-8")


def _open_store(root: Path, backend: str):
    if backend == "sqlite":
        from kbgraph.store.sqlite.store import SqliteStore

        return SqliteStore.open_vault(root)
    from kbgraph.store.postgres import open_store

    return open_store(os.environ["KBG_TEST_PG"], fresh=True)


def _index(root: Path, backend: str) -> Workspace:
    (root / ".kbgraph").mkdir(parents=True, exist_ok=True)
    store = _open_store(root, backend)
    report = index_vault(root, store=store)
    assert report.errors == 0
    return Workspace(root, load_config(root), store)


QUESTIONS = [
    ("/entities", {}),
    ("/entities/profile", {"name": "Ana Lima"}),
    ("/entities/profile", {"name": "Project Atlas"}),
    ("/entities/timeline", {"name": "Ana Lima"}),
    ("/entities/stale", {"days": 300, "include_relations": True}),
    ("/mentions/unlinked", {}),
    ("/search", {"q": "Atlas budget"}),
    ("/search", {"q": "budget", "explain": True}),
    ("/search", {"q": "quokka", "passages": True}),
    ("/search", {"q": "Ana Lima"}),
    ("/relations", {"name": "Ana Lima"}),
    ("/neighbours", {"entity": "Ana Lima", "depth": 2}),
    ("/path", {"source": "Dana Kowalski", "target": "Ben Okafor"}),
    ("/hubs", {}),
    ("/hubs", {"by": "pagerank"}),
    ("/context", {"for": "Project Atlas", "budget": 400}),
    ("/context", {"budget": 400}),
    ("/slice", {"name": ["Ana Lima", "Project Atlas"]}),
    ("/suggestions", {}),
    ("/resolve/pending", {}),
    ("/brief", {"entity": "Ana Lima"}),
    ("/brief", {"today": True}),
    ("/relations", {"type": "reports-to"}),
    ("/neighbours", {"entity": "Project Atlas", "depth": 3}),
    ("/documents", {}),
    ("/index/status", {}),
]


MCP_QUESTIONS = [
    ("entity_list", {}),
    ("entity_profile", {"name": "Ana Lima"}),
    ("slice", {"names": ["Ana Lima"]}),
    ("suggestions_list", {}),
    ("index_status", {}),
]


def _mcp_answers(ws: Workspace, reader: Access) -> dict:
    """The MCP server's structured content for the same reader (a server runs as one reader: its workspace's)."""
    if importlib.util.find_spec("mcp") is None:
        return {}
    from mcp import Client

    from kbgraph.mcp import build_server

    async def go():
        out = {}
        async with Client(build_server(workspace=dataclasses.replace(ws, access=reader))) as client:
            for tool, args in MCP_QUESTIONS:
                got = await client.call_tool(tool, args)
                answer = got.content[0].text if got.is_error else _plain(got.structured_content)  # an error: its line
                out[f"mcp {tool} {args}"] = (got.is_error, answer)
        return out

    return asyncio.run(go())


def _answers(ws: Workspace, reader: Access) -> dict:
    from kbgraph.api.app import create_app

    token, _row = create_token(ws.store, reader.principal, tuple(sorted(reader.visibilities)), reader.max_sensitivity)
    out = {}
    with TestClient(create_app(ws)) as client:
        for route, params in QUESTIONS:
            got = client.get(route, params=params, headers={"Authorization": f"Bearer {token}"})
            out[f"{route} {params}"] = (got.status_code, _answer(route, got.json()))
    return {**out, **_mcp_answers(ws, reader)}


def _as_readable_as_its_names(governance: dict[str, tuple], reader: Access) -> dict[str, tuple]:
    """governance, with each page the reader may not read, while it may read a note naming its entity, read
    as that note. An entity reads as its page (docs/team.md): a reader who may not read the page does not
    see the name at all, even where it read it in another note, so it gets less than an index of what it
    may read would give (never more). That one rule is not what this test measures; everything else is."""
    out = dict(governance)
    changed = True
    while changed:
        changed = False
        for page, names in NAMED_BY.items():
            naming = [out[p] for p in names if reader.may_read(*out[p])]
            if naming and not reader.may_read(*out[page]):
                out[page], changed = naming[0], True
    return out


def _check(backend: str, governance: dict[str, tuple], reader: Access) -> None:
    governance = _as_readable_as_its_names(governance, reader)
    readable = {p for p in PATHS if reader.may_read(*governance[p])}
    with tempfile.TemporaryDirectory() as tmp:
        whole, alone = Path(tmp) / "whole", Path(tmp) / "alone"
        for root, only in ((whole, None), (alone, readable)):
            root.mkdir()
            _write_vault(root, governance, only)
        with _index(whole, backend) as ws_whole, _index(alone, backend) as ws_alone:
            seen, expected = _answers(ws_whole, reader), _answers(ws_alone, reader)
    for question in expected:
        assert seen[question] == expected[question], f"{question} for {reader} over {governance}"


def _backend_or_skip(backend: str) -> None:
    if backend == "postgres" and not os.environ.get("KBG_TEST_PG"):
        pytest.skip("set KBG_TEST_PG to run the reader counterfactual on PostgreSQL")


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
# No shrinking: each example indexes two vaults, and a failing one prints its notes' governance as it is.
# One drawn example a run besides the issue's (each costs ~1.5 s); failures found are replayed from the
# hypothesis database. 126 drawn examples passed on SQLite and 26 on PostgreSQL when this was written.
@settings(max_examples=1, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate),
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(governance=st.fixed_dictionaries({p: notes_governance for p in PATHS}), reader=readers)
@example(governance={**{p: ("alice", "team", "normal") for p in PATHS},  # issue 26: bob's private notes
                     "meetings/2026/02/03/atlas-review.md": ("bob", "private", "normal"),
                     "notes/quokka-budget.md": ("bob", "private", "normal")},
         reader=Access.of("alice", ("team", "public"), "internal"))
def test_a_reader_gets_the_answers_of_an_index_of_only_what_it_may_read(backend, governance, reader):
    _backend_or_skip(backend)
    _check(backend, governance, reader)

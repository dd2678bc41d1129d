"""Governed relationship recall: a question that names nobody ("ideas for my sister's birthday") is
read from the vault owner's side, through the owner's own direct, current, visible relations only,
and answered with that one person's facts and passages, or abstains."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from kbgraph.access import LOCAL, Access
from kbgraph.config import load_config
from kbgraph.context.recall import recall, relation_terms
from kbgraph.errors import NotFound
from kbgraph.ingest.pipeline import index_vault
from kbgraph.store import open_store

from .conftest import run_kbg

PAGES = {
    "people/ana-lima.md": """---
type: person
---
# Ana Lima

Engineering manager.

## Relations
- reports-to [[Ben Okafor]]
- mentored-by [[Chen Wei]]
- custom [[Priya Lima]] — sister
- collaborates-with [[Old Pal]] (until 2024-01-31)
""",
    "people/ben-okafor.md": """---
type: person
---
# Ben Okafor

## Relations
- leads [[Project Atlas]]
- reports-to [[Gina Ross]]

## Facts
- role: Director of Platform (2026-01-10)
""",
    "people/chen-wei.md": "---\ntype: person\n---\n# Chen Wei\n\n## Facts\n- interest: bouldering (2026-02-01)\n",
    "people/priya-lima.md": """---
type: person
---
# Priya Lima

## Facts
- interest: wheel-thrown pottery and glazes (2026-03-01)
- note: keeps asking for Ottolenghi cookbooks (2026-04-02)
""",
    "people/old-pal.md": "---\ntype: person\n---\n# Old Pal\n\n## Facts\n- interest: chess (2023-05-01)\n",
    "people/gina-ross.md": "---\ntype: person\n---\n# Gina Ross\n\nVP.\n",
    "projects/project-atlas.md": """---
type: project
---
# Project Atlas

Atlas depends on the Kafka cluster and on the auth service.
""",
    "notes/2026-04-20-call-with-priya.md": """---
date: 2026-04-20
---
# Call with Priya

[[Priya Lima]] wants a day at a ceramics studio for her birthday, or a glazing workshop.
""",
    "notes/2026-03-02-platform-sync.md": """---
date: 2026-03-02
---
# Platform sync

[[Ben Okafor]] said the Atlas rollout depends on the Kafka upgrade landing first.
""",
}


def _write(root: Path, pages: dict[str, str]) -> None:
    for rel, text in pages.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def owned(tmp_path):
    root = tmp_path / "vault"
    _write(root, PAGES)
    (root / "kbgraph.toml").write_text('[me]\nname = "Ana Lima"\n')
    report = index_vault(root)
    assert report.errors == 0, report.problems
    store = open_store(root)
    yield root, store
    store.close()


def ask(root: Path, store, query: str, access: Access = LOCAL, **kw):
    return recall(store, load_config(root), query, access=access, today="2026-05-01", **kw)


def test_a_role_resolves_to_its_person_whose_facts_never_say_the_role(owned):
    root, store = owned
    answer = ask(root, store, "ideas for my sister's birthday")
    assert answer.status == "answered", answer.why
    assert answer.tie.person == "Priya Lima" and answer.terms == ("sister",)
    assert {f.text for f in answer.facts} == {"wheel-thrown pottery and glazes", "keeps asking for Ottolenghi cookbooks"}
    assert answer.passages and all("Priya" in (h.via or "") for h in answer.passages)
    assert any(h.path == "notes/2026-04-20-call-with-priya.md" for h in answer.passages)


@pytest.mark.parametrize("query, person", [
    ("what does my manager's project depend on?", "Ben Okafor"),
    ("what is my boss focused on", "Ben Okafor"),
    ("a gift for my mentor", "Chen Wei"),
])
def test_several_roles_each_read_from_the_owner_side(owned, query, person):
    root, store = owned
    answer = ask(root, store, query)
    assert answer.status == "answered", answer.why
    assert answer.tie.person == person
    assert answer.tie.relation.startswith("Ana Lima --")


def test_an_expired_relation_is_not_used(owned):
    root, store = owned
    answer = ask(root, store, "what does my colleague like")
    assert answer.status == "unresolved" and answer.tie is None and not answer.facts


def test_an_indirect_relation_is_not_used(owned):
    root, store = owned  # Gina is Ana's manager's manager: two hops, and no skip-level relation is stated
    answer = ask(root, store, "what does my skip-level manager want")
    assert answer.status == "unresolved" and answer.tie is None  # nor Ben: "manager" is part of a longer term
    assert answer.terms == ("skip-level manager",)


def test_a_hidden_relation_is_not_used(owned):
    root, store = owned
    ids = {e.name: e.id for e in store.list_entities(LOCAL)}
    for entity_id in ids.values():
        store.set_entity_governance(entity_id, None, "public", "normal")
    with store.transaction():
        store.upsert_relation({"source_id": ids["Gina Ross"], "target_id": ids["Ana Lima"], "type": "reports-to",
                               "owner": "zed", "visibility": "private"}, "2026-04-01T00:00:00+00:00", bump=False)
    ana = Access.of("ana", ["public"], "normal")
    assert ask(root, store, "notes on my direct report", access=ana).status == "unresolved"
    assert ask(root, store, "notes on my direct report").tie.person == "Gina Ross"  # the owner of the row sees it


def test_two_people_in_one_role_abstain_with_both(owned):
    root, store = owned
    _write(root, {"people/ana-lima.md": PAGES["people/ana-lima.md"] + "- custom [[Gina Ross]] — sister\n"})
    index_vault(root)
    answer = ask(root, store, "ideas for my sister's birthday")
    assert answer.status == "abstained" and not answer.facts and not answer.passages
    assert {c.person for c in answer.candidates} == {"Priya Lima", "Gina Ross"}


def test_a_named_or_ambiguous_person_never_takes_this_path(owned):
    root, store = owned
    assert ask(root, store, "what does Priya Lima think of my manager").status == "not-applicable"
    _write(root, {"people/priya-shah.md": "---\ntype: person\n---\n# Priya Shah\n"})
    index_vault(root)
    assert ask(root, store, "what would Priya like for my sister's birthday").status == "not-applicable"


def test_a_word_without_my_or_a_part_of_a_type_name_is_no_role(owned):
    root, store = owned
    assert ask(root, store, "what does a manager do").status == "not-applicable"
    assert "report" not in relation_terms("reports-to", None, None)  # "my reports" is not who I report to


def test_no_owner_and_an_owner_who_is_no_one(owned):
    root, store = owned
    (root / "kbgraph.toml").write_text("")
    assert ask(root, store, "my sister").status == "not-applicable"
    (root / "kbgraph.toml").write_text('[me]\nname = "Nobody Here"\n')
    with pytest.raises(NotFound) as caught:
        ask(root, store, "my sister")
    assert caught.value.param == "me"


def test_a_cached_answer_is_dropped_when_what_it_read_changes(owned):
    root, store = owned
    first = ask(root, store, "ideas for my sister's birthday")
    assert ask(root, store, "ideas for my sister's birthday") is first  # cached: nothing changed
    priya = root / "people" / "priya-lima.md"
    priya.write_text(priya.read_text() + "- interest: sourdough baking (2026-04-25)\n")
    os.utime(priya, (time.time() + 5, time.time() + 5))
    index_vault(root)
    second = ask(root, store, "ideas for my sister's birthday")
    assert second is not first and "sourdough baking" in {f.text for f in second.facts}
    result = run_kbg("entity", "unrelate", "Ana Lima", "--type", "custom", "--target", "Priya Lima",
                     "--vault", str(root))
    assert result.returncode == 0, result.stderr
    third = ask(root, store, "ideas for my sister's birthday")
    assert third.status == "not-applicable" and not third.facts  # "sister" is no relation of Ana's any more


def test_cli_recall(owned):
    root, _ = owned
    import json

    result = run_kbg("recall", "ideas for my sister's birthday", "--vault", str(root), "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["status"] == "answered" and out["person"]["name"] == "Priya Lima"
    assert out["facts"] and out["passages"]


def test_init_me_appends_one_table_and_keeps_the_rest(tmp_path):
    import tomllib

    root = tmp_path / "v"
    root.mkdir()
    (root / "kbgraph.toml").write_text("# mine\n[search]\nrrf_k = 60")  # no final newline
    result = run_kbg("init", str(root), "--me", 'Ana "AJ" Lima', "--json")
    assert result.returncode == 0, result.stderr
    text = (root / "kbgraph.toml").read_text()
    assert text.startswith("# mine\n[search]\nrrf_k = 60\n")
    assert tomllib.loads(text)["me"] == {"name": 'Ana "AJ" Lima'}
    assert run_kbg("init", str(root), "--me", 'Ana "AJ" Lima').returncode == 0  # the same name: nothing to do
    assert (root / "kbgraph.toml").read_text() == text
    other = run_kbg("init", str(root), "--me", "Ben Okafor")
    assert other.returncode != 0 and "already says [me]" in other.stderr
    assert (root / "kbgraph.toml").read_text() == text


def test_a_free_text_reason_on_a_typed_relation_is_no_role(owned):
    root, store = owned  # "SRE on Platform" says what the relation is about, not what Ana calls Gina
    _write(root, {"people/ana-lima.md": PAGES["people/ana-lima.md"] + "- manages [[Gina Ross]] — platform migration\n"})
    index_vault(root)
    answer = ask(root, store, "what is the status of my platform migration")
    assert answer.status == "not-applicable" and answer.tie is None


def test_the_passages_are_the_persons_own_sections(owned):
    root, store = owned
    _write(root, {"notes/2026-03-09-retro.md": "---\ndate: 2026-03-09\n---\n# Retro\n\n## Kafka\nThe Kafka upgrade"
                  " slipped again; Atlas depends on it.\n\n## People\n[[Ben Okafor]] chaired.\n"})
    index_vault(root)
    answer = ask(root, store, "what does my manager's project depend on?")
    assert answer.tie.person == "Ben Okafor" and answer.passages
    for hit in answer.passages:  # the retro's Kafka section is about the question, but not Ben's
        text = (root / hit.path).read_text().splitlines()[hit.line - 1:hit.line + 3]
        assert hit.path == "people/ben-okafor.md" or any("Ben" in line for line in text), (hit.path, hit.line)
    assert ("notes/2026-03-09-retro.md", 7) not in {(h.path, h.line) for h in answer.passages}


def test_facts_recorded_under_a_merged_away_name_are_the_persons(owned):
    root, store = owned
    _write(root, {"notes/pl.md": "---\ntitle: PL\nparticipants: [P. Lima]\n---\n# PL\n\nHi.\n"})
    index_vault(root)
    assert run_kbg("fact", "add", "P. Lima", "--kind", "interest", "sea swimming", "--vault", str(root)).returncode == 0
    merged = run_kbg("entity", "merge", "P. Lima", "Priya Lima", "--vault", str(root))
    assert merged.returncode == 0, merged.stderr
    answer = ask(root, store, "ideas for my sister's birthday")
    assert "sea swimming" in {f.text for f in answer.facts}


REPORTS = PAGES["people/ana-lima.md"] + "- manages [[Gina Ross]]\n- manages [[Chen Wei]]\n"


def test_a_plural_word_answers_for_each_person_it_fits_a_singular_one_abstains(owned):
    root, store = owned
    _write(root, {"people/ana-lima.md": REPORTS})
    index_vault(root)
    answer = ask(root, store, "how are my reports doing")
    assert answer.status == "answered", answer.why
    assert [p.person for p in answer.people] == ["Chen Wei", "Gina Ross"]  # grouped by person, in name order
    assert [[t.relation for t in p.ties] for p in answer.people] == [["Ana Lima --manages--> Chen Wei"],
                                                                      ["Ana Lima --manages--> Gina Ross"]]
    chen = answer.people[0]
    assert {f.text for f in chen.facts} == {"bouldering"}  # each person's own facts, never blended
    assert not answer.people[1].facts
    assert answer.tie is None and not answer.facts and not answer.passages  # no one person's answer stands for all
    assert ask(root, store, "how are my direct reports doing").status == "answered"
    single = ask(root, store, "how is my report doing")
    assert single.status == "abstained" and not single.people
    assert {c.person for c in single.candidates} == {"Chen Wei", "Gina Ross"}


def test_a_plural_word_with_one_person_and_a_singular_word_beside_it(owned):
    root, store = owned
    one = ask(root, store, "what are my mentors up to")  # one mentor: the same answer as the singular
    assert one.status == "answered" and one.tie.person == "Chen Wei"
    assert [p.person for p in one.people] == ["Chen Wei"] and one.facts == one.people[0].facts
    _write(root, {"people/ana-lima.md": REPORTS})
    index_vault(root)
    both = ask(root, store, "my reports and my manager")  # "manager" fits one person: everyone is answered
    assert [p.person for p in both.people] == ["Ben Okafor", "Chen Wei", "Gina Ross"]
    _write(root, {"people/ana-lima.md": REPORTS + "- reports-to [[Old Pal]]\n"})
    index_vault(root)
    unsure = ask(root, store, "my reports and my manager")  # "manager" now fits two: a singular word abstains
    assert unsure.status == "abstained" and {c.person for c in unsure.candidates} == {"Ben Okafor", "Old Pal"}


def test_every_door_gives_the_same_people_for_a_plural_word(owned):
    import asyncio
    import json

    pytest.importorskip("fastapi")
    pytest.importorskip("mcp.server.mcpserver")
    from fastapi.testclient import TestClient
    from mcp import Client

    from kbgraph.api.app import create_app
    from kbgraph.mcp import build_server
    from kbgraph.workspace import Workspace

    root, _ = owned
    _write(root, {"people/ana-lima.md": REPORTS})
    index_vault(root)
    query = "how are my reports doing"
    cli = run_kbg("recall", query, "--vault", str(root), "--json")
    assert cli.returncode == 0, cli.stderr
    text = run_kbg("recall", query, "--vault", str(root))
    assert "Chen Wei  (Ana Lima --manages--> Chen Wei)" in text.stdout and "interest: bouldering" in text.stdout
    assert "Gina Ross  (Ana Lima --manages--> Gina Ross)" in text.stdout
    with Workspace.open(str(root)) as ws:
        api = TestClient(create_app(ws)).get("/recall", params={"q": query}).json()

        async def call():
            async with Client(build_server(workspace=ws)) as c:
                return await c.call_tool("recall", {"query": query})

        mcp = asyncio.run(call())
    assert "Chen Wei (Ana Lima --manages--> Chen Wei)" in mcp.content[0].text

    def people(data):
        return [(p["name"], [r["relation"] for r in p["relations"]], [f["text"] for f in p["facts"]],
                 [(h["path"], h["line"]) for h in p["passages"]]) for p in data["people"]]

    expected = people(json.loads(cli.stdout))
    assert [p[0] for p in expected] == ["Chen Wei", "Gina Ross"]
    assert people(api) == expected and people(mcp.structured_content) == expected

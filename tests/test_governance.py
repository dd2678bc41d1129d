"""Entities and relations read as the notes they come from (ingest/governance.py): a reader never sees
a name or an edge it could not have read in a note."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from kbgraph.access import LOCAL, SENSITIVITIES, VISIBILITIES, Access, Governance, least_readable, most_readable
from kbgraph.entities.lookup import find_entity
from kbgraph.graph.neighbours import neighbours
from kbgraph.graph.view import GraphView
from kbgraph.ingest.pipeline import index_vault
from kbgraph.relations.records import entity_relations
from kbgraph.workspace import Workspace

BOB = Access.of("bob", ("team", "public"), "internal")
CHEN = Access.of("chen", ("team", "public"), "internal")
VIEW = GraphView((), None, False, False)

governances = st.builds(Governance, st.none(), st.sampled_from(VISIBILITIES), st.sampled_from(SENSITIVITIES))
# Readers as tokens make them: each visibility with every wider one (public; team and public; all).
readers = st.builds(Access.of, st.just("reader"), st.sampled_from([VISIBILITIES[i:] for i in range(3)]),
                    st.sampled_from(SENSITIVITIES))


def _reads(access: Access, g: Governance) -> bool:
    return access.may_read(g.owner, g.visibility, g.sensitivity)


@given(st.lists(governances, min_size=1, max_size=4), readers)
def test_the_least_readable_is_read_only_by_readers_of_every_part(parts, reader):
    assert _reads(reader, least_readable(parts)) == all(_reads(reader, g) for g in parts)


@given(st.lists(governances, min_size=1, max_size=4), readers)
def test_the_most_readable_is_one_of_the_parts_and_read_by_whoever_reads_them_all(parts, reader):
    chosen = most_readable(parts)
    assert chosen in parts  # never wider than a note that says the name
    if all(_reads(reader, g) for g in parts):
        assert _reads(reader, chosen)
    dominant = [g for g in parts if all(g.openness()[0] >= o.openness()[0] and g.openness()[1] >= o.openness()[1]
                                        for o in parts)]
    if dominant and any(_reads(reader, g) for g in parts):
        assert _reads(reader, chosen)  # one part readable wherever any is: that one is chosen


def _team_vault(vault):
    with open(vault / "kbgraph.toml", "a", encoding="utf-8") as handle:
        handle.write('\n[access]\nvisibility = "team"\n')
    page = vault / "people/chen-wei.md"
    page.write_text(page.read_text().replace("type: person\n", "type: person\nvisibility: private\nowner: chen\n", 1))
    index_vault(vault)
    return page


def test_a_private_page_hides_its_entity_and_its_relations_from_other_readers(vault):
    _team_vault(vault)
    with Workspace.open(str(vault)) as ws:
        store, vocab = ws.store, ws.config.vocabulary
        assert "Chen Wei" not in {e.name for e in store.list_entities(BOB)}
        assert "Chen Wei" in {e.name for e in store.list_entities(CHEN)}  # the owner reads it
        assert "Ben Okafor" in {e.name for e in store.list_entities(BOB)}
        ben = find_entity(store, "Ben Okafor", access=BOB)
        levels = neighbours(store, vocab, ben, 2, "both", VIEW, None, access=BOB)["levels"]
        near = {e["name"] for level in levels for e in level["entities"]}
        assert near and "Chen Wei" not in near
        sam = find_entity(store, "Sam Li", access=BOB)
        seen = entity_relations(store, vocab, sam, None, False, access=BOB)
        assert seen["relations"] and "Chen Wei" not in json.dumps(seen)  # neither way round
        assert "Chen Wei" in {r["target"] for r in entity_relations(store, vocab, sam, None, False,
                                                                    access=CHEN)["relations"]}


def test_opening_the_page_opens_its_entity_and_relations_on_the_next_index(vault):
    page = _team_vault(vault)
    page.write_text(page.read_text().replace("visibility: private\n", "", 1))
    index_vault(vault)
    with Workspace.open(str(vault)) as ws:
        assert "Chen Wei" in {e.name for e in ws.store.list_entities(BOB)}
        sam = find_entity(ws.store, "Sam Li", access=BOB)
        assert "Chen Wei" in {r["target"] for r in entity_relations(ws.store, ws.config.vocabulary, sam, None, False,
                                                                    access=BOB)["relations"]}


def test_without_access_rules_everything_stays_private_to_other_readers(indexed_vault):
    with Workspace.open(str(indexed_vault)) as ws:
        assert not ws.store.list_entities(BOB)
        assert ws.store.list_entities(ws.access)  # the local user reads everything


QUIET = """---
type: meeting
date: 2026-04-01
attendees: [Sam, Lena Fischer]
---
# Quiet sync

Lena Fischer works with Dana Kowalski on the quokka rollout.
"""


def test_suggestions_and_questions_read_as_the_notes_they_come_from(vault):
    """A suggestion whose evidence is only in ana's private note, and the "Sam" question asked in it,
    are hers; the team's reader sees the rest of the queues."""
    from kbgraph.relations.suggestions import list_suggestions
    from kbgraph.resolve.answers import pending

    with open(vault / "kbgraph.toml", "a", encoding="utf-8") as handle:
        handle.write('\n[access]\nvisibility = "team"\n\n[access.folders]\n"private" = { visibility = "private", owner = "ana" }\n')
    (vault / "private").mkdir()
    (vault / "private/quiet.md").write_text(QUIET)
    index_vault(vault)
    ana = Access.of("ana", ("team", "public"), "internal")
    with Workspace.open(str(vault)) as ws:
        def quiet(access):
            return [s for s in list_suggestions(ws.store, "pending", access=access)
                    if {s["source"], s["target"]} == {"Lena Fischer", "Dana Kowalski"}]

        assert quiet(ana) and not quiet(BOB)
        assert list_suggestions(ws.store, "pending", access=BOB)  # the team's own suggestions stay visible
        asked_in = {q["doc_path"] for q in pending(ws.store, ana)}
        assert "private/quiet.md" in asked_in
        assert "private/quiet.md" not in {q["doc_path"] for q in pending(ws.store, BOB)}


def _together(vault, days, private_day):
    """Tom and Priya in a 1:1 on each of days; the one on private_day is bob's private note."""
    (vault / "people").mkdir(parents=True)
    with open(vault / "kbgraph.toml", "w", encoding="utf-8") as handle:
        handle.write('[access]\nvisibility = "team"\n')
    for name in ("Tom Reyes", "Priya Raman"):
        (vault / "people" / f"{name.lower().replace(' ', '-')}.md").write_text(f"---\ntype: person\nname: {name}\n---\n")
    for day in days:
        folder = vault / "meetings" / "2026" / "11" / day
        folder.mkdir(parents=True)
        hidden = "visibility: private\nowner: bob\n" if day == private_day else ""
        (folder / "1on1.md").write_text(f"---\n{hidden}attendees: [Tom Reyes, Priya Raman]\n---\n# 1:1\n\nNotes.\n")
    index_vault(vault)


def _collaborations(vault, access):
    from kbgraph.relations.suggestions import list_suggestions

    with Workspace.open(str(vault)) as ws:
        return [s["strength"] for s in list_suggestions(ws.store, "pending", access=access)
                if s["type"] == "collaborates-with"]


def test_a_co_occurrence_needs_its_meetings_among_those_the_reader_may_read(tmp_path):
    """Three meetings together make the suggestion; a reader of two of them is not told of it (an index of
    its notes would not suggest it), a reader of all three is, and of four a reader of three sees three."""
    alice, bob = Access.of("alice", ("team", "public"), "internal"), Access.of("bob", ("team", "public"), "internal")
    _together(tmp_path / "three", ("03", "10", "17"), "17")
    assert _collaborations(tmp_path / "three", bob) == [3]
    assert _collaborations(tmp_path / "three", alice) == []
    _together(tmp_path / "four", ("03", "10", "17", "24"), "24")
    assert _collaborations(tmp_path / "four", alice) == [3] and _collaborations(tmp_path / "four", bob) == [4]


def test_accepting_a_suggestion_shows_and_relates_from_only_the_support_the_reader_may_read(tmp_path):
    """Ana's action item is in a team meeting and in bob's private one: alice, accepting, is shown the team
    meeting's sentence only, and the relation is read from that meeting, never from bob's."""
    import dataclasses

    from kbgraph.relations.suggestions import accept, list_suggestions

    from .test_reader_counterfactual import PATHS, _write_vault

    vault = tmp_path / "vault"
    vault.mkdir()
    hidden = "meetings/2026/02/03/atlas-review.md"
    _write_vault(vault, {p: ("bob", "private", "normal") if p == hidden else (None, "team", "normal") for p in PATHS})
    (vault / hidden).write_text((vault / hidden).read_text().replace(
        "Ana Lima to send the Project Atlas budget.", "Ana Lima to draft the Project Atlas cutover plan."))
    index_vault(vault)
    alice = Access.of("alice", ("team", "public"), "internal")
    with Workspace.open(str(vault)) as ws:
        (found,) = [s for s in list_suggestions(ws.store, "pending", access=alice) if s["type"] == "contributes-to"]
        assert found["strength"] == 1 and found["source_doc"] == "meetings/2026/01/12/atlas-sync.md"
        assert [s["strength"] for s in list_suggestions(ws.store, "pending", access=LOCAL) if s["type"] == "contributes-to"] == [2]
        done = accept(dataclasses.replace(ws, access=alice), found["id"])
        assert [e["doc_path"] for e in done["evidence"]] == ["meetings/2026/01/12/atlas-sync.md"]
        assert hidden not in json.dumps(done)

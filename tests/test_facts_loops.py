"""Facts and loops through the library: page line first, then the row; history kept; bad input changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbgraph.access import LOCAL
from kbgraph.context.facts import add_fact, list_facts, supersede_fact
from kbgraph.context.loops import add_loop, list_loops, resolve_loop
from kbgraph.errors import Ambiguous, InvalidInput, NotFound
from kbgraph.ingest.pipeline import index_vault
from kbgraph.workspace import Workspace

from .conftest import tree_digest

ARJUN = "people/arjun-mehta.md"


@pytest.fixture
def ws(indexed_vault: Path):
    opened = Workspace.open(str(indexed_vault))
    yield opened
    opened.close()


def _tail(ws, path: str, n: int) -> list[str]:
    return (ws.root / path).read_text(encoding="utf-8").splitlines()[-n:]


def test_a_fact_goes_to_the_entity_page_and_reads_back(ws):
    before = (ws.root / ARJUN).read_text(encoding="utf-8")
    recorded = add_fact(ws, "Arjun", "int", "fountain pens", "2026-03-02", source="meetings/2026-03-02-1on1-arjun.md"
                        if (ws.root / "meetings/2026-03-02-1on1-arjun.md").exists() else "manual")
    after = (ws.root / ARJUN).read_text(encoding="utf-8")
    assert after == before + "\n## Facts\n\n- interest: fountain pens (2026-03-02)\n"
    fact = recorded.item
    assert (fact.kind, fact.text, fact.date, fact.origin, fact.page) == (
        "interest", "fountain pens", "2026-03-02", "page", ARJUN)
    index_vault(ws.root, store=ws.store)  # reading the page back keeps the row (and its source)
    assert list_facts(ws.store, LOCAL, "Arjun Mehta") == [ws.store.get_fact(LOCAL, fact.id)]
    assert ws.store.get_fact(LOCAL, fact.id).source == fact.source


def test_a_correction_supersedes_and_history_stays(ws):
    old = add_fact(ws, "Arjun Mehta", "interest", "fountain pens", "2026-03-02").item
    new = supersede_fact(ws, old.id, "calligraphy", date="2026-04-01")
    assert _tail(ws, ARJUN, 1) == ["- interest: calligraphy (2026-04-01)"]
    assert new.replaced.superseded_by == new.item.id and new.replaced.change == "superseded"
    assert [f.text for f in list_facts(ws.store, LOCAL, "Arjun")] == ["calligraphy"]
    assert [f.text for f in list_facts(ws.store, LOCAL, "Arjun", include_superseded=True)] == [
        "fountain pens", "calligraphy"]
    digest = tree_digest(ws.root)
    with pytest.raises(InvalidInput, match=f"already superseded by fact {new.item.id}"):
        supersede_fact(ws, old.id, "ink")
    assert tree_digest(ws.root) == digest


@pytest.mark.parametrize("call, error, words", [
    (lambda ws: add_fact(ws, "Arjun", "hobby", "chess"), InvalidInput, "not a fact kind"),
    (lambda ws: add_fact(ws, "Arjun", "note", "   "), InvalidInput, "empty"),
    (lambda ws: add_fact(ws, "Nobody Here", "note", "x"), NotFound, "no entity named"),
    (lambda ws: add_fact(ws, "Sam", "note", "x"), Ambiguous, "matches Sam"),
    (lambda ws: add_fact(ws, "Arjun", "note", "x", date="2026-02-30"), InvalidInput, "real date"),
    (lambda ws: add_fact(ws, "Arjun", "note", "moved (2026-01-01)"), InvalidInput, "would not read back"),
    (lambda ws: add_fact(ws, "Arjun", "note", "x", source="nowhere.md"), NotFound, "not in the index"),
    (lambda ws: add_loop(ws, "Arjun", ""), InvalidInput, "empty"),
    (lambda ws: add_loop(ws, "Arjun", "call @2026-01-02", due="2026-01-03"), InvalidInput, "two due dates"),
    (lambda ws: add_loop(ws, "Arjun", "call @2026-13-02"), InvalidInput, "not a due date"),
    (lambda ws: add_loop(ws, "Arjun", "call @yesterday"), InvalidInput, "ends with '@yesterday', which is not a due date"),
    (lambda ws: add_loop(ws, "Arjun", "call @next-week", due="2026-01-03"), InvalidInput, "not a due date"),
    (lambda ws: resolve_loop(ws, 404), NotFound, "no loop 404"),
    (lambda ws: supersede_fact(ws, 404, "x"), NotFound, "no fact 404"),
])
def test_bad_input_changes_nothing(ws, call, error, words):
    digest = tree_digest(ws.root)
    with pytest.raises(error, match=words):
        call(ws)
    assert tree_digest(ws.root) == digest
    assert ws.store.facts(LOCAL, include_superseded=True) == [] and ws.store.loops(LOCAL, statuses=()) == []


def test_a_loop_due_in_the_past_is_kept_and_flagged(ws):
    recorded = add_loop(ws, "Ben Okafor", "send the offsite notes @2026-01-10", today="2026-02-01")
    assert recorded.warnings == ("the due date 2026-01-10 is in the past: the loop is overdue",)
    assert _tail(ws, "people/ben-okafor.md", 1) == ["- [ ] send the offsite notes @2026-01-10"]
    assert [loop.id for loop in list_loops(ws.store, LOCAL, due="overdue", today="2026-02-01")] == [recorded.item.id]


def test_resolving_keeps_the_loop_and_twice_is_an_error(ws):
    loop = add_loop(ws, "Arjun", "ask about the surgery", due="2026-08-15").item
    later = add_loop(ws, "Arjun", "send the pen catalogue @2026-09-01").item
    assert [x.id for x in list_loops(ws.store, LOCAL, "Arjun", due="2026-08-31")] == [loop.id]
    done = resolve_loop(ws, loop.id, on="2026-08-16").item
    assert (done.status, done.resolved_on) == ("resolved", "2026-08-16")
    assert _tail(ws, ARJUN, 2) == ["- [x] ask about the surgery @2026-08-15 (resolved 2026-08-16)",
                                   "- [ ] send the pen catalogue @2026-09-01"]
    digest = tree_digest(ws.root)
    with pytest.raises(InvalidInput, match="already resolved on 2026-08-16; nothing was changed"):
        resolve_loop(ws, loop.id)
    assert tree_digest(ws.root) == digest
    assert [x.id for x in list_loops(ws.store, LOCAL, "Arjun")] == [later.id]
    assert {x.id for x in list_loops(ws.store, LOCAL, "Arjun", include_closed=True)} == {loop.id, later.id}


def test_lines_edited_by_hand_are_read_back(ws):
    fact = add_fact(ws, "Arjun", "interest", "fountain pens").item
    add_fact(ws, "Arjun", "role", "staff engineer")
    loop = add_loop(ws, "Arjun", "ask about the surgery @2026-08-15").item
    page = ws.root / ARJUN
    text = page.read_text(encoding="utf-8")
    text = text.replace("- interest: fountain pens", "- interest: fountain pens and ink\n- hobby: a line of nonsense")
    text = text.replace("- [ ] ask about", "- [x] ask about")
    page.write_text(text + "- [ ] a loop written by hand @2026-09-09\n", encoding="utf-8")
    report = index_vault(ws.root, store=ws.store)
    line = text.splitlines().index("- hobby: a line of nonsense") + 1
    assert [(p.path, p.severity) for p in report.problems] == [(f"{ARJUN}:{line}", "warning")]
    assert "unknown fact kind 'hobby'" in report.problems[0].reason
    current = {f.text: f for f in list_facts(ws.store, LOCAL, "Arjun")}
    assert set(current) == {"fountain pens and ink", "staff engineer"}
    old = ws.store.get_fact(LOCAL, fact.id)
    assert (old.change, old.superseded_by) == ("edited", current["fountain pens and ink"].id)
    assert ws.store.get_loop(LOCAL, loop.id).status == "resolved"
    assert [x.text for x in list_loops(ws.store, LOCAL, "Arjun")] == ["a loop written by hand"]
    page.write_text(text.replace("- hobby: a line of nonsense\n", ""), encoding="utf-8")  # fixed: the warning goes
    assert index_vault(ws.root, store=ws.store).problems == ()
    assert ws.store.get_loop(LOCAL, loop.id + 1).status == "dropped"  # its line is gone


def test_an_entity_without_a_page_keeps_its_facts_in_the_index(ws):
    from kbgraph.relations.edits import create_entity

    create_entity(ws, "person", "Zoe Park")
    digest = tree_digest(ws.root)
    fact = add_fact(ws, "Zoe Park", "note", "met at the offsite").item
    loop = add_loop(ws, "Zoe Park", "send the slides").item
    assert tree_digest(ws.root) == digest
    assert (fact.origin, fact.page, loop.origin, loop.due) == ("user", None, "user", None)
    index_vault(ws.root, store=ws.store, full=True)
    assert list_facts(ws.store, LOCAL, "Zoe Park") == [fact]
    assert resolve_loop(ws, loop.id).item.status == "resolved"


def test_a_deleted_page_leaves_its_facts_in_history(ws):
    fact = add_fact(ws, "Lena Fischer", "role", "designer").item
    (ws.root / "people/lena-fischer.md").unlink()
    index_vault(ws.root, store=ws.store)
    assert ws.store.get_fact(LOCAL, fact.id) is None or ws.store.get_fact(LOCAL, fact.id).change == "removed"
    assert ws.store.facts(LOCAL, include_superseded=True)[0].change == "removed"


def test_a_line_typed_into_nonsense_is_a_warning_and_its_item_stays(ws):
    fact = add_fact(ws, "Arjun", "role", "VP Eng", "2026-01-02").item
    other = add_fact(ws, "Arjun", "interest", "fountain pens").item
    loop = add_loop(ws, "Arjun", "ask about the surgery @2026-08-15").item
    page = ws.root / ARJUN
    good = page.read_text(encoding="utf-8")
    broken = good.replace("- role: VP Eng", "- role VP Eng").replace("@2026-08-15", "@2026-08-1x")
    broken = broken.replace("- interest: fountain pens", "- interest: fountain pens and ink")
    page.write_text(broken, encoding="utf-8")
    report = index_vault(ws.root, store=ws.store)
    assert len(report.problems) == 2 and all(p.severity == "warning" for p in report.problems)
    assert (ws.store.get_fact(LOCAL, fact.id).change, ws.store.get_loop(LOCAL, loop.id).status) == (None, "open")
    edited = ws.store.get_fact(LOCAL, other.id)  # a line that still reads is an edit, as without the typos
    assert edited.change == "edited"
    page.write_text(good.replace("- interest: fountain pens", "- interest: fountain pens and ink"), encoding="utf-8")
    assert index_vault(ws.root, store=ws.store).problems == ()
    assert ws.store.get_fact(LOCAL, fact.id) == fact  # the same id, source and recorded time
    assert ws.store.get_loop(LOCAL, loop.id) == loop
    page.write_text(good.replace("- role: VP Eng (2026-01-02)\n", ""), encoding="utf-8")  # really gone now
    index_vault(ws.root, store=ws.store)
    assert ws.store.get_fact(LOCAL, fact.id).change == "removed"


def test_an_at_sign_inside_the_text_is_text(ws):
    loop = add_loop(ws, "Arjun", "mail ana@example.com about @ the offsite", due="2026-01-03").item
    assert (loop.text, loop.due) == ("mail ana@example.com about @ the offsite", "2026-01-03")


def test_a_correction_keeps_the_old_kind_and_date_unless_given(ws):
    old = add_fact(ws, "Arjun Mehta", "interest", "fountain pens", "2026-03-02").item
    new = supersede_fact(ws, old.id, "calligraphy").item
    assert (new.kind, new.text, new.date) == ("interest", "calligraphy", "2026-03-02")
    assert _tail(ws, ARJUN, 1) == ["- interest: calligraphy (2026-03-02)"]
    later = supersede_fact(ws, new.id, "calligraphy", date="2026-04-01").item
    assert later.date == "2026-04-01"


def test_overdue_is_one_rule(ws):
    from dataclasses import replace

    from kbgraph.context.loops import is_overdue

    loop = add_loop(ws, "Arjun", "call", due="2026-05-01").item
    assert not is_overdue(loop, "2026-05-01") and is_overdue(loop, "2026-05-02")
    assert not is_overdue(replace(loop, status="resolved"), "2026-06-01")
    assert not is_overdue(replace(loop, due=None), "2026-06-01")


def test_facts_and_loops_follow_a_merge_and_go_back_on_unmerge(ws):
    from kbgraph.context.brief import brief_entity
    from kbgraph.context.slice import slice_entities
    from kbgraph.curation.merging import merge_entities, unmerge_entity
    from kbgraph.relations.edits import create_entity

    create_entity(ws, "person", "Arjun Metha")
    fact = add_fact(ws, "Arjun Metha", "interest", "green tea", "2026-04-01").item
    loop = add_loop(ws, "Arjun Metha", "send the tea list", due="2026-04-20").item
    merge_entities(ws, "Arjun Metha", "Arjun Mehta")
    facts = list_facts(ws.store, LOCAL, "Arjun Mehta")
    assert [(f.id, f.entity) for f in facts if f.text == "green tea"] == [(fact.id, "Arjun Mehta")]
    assert [(x.id, x.entity) for x in list_loops(ws.store, LOCAL, "Arjun Mehta")] == [(loop.id, "Arjun Mehta")]
    assert {f.entity for f in list_facts(ws.store, LOCAL)} == {"Arjun Mehta"}
    lines = slice_entities(ws.store, ws.config, ["Arjun Mehta"], today="2026-04-10", access=LOCAL).entities[0].lines
    assert "- interest: green tea (2026-04-01)" in lines and "- open loop: send the tea list (due 2026-04-20)" in lines
    brief = brief_entity(ws.store, LOCAL, ws.config.vocabulary, "Arjun Mehta", today="2026-04-10")
    assert f"loop {loop.id}" in [i.ref for i in brief.items]
    assert ws.store.get_fact(LOCAL, fact.id).entity_key == "person:arjun metha"  # the row itself is unchanged
    unmerge_entity(ws, "Arjun Metha")
    assert "green tea" not in [f.text for f in list_facts(ws.store, LOCAL, "Arjun Mehta")]
    assert [f.id for f in list_facts(ws.store, LOCAL, "Arjun Metha")] == [fact.id]
    assert [x.id for x in list_loops(ws.store, LOCAL, "Arjun Metha")] == [loop.id]

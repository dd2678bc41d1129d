"""A write made while another process indexes the vault for longer than a write waits: it is kept and
reported as done (a user told it failed would make it again, twice), and the next index re-reads it
without doubling anything."""

from __future__ import annotations

import threading
import time

import pytest

from kbgraph.context.facts import add_fact, list_facts
from kbgraph import workspace
from kbgraph.ingest.pipeline import index_vault
from kbgraph.locks import index_lock
from kbgraph.relations.edits import relate, unrelate
from kbgraph.relations.records import entity_relations
from kbgraph.entities.lookup import find_entity
from kbgraph.workspace import Workspace
from kbgraph.access import LOCAL


@pytest.fixture
def busy_index(indexed_vault, monkeypatch):
    """(vault, done) with another `kbg index` holding the vault for 1.5 s or until done() says it ended,
    while a write waits 0.2 s for it."""
    monkeypatch.setattr(workspace, "WRITE_REREAD_WAIT", 0.2)
    held, done = threading.Event(), threading.Event()

    def other_index():
        with index_lock(indexed_vault):
            held.set()
            done.wait(1.5)

    def finish() -> None:
        done.set()
        runner.join()

    runner = threading.Thread(target=other_index)
    runner.start()
    held.wait(5)
    yield indexed_vault, finish
    finish()


def _mentors(ws):
    sam = find_entity(ws.store, "Sam Li", access=LOCAL)
    return [r["target"] for r in entity_relations(ws.store, ws.config.vocabulary, sam, "mentors", False, access=LOCAL)["relations"]]


def test_relate_unrelate_and_a_fact_stand_while_another_index_holds_the_vault(busy_index):
    vault, _ = busy_index
    with Workspace.open(str(vault)) as ws:
        started = time.monotonic()
        made = relate(ws, "Sam Li", "mentors", "Chen Wei")
        assert made["mirrored_to"] == "people/sam-li.md" and time.monotonic() - started < 1.5
        assert _mentors(ws) == ["Chen Wei"]
        recorded = add_fact(ws, "Sam Li", "interest", "sailing")
        assert recorded.item.text == "sailing" and recorded.page == "people/sam-li.md"
        relate(ws, "Sam Li", "mentors", "Lena Fischer")
        unrelate(ws, "Sam Li", "mentors", "Lena Fischer")
    page = (vault / "people/sam-li.md").read_text()
    assert "- mentors [[Chen Wei]]" in page and "[[Lena Fischer]]" not in page.split("## Relations")[-1]


def test_the_next_index_reads_them_back_once(busy_index):
    vault, other_index_ends = busy_index
    with Workspace.open(str(vault)) as ws:
        relate(ws, "Sam Li", "mentors", "Chen Wei")
        add_fact(ws, "Sam Li", "interest", "sailing")
    other_index_ends()
    assert index_vault(vault).errors == 0
    with Workspace.open(str(vault)) as ws:
        assert _mentors(ws) == ["Chen Wei"]
        assert [f.text for f in list_facts(ws.store, ws.access, "Sam Li")].count("sailing") == 1


def test_a_write_that_waits_for_the_lock_says_what_it_waits_for(indexed_vault, monkeypatch):
    """Writers queue: a relate that meets another process's write waits, tells the person why, then
    completes (it used to fail or wait in silence)."""
    import threading
    import time

    from kbgraph import locks
    from kbgraph.pages.files import write_lock

    from .conftest import run_kbg

    # The notice comes after 1 s of waiting in use; 0.2 s here. The lock is held 0.6 s past that, as before.
    monkeypatch.setattr(locks, "NOTICE_AFTER", 0.2)
    held = threading.Event()

    def hold() -> None:
        with write_lock(indexed_vault):
            held.set()
            time.sleep(0.8)

    thread = threading.Thread(target=hold)
    thread.start()
    held.wait()
    result = run_kbg("entity", "relate", "Ana Lima", "--type", "works-with", "--target", "Chen Wei",
                     "--vault", str(indexed_vault))
    thread.join()
    assert result.returncode == 0, result.stderr
    assert "waiting: another kbgraph process is writing to this vault (up to 30 s)" in result.stderr

"""A wall clock set back between runs (issue 18, bad input): a stamp that follows another is never
earlier than it, so history reads in order. The clock is kbgraph.clock.wall_clock; each test runs a
first command now and the next one with the clock a day earlier."""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
from pathlib import Path

import pytest

from ..conftest import copy_indexed, kbg

NOW = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


@pytest.fixture
def set_clock(monkeypatch):
    def to(moment: dt.datetime) -> None:
        monkeypatch.setattr("kbgraph.clock.wall_clock", lambda: moment)
    return to


def _rows(vault: Path, sql: str, *params) -> list[tuple]:
    db = sqlite3.connect(vault / ".kbgraph" / "index.db")
    try:
        return db.execute(sql, params).fetchall()
    finally:
        db.close()


def test_a_relation_edited_then_ended_a_day_earlier_by_the_clock_ends_after_it_began(indexed_sample, tmp_path,
                                                                                     set_clock):
    vault = copy_indexed(indexed_sample, tmp_path / "vault")
    set_clock(NOW)
    kbg(vault, "entity", "relate", "Sam Li", "--type", "mentors", "--target", "Chen Wei", "--reason", "pairing")
    set_clock(NOW - dt.timedelta(days=1))
    kbg(vault, "entity", "relate", "Sam Li", "--type", "mentors", "--target", "Chen Wei", "--reason", "on-call")
    kbg(vault, "entity", "unrelate", "Sam Li", "--type", "mentors", "--target", "Chen Wei")
    versions = _rows(vault, "SELECT reason, recorded_at, superseded_at, valid_until, change FROM relation_history"
                            " WHERE source_name = 'Sam Li' AND type = 'mentors' ORDER BY superseded_at, id")
    assert [(reason, change) for reason, *_, change in versions] == [("pairing", "edited"), ("on-call", "ended")]
    for reason, recorded, superseded, until, _ in versions:
        assert recorded <= superseded, (reason, recorded, superseded)
    assert versions[0][2] <= versions[1][1]  # the second version began when the first was superseded
    assert versions[1][3] >= versions[1][1][:10]  # true until a date not before it was recorded: it was current
    from kbgraph.access import LOCAL
    from kbgraph.relations.history import relation_history
    from kbgraph.store.sqlite.store import SqliteStore

    store = SqliteStore.open(str(vault / ".kbgraph" / "index.db"))
    try:  # the library's history, oldest change first
        assert [v["reason"] for v in relation_history(store, access=LOCAL) if v["type"] == "mentors"
                and v["source"] == "Sam Li"] == ["pairing", "on-call"]
    finally:
        store.close()


def test_a_page_line_removed_while_the_clock_is_a_day_behind_ends_its_relation_after_it_began(indexed_sample,
                                                                                             tmp_path, set_clock):
    """kbg index, incremental: the page's file time is a day earlier than when it was indexed (same size),
    yet it is read again (a file time that differs, earlier or later, is a change), and the relation its
    removed line stated ends after it was recorded."""
    vault = copy_indexed(indexed_sample, tmp_path / "vault")
    set_clock(NOW)
    kbg(vault, "entity", "relate", "Sam Li", "--type", "mentors", "--target", "Chen Wei")
    page = vault / "people" / "sam-li.md"
    before = page.stat()
    text = page.read_text(encoding="utf-8")
    edited = text.replace("- mentors [[Chen Wei]]", "- mentors [[Chen Wex]]")
    assert edited != text and len(edited) == len(text)
    set_clock(NOW - dt.timedelta(days=1))
    page.write_text(edited, encoding="utf-8")
    os.utime(page, (before.st_atime - 86400, before.st_mtime - 86400))
    kbg(vault, "index")
    ended = _rows(vault, "SELECT recorded_at, superseded_at, valid_until FROM relation_history WHERE"
                         " source_name = 'Sam Li' AND target_name = 'Chen Wei' AND type = 'mentors'")
    assert len(ended) == 1, ended
    recorded, superseded, until = ended[0]
    assert recorded <= superseded and until >= recorded[:10]


def test_a_correction_and_an_answer_made_a_day_earlier_by_the_clock_follow_what_they_answer(indexed_sample,
                                                                                          tmp_path, set_clock):
    vault = copy_indexed(indexed_sample, tmp_path / "vault")
    set_clock(NOW)
    fact = kbg(vault, "fact", "add", "Sam Li", "sailing", "--kind", "interest")
    fact_id = str(fact.get("id") or fact["fact"]["id"])
    set_clock(NOW - dt.timedelta(days=2))  # the index's questions were asked at the real now
    kbg(vault, "fact", "supersede", fact_id, "dinghy sailing")
    facts = _rows(vault, "SELECT text, recorded_at, superseded_at FROM facts WHERE entity_name = 'Sam Li'"
                         " ORDER BY id")
    (old, old_at, old_end), (new, new_at, _) = facts
    assert (old, new) == ("sailing", "dinghy sailing")
    assert old_at < new_at and old_at <= old_end, facts
    listed = kbg(vault, "fact", "list", "Sam Li", "--all")
    texts = [f["text"] for f in (listed["facts"] if isinstance(listed, dict) else listed)]
    assert texts.index("sailing") < texts.index("dinghy sailing")
    question = kbg(vault, "resolve", "pending")["questions"][0]
    kbg(vault, "resolve", "reject", str(question["id"]))
    created, decided = _rows(vault, "SELECT created_at, decided_at FROM resolution_decisions WHERE id = ?",
                             question["id"])[0]
    assert created <= decided, (created, decided)


@pytest.mark.parametrize("previous, now, expected", [
    (("2026-03-01T10:00:00+00:00",), "2026-03-01T11:00:00+00:00", "2026-03-01T11:00:00+00:00"),
    (("2026-03-01T10:00:00+00:00",), "2026-03-01T10:00:00+00:00", "2026-03-01T10:00:00+00:00"),
    (("2026-03-01T10:00:00+00:00", None), "2026-02-28T10:00:00+00:00", "2026-03-01T10:00:01+00:00"),
    # Another offset: 12:00+02:00 is 10:00 UTC, so 11:00 UTC follows it (as text it looked earlier, and
    # the answer was 10:00:01 UTC, before now and before the stamp it was to follow)
    (("2026-03-01T12:00:00+02:00",), "2026-03-01T11:00:00+00:00", "2026-03-01T11:00:00+00:00"),
    (("2026-03-01T12:00:00+02:00",), "2026-03-01T09:00:00+00:00", "2026-03-01T10:00:01+00:00"),
    (("not a time",), "2026-03-01T09:00:00+00:00", "2026-03-01T09:00:00+00:00"),
])
def test_a_stamp_follows_what_it_follows_as_moments_not_text(previous, now, expected):
    from kbgraph.clock import after

    assert after(*previous, now=now) == expected

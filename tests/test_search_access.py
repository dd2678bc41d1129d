"""Search reads through the reader's access: every signal (keywords, vectors, graph) filters in the
store before it cuts its ranking, so a principal gets its own top results, never fewer, never others'."""

from __future__ import annotations

import pytest

from kbgraph.access import LOCAL, Access
from kbgraph.errors import NotFound
from kbgraph.ingest.pipeline import index_vault
from kbgraph.search import search
from kbgraph.store import open_store

PUBLIC = [f"notes/public-{i}.md" for i in range(3)]
HIDDEN = [f"notes/hidden-{i}.md" for i in range(6)]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("governed")
    (root / "notes").mkdir()
    topics = ["the ferry timetable and the crane rota", "dredging quotes from three firms", "a new pilot boat"]
    for path, topic in zip(PUBLIC, topics):  # distinct texts: copies would be folded into one hit
        (root / path).write_text(f"---\nvisibility: public\n---\n# Harbour\n\nThe harbour budget covers {topic}.\n")
    for i, path in enumerate(HIDDEN):  # the better matches: the words many times
        governance = "visibility: private\nowner: ana" if i % 2 else "visibility: public\nsensitivity: confidential"
        (root / path).write_text(f"---\n{governance}\n---\n# Harbour budget\n\n" + "Harbour budget. " * 20 + "\n")
    (root / "people").mkdir()
    (root / "people" / "dana-reyes.md").write_text("---\ntype: person\n---\n# Dana Reyes\n\nDana keeps the harbour budget.\n")
    report = index_vault(root)
    assert report.errors == 0, report.problems
    opened = open_store(root)
    yield opened
    opened.close()


@pytest.mark.parametrize("mode", ["hybrid", "bm25", "vector"])
def test_a_reader_gets_its_own_top_results_and_no_one_elses(store, mode):
    ben = Access.of("ben", ["public"], "internal")
    hits = search(store, "harbour budget", limit=3, mode=mode, access=ben).hits
    assert {h.path for h in hits} <= set(PUBLIC)
    if mode != "vector":  # the fake embedder's similarities may fall under the cutoff
        assert sorted(h.path for h in hits) == PUBLIC  # three asked, three readable: filtered before the cut
    everyone = search(store, "harbour budget", limit=3, mode="bm25", access=LOCAL).hits
    assert everyone[0].path in HIDDEN  # the single user sees the better matches (copies folded into one)


def test_an_owner_reads_its_private_notes(store):
    ana = Access.of("ana", ["public"], "normal")
    paths = {h.path for h in search(store, "harbour budget", limit=20, mode="bm25", access=ana).hits}
    assert paths == set(PUBLIC) | {p for i, p in enumerate(HIDDEN) if i % 2}


def test_why_not_does_not_confirm_an_unreadable_note_exists(store):
    ben = Access.of("ben", ["public"], "normal")
    why = search(store, "harbour", limit=3, mode="bm25", why_not=HIDDEN[1], access=ben).why_not
    assert why["reason"] == "not-indexed"


def test_a_pinned_entity_the_reader_may_not_read_is_not_found(store):
    assert search(store, "harbour", entity="Dana Reyes", access=LOCAL).hits
    with pytest.raises(NotFound):  # entities are private until governed: another reader sees none
        search(store, "harbour", entity="Dana Reyes", access=Access.of("ben", ["public"], "normal"))
    recognised = search(store, "Dana Reyes harbour", mode="bm25", access=Access.of("ben", ["public"])).entities
    assert recognised == ()

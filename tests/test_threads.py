"""Threads sharing one store: each thread's unit of work has its own connection and transaction.

Deterministic by construction: fixed counts, a barrier to start together, events for the one
hand-off that must overlap. Nothing waits on a clock.
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from kbgraph.access import LOCAL
from kbgraph.ingest.pipeline import index_vault
from kbgraph.search.engine import search
from kbgraph.store import DocFilter, open_store
from kbgraph.store.sqlite.store import SqliteStore

WRITERS, READERS, ROUNDS = 4, 4, 30
ABANDONED_EVERY = 3  # every third transaction of a writer raises after writing its pair


class Abandon(Exception):
    """Raised inside a transaction to roll it back."""


def _small_vault(root: Path, words: str) -> Path:
    (root / "notes").mkdir(parents=True)
    for i in range(3):
        (root / "notes" / f"n{i}.md").write_text(f"# Note {i}\n\nThe {words} plan, part {i}.\n")
    report = index_vault(root)
    assert report.errors == 0, report.problems
    return root


@pytest.fixture
def store(tmp_path):
    store = open_store(_small_vault(tmp_path / "vault", "budget"))
    yield store
    store.close()


def _committed(k: int) -> bool:
    return k % ABANDONED_EVERY != ABANDONED_EVERY - 1


def _run_threads(targets) -> list[BaseException]:
    """Run every target in its own thread; the exceptions they raised."""
    errors: list[BaseException] = []

    def guarded(target):
        def run():
            try:
                target()
            except BaseException as exc:  # collected, so the test reports it instead of a thread
                errors.append(exc)
        return run

    threads = [threading.Thread(target=guarded(t)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_eight_threads_of_mixed_reads_and_writes_never_merge_lose_or_lock(store):
    start = threading.Barrier(WRITERS + READERS, timeout=10)
    seen: list[tuple[int, int, str | None, str]] = []

    def writer(w: int):
        def run():
            start.wait()
            for k in range(ROUNDS):
                try:
                    with store.transaction():
                        store.set_meta(f"pair:{w}:{k}:a", f"{w}/{k}")
                        commits = int(store.get_meta("commits") or 0)  # read-modify-write: lost if merged
                        store.set_meta("commits", str(commits + 1))
                        store.set_meta(f"pair:{w}:{k}:b", f"{w}/{k}")
                        if not _committed(k):
                            raise Abandon
                except Abandon:
                    pass
        return run

    def reader(r: int):
        def run():
            start.wait()
            for k in range(ROUNDS):
                for w in range(WRITERS):
                    b = store.get_meta(f"pair:{w}:{k}:b")  # b first: written last, so a must be there too
                    if b is not None:
                        seen.append((w, k, store.get_meta(f"pair:{w}:{k}:a"), b))
                assert len(store.list_documents(LOCAL, DocFilter())) == 3
                if k % 10 == r:
                    assert search(store, "budget", mode="bm25", access=LOCAL).hits
        return run

    errors = _run_threads([writer(w) for w in range(WRITERS)] + [reader(r) for r in range(READERS)])

    assert errors == []  # no "database is locked", no "cannot start a transaction within a transaction"
    for w, k, a, b in seen:
        assert _committed(k), f"a reader saw pair {w}/{k}, which was rolled back"
        assert a == b == f"{w}/{k}", f"a reader saw half of pair {w}/{k}"
    for w in range(WRITERS):
        for k in range(ROUNDS):
            expected = f"{w}/{k}" if _committed(k) else None
            assert store.get_meta(f"pair:{w}:{k}:a") == store.get_meta(f"pair:{w}:{k}:b") == expected
    assert store.get_meta("commits") == str(WRITERS * sum(_committed(k) for k in range(ROUNDS)))


def test_another_threads_open_transaction_is_neither_seen_nor_joined(store):
    written, read = threading.Event(), threading.Event()

    def writer():
        try:
            with store.transaction():
                store.set_meta("draft", "uncommitted")
                written.set()
                assert read.wait(10)
                raise Abandon
        except Abandon:
            pass

    def other():
        assert written.wait(10)
        draft = store.get_meta("draft")
        read.set()
        with store.transaction():  # waits for the writer's lock, then commits on its own
            store.set_meta("mine", "kept")
        assert draft is None, "a thread read another thread's uncommitted write"

    assert _run_threads([writer, other]) == []
    assert store.get_meta("draft") is None
    assert store.get_meta("mine") == "kept"  # the writer's rollback did not undo it


def test_within_one_thread_transactions_still_nest_and_roll_back_together(store):
    with pytest.raises(Abandon):
        with store.transaction():
            store.set_meta("outer", "1")
            with store.transaction():
                store.set_meta("inner", "1")
            raise Abandon
    assert store.get_meta("outer") is None and store.get_meta("inner") is None
    with store.transaction():
        with store.transaction():
            store.set_meta("inner", "2")
    assert store.get_meta("inner") == "2"


def test_an_in_memory_store_is_one_database_for_all_its_threads():
    store = SqliteStore.open(":memory:")
    other = SqliteStore.open(":memory:")
    try:
        store.set_meta("k", "main")
        found: list[str | None] = []

        def worker():
            found.append(store.get_meta("k"))
            with store.transaction():
                store.set_meta("k", "worker")

        assert _run_threads([worker]) == []
        assert found == ["main"] and store.get_meta("k") == "worker"
        assert other.get_meta("k") is None  # each in-memory store is its own database
    finally:
        store.close()
        other.close()


def test_close_closes_every_threads_connection(store):
    assert _run_threads([lambda: store.get_meta("x")]) == []
    store.close()
    with pytest.raises(Exception):
        store.get_meta("x")
    assert _run_threads([lambda: store.get_meta("x")]) != []


# --- two vaults in one process ---------------------------------------------------


def _vector_chunks(store) -> int:
    ids, _, _ = store.vector_matrix(LOCAL, DocFilter())
    return len(ids)


def test_two_vaults_in_one_process_never_see_each_others_vectors_or_text(tmp_path):
    one = open_store(_small_vault(tmp_path / "one", "budget"))
    two = open_store(_small_vault(tmp_path / "two", "offsite"))
    (tmp_path / "two" / "notes" / "n3.md").write_text("# Note 3\n\nOne more offsite note.\n")
    index_vault(tmp_path / "two")
    try:
        for _ in range(2):  # interleaved, so a cache filled by one is there when the other reads
            assert (_vector_chunks(one), _vector_chunks(two)) == (3, 4)
        assert search(one, "budget", mode="bm25", access=LOCAL).hits and not search(one, "offsite", mode="bm25", access=LOCAL).hits
        assert search(two, "offsite", mode="bm25", access=LOCAL).hits and not search(two, "budget", mode="bm25", access=LOCAL).hits
    finally:
        one.close()
        two.close()


def test_a_vault_rebuilt_in_place_is_not_served_the_old_vectors(tmp_path):
    root = _small_vault(tmp_path / "vault", "budget")
    first = open_store(root)
    before = _vector_chunks(first)
    first.close()
    shutil.rmtree(root / ".kbgraph")
    shutil.rmtree(root / "notes")
    (root / "notes").mkdir()
    for i in range(5):
        (root / "notes" / f"m{i}.md").write_text(f"# Other {i}\n\nA different vault, note {i}.\n")
    index_vault(root)
    second = open_store(root)
    try:
        assert _vector_chunks(second) == second.vector_counts()[0] != before
    finally:
        second.close()


def _people_vault(root: Path, person: str) -> Path:
    (root / "people").mkdir(parents=True)
    (root / "people" / "p.md").write_text(f"---\ntype: person\nname: {person}\n---\n# {person}\n")
    for i in range(3):
        (root / f"m{i}.md").write_text(f"# Meeting {i}\n\n{person} presented the plan.\n")
    return root


def _mentioned(root: Path) -> set[str]:
    store = open_store(root)
    try:
        return {e.name for e in store.list_entities(LOCAL) if e.mention_count}
    finally:
        store.close()


def test_a_vault_indexed_during_another_vaults_mention_scan_keeps_its_own_names(tmp_path):
    one, two = _people_vault(tmp_path / "one", "Ana Lima"), _people_vault(tmp_path / "two", "Ben Okafor")
    nested: list[bool] = []

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "mentions" and done == 1 and not nested:  # mid-scan of one: index two, start to end
            nested.append(True)
            index_vault(two)

    index_vault(one, progress=progress)
    assert nested and _mentioned(one) == {"Ana Lima"} and _mentioned(two) == {"Ben Okafor"}

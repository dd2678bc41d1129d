"""`kbg backup` / `kbg restore`: a checked snapshot of the index, safe while writers run, put back whole."""

from __future__ import annotations

import json
import sqlite3
import threading

import pytest

from .conftest import kbg, run_kbg


def _relate(vault, source: str, target: str) -> None:
    kbg(vault, "entity", "relate", source, "--type", "works-with", "--target", target)


def _export(vault) -> dict:
    data = kbg(vault, "export")
    return {key: data[key] for key in ("entities", "relations", "asserted_entities")}


def test_a_backup_restores_every_assertion_made_after_it_is_undone(indexed_vault, tmp_path):
    _relate(indexed_vault, "Ana Lima", "Chen Wei")
    before = _export(indexed_vault)
    report = kbg(indexed_vault, "backup", str(tmp_path / "snap.db"))
    assert report["documents"] > 0 and report["relations"] > 0 and report["bytes"] > 0
    with sqlite3.connect(tmp_path / "snap.db") as db:  # one self-contained, sound file
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert not (tmp_path / "snap.db-wal").exists()

    kbg(indexed_vault, "entity", "unrelate", "Ana Lima", "--type", "works-with", "--target", "Chen Wei")
    _relate(indexed_vault, "Ben Okafor", "Sam Li")
    assert _export(indexed_vault) != before
    restored = kbg(indexed_vault, "restore", str(tmp_path / "snap.db"))
    assert restored["relations"] == report["relations"] and restored["notes_missing"] == 0
    assert _export(indexed_vault) == before
    assert kbg(indexed_vault, "search", "Atlas")  # the restored index answers queries


def test_a_folder_gets_a_dated_file_and_nothing_is_ever_overwritten(indexed_vault, tmp_path):
    first = kbg(indexed_vault, "backup", str(tmp_path))
    assert first["path"].startswith(str(tmp_path / "kbgraph-vault-")) and first["path"].endswith(".db")
    result = run_kbg("backup", first["path"], "--vault", str(indexed_vault))
    assert result.returncode != 0 and "never overwrites" in result.stderr and "Traceback" not in result.stderr
    result = run_kbg("backup", str(indexed_vault / ".kbgraph" / "x.db"), "--vault", str(indexed_vault))
    assert result.returncode != 0 and "inside .kbgraph" in result.stderr


def test_a_bad_backup_is_refused_and_changes_nothing(indexed_vault, tmp_path):
    before = _export(indexed_vault)
    cases = {
        "text.db": b"not a database at all" * 100,
        "other.db": None,  # a sound SQLite file that is not a kbgraph index
        "missing.db": False,
    }
    with sqlite3.connect(tmp_path / "other.db") as db:
        db.execute("CREATE TABLE t (x)")
    (tmp_path / "text.db").write_bytes(cases["text.db"])
    for name, expected in (("text.db", "not a readable SQLite index"), ("other.db", "not a kbgraph index"),
                           ("missing.db", "no backup file")):
        result = run_kbg("restore", str(tmp_path / name), "--vault", str(indexed_vault))
        assert result.returncode != 0 and expected in result.stderr, (name, result.stderr)
        assert len(result.stderr.strip().splitlines()) <= 2 and "Traceback" not in result.stderr
    assert _export(indexed_vault) == before


def test_a_backup_from_a_newer_kbgraph_is_refused(indexed_vault, tmp_path):
    kbg(indexed_vault, "backup", str(tmp_path / "snap.db"))
    with sqlite3.connect(tmp_path / "snap.db") as db:
        db.execute("INSERT INTO migrations (name, applied_at) VALUES ('m999_from_the_future', '2030-01-01')")
    result = run_kbg("restore", str(tmp_path / "snap.db"), "--vault", str(indexed_vault))
    assert result.returncode != 0 and "newer kbgraph" in result.stderr


@pytest.mark.parametrize("damage", [b"", b"garbage, not SQLite " * 500])
def test_a_damaged_index_is_replaced_by_the_backup(indexed_vault, tmp_path, damage):
    kbg(indexed_vault, "backup", str(tmp_path / "snap.db"))
    before = _export(indexed_vault)
    for leftover in indexed_vault.glob(".kbgraph/index.db*"):
        leftover.unlink()
    (indexed_vault / ".kbgraph" / "index.db").write_bytes(damage)
    kbg(indexed_vault, "restore", str(tmp_path / "snap.db"))
    assert _export(indexed_vault) == before
    kept = list(indexed_vault.glob(".kbgraph/index.db.damaged-*"))
    assert [p.read_bytes() for p in kept] == ([damage] if damage else [])  # set aside, never deleted


def test_a_backup_taken_while_a_writer_commits_is_one_consistent_snapshot(indexed, tmp_path):
    """Another thread writes relations in many small transactions while backups are taken: each backup is
    sound and holds a whole number of those transactions (each writes a pair of meta keys together)."""
    from kbgraph.backup import backup_index
    from kbgraph.config import load_config
    from kbgraph.store import open_store
    from kbgraph.workspace import Workspace

    root, store = indexed
    stop = threading.Event()

    def write() -> None:
        writer = open_store(root)
        n = 0
        while not stop.is_set():
            n += 1
            with writer.transaction():
                writer.set_meta("backup_test_a", str(n))
                writer.set_meta("backup_test_b", str(n))
        writer.close()

    thread = threading.Thread(target=write)
    thread.start()
    try:
        ws = Workspace(root, load_config(root), store)
        paths = [backup_index(ws, tmp_path / f"b{i}.db").path for i in range(5)]
    finally:
        stop.set()
        thread.join()
    for path in paths:
        with sqlite3.connect(path) as db:
            meta = dict(db.execute("SELECT key, value FROM meta WHERE key LIKE 'backup_test_%'"))
        assert meta.get("backup_test_a") == meta.get("backup_test_b")


def test_a_postgresql_index_says_to_use_the_servers_tools(indexed_vault):
    result = run_kbg("backup", "/tmp/x.db", "--vault", str(indexed_vault),
                     env={"KBG_DB": "postgresql://nobody@127.0.0.1:1/none"})
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert json.dumps(result.stderr)  # one clear line, whichever error comes first (unreachable here)


def test_restoring_a_folder_names_the_newest_backup_in_it(indexed_vault, tmp_path):
    """A backup to a folder puts a dated file in it; restoring the folder said 'no backup file at FOLDER'."""
    older = tmp_path / "kbgraph-vault-20260101-090000.db"
    older.write_bytes(b"")
    newest = kbg(indexed_vault, "backup", str(tmp_path))["path"]
    result = run_kbg("restore", str(tmp_path), "--vault", str(indexed_vault))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip() == (f"error: {tmp_path} is a folder, not a backup file; "
                                     f"give one of its backups (the newest: {newest})")
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run_kbg("restore", str(empty), "--vault", str(indexed_vault))
    assert result.stderr.strip() == f"error: {empty} is a folder, not a backup file; give the backup file itself"


def test_restoring_another_vaults_backup_says_its_notes_are_not_here(indexed_vault, tmp_path):
    """It restored without a word, though every note the backup indexed was missing from this vault."""
    kbg(indexed_vault, "backup", str(tmp_path / "snap.db"))
    other = tmp_path / "other"
    (other / "notes").mkdir(parents=True)
    (other / "notes" / "only.md").write_text("# Only\n\nA note of another vault.\n")
    kbg(other, "index")
    restored = kbg(other, "restore", str(tmp_path / "snap.db"))
    assert restored["notes_missing"] == restored["documents"] > 0
    human = run_kbg("restore", str(tmp_path / "snap.db"), "--vault", str(other))
    assert human.returncode == 0 and "(a backup of another vault?)" in human.stdout

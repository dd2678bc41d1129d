"""Fault injection at named points of every write path (issue 18): a command that dies there, run again,
ends in the very state an uncrashed run ends in: the same user files byte for byte, the same index rows.

The crash is in process: the named function is replaced by one that raises Crash, a BaseException, so
none of our `except Exception` handlers can swallow it; every `with` still unwinds (a transaction rolls
back, a lock is let go), which is what the OS and SQLite's journal do for a killed process. Real kills,
with no unwinding at all, are tests/test_redoable_writes.py (a few points) and bench/reliability.py
(100 random kill -9 trials).

What the points cover, in each write's order of steps:
- relate: nothing written / page written, row not / page and row written, the page not re-read
- unrelate: page edited, row not ended / row ended, the page not re-read
- merge: the merge rows written, its page edits and re-index not
- unmerge: the merge taken back, nothing re-indexed / re-indexed, relations not given back / given back, page
  lines not restated / a line restated, its page not re-read / every step done, not marked finished
- fact add, loop add: page line written, row not / both written, the page not re-read
- note (quick capture): its fact stored, its loop not
- link: the mention wrapped, the note not re-read
- accept (a suggestion whose target is new): the target created, no relation / the relation, no re-read
  (run again, it also accepts the re-scan's restatement of the suggestion, which the pending list hides)
- import: the index refreshed, nothing imported / pages written, rows not / rows written, nothing re-read
- index: some documents written, entities and mentions not / entities written, mentions not
- migration: an older index upgraded part way (one migration applied, the next not)
"""

from __future__ import annotations

import importlib
import sqlite3
import tempfile
from pathlib import Path

import pytest

from kbgraph.store.sqlite import migrations
from kbgraph.store.sqlite.store import SqliteStore

from ..conftest import SAMPLE_VAULT, copy_indexed, kbg, run_kbg, tree_digest
from ..old_indexes import write_pre_m015_index


class Crash(BaseException):
    """The process dying at a named point."""


def crash_at(monkeypatch, point: str, call: int = 1) -> None:
    """Make `module:attribute` (or `module:Class.method`) die on its call-th call, the earlier ones real."""
    module_name, attribute = point.split(":")
    owner = importlib.import_module(module_name)
    *path, name = attribute.split(".")
    for part in path:
        owner = getattr(owner, part)
    real = getattr(owner, name)
    calls = [0]

    def dying(*args, **kwargs):
        calls[0] += 1
        if calls[0] >= call:
            raise Crash(point)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, dying)


# Columns that hold the moment a row was written: a rerun writes them later, by design.
_MOMENTS = ("_at", "mtime", "indexed", "created", "updated", "applied", "seen", "checked", "time")
# Derived tables whose bytes depend on how the writes were batched, not on what they hold: the FTS
# shadow tables and vectors (rebuilt from `chunks`, which is compared) and the run counter.
_DERIVED = ("_fts", "vector", "vec_")


# meta keys that count writes so that caches know to refresh: a rerun is one write more, by design.
_COUNTERS = ("generation", "run", "last")


def index_rows(vault: Path) -> dict[str, list[tuple]]:
    """Every table's rows (sorted, moment columns left out), and the schema."""
    db = sqlite3.connect(f"file:{vault / '.kbgraph' / 'index.db'}?mode=ro", uri=True)
    try:
        out: dict[str, list[tuple]] = {"schema": sorted(db.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").fetchall())}
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            if any(mark in table for mark in _DERIVED) or table.startswith("sqlite_"):
                continue
            columns = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
            kept = [c for c in columns if not any(m in c.lower() for m in _MOMENTS)]
            rows = [tuple(zip(kept, row)) for row in db.execute(f"SELECT {', '.join(kept)} FROM {table}")]
            if table == "meta":
                rows = [r for r in rows if not any(m in r[0][1] for m in _MOMENTS + _COUNTERS)]
            out[table] = sorted(rows, key=repr)
        return out
    finally:
        db.close()


def state(vault: Path) -> tuple[dict[str, str], dict[str, list[tuple]]]:
    return tree_digest(vault), index_rows(vault)


_CLEAN: dict[tuple, tuple[dict[str, str], dict[str, list[tuple]]]] = {}


def clean_state(source: Path, *commands: tuple[str, ...]):
    """The state a copy of the indexed vault source ends in after the commands, uncrashed (worked out
    once per source and commands: the points of one command share it)."""
    key = (str(source), commands)
    if key not in _CLEAN:
        clean = copy_indexed(source, Path(tempfile.mkdtemp(dir=source.parent)) / "clean")
        for command in commands:
            run(clean, *command)
        _CLEAN[key] = state(clean)
    files, rows = _CLEAN[key]
    return dict(files), dict(rows)


def assert_same(crashed: Path, clean) -> None:
    """crashed's state is that of the vault clean, or is clean (a state from clean_state)."""
    (files, rows), (clean_files, clean_rows) = state(crashed), state(clean) if isinstance(clean, Path) else clean
    assert files == clean_files, {k for k in files.keys() | clean_files.keys() if files.get(k) != clean_files.get(k)}
    differ = {t for t in rows.keys() | clean_rows.keys() if rows.get(t) != clean_rows.get(t)}
    assert not differ, "\n".join(f"{t}: crashed has {sorted(set(rows.get(t, [])) - set(clean_rows.get(t, [])))}, "
                                  f"clean has {sorted(set(clean_rows.get(t, [])) - set(rows.get(t, [])))}"
                                  for t in sorted(differ))


def run(vault: Path, *args: str) -> None:
    result = run_kbg(*args, "--vault", str(vault), "--json")
    assert result.returncode == 0, (args, result.stdout, result.stderr)


def crashed_then_rerun(monkeypatch, vault: Path, point: str, args: tuple[str, ...], call: int = 1) -> None:
    crash_at(monkeypatch, point, call)
    with pytest.raises(Crash):
        run_kbg(*args, "--vault", str(vault), "--json")
    monkeypatch.undo()
    run(vault, *args)


RELATE = ("entity", "relate", "Sam Li", "--type", "mentors", "--target", "Chen Wei", "--reason", "pairing")
UNRELATE = ("entity", "unrelate", "Project Beacon", "--type", "depends-on", "--target", "Kafka")
MERGE = ("entity", "merge", "Ben Okafor", "Ana Lima")
FACT = ("fact", "add", "Sam Li", "sailing", "--kind", "interest")
LOOP = ("loop", "add", "Sam Li", "send the schema doc", "--due", "2026-09-01")
NOTE = ("note", "person: Sam Li; int: sailing; loop: send the schema doc")

# point -> (where it dies, the command, which call of it dies, how many uncrashed runs the end state equals).
# A relate that died after its row was written has asserted the relation once; run again, it asserts it
# a second time, and `strength` counts assertions (docs/json.md): two clean runs, no other difference.
WRITES = {
    "relate: nothing written yet": ("kbgraph.relations.edits:edit_page", RELATE, 1, 1),
    "relate: page written, row not": ("kbgraph.store.sqlite.store:SqliteStore.upsert_relation", RELATE, 1, 1),
    "relate: page and row written, page not re-read": ("kbgraph.workspace:DefaultIndex.reread", RELATE, 1, 2),
    "unrelate: page edited, row not ended": ("kbgraph.store.sqlite.store:SqliteStore.end_relation", UNRELATE, 1, 1),
    "unrelate: row ended, page not re-read": ("kbgraph.workspace:DefaultIndex.reread", UNRELATE, 1, 1),
    "merge: rows written, pages and re-index not": ("kbgraph.curation.merging:_remove_self_lines", MERGE, 1, 1),
    "merge: pages edited, not re-indexed": ("kbgraph.ingest.pipeline:index_vault", MERGE, 1, 1),
    "fact add: page written, row not": ("kbgraph.store.sqlite.store:SqliteStore.add_fact", FACT, 1, 1),
    "fact add: page and row written, page not re-read": ("kbgraph.context.facts:reread", FACT, 1, 1),
    "loop add: page written, row not": ("kbgraph.store.sqlite.store:SqliteStore.add_loop", LOOP, 1, 1),
    "loop add: page and row written, page not re-read": ("kbgraph.context.loops:reread", LOOP, 1, 1),
    "note: fact stored, loop not": ("kbgraph.context.loops:add_loop", NOTE, 1, 1),
}


@pytest.fixture(scope="module")
def indexed_once(tmp_path_factory) -> Path:
    """The sample vault indexed once for this module; each case works on copies."""
    root = tmp_path_factory.mktemp("faults") / "vault"
    import shutil

    shutil.copytree(SAMPLE_VAULT, root, ignore=shutil.ignore_patterns(".kbgraph"))
    run(root, "index")
    return root


@pytest.mark.parametrize("point", list(WRITES))
def test_a_write_crashed_at_a_named_point_then_run_again_ends_as_an_uncrashed_run(point, indexed_once, tmp_path,
                                                                                   monkeypatch):
    where, args, call, clean_runs = WRITES[point]
    clean = clean_state(indexed_once, *[args] * clean_runs)
    crashed = copy_indexed(indexed_once, tmp_path / "crashed")
    crashed_then_rerun(monkeypatch, crashed, where, args, call)
    assert_same(crashed, clean)


LINK = ("entity", "link", "Ana Lima", "notes/engineering-principles.md")


def test_a_link_killed_after_its_page_edit_then_run_again_ends_as_an_uncrashed_run(indexed_once, tmp_path,
                                                                                   monkeypatch):
    """Killed after wrapping the mention, before the note is re-read: the index still lists the mention
    as unlinked at its old offset, where the text now starts with [[, and the rerun refuses."""
    clean = clean_state(indexed_once, LINK)
    crashed = copy_indexed(indexed_once, tmp_path / "crashed")
    crashed_then_rerun(monkeypatch, crashed, "kbgraph.workspace:DefaultIndex.reread", LINK)
    assert_same(crashed, clean)


ACCEPT_POINTS = {
    "accept: suggestion taken, its new target not created": ("kbgraph.workspace:DefaultIndex.refresh", 1),
    "accept: new target created, no relation": ("kbgraph.relations.edits:relate_entities", 1),
    "accept: relation written, its page not re-read": ("kbgraph.workspace:DefaultIndex.reread", 1),
}


@pytest.fixture(scope="module")
def suggesting(indexed_once, tmp_path_factory) -> tuple[Path, str]:
    """A vault with a pending suggestion whose target is new (Project Atlas uses ClickHouse), and its id."""
    vault = copy_indexed(indexed_once, tmp_path_factory.mktemp("suggesting") / "vault")
    (vault / "notes/stack.md").write_text("# Stack\n\nProject Atlas uses ClickHouse for its event log.\n")
    run(vault, "index")
    found = {(s["source"], s["type"], s["target"]): s for s in kbg(vault, "entity", "suggest-relations")["pending"]}
    return vault, str(found[("Project Atlas", "uses", "ClickHouse")]["id"])


@pytest.mark.parametrize("point", list(ACCEPT_POINTS))
def test_an_accept_crashed_at_a_named_point_then_run_again_ends_as_an_uncrashed_accept(point, suggesting, tmp_path,
                                                                                       monkeypatch):
    where, call = ACCEPT_POINTS[point]
    vault, number = suggesting
    clean = clean_state(vault, ("entity", "accept", number))
    crashed = copy_indexed(vault, tmp_path / "crashed")
    crashed_then_rerun(monkeypatch, crashed, where, ("entity", "accept", number), call)
    assert_same(crashed, clean)


IMPORT_POINTS = {
    "import: index refreshed, nothing imported": ("kbgraph.portable:_write_page_lines", 1),
    "import: pages written, relation rows not": ("kbgraph.store.sqlite.store:SqliteStore.restore_relation", 1),
    "import: rows written, pages not re-read": ("kbgraph.workspace:DefaultIndex.reread", 1),
}


@pytest.fixture(scope="module")
def exported(indexed_once, tmp_path_factory) -> Path:
    """An export holding what only the index knows: a user's relation, one to a new entity, a merge."""
    source = copy_indexed(indexed_once, tmp_path_factory.mktemp("exporting") / "vault")
    run(source, *RELATE)
    run(source, "entity", "relate", "Project Atlas", "--type", "uses", "--target", "ClickHouse",
        "--create", "technology")
    run(source, *MERGE)
    target = source.parent / "export.jsonl"
    run(source, "export", "--output", str(target))
    return target


@pytest.mark.parametrize("point", list(IMPORT_POINTS))
def test_an_import_crashed_at_a_named_point_then_run_again_ends_as_an_uncrashed_import(point, indexed_once, exported,
                                                                                       tmp_path, monkeypatch):
    where, call = IMPORT_POINTS[point]
    clean = clean_state(indexed_once, ("import", str(exported)))
    crashed = copy_indexed(indexed_once, tmp_path / "crashed")
    crashed_then_rerun(monkeypatch, crashed, where, ("import", str(exported)), call)
    assert_same(crashed, clean)


INDEX_POINTS = {
    "index: some documents written, entities and mentions not": ("kbgraph.ingest.pipeline:_write_batch", 2),
    "index: documents written, entities not": ("kbgraph.ingest.pipeline:entities_stage", 1),
    "index: entities written, mentions not": ("kbgraph.ingest.pipeline:mentions_stage", 1),
}


@pytest.mark.parametrize("point", list(INDEX_POINTS))
def test_an_index_crashed_at_a_named_point_then_run_again_ends_as_an_uncrashed_index(point, tmp_path, monkeypatch):
    import shutil

    where, call = INDEX_POINTS[point]
    clean, crashed = tmp_path / "clean", tmp_path / "crashed"
    for root in (clean, crashed):
        shutil.copytree(SAMPLE_VAULT, root, ignore=shutil.ignore_patterns(".kbgraph"))
    run(clean, "index")
    monkeypatch.setenv("KBG_INDEX_WORKERS", "1")  # one process, so the crash is in this one
    monkeypatch.setattr("kbgraph.ingest.pipeline.BATCH_SIZE", 10)  # batches of 10 notes: the 2nd dies
    crashed_then_rerun(monkeypatch, crashed, where, ("index",), call)
    assert_same(crashed, clean)


def test_a_migration_crashed_part_way_then_opened_again_ends_as_an_uncrashed_upgrade(tmp_path, monkeypatch):
    """An index from before m015 (governance and history), upgraded: killed after m015 is applied and
    before m016, then opened again."""
    old_path = tmp_path / "old" / ".kbgraph" / "index.db"
    old_path.parent.mkdir(parents=True)
    before = write_pre_m015_index(str(old_path), monkeypatch)
    import shutil

    clean, crashed = tmp_path / "clean", tmp_path / "crashed"
    shutil.copytree(old_path.parent.parent, clean)
    shutil.copytree(old_path.parent.parent, crashed)
    SqliteStore.open(str(clean / ".kbgraph" / "index.db")).close()
    def dies(db):  # m016, the migration after m015
        raise Crash(migrations.MIGRATIONS[before + 1].__name__)

    monkeypatch.setattr(migrations, "MIGRATIONS",
                        [*migrations.MIGRATIONS[:before + 1], dies, *migrations.MIGRATIONS[before + 2:]])
    with pytest.raises(Crash):
        SqliteStore.open(str(crashed / ".kbgraph" / "index.db"))
    monkeypatch.undo()
    SqliteStore.open(str(crashed / ".kbgraph" / "index.db")).close()
    assert_same(crashed, clean)


UNMERGE = ("entity", "unmerge", "Ben Okafor")
UNMERGE_POINTS = {
    "unmerge: merge taken back, entity set not rebuilt": ("kbgraph.workspace:DefaultIndex.refresh", 1),
    "unmerge: entity set rebuilt, relations not given back": ("kbgraph.curation.merging:_give_relations_back", 1),
    "unmerge: relations given back, page lines not restated": ("kbgraph.curation.merging:_restate_on_pages", 1),
    "unmerge: page line restated, the page not re-read": ("kbgraph.workspace:DefaultIndex.reread", 1),
    "unmerge: every step done, not yet marked finished": ("kbgraph.curation.merging:_save_pending", 3),
}


@pytest.fixture(scope="module")
def merged(indexed_once, tmp_path_factory) -> Path:
    """Ben Okafor merged into Ana Lima, after Ben's page said he mentors Ana (a line the merge takes out of
    the page: it would relate Ana to herself) and the index alone held that Ben leads Project Atlas."""
    vault = copy_indexed(indexed_once, tmp_path_factory.mktemp("merged") / "vault")
    run(vault, "entity", "relate", "Ben Okafor", "--type", "mentors", "--target", "Ana Lima")
    run(vault, "entity", "relate", "Dana Kowalski", "--type", "collaborates-with", "--target", "Ben Okafor")
    run(vault, *MERGE)
    return vault


@pytest.mark.parametrize("point", list(UNMERGE_POINTS))
def test_an_unmerge_crashed_at_a_named_point_then_run_again_ends_as_an_uncrashed_unmerge(point, merged, tmp_path,
                                                                                         monkeypatch):
    where, call = UNMERGE_POINTS[point]
    clean = clean_state(merged, UNMERGE)
    crashed = copy_indexed(merged, tmp_path / "crashed")
    crashed_then_rerun(monkeypatch, crashed, where, UNMERGE, call)
    assert_same(crashed, clean)

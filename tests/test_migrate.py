"""`kbg migrate-to`: a vault's index moved into PostgreSQL losslessly, all or nothing.

Runs where KBG_TEST_PG names a PostgreSQL database (`.ci/run` sets it); skipped elsewhere."""

from __future__ import annotations

import os
import uuid

import pytest

from kbgraph.store import open_store

from .conftest import kbg, run_kbg

pytestmark = pytest.mark.postgres
URL = os.environ.get("KBG_TEST_PG")


@pytest.fixture
def empty_db():
    """The URL of a new, empty database, dropped afterwards."""
    if not URL:
        pytest.skip("set KBG_TEST_PG to a PostgreSQL URL to run the migration tests")
    import psycopg

    name = f"kbg_migrate_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(URL, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    yield URL.rsplit("/", 1)[0] + "/" + name  # KBG_TEST_PG is a URL: postgresql://user@host:port/db
    with psycopg.connect(URL, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _asserted(vault):
    """A vault with what only the index holds: a user's relation, a fact, an answered question, a token."""
    kbg(vault, "entity", "relate", "Sam Li", "--type", "mentors", "--target", "Chen Wei")
    kbg(vault, "fact", "add", "Sam Li", "sailing", "--kind", "interest")
    return kbg(vault, "token", "create", "bob")["token"]


def _export(vault, *db):
    data = kbg(vault, "export", *db)
    # What an index decides by itself about the notes (the sample's automatic link of 'Arjoon Mehta', its
    # questions) each index logs at its own time: the target's index makes them again.
    auto = {d["surface"] for d in data["decisions"] if d["outcome"] == "auto-linked"}
    for d in data["decisions"]:
        d.pop("created_at")
        if d["decided_by"] == "kbgraph":
            d.pop("decided_at")
    for merge in data["merges"]:
        if merge["from"]["name"] in auto:
            merge.pop("created_at")
    return {k: v for k, v in data.items() if k != "exported_at"}


def test_everything_moves_and_reads_the_same(indexed_vault, empty_db):
    token = _asserted(indexed_vault)
    before = _export(indexed_vault)
    documents = kbg(indexed_vault, "index", "status")["documents"]
    result = kbg(indexed_vault, "migrate-to", empty_db)
    assert result["verified"] and result["documents"] == documents and result["tokens"] == 1 and result["vectors"] > 0
    after = _export(indexed_vault, "--db", empty_db)
    assert after == before
    relations = kbg(indexed_vault, "entity", "relations", "Sam Li", "--type", "mentors", "--db", empty_db)
    assert [r["target"] for r in relations["relations"]] == ["Chen Wei"]
    from kbgraph.api.tokens import token_access

    store = open_store(indexed_vault, db=empty_db)
    try:
        assert token_access(store, token).principal == "bob"  # the token works against the team store
        assert store.embedding_model() is not None
    finally:
        store.close()


def test_a_database_that_holds_an_index_is_refused_and_left_alone(indexed_vault, empty_db):
    documents = kbg(indexed_vault, "migrate-to", empty_db)["documents"]
    again = run_kbg("migrate-to", empty_db, "--vault", str(indexed_vault), "--json")
    assert again.returncode != 0 and f"already holds an index of {documents} notes" in again.stderr
    assert kbg(indexed_vault, "index", "--db", empty_db)["errors"] == 0


def test_an_interrupted_migration_leaves_the_database_empty_and_a_rerun_completes(indexed_vault, empty_db,
                                                                                   monkeypatch):
    from kbgraph import migrate
    from kbgraph.workspace import Workspace

    _asserted(indexed_vault)

    def crash(*args, **kwargs):
        raise KeyboardInterrupt  # Ctrl-C halfway: the tokens and vectors are in, the import is not

    monkeypatch.setattr(migrate, "import_data", crash)
    with Workspace.open(str(indexed_vault)) as ws, pytest.raises(KeyboardInterrupt):
        migrate.migrate_to(ws, empty_db)
    store = open_store(indexed_vault, db=empty_db)
    try:
        assert store.stats()["documents"] == 0 and not store.token_rows()
    finally:
        store.close()
    monkeypatch.undo()
    result = kbg(indexed_vault, "migrate-to", empty_db)
    assert result["verified"] and result["tokens"] == 1
    assert _export(indexed_vault, "--db", empty_db) == _export(indexed_vault)


def test_a_url_of_another_kind_or_an_unreachable_server_is_one_line(indexed_vault):
    for url, words in (("mysql://x/y", "must start with postgresql://"),
                       ("postgresql://kbg:hunter2@127.0.0.1:1/none", "cannot connect to postgresql://kbg:***@")):
        done = run_kbg("migrate-to", url, "--vault", str(indexed_vault))
        assert done.returncode != 0 and words in done.stderr and "hunter2" not in done.stderr
        assert "Traceback" not in done.stderr


def _tables(url):
    import psycopg

    with psycopg.connect(url) as conn:
        return {r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")}


def test_an_answered_question_and_an_unmerge_move(indexed_vault, empty_db):
    # The target's own index asked 'Dan' with features of its own, and merged 'Arjoon Mehta' again: the
    # check refused both copies ("differs in decisions", "entities, merges, decisions").
    kbg(indexed_vault, "resolve", "confirm", "2")
    kbg(indexed_vault, "entity", "unmerge", "Arjoon Mehta")
    before = _export(indexed_vault)
    assert kbg(indexed_vault, "migrate-to", empty_db)["verified"]
    assert _export(indexed_vault, "--db", empty_db) == before


def test_a_failed_check_leaves_the_database_as_it_was(indexed_vault, empty_db, monkeypatch):
    import psycopg

    from kbgraph import migrate
    from kbgraph.errors import StoreError
    from kbgraph.workspace import Workspace

    with psycopg.connect(empty_db, autocommit=True) as conn:  # the user's own table stays
        conn.execute("CREATE TABLE notes_of_mine (id int)")
    tables = _tables(empty_db)
    real = migrate.export_data
    calls = []

    def differs(store, symmetric=frozenset()):
        calls.append(store)
        data = real(store, symmetric)
        return {**data, "facts": [{"made": "up"}]} if len(calls) == 2 else data

    monkeypatch.setattr(migrate, "export_data", differs)
    with Workspace.open(str(indexed_vault)) as ws, pytest.raises(StoreError, match="differs from the index in facts"):
        migrate.migrate_to(ws, empty_db)
    assert _tables(empty_db) == tables == {"notes_of_mine"}
    monkeypatch.undo()
    assert kbg(indexed_vault, "migrate-to", empty_db)["verified"]
    assert "notes_of_mine" in _tables(empty_db)


def test_facts_and_loops_move_whatever_order_they_were_added_in(indexed_vault, empty_db):
    # The copy numbers facts and loops as it reads them (its pages' lines first, then the rest), so a fact about
    # an entity without a page added before one on a page, or two loops due the same day, came out in another
    # order or with other ids, and the check refused the copy ("differs in facts", "differs in loops").
    kbg(indexed_vault, "fact", "add", "PostgreSQL", "is the default database", "--kind", "note")
    kbg(indexed_vault, "fact", "add", "Sam Li", "sailing", "--kind", "interest")
    for name in ("Sam Li", "Platform", "Project Atlas"):
        kbg(indexed_vault, "loop", "add", name, "ask about the rollout", "--due", "2026-01-15")
    from kbgraph.migrate import without_run_times

    before = _export(indexed_vault)
    assert kbg(indexed_vault, "migrate-to", empty_db)["verified"]
    after = _export(indexed_vault, "--db", empty_db)
    for data in (before, after):
        for fact in data["facts"]:
            fact.pop("id")
        data["facts"].sort(key=repr)
        data["loops"] = sorted(without_run_times(data["loops"]), key=repr)  # a loop's updated_at is the run's
    assert after == before

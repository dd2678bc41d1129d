"""The store contract suite: written against kbgraph.store.base.Store only, run on every backend.

`store` is an empty store of each backend. SQLite runs everywhere; PostgreSQL runs where
KBG_TEST_PG names a database and the backend exists (it is the next backend to write).
"""

from __future__ import annotations

import importlib.util
import os

import pytest

from kbgraph.store.base import Store

BACKENDS = ["sqlite", "postgres"]


def open_backend(name: str) -> Store:
    if name == "sqlite":
        from kbgraph.store.sqlite.store import SqliteStore

        return SqliteStore.open(":memory:")
    if not os.environ.get("KBG_TEST_PG"):
        pytest.skip("set KBG_TEST_PG to run the contract on PostgreSQL")
    if importlib.util.find_spec("kbgraph.store.postgres") is None:
        pytest.skip("no PostgreSQL backend yet: kbgraph.store.postgres is the next backend to write")
    from kbgraph.store import postgres  # type: ignore[attr-defined]

    return postgres.open_store(os.environ["KBG_TEST_PG"], fresh=True)


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    return request.param


@pytest.fixture
def store(backend):
    opened = open_backend(backend)
    yield opened
    opened.close()

"""The store contract suite: written against kbgraph.store.base.Store only, run on every backend.

`store` is an empty store of each backend. SQLite runs everywhere; PostgreSQL runs where
KBG_TEST_PG names a database (`.ci/run` sets it).
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
    if importlib.util.find_spec("psycopg") is None:
        pytest.skip("the PostgreSQL backend needs psycopg: pip install 'kbgraph[postgres]'")
    from kbgraph.store import postgres

    return postgres.open_store(os.environ["KBG_TEST_PG"], fresh=True)


# `pytest -m postgres` runs the PostgreSQL half alone (pyproject.toml declares the marker).
@pytest.fixture(params=[pytest.param(name, marks=pytest.mark.postgres) if name == "postgres" else name
                        for name in BACKENDS])
def backend(request) -> str:
    return request.param


@pytest.fixture
def store(backend):
    opened = open_backend(backend)
    yield opened
    opened.close()

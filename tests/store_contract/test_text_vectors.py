"""Chunk vectors on every backend: stored once per text hash, found missing, replaced, dropped when no
chunk uses them, emptied for another model, and read back as a matrix of only the rows a reader may
see and the filter passes (scoring never sees another row, so a top-k is never taken before the filter)."""

from __future__ import annotations

import numpy as np

from kbgraph.access import LOCAL, Access
from kbgraph.store.base import DocFilter

from .text_builders import body, note


def _vector(*values: float) -> bytes:
    return np.array(values, dtype=np.float32).tobytes()


def _chunks(store, doc_id):
    return [c["id"] for c in store.document_chunks(LOCAL, doc_id)]


def test_vectors_are_stored_by_text_hash_and_found_missing(store):
    a = note(store, "a.md", (("Intro",), "first"), (("Intro", "More"), "second"), title="Alpha")
    a1, a2 = _chunks(store, a)
    assert store.embedding_model() is None and not store.has_vectors()
    assert store.chunks_without_vectors(10) == [(a1, "Alpha", "Intro", "first"), (a2, "Alpha", "Intro > More", "second")]
    assert store.chunks_without_vectors(1) == [(a1, "Alpha", "Intro", "first")]
    assert store.count_chunks_without_vectors() == 2 and store.vector_counts() == (0, 2)
    with store.transaction():
        store.put_vectors([(a1, "h1", _vector(1, 0)), (a2, "h1", None)])  # the same text: one vector
    assert store.has_vectors() and store.vector_counts() == (2, 2) and store.count_chunks_without_vectors() == 0
    assert store.known_vector_hashes(["h1", "h2"]) == {"h1"} and store.known_vector_hashes([]) == set()
    with store.transaction():
        store.put_vectors([(a2, "h2", _vector(0, 1)), (a1, "h1", _vector(9, 9))])  # a known hash keeps its vector
    ids, docs, matrix = store.vector_matrix(LOCAL, DocFilter())
    assert ids.tolist() == [a1, a2] and docs.tolist() == [a, a] and matrix.tolist() == [[1, 0], [0, 1]]
    assert matrix.dtype == np.float32



def test_a_reader_counts_only_the_vectors_and_sections_it_may_read(store):
    """A reader told "N of M sections have no vectors yet" learns M and N of its own notes only."""
    note(store, "shared.md", body("open"), visibility="public")
    hidden = note(store, "hidden.md", body("secret"), (("More",), "more secret"), owner="ana", visibility="private")
    with store.transaction():
        store.put_vectors([(_chunks(store, hidden)[0], "h", _vector(1, 0))])
    ben = Access.of("ben")
    assert store.vector_counts() == (1, 3) and store.count_chunks_without_vectors() == 2 and store.has_vectors()
    assert store.vector_counts(ben) == (0, 1) and store.count_chunks_without_vectors(ben) == 1
    assert not store.has_vectors(ben) and store.has_vectors(Access.of("ana"))
    assert store.vector_counts(Access.of("ana")) == (1, 3)


def test_unused_vectors_go_and_another_model_empties_them_all(store):
    a = note(store, "a.md", body("first"))
    with store.transaction():
        store.put_vectors([(_chunks(store, a)[0], "old", _vector(1, 0))])
    note(store, "a.md", body("rewritten"), doc_id=a)  # its chunk, and the chunk's vector, go
    assert store.vector_counts() == (0, 1) and store.count_chunks_without_vectors() == 1
    with store.transaction():
        assert store.drop_unused_vectors() == 1
        assert store.drop_unused_vectors() == 0
    assert store.known_vector_hashes(["old"]) == set()
    with store.transaction():
        store.put_vectors([(_chunks(store, a)[0], "new", _vector(0, 1))])
        store.reset_vectors("model-b")
    assert store.embedding_model() == "model-b" and not store.has_vectors()
    assert store.known_vector_hashes(["new"]) == set() and store.vector_matrix(LOCAL, DocFilter())[0].tolist() == []


def test_the_matrix_holds_only_readable_rows_that_pass_the_filter(store):
    mine = note(store, "private/mine.md", body("one"), owner="ana")
    shared = note(store, "team/shared.md", body("two"), visibility="public", kind="meeting", tags=("ops",))
    other = note(store, "team/other.md", body("three"), visibility="public")
    with store.transaction():
        store.put_vectors([(_chunks(store, d)[0], f"h{d}", _vector(d, 1)) for d in (mine, shared, other)])
    ben = Access.of("ben", ["public"], "normal")
    assert store.vector_matrix(ben, DocFilter())[1].tolist() == [shared, other]
    assert store.vector_matrix(Access.of("ana", [], "normal"), DocFilter())[1].tolist() == [mine]
    for flt in (DocFilter(kinds=("meeting",)), DocFilter(tags=("ops",)), DocFilter(path_prefix="team/s*")):
        ids, docs, matrix = store.vector_matrix(LOCAL, flt)
        assert docs.tolist() == [shared] and matrix.tolist() == [[shared, 1]], flt
    assert store.vector_matrix(LOCAL, DocFilter())[1].tolist() == [mine, shared, other]
    with store.transaction():  # a change of vectors is seen by the next read, not hidden by a cache
        store.put_vectors([(_chunks(store, other)[0], "changed", _vector(7, 7))])
    assert store.vector_matrix(LOCAL, DocFilter())[2].tolist()[-1] == [7, 7]

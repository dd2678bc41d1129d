"""The document graph's storage on every backend: what the relate stage last saw of each document
(fingerprints) and what changed since, the keys links look up, stored relations between documents and
chunks, vector prints, and the folder reads that derive parents and siblings."""

from __future__ import annotations

import numpy as np

from kbgraph.access import LOCAL
from kbgraph.docgraph.edges import Edge

from .text_builders import body, note

KEYS = ("doc_id", "path", "title", "content_hash", "indexed_at", "date", "series", "text_hash", "simhash", "words")


def _fingerprint(doc: dict, **fields) -> dict:
    row = {"doc_id": doc["id"], "path": doc["path"], "title": doc["title"], "content_hash": doc["content_hash"],
           "indexed_at": doc["indexed_at"], "date": doc["date"], "series": None, "text_hash": None, "simhash": None,
           "words": 0}
    return {**row, **fields}


def test_fingerprints_say_what_changed_since_the_last_relate_run(store):
    a = note(store, "a.md", body("alpha"), date="2026-01-01")
    b = note(store, "b.md", body("beta"), date=None)
    changed, gone = store.docgraph_changes()
    assert [d["id"] for d in changed] == [a, b] and gone == [] and all(d["old"] is None for d in changed)
    rows = {d["id"]: _fingerprint(d, series="weekly", text_hash="t", simhash=-2**63 + 5, words=12) for d in changed}
    rows[b] = {**rows[b], "simhash": 2**63 - 1, "words": 3, "series": None, "text_hash": "t"}
    with store.transaction():
        store.save_fingerprints(list(rows.values()))
    assert store.docgraph_changes() == ([], [])  # a NULL date equals a NULL date
    assert [d["id"] for d in store.docgraph_changes(full=True)[0]] == [a, b]
    assert store.fingerprint_rows([a, b]) == rows and set(rows[a]) == set(KEYS)
    assert store.simhashes(10) == {a: -2**63 + 5} and store.simhashes(1) == {a: -2**63 + 5, b: 2**63 - 1}
    assert store.series_members(["weekly", "none"]) == {"weekly": [(a, "a.md", "2026-01-01")]}
    assert {k: sorted(v) for k, v in store.text_hash_members(["t"]).items()} == {"t": [a, b]}

    note(store, "b.md", body("beta"), date="2026-02-02", doc_id=b)  # a date set where there was none
    with store.transaction():
        store.delete_document(a)
    changed, gone = store.docgraph_changes()
    assert [(d["id"], d["old"]["simhash"]) for d in changed] == [(b, 2**63 - 1)]
    assert gone == [rows[a]]  # a fingerprint outlives its document, to say what went
    with store.transaction():
        store.save_fingerprints([{**rows[b], "date": "2026-02-02", "indexed_at": changed[0]["indexed_at"],
                                  "content_hash": changed[0]["content_hash"]}])  # replaces the row
        store.drop_fingerprints([a])
    assert store.docgraph_changes() == ([], []) and store.fingerprint_rows([a]) == {}


def test_what_the_relate_stage_reads(store):
    a = note(store, "a.md", (("Café",), "naïve text"), (("Café", "Two"), "more"), links=(("wikilink", "b"),
                                                                                           ("markdown", "c.md")))
    b = note(store, "b.md", body("beta"), title="Beta")
    assert sorted(store.docgraph_names()) == [(a, "a.md", "a"), (b, "b.md", "Beta")]
    assert store.doc_sizes([a, b]) == {a: len("naïve text") + len("more") + 2, b: len("beta") + 1}
    chunks = store.docgraph_chunks([a, b])
    assert [c["text"] for c in chunks[a]] == ["naïve text".encode(), b"more"]  # UTF-8 bytes
    assert {k: chunks[a][1][k] for k in ("doc_id", "heading", "start", "end")} == {
        "doc_id": a, "heading": "Café > Two", "start": 11, "end": 15}
    assert chunks[a][0]["id"] == store.document_chunks(LOCAL, a)[0]["id"]
    assert store.docgraph_links([a, b]) == {a: [("wikilink", "b", 0), ("markdown", "c.md", 10)]}
    with store.transaction():
        store.replace_link_keys({a: {"b", "c.md"}, b: {"a"}})
        store.replace_link_keys({a: {"b"}})  # replaces a's keys only
    assert store.docs_linking(["b", "c.md"]) == {a} and store.docs_linking(["a"]) == {b}
    assert store.docs_linking([]) == set()


def test_stored_relations_between_documents_and_chunks(store):
    a = note(store, "a.md", body("alpha one"), body("alpha two"))
    b = note(store, "b.md", body("beta"), title="Beta")
    a1, a2 = (c["id"] for c in store.document_chunks(LOCAL, a))
    (b1,) = (c["id"] for c in store.document_chunks(LOCAL, b))
    with store.transaction():
        store.add_doc_relations([
            Edge(a, b, "references", 1.0, "link"), Edge(a, b, "references", 0.8, "similar meaning (cosine 0.800)"),
            Edge(a, a, "continues", 1.0, "split", source_chunk=a2, target_chunk=a1),
            Edge(b, a, "duplicate-of", 0.9, "text", source_chunk=b1, target_chunk=a1)])
    assert store.doc_relation_sources([b], "references") == {a} and store.doc_relation_sources([a], "x") == set()
    assert store.chunk_continuations([a, b]) == [(a2, a1)]
    out = store.stored_doc_relations(a)
    assert sorted((r["direction"], r["type"], r["doc_id"], r["line"], r["other_line"]) for r in out) == [
        ("in", "duplicate-of", b, 1, 1), ("out", "continues", a, 3, 1), ("out", "references", b, None, None),
        ("out", "references", b, None, None)]
    assert {r["path"] for r in store.stored_doc_relations(a, "duplicate-of")} == {"b.md"}
    assert {r["title"] for r in store.stored_doc_relations(a, "duplicate-of")} == {"Beta"}
    with store.transaction():
        store.delete_doc_relations([a], "references")  # by link or name only: by meaning stays
        store.delete_doc_relations([a], "continues", chunk_level=False)  # no document-level row: nothing
    assert [r["evidence"] for r in store.stored_doc_relations(a, "references")] == ["similar meaning (cosine 0.800)"]
    assert store.chunk_continuations([a]) == [(a2, a1)]
    with store.transaction():
        store.delete_doc_relations([a], "continues", chunk_level=True)
        store.delete_similar_references([b])
    assert store.stored_doc_relations(a, "references") == [] and store.chunk_continuations([a]) == []
    with store.transaction():
        store.add_doc_relations([Edge(a, b, "references", 0.7, "similar meaning (cosine 0.700)")])
        store.delete_similar_references(None)
    assert store.doc_relation_sources([b], "references") == set()


def test_vector_prints_change_with_a_documents_vectors(store):
    a = note(store, "a.md", body("one"), body("two"))
    b = note(store, "b.md", body("three"))
    chunk = {d: [c["id"] for c in store.document_chunks(LOCAL, d)] for d in (a, b)}
    vector = np.ones(2, dtype=np.float32).tobytes()
    with store.transaction():
        store.put_vectors([(chunk[a][0], "h1", vector), (chunk[a][1], "h2", vector)])
    prints = store.vector_prints()
    assert set(prints) == {a}  # documents with vectors only
    with store.transaction():
        store.put_vectors([(chunk[a][1], "h3", vector)])
    assert store.vector_prints()[a] != prints[a]
    with store.transaction():
        store.save_vector_prints({a: "p1", b: "p2"}, gone=[])
        store.save_vector_prints({a: "p3"}, gone=[b])
    assert store.saved_vector_prints() == {a: "p3"}
    with store.transaction():
        store.save_vector_prints({b: "p4"}, gone=[], replace_all=True)
    assert store.saved_vector_prints() == {b: "p4"}


def test_folders_are_ranges_of_paths(store):
    paths = ["root.md", "Z.md", "notes/a.md", "notes/b.md", "notes/deep/c.md", "notes-x/d.md", "notes0/e.md",
             "notes/Zed/f.md", "other/g.md", "notes/é.md"]
    ids = {p: note(store, p, body("x")) for p in paths}
    assert store.docs_in_folder("") == [(ids[p], p, p.rsplit("/", 1)[-1][:-3]) for p in ("Z.md", "root.md")]
    assert [p for _, p, _ in store.docs_in_folder("notes")] == ["notes/a.md", "notes/b.md", "notes/é.md"]
    assert store.docs_in_folder("notes/deep") == [(ids["notes/deep/c.md"], "notes/deep/c.md", "c")]
    assert store.subfolders("") == ["notes", "notes-x", "notes0", "other"]
    assert store.subfolders("notes") == ["notes/Zed", "notes/deep"]
    assert store.subfolders("notes/deep") == [] and store.docs_in_folder("nowhere") == []
    assert store.docs_at_paths(["notes/a.md", "missing.md"]) == {"notes/a.md": (ids["notes/a.md"], "a")}

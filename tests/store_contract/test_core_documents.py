"""Documents on every backend: written, rewritten, touched, deleted, listed through filters, and the
bookkeeping around them (meta, problems, stats, page relation lines, claims, mention scans)."""

from __future__ import annotations

from dataclasses import replace

from kbgraph.access import LOCAL, Access
from kbgraph.model import EntityDecl, Link, Mention, PageRelationLine, Problem
from kbgraph.store.base import DocFilter

from .core_builders import parsed, sync, write


def _paths(store, flt: DocFilter, limit: int | None = None) -> list[str]:
    return [d["path"] for d in store.list_documents(LOCAL, flt, limit)]


def test_a_document_reads_back_as_written_and_a_rewrite_replaces_its_content(store):
    doc = parsed("notes/a.md", "first text", "second text", frontmatter={"status": "open", "n": 2},
                 tags=("x", "y", "x"), links=(Link("B", "bee", 3, 8, "wikilink"),))
    doc_id = write(store, doc)
    got = store.get_document(LOCAL, path="notes/a.md")
    assert (got["id"], got["title"], got["tags"], got["frontmatter"], got["content_hash"], got["size"],
            got["mtime"], got["sensitivity"]) == (doc_id, "Title", ["x", "y", "x"], {"status": "open", "n": 2},
                                                  doc.content_hash, doc.size, 2.5, "normal")
    assert store.get_document(LOCAL, doc_id=doc_id)["path"] == "notes/a.md"
    chunks = store.document_chunks(LOCAL, doc_id)
    assert [(c["ordinal"], c["heading"], c["start"], c["end"], c["text"]) for c in chunks] == [
        (0, "Notes", 0, 10, "first text"), (1, "Notes", 11, 22, "second text")]

    write(store, parsed("notes/a.md", "only text", title="Renamed", heading=("Top", "Sub")), doc_id)
    assert [(c["heading"], c["text"]) for c in store.document_chunks(LOCAL, doc_id)] == [("Top > Sub", "only text")]
    assert store.get_document(LOCAL, doc_id=doc_id)["title"] == "Renamed"
    assert store.stats()["links"] == 0  # the old links went with the old content
    assert _paths(store, DocFilter(tags=("x",))) == []


def test_states_touch_and_delete(store):
    doc_id = write(store, parsed("notes/a.md", "text"))
    state = store.doc_states()["notes/a.md"]
    assert (state.id, state.content_hash, state.mtime) == (doc_id, "hash-notes/a.md-5", 2.5)
    with store.transaction():
        store.touch_document(doc_id, 99, 7.25)
    assert (store.doc_states()["notes/a.md"].size, store.doc_states()["notes/a.md"].mtime) == (99, 7.25)
    with store.transaction():
        store.delete_document(doc_id)
    assert store.doc_states() == {}
    assert store.get_document(LOCAL, doc_id=doc_id) is None
    assert store.stats()["chunks"] == 0


def test_list_filters_kinds_paths_patterns_dates_and_tags_in_date_order(store):
    write(store, parsed("meetings/2026/standup.md", "t", kind="meeting", date="2026-02-01", tags=("team",)))
    write(store, parsed("meetings/retro.md", "t", kind="meeting", date="2026-01-10"))
    write(store, parsed("meetings-old/x.md", "t", date=None))
    write(store, parsed("notes/Idea.md", "t", date="2026-03-05", tags=("team", "idea")))
    assert _paths(store, DocFilter()) == ["notes/Idea.md", "meetings/2026/standup.md", "meetings/retro.md",
                                          "meetings-old/x.md"]  # newest first, undated last
    assert _paths(store, DocFilter(), limit=2) == ["notes/Idea.md", "meetings/2026/standup.md"]
    assert _paths(store, DocFilter(kinds=("meeting",))) == ["meetings/2026/standup.md", "meetings/retro.md"]
    assert _paths(store, DocFilter(path_prefix="meetings/")) == ["meetings/2026/standup.md", "meetings/retro.md"]
    assert _paths(store, DocFilter(path_prefix="meetings")) == ["meetings/2026/standup.md", "meetings/retro.md"]
    assert _paths(store, DocFilter(path_prefix="notes/Idea.md")) == ["notes/Idea.md"]
    assert _paths(store, DocFilter(path_prefix="meetings*/?.md")) == ["meetings-old/x.md"]
    assert _paths(store, DocFilter(path_prefix="*/[A-Z]*")) == ["notes/Idea.md"]  # a glob keeps case
    assert _paths(store, DocFilter(path_prefix="*/[^a-r]*")) == [
        "notes/Idea.md", "meetings/2026/standup.md", "meetings-old/x.md"]  # * spans folders, as in SQLite
    assert _paths(store, DocFilter(path_prefix="meetings/%")) == []  # no LIKE wildcards
    assert _paths(store, DocFilter(date_from="2026-01-15", date_to="2026-02-28")) == ["meetings/2026/standup.md"]
    assert _paths(store, DocFilter(tags=("team", "idea"))) == ["notes/Idea.md"]


def test_an_access_with_no_visibility_reads_only_what_its_principal_owns(store):
    write(store, parsed("notes/public.md", "t", visibility="public"))
    write(store, replace(parsed("notes/mine.md", "t"), owner="ana"))
    nobody = Access.of("ana", visibilities=())
    assert _paths_as(store, nobody) == ["notes/mine.md"]
    assert _paths_as(store, Access.of("ben", visibilities=())) == []
    assert _paths_as(store, Access.of("ben", visibilities=("public",))) == ["notes/public.md"]


def _paths_as(store, access) -> list[str]:
    return sorted(d["path"] for d in store.list_documents(access, DocFilter()))


def test_meta_problems_and_stats(store):
    with store.transaction():
        store.set_meta("last_indexed", "2026-03-01")
        store.set_meta("last_indexed", "2026-03-02")
        store.record_problems([Problem("b.md", "bad yaml", "error"), Problem("a.md", "odd", "warning")], "t1", [])
        store.record_problems([Problem("a.md", "odder", "warning")], "t2", ["b.md"])
    assert store.get_meta("last_indexed") == "2026-03-02" and store.get_meta("nothing") is None
    assert store.problems() == [Problem("a.md", "odder", "warning")]
    with store.transaction():
        store.record_problems([Problem("c.md", "x", "error")], "t3", [])
        store.clear_problems_except({"c.md"})
    assert store.problems() == [Problem("c.md", "x", "error")]

    write(store, parsed("notes/a.md", "one", "two", links=(Link("X", None, 0, 3, "wikilink"),)))
    write(store, parsed("m/1.md", "x", kind="meeting"))
    stats = store.stats()
    assert {k: stats[k] for k in ("documents", "chunks", "links", "bytes_indexed", "documents_by_kind")} == {
        "documents": 2, "chunks": 3, "links": 1, "bytes_indexed": 10, "documents_by_kind": {"meeting": 1, "note": 1}}
    assert stats["last_indexed"] == "2026-03-02" and stats["schema"] and all(isinstance(n, str) for n in stats["schema"])
    assert store.size_on_disk() >= 0


def test_page_relation_lines_and_claims_read_back_in_order(store):
    lines = (PageRelationLine(4, "works-with", "Ben", reason="pairing", valid_from="2026-01-01", context="ops"),
             PageRelationLine(2, "reports-to", "Cy", source="frontmatter:manager", ordinal=1),
             PageRelationLine(2, "reports-to", "Dee", source="frontmatter:manager", ordinal=0, problem="unknown"))
    claims = (EntityDecl("person", "Ana", ("Annie",), "page", None, {"team": "core"}),
              EntityDecl("project", "Harbour", (), "reference", "project"))
    doc_id = write(store, parsed("people/ana.md", "text", lines=lines, claims=claims))
    got = store.page_relation_lines()
    assert [(r["line"], r["target"], r["source"], r["problem"]) for r in got] == [
        (2, "Dee", "frontmatter:manager", "unknown"), (2, "Cy", "frontmatter:manager", None),
        (4, "Ben", "section", None)]
    assert (got[2]["doc_id"], got[2]["path"], got[2]["reason"], got[2]["valid_from"], got[2]["context"]) == (
        doc_id, "people/ana.md", "pairing", "2026-01-01", "ops")
    # The page's own date, from which a line with no `(since …)` starts.
    assert {r["doc_date"] for r in got} == {"2026-01-15"}
    with store.transaction():
        store.add_asserted_entity("person", "Zed", "2026-01-01T00:00:00+00:00")
        store.add_asserted_entity("person", "Zed", "2026-02-01T00:00:00+00:00")  # once only
    assert store.asserted_entities() == [{"type": "person", "name": "Zed", "created_at": "2026-01-01T00:00:00+00:00"}]
    got_claims = sorted(store.all_claims(), key=lambda c: (c.doc_path, c.doc_id, c.name))
    assert [(c.doc_id, c.doc_path, c.type, c.name, c.aliases, c.role, c.ref_field) for c in got_claims] == [
        (0, "", "person", "Zed", (), "asserted", None),
        (doc_id, "people/ana.md", "person", "Ana", ("Annie",), "page", None),
        (doc_id, "people/ana.md", "project", "Harbour", (), "reference", "project")]
    assert got_claims[1].attributes == {"team": "core"}


def test_mention_scans_see_stale_documents_with_their_chunks_and_links(store):
    a = write(store, parsed("a.md", "Ana met Ben", "later", links=(Link("Ben", None, 8, 11, "wikilink"),)))
    b = write(store, parsed("b.md", "nobody"))
    assert store.count_docs_for_mentions(all_docs=False) == 2
    docs = list(store.docs_for_mentions(all_docs=False))
    assert [(d["id"], d["path"], len(d["chunks"]), d["links"]) for d in docs] == [
        (a, "a.md", 2, [("Ben", None, 8, 11, "wikilink")]), (b, "b.md", 1, [])]
    assert docs[0]["chunks"][0][1:] == (0, "Ana met Ben")
    ids = sync(store, ("Ana Lee", ()), ("Ben", ())).ids
    chunk = docs[0]["chunks"][0][0]
    with store.transaction():
        store.replace_mentions([(a, [(chunk, Mention(ids["person:ana lee"], 0, 3, "Ana", "text"))]), (b, [])])
    assert store.count_docs_for_mentions(all_docs=False) == 0
    assert store.count_docs_for_mentions(all_docs=True) == 2
    assert store.chunk_mentions(a) == ([(chunk, 0, "Ana met Ben"), (docs[0]["chunks"][1][0], 12, "later")],
                                       [(ids["person:ana lee"], chunk, 0, 3)])
    with store.transaction():
        store.mark_for_rescan([b])
    assert [d["id"] for d in store.docs_for_mentions(all_docs=False)] == [b]
    with store.transaction():
        store.mark_for_rescan(None)
    assert store.count_docs_for_mentions(all_docs=False) == 2
    assert [tuple(r) for r in store.all_chunk_texts()] == [("a.md", "Ana met Ben"), ("a.md", "later"),
                                                          ("b.md", "nobody")]
    assert store.count_meetings([a, b]) == 0 and store.count_meetings([]) == 0

"""Indexing the sample vault: kinds, dates, chunks, entities, mentions, and incremental runs."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from kbgraph.access import LOCAL
from kbgraph.ingest.pipeline import index_vault
from kbgraph.store import open_store
from kbgraph.store.base import DocFilter


def _docs(store) -> dict[str, dict]:
    return {d["path"]: d for d in store.list_documents(LOCAL, DocFilter())}


def _entity(store, name):
    return next(e for e in store.list_entities(LOCAL) if e.name == name)


def _mentions(store, path: str) -> list[tuple[str, str, str]]:
    rows = store.db.execute(
        "SELECT e.name, m.surface, m.kind FROM mentions m JOIN entities e ON e.id = m.entity_id"
        " JOIN documents d ON d.id = m.doc_id WHERE d.path = ? ORDER BY m.start",
        (path,),
    )
    return list(rows)


def test_sample_vault_indexes_every_note_and_ignores_configured_patterns(indexed):
    vault, store = indexed
    docs = _docs(store)
    on_disk = {
        str(p.relative_to(vault)) for p in vault.rglob("*")
        if p.suffix in (".md", ".txt") and "drafts" not in p.parts and ".kbgraph" not in p.parts
    }
    assert set(docs) == on_disk
    assert not any(path.startswith("drafts/") for path in docs)


def test_kind_comes_from_type_then_folder_rules_then_note(indexed):
    _, store = indexed
    docs = _docs(store)
    assert docs["people/ana-lima.md"]["kind"] == "person"
    assert docs["meetings/2026/02/10/ana-ben-1on1.md"]["kind"] == "meeting"
    assert docs["decisions/2026-02-03-adopt-postgres-for-atlas.md"]["kind"] == "decision"
    assert docs["notes/hiring-thoughts.md"]["kind"] == "note"  # no frontmatter at all
    assert docs["notes/engineering-principles.md"]["kind"] == "note"  # frontmatter without type
    assert docs["notes/reading-list.txt"]["kind"] == "note"


def test_date_comes_from_frontmatter_then_dated_path_then_filename(indexed):
    _, store = indexed
    docs = _docs(store)
    assert docs["meetings/2026/03/02/auth-service-launch-review.md"]["date"] == "2026-03-02"
    assert docs["meetings/2026/01/13/atlas-weekly-sync.md"]["date"] == "2026-01-13"
    assert docs["decisions/2026-01-27-use-kafka-for-beacon.md"]["date"] == "2026-01-27"
    assert docs["people/ana-lima.md"]["date"] is None


def test_chunks_follow_headings_and_split_long_sections(indexed):
    _, store = indexed
    doc = store.get_document(LOCAL, path="notes/engineering-principles.md")
    chunks = store.document_chunks(LOCAL, doc["id"])
    assert len({c["heading"] for c in chunks}) < len(chunks), "the long section is split in several chunks"
    assert all(len(c["text"]) <= 1500 for c in chunks)
    assert [c["ordinal"] for c in chunks] == list(range(len(chunks)))
    text = (store_path := Path(store.path).parents[1] / doc["path"]).read_text()
    for c in chunks:
        assert text[c["start"]:c["end"]] == c["text"]
        assert text.count("\n", 0, c["start"]) + 1 == c["line"]
    assert store_path.exists()


def test_chunk_ids_are_stable_across_a_full_reindex(indexed):
    vault, store = indexed
    doc = store.get_document(LOCAL, path="meetings/2026/01/13/atlas-weekly-sync.md")
    keys = [c["key"] for c in store.document_chunks(LOCAL, doc["id"])]
    index_vault(vault, full=True)
    assert [c["key"] for c in store.document_chunks(LOCAL, doc["id"])] == keys


def test_entity_pages_and_frontmatter_references_become_entities(indexed):
    _, store = indexed
    by_name = {e.name: e for e in store.list_entities(LOCAL)}
    ana = by_name["Ana Lima"]
    assert ana.type == "person" and ana.page_path == "people/ana-lima.md"
    assert "Ana" in ana.aliases
    assert ana.attributes["role"] == "Engineering Manager"
    assert by_name["Platform"].type == "team"
    assert by_name["Kubernetes"].type == "technology" and "k8s" in by_name["Kubernetes"].aliases
    # A reference spelt without accents joins the accented page, not a second person.
    assert "Maria Garcia" not in by_name and by_name["María García"].page_path
    assert {e.type for e in by_name.values()} == {"person", "project", "team", "technology"}


def test_wikilinks_aliases_and_frontmatter_references_are_mentions(indexed):
    _, store = indexed
    found = _mentions(store, "meetings/2026/01/13/atlas-weekly-sync.md")
    kinds = {k for _, _, k in found}
    assert {"frontmatter", "text"} <= kinds
    names = {n for n, _, _ in found}
    assert {"Ana Lima", "Arjun Mehta", "Dana Kowalski", "Project Atlas"} <= names
    wiki = [m for d in store.list_documents(LOCAL, DocFilter()) for m in _mentions(store, d["path"]) if m[2] == "wikilink"]
    assert any(surface == "Ben" and name == "Ben Okafor" for name, surface, _ in wiki), "[[Ben Okafor|Ben]]"


def test_a_typo_is_not_linked_by_exact_matching(indexed):
    _, store = indexed
    found = _mentions(store, "meetings/2026/01/13/atlas-weekly-sync.md")
    assert not any(surface == "Arjoon" for _, surface, _ in found)


def test_a_shared_first_name_links_only_when_the_document_corroborates_one(indexed):
    _, store = indexed
    review = _mentions(store, "meetings/2026/02/12/checkout-design-review.md")
    assert {n for n, s, _ in review if s == "Sam"} == {"Sam Ortiz"}  # Sam Ortiz attends
    one_on_one = _mentions(store, "meetings/2026/03/05/chen-sam-1on1.md")
    assert {n for n, s, _ in one_on_one if s == "Sam"} == {"Sam Li"}
    hiring = _mentions(store, "notes/hiring-thoughts.md")
    assert not any(s == "Sam" for _, s, _ in hiring), "nothing in the note says which Sam"


def test_common_word_names_need_their_capital_and_not_a_hyphenated_word(indexed):
    _, store = indexed
    for path in ("notes/reading-list.txt",):
        text = (Path(store.path).parents[1] / path).read_text()
        for name, surface, kind in _mentions(store, path):
            if name in ("Data", "Growth", "Platform") and kind == "text":
                assert surface in text
    doc = store.get_document(LOCAL, path="notes/reading-list.txt")
    text = (Path(store.path).parents[1] / doc["path"]).read_text()
    rows = store.db.execute(
        "SELECT m.start, m.end FROM mentions m JOIN entities e ON e.id = m.entity_id"
        " WHERE m.doc_id = ? AND e.name = 'Data'", (doc["id"],)
    )
    for start, end in rows:
        assert text[end:end + 1] != "-", f"'Data' linked inside {text[start:end + 12]!r}"


def test_entity_tiers_follow_mention_counts(indexed):
    _, store = indexed
    for entity in store.list_entities(LOCAL):
        expected = 3 if entity.mention_count >= 15 else 2 if entity.mention_count >= 5 else 1
        assert entity.tier == expected


def test_reindex_without_changes_skips_everything(indexed):
    vault, store = indexed
    before = store.stats()
    report = index_vault(vault)
    assert report.indexed == 0 and report.removed == 0 and report.skipped == before["documents"]
    after = store.stats()
    assert (after["chunks"], after["entities"], after["mentions"]) == (
        before["chunks"], before["entities"], before["mentions"])


def test_touched_but_unchanged_file_is_not_reparsed(indexed):
    vault, _ = indexed
    note = vault / "notes/hiring-thoughts.md"
    os.utime(note, (time.time() + 5, time.time() + 5))
    report = index_vault(vault)
    assert report.indexed == 0


def test_changed_added_deleted_and_moved_files(indexed):
    vault, store = indexed
    moved_id = store.get_document(LOCAL, path="notes/reading-list.txt")["id"]
    (vault / "notes/hiring-thoughts.md").write_text("# Hiring\n\nWe should hire Dana's replacement soon.\n")
    (vault / "notes/new-idea.md").write_text("---\ntitle: New idea\n---\n\nKafka for everything, says Chen.\n")
    (vault / "decisions/2026-03-20-pull-payments-gateway-forward.md").unlink()
    (vault / "archive").mkdir()
    shutil.move(vault / "notes/reading-list.txt", vault / "archive/reading-list.txt")

    report = index_vault(vault)

    assert (report.indexed, report.removed, report.moved) == (3, 1, 1)
    docs = _docs(store)
    assert "decisions/2026-03-20-pull-payments-gateway-forward.md" not in docs
    assert docs["archive/reading-list.txt"]["id"] == moved_id, "a move keeps the document id"
    assert "notes/reading-list.txt" not in docs
    assert {n for n, _, _ in _mentions(store, "notes/new-idea.md")} == {"Kafka", "Chen Wei"}
    hiring = store.get_document(LOCAL, path="notes/hiring-thoughts.md")
    assert "replacement" in store.document_chunks(LOCAL, hiring["id"])[0]["text"]


def test_a_new_alias_links_mentions_in_unchanged_documents(indexed):
    vault, store = indexed
    before = {s for d in store.list_documents(LOCAL, DocFilter()) for _, s, _ in _mentions(store, d["path"])}
    assert "Arjoon" not in before
    page = vault / "people/arjun-mehta.md"
    page.write_text(page.read_text().replace("aliases: [", "aliases: [Arjoon, ", 1))
    index_vault(vault)
    found = _mentions(store, "meetings/2026/01/13/atlas-weekly-sync.md")
    assert ("Arjun Mehta", "Arjoon", "text") in found


def test_deleting_an_entity_page_removes_the_entity_and_its_mentions(indexed):
    vault, store = indexed
    (vault / "tech/kafka.md").unlink()
    index_vault(vault)
    assert "Kafka" not in {e.name for e in store.list_entities(LOCAL)}
    assert store.db.execute("SELECT count(*) FROM mentions WHERE surface = 'Kafka'").fetchone()[0] == 0


def test_full_reindex_gives_the_same_index_as_a_fresh_one(indexed, tmp_path):
    vault, store = indexed
    index_vault(vault, full=True)
    fresh = tmp_path / "fresh"
    shutil.copytree(vault, fresh, ignore=shutil.ignore_patterns(".kbgraph"))
    index_vault(fresh)
    other = open_store(fresh)
    try:
        assert _snapshot(other) == _snapshot(store)
    finally:
        other.close()


def _snapshot(store):
    return (
        sorted(store.db.execute("SELECT path, title, kind, date, content_hash FROM documents")),
        sorted(store.db.execute("SELECT d.path, c.key, c.text FROM chunks c JOIN documents d ON d.id = c.doc_id")),
        sorted(store.db.execute("SELECT key, name, aliases, mention_count, tier FROM entities")),
        sorted(store.db.execute(
            "SELECT d.path, e.key, coalesce(m.start, -1), m.kind FROM mentions m JOIN documents d ON d.id = m.doc_id"
            " JOIN entities e ON e.id = m.entity_id")),
    )


def test_kbx_layout_indexes_without_configuration(tmp_path):
    root = tmp_path / "kb"
    (root / "memory/people").mkdir(parents=True)
    (root / "memory/projects").mkdir(parents=True)
    (root / "memory/meetings/2026/01/15").mkdir(parents=True)
    (root / "memory/people/ana-lima.md").write_text("# Ana Lima\n\nRuns the platform group.\n")
    (root / "memory/projects/atlas.md").write_text("---\nname: Atlas\n---\n# Atlas\n\nMesh migration.\n")
    (root / "memory/meetings/2026/01/15/standup.md").write_text("## Notes\n\nAna Lima said Atlas is on track.\n")
    report = index_vault(root)
    assert report.errors == 0
    store = open_store(root)
    try:
        docs = _docs(store)
        assert docs["memory/people/ana-lima.md"]["kind"] == "person"
        assert docs["memory/meetings/2026/01/15/standup.md"]["kind"] == "meeting"
        assert docs["memory/meetings/2026/01/15/standup.md"]["date"] == "2026-01-15"
        assert {(e.type, e.name) for e in store.list_entities(LOCAL)} == {("person", "Ana Lima"), ("project", "Atlas")}
        assert {n for n, _, _ in _mentions(store, "memory/meetings/2026/01/15/standup.md")} == {"Ana Lima", "Atlas"}
    finally:
        store.close()


def test_markdown_links_to_entity_pages_are_mentions(tmp_path):
    root = tmp_path / "kb"
    (root / "people").mkdir(parents=True)
    (root / "notes" / "deep").mkdir(parents=True)
    (root / "people/chen-wei.md").write_text("---\ntype: person\nname: Chen Wei\n---\nData lead.\n")
    (root / "notes/deep/n.md").write_text("Ask [the data lead](../../people/chen-wei.md) and [x](/people/chen-wei.md).\n")
    index_vault(root)
    store = open_store(root)
    try:
        found = _mentions(store, "notes/deep/n.md")
        assert [(n, s, k) for n, s, k in found] == [
            ("Chen Wei", "the data lead", "link"), ("Chen Wei", "x", "link")]
    finally:
        store.close()


def test_names_in_fenced_code_are_not_mentions(tmp_path):
    root = tmp_path / "kb"
    (root / "tech").mkdir(parents=True)
    (root / "tech/kafka.md").write_text("---\ntype: technology\nname: Kafka\n---\nThe bus.\n")
    (root / "note.md").write_text("We use Kafka.\n\n```yaml\nbroker: Kafka\n```\n\n~~~\nKafka\n~~~\n")
    index_vault(root)
    store = open_store(root)
    try:
        assert [(s, k) for _, s, k in _mentions(store, "note.md")] == [("Kafka", "text")]
    finally:
        store.close()

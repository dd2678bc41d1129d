"""The document graph: references, continues, duplicate-of (stored by the relate stage, incrementally),
parent and sibling (derived from paths), the reader and `kbg doc relations`."""

from __future__ import annotations

import os
from contextlib import closing
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbgraph.access import LOCAL
from kbgraph.docgraph import RELATION_TYPES, doc_relations, similar_references
from kbgraph.docgraph import simhash as sh
from kbgraph.docgraph.names import NameIndex, Phrases, distinctive
from kbgraph.docgraph.structure import series_key
from kbgraph.docgraph.words import read_words
from kbgraph.errors import InvalidInput, NotFound
from kbgraph.ingest.pipeline import Pipeline, index_vault
from kbgraph.store import open_store

from .conftest import fast, kbg, run_kbg

WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november oscar papa "
         "quebec romeo sierra tango uniform victor whiskey xray yankee zulu").split()


def _prose(seed: int, words: int = 160) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) + str(rng.randrange(50)) for _ in range(words))


def _write(root: Path, path: str, text: str) -> Path:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    stat = target.stat()
    os.utime(target, (stat.st_atime, stat.st_mtime + 2))  # never "same size and mtime" as before
    return target


def _index(root: Path, full: bool = False):
    report = index_vault(root, full=full)
    assert report.errors == 0, report.problems
    return report


def _rels(root: Path, path: str, type_name: str | None = None) -> list:
    store = open_store(root)
    try:
        return doc_relations(store, path, type_name, access=LOCAL)
    finally:
        store.close()


def _out(root: Path, path: str, type_name: str) -> dict[str, object]:
    """Outgoing relations of one type: other path -> the relation."""
    return {r.path: r for r in _rels(root, path, type_name) if r.direction == "out"}


def _stored(root: Path) -> dict[tuple, int]:
    """Every stored relation as comparable values (paths, not ids) -> its row id."""
    store = open_store(root)
    try:
        rows = store.db.execute(
            "SELECT r.id, s.path, t.path, r.type, r.score, r.evidence, sc.line, tc.line FROM doc_relations r"
            " JOIN documents s ON s.id = r.source_doc_id JOIN documents t ON t.id = r.target_doc_id"
            " LEFT JOIN chunks sc ON sc.id = r.source_chunk_id LEFT JOIN chunks tc ON tc.id = r.target_chunk_id")
        return {tuple(r[1:]): r[0] for r in rows}
    finally:
        store.close()


@pytest.fixture
def small(tmp_path: Path) -> Path:
    root = tmp_path / "v"
    _write(root, "projects/atlas.md",
           f"---\ntitle: Project Atlas\n---\n# Project Atlas\n\nThe migration. {_prose(1, 60)}\n")
    _write(root, "people/ana-lima.md", "# Ana Lima\n\nLeads [[Project Atlas]] and writes about it.\n")
    _write(root, "notes/plan.md", "# Plan\n\nSee [the project](../projects/atlas.md) and [[ana-lima]].\n"
                                  "Ana Lima agreed. Nothing about weekly sync here.\n")
    _write(root, "notes/other.md", "# Other\n\nUnrelated text about gardening and tomatoes.\n")
    _index(root)
    return root


# --- references -------------------------------------------------------------------------------


def test_links_resolve_by_path_file_name_and_title_with_score_1(small):
    plan = _out(small, "notes/plan.md", "references")
    assert plan["projects/atlas.md"].score == 1.0 and plan["projects/atlas.md"].evidence == "link ../projects/atlas.md"
    assert plan["people/ana-lima.md"].evidence == "wikilink [[ana-lima]]"  # the link wins over the mention
    assert plan["projects/atlas.md"].line == 1  # the chunk the link is in (the section from its heading)
    ana = _out(small, "people/ana-lima.md", "references")
    assert ana["projects/atlas.md"].evidence == "wikilink [[Project Atlas]]"
    incoming = {r.path: r for r in _rels(small, "projects/atlas.md", "references") if r.direction == "in"}
    assert set(incoming) == {"notes/plan.md", "people/ana-lima.md"}


def test_title_mentions_score_below_links_and_need_a_distinctive_title(small):
    _write(small, "notes/mention.md", "# M\n\nWe asked Ana Lima about Project Atlas. Other people came too.\n")
    _index(small)
    found = _out(small, "notes/mention.md", "references")
    assert set(found) == {"people/ana-lima.md", "projects/atlas.md"}  # "Other" is one common word: not a name
    assert {r.score for r in found.values()} == {0.6}
    assert found["people/ana-lima.md"].evidence == 'mentions its title "Ana Lima"'
    assert not distinctive((b"weekly", b"sync")) and not distinctive((b"planning",)) and not distinctive((b"2026",))
    assert distinctive((b"kubernetes",)) and distinctive((b"ana", b"lima")) and not distinctive((b"kafka",))


def test_a_wikilink_that_matches_two_documents_resolves_to_none():
    names = NameIndex([(1, "a/notes.md", "Notes A"), (2, "b/notes.md", "Notes B"), (3, "c/x.md", "Unique")])
    assert names.resolve("wikilink", "notes", "z.md") is None
    assert names.resolve("wikilink", "a/notes", "z.md") == 1
    assert names.resolve("wikilink", "Unique", "z.md") == 3
    assert names.resolve("markdown", "../a/notes.md", "c/x.md") == 1
    assert names.resolve("markdown", "../../outside.md", "c/x.md") is None


def test_names_are_found_across_punctuation_and_case_but_not_across_texts():
    phrases = Phrases([(1, "people/sam-li.md", "Sam Li"), (2, "kep-1287.md", "In-place Update of Pod Resources")])
    words = read_words([b"Ask SAM\xe2\x80\x94li? and KEP-1287, in-place update of pod resources", b"Sam", b"Li"])
    found = {(text, owner, label) for text, _, owner, label in phrases.first_mentions(words)}
    assert found == {(0, 1, 'title "Sam Li"'), (0, 2, 'file name "kep-1287"')}  # the first place only


# --- continues ----------------------------------------------------------------------------------


def test_a_section_split_across_chunks_continues_chunk_to_chunk(tmp_path):
    root = tmp_path / "v"
    paragraphs = "\n\n".join(_prose(i, 60) for i in range(8))  # well over one chunk (1,500 characters)
    _write(root, "long.md", f"# Long\n\n## Part one\n\n{paragraphs}\n\n## Part two\n\nShort.\n")
    _index(root)
    splits = [r for r in _rels(root, "long.md", "continues")]
    assert splits and all(r.path == "long.md" and r.score == 1.0 and r.direction == "out" for r in splits)
    assert all(r.line < r.other_line for r in splits)
    assert all("Part one" in r.evidence for r in splits)  # never from the end of one section to the next


def test_series_key_groups_dated_notes_by_folder_and_name():
    assert series_key("meetings/2026/01/13/atlas-weekly-sync.md", "2026-01-13") == "meetings/atlas-weekly-sync"
    assert series_key("weekly/2026-01-05.md", "2026-01-05") == "weekly/#-#-#"
    assert series_key("decisions/2026-01-27-use-kafka.md", "2026-01-27") != series_key(
        "decisions/2026-02-03-adopt-postgres.md", "2026-02-03")
    assert series_key("notes/x.md", None) is None


def test_a_dated_series_continues_note_to_next_note(tmp_path):
    root = tmp_path / "v"
    for day in ("2026-01-19", "2026-01-05", "2026-01-12"):
        _write(root, f"weekly/{day}.md", f"# Week of {day}\n\nNotes.\n")
    _write(root, "weekly/2026-01-07-offsite.md", "# Offsite\n\nA one-off.\n")
    _index(root)
    assert _out(root, "weekly/2026-01-05.md", "continues").keys() == {"weekly/2026-01-12.md"}
    assert _out(root, "weekly/2026-01-12.md", "continues").keys() == {"weekly/2026-01-19.md"}
    assert not _out(root, "weekly/2026-01-19.md", "continues")
    assert not _rels(root, "weekly/2026-01-07-offsite.md", "continues")
    assert {r.score for r in _rels(root, "weekly/2026-01-12.md", "continues")} == {0.9}
    # A note dated between two members joins the series between them.
    _write(root, "weekly/2026-01-09.md", "# Week of 2026-01-09\n\nInserted.\n")
    _index(root)
    assert _out(root, "weekly/2026-01-05.md", "continues").keys() == {"weekly/2026-01-09.md"}
    assert _out(root, "weekly/2026-01-09.md", "continues").keys() == {"weekly/2026-01-12.md"}


# --- duplicate-of ----------------------------------------------------------------------------------


def test_near_duplicate_with_one_word_changed_is_found_below_1_and_unrelated_is_not(tmp_path):
    root = tmp_path / "v"
    text = _prose(7, 300)
    _write(root, "a/original.md", f"---\ndate: 2026-01-01\n---\n# Notes\n\n{text}\n")
    _write(root, "b/copy.md", f"# Notes\n\n{text.replace(text.split()[150], 'changed', 1)}\n")
    _write(root, "c/unrelated.md", f"# Unrelated\n\n{_prose(8, 300)}\n")
    _index(root)
    dup = _out(root, "b/copy.md", "duplicate-of")
    assert set(dup) == {"a/original.md"}
    assert 0.9 <= dup["a/original.md"].score < 1.0 and "near-duplicate" in dup["a/original.md"].evidence
    assert [r.direction for r in _rels(root, "a/original.md", "duplicate-of")] == ["in"]
    assert not _rels(root, "c/unrelated.md", "duplicate-of")


def test_exact_duplicates_score_1_and_the_earlier_dated_is_the_original(tmp_path):
    root = tmp_path / "v"
    body = _prose(3, 80)
    _write(root, "late.md", f"---\ndate: 2026-03-01\n---\n# Same\n\n{body}\n")
    _write(root, "early.md", f"---\ndate: 2026-01-01\ntags: [x]\n---\n# Same\n\n{body}\n")  # other frontmatter
    _write(root, "undated.md", f"# Same\n\n{body}\n")
    _index(root)
    assert _out(root, "late.md", "duplicate-of")["early.md"].score == 1.0
    assert _out(root, "undated.md", "duplicate-of").keys() == {"early.md"}
    assert not _out(root, "early.md", "duplicate-of")


def test_short_notes_are_not_near_duplicates(tmp_path):
    root = tmp_path / "v"
    _write(root, "a.md", "# A\n\nShip it on Monday with the team.\n")
    _write(root, "b.md", "# B\n\nShip it on Friday with the team.\n")
    _index(root)
    assert not _rels(root, "a.md", "duplicate-of") and not _rels(root, "b.md", "duplicate-of")


@fast(100)
@given(st.text(max_size=400), st.text(max_size=400))
def test_simhash_is_deterministic_and_similarity_symmetric_in_0_1(a, b):
    assert sh.simhash(a) == sh.simhash(a) == sh.simhashes(read_words([a.encode()]), 1)[0]
    ha, hb = sh.simhash(a), sh.simhash(b)
    assert sh.similarity(ha, hb) == sh.similarity(hb, ha)
    assert 0.0 <= sh.similarity(ha, hb) <= 1.0 and sh.similarity(ha, ha) == 1.0
    assert 0 <= ha < 2**64 and sh.to_signed(ha) & sh.MASK == ha


@fast(50)
@given(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=40), st.data())
def test_banding_finds_every_pair_a_full_comparison_finds(base, data):
    prints = {}
    for i, value in enumerate(base):
        prints[2 * i] = value
        flips = data.draw(st.lists(st.integers(0, 63), max_size=8, unique=True))
        prints[2 * i + 1] = value ^ sum(1 << f for f in flips)
    query = {i: v for i, v in prints.items() if i % 3 == 0}
    brute = {(q, o, (qv ^ ov).bit_count()) for q, qv in query.items() for o, ov in prints.items()
             if q != o and (qv ^ ov).bit_count() <= 6}
    assert set(sh.near_pairs(query, prints, 6)) == brute


def test_simhash_of_many_texts_at_once_equals_one_at_a_time():
    texts = [_prose(i, 40 + i) for i in range(5)] + ["", "two words", "Ünïcode—text “quoted” …"]
    together = sh.simhashes(read_words([t.encode() for t in texts]), len(texts))
    assert together == [sh.simhash(t) for t in texts]
    assert together[5] == together[6] == 0  # fewer than 3 words


def test_similar_references_hook_keeps_only_close_vectors_and_scores_below_1():
    edges = similar_references({1: [1.0, 0.0], 2: [0.999, 0.04], 3: [0.0, 1.0]})
    assert {(e.source, e.target) for e in edges} == {(1, 2), (2, 1)}
    assert all(e.type == "references" and 0.92 <= e.score < 1.0 for e in edges)
    assert similar_references({1: [1.0, 0.0]}, {1: [1.0, 0.0]}) == []  # never to itself


def _by_meaning(store, path: str) -> dict[tuple[str, str], float]:
    return {(r.direction, r.path): r.score for r in doc_relations(store, path, "references", access=LOCAL)
            if r.evidence.startswith("similar meaning")}


def test_the_similar_stage_relates_documents_by_meaning_both_ways_and_keeps_up_with_edits(tmp_path, monkeypatch):
    monkeypatch.setenv("KBG_EMBEDDER", "fake")
    same = "# Tides\n\nThe moon pulls the sea twice a day, and harbours plan around it ([[Almanac]]).\n"
    (tmp_path / "a.md").write_text(same, encoding="utf-8")
    (tmp_path / "b.md").write_text(same, encoding="utf-8")  # the fake embedder: only equal text is near
    (tmp_path / "c.md").write_text("# Kilns\n\nFiring clay needs slow heat and patience.\n", encoding="utf-8")
    (tmp_path / "d.md").write_text("# D\n\nSee [[c]].\n", encoding="utf-8")
    (tmp_path / "e.md").write_text("# E\n\nTables.\n", encoding="utf-8")
    index_vault(tmp_path)
    with closing(open_store(tmp_path)) as store:
        near = _by_meaning(store, "a.md")
        assert set(near) == {("out", "b.md"), ("in", "b.md")}, "mutual, and not to the unrelated note"
        assert all(0.92 <= score < 1.0 for score in near.values()), "by meaning is never certain"
        assert _by_meaning(store, "c.md") == {}
    (tmp_path / "c.md").write_text(same, encoding="utf-8")
    (tmp_path / "d.md").write_text("# D\n\nSee [[c]] and [[a]].\n", encoding="utf-8")
    (tmp_path / "e.md").write_text("# Almanac\n\nTables.\n", encoding="utf-8")  # now a's and b's link resolves
    index_vault(tmp_path)
    with closing(open_store(tmp_path)) as store:
        assert {p for _, p in _by_meaning(store, "a.md")} == {"b.md", "c.md"}, "relating a's links again keeps these"
        assert {r.path for r in doc_relations(store, "a.md", "references", access=LOCAL)
                if r.score == 1.0 and r.direction == "out"} == {"e.md"}
        assert {p for _, p in _by_meaning(store, "c.md")} == {"a.md", "b.md"}
        links = {r.path for r in doc_relations(store, "d.md", "references", access=LOCAL) if r.score == 1.0}
        assert links == {"a.md", "c.md"}
    (tmp_path / "a.md").write_text("# Tides\n\nNothing like the others any more: a recipe for bread.\n",
                                   encoding="utf-8")
    index_vault(tmp_path)
    with closing(open_store(tmp_path)) as store:
        assert _by_meaning(store, "a.md") == {}
        assert {p for _, p in _by_meaning(store, "b.md")} == {"c.md"}
        incremental = {p: _by_meaning(store, p) for p in ("a.md", "b.md", "c.md")}
    index_vault(tmp_path, full=True)
    with closing(open_store(tmp_path)) as store:
        assert {p: _by_meaning(store, p) for p in ("a.md", "b.md", "c.md")} == incremental


# --- parent and sibling (derived) ----------------------------------------------------------------


def test_parents_are_index_notes_where_they_exist_else_folders(tmp_path):
    root = tmp_path / "v"
    _write(root, "README.md", "# Vault\n")
    _write(root, "projects/README.md", "# Projects\n")
    _write(root, "projects/atlas/plan.md", "# Plan\n")
    _write(root, "projects/atlas/risks.md", "# Risks\n")
    _write(root, "projects/beacon/beacon.md", "# Beacon index\n")
    _write(root, "projects/beacon/notes.md", "# Beacon notes\n")
    _index(root)
    parents = [(r.path, r.score, r.doc_id is None) for r in _rels(root, "projects/atlas/plan.md", "parent")]
    assert parents == [("projects/atlas/", 0.5, True), ("projects/README.md", 0.25, False), ("README.md", 0.125, False)]
    assert [r.path for r in _rels(root, "projects/beacon/notes.md", "parent")][0] == "projects/beacon/beacon.md"
    # An index note stands for its folder: its parent is one level up, and the folder's notes are its children.
    assert [r.path for r in _rels(root, "projects/beacon/beacon.md", "parent") if r.direction == "out"] == [
        "projects/README.md", "README.md"]
    assert [r.path for r in _rels(root, "projects/beacon/beacon.md", "parent") if r.direction == "in"] == [
        "projects/beacon/notes.md"]
    children = {r.path for r in _rels(root, "projects/README.md", "parent") if r.direction == "in"}
    assert children == {"projects/atlas/", "projects/beacon/beacon.md"}
    siblings = _rels(root, "projects/beacon/notes.md", "sibling")
    assert siblings == []  # the only other document there is the index note: the parent, not a sibling
    assert [(r.path, r.direction, r.score) for r in _rels(root, "projects/atlas/plan.md", "sibling")] == [
        ("projects/atlas/risks.md", "both", 0.3)]
    assert not _stored(root) or all(key[2] not in ("parent", "sibling") for key in _stored(root))


# --- incremental ---------------------------------------------------------------------------------


def test_editing_a_note_recomputes_its_relations_and_leaves_others_alone(small):
    before = _stored(small)
    _write(small, "notes/plan.md", "# Plan\n\nNow only [[Project Atlas]].\n")
    _index(small)
    after = _stored(small)
    plan = _out(small, "notes/plan.md", "references")
    assert set(plan) == {"projects/atlas.md"} and plan["projects/atlas.md"].evidence == "wikilink [[Project Atlas]]"
    untouched = {k: v for k, v in before.items() if k[0] == "people/ana-lima.md"}
    assert untouched and all(after.get(k) == v for k, v in untouched.items())  # same rows, same ids


def test_a_deleted_target_takes_its_references_along_and_unblocks_an_ambiguous_link(tmp_path):
    root = tmp_path / "v"
    _write(root, "a/notes.md", "# Notes A\n\nAlpha.\n")
    _write(root, "b/notes.md", "# Notes B\n\nBravo.\n")
    _write(root, "linker.md", "# Linker\n\nSee [[notes]] and [[Notes B]].\n")
    _index(root)
    assert set(_out(root, "linker.md", "references")) == {"b/notes.md"}  # [[notes]] is ambiguous
    (root / "b" / "notes.md").unlink()
    _index(root)
    assert set(_out(root, "linker.md", "references")) == {"a/notes.md"}  # now it is not


def test_a_new_note_is_referenced_by_an_unchanged_note_that_names_it(small):
    _write(small, "projects/gardening-club.md", "# Tomatoes and gardening\n\nA club.\n")
    _index(small)
    assert "projects/gardening-club.md" not in _out(small, "notes/other.md", "references")
    _write(small, "projects/unrelated-text.md", "# Unrelated text\n\nNamed in notes/other.md.\n")
    _index(small)
    assert _out(small, "notes/other.md", "references")["projects/unrelated-text.md"].score == 0.6


def test_incremental_runs_end_where_a_full_index_does(tmp_path):
    root = tmp_path / "v"
    text = _prose(11, 200)
    _write(root, "weekly/2026-01-05.md", "# Week one\n\nSee [[Project Atlas]] and [[Week two]].\n")
    _write(root, "weekly/2026-01-12.md", "# Week two\n\nAna Lima joined.\n")
    _write(root, "projects/atlas.md", f"# Project Atlas\n\n{text}\n")
    _write(root, "people/ana-lima.md", "# Ana Lima\n\nWorks on Project Atlas.\n")
    _index(root)
    _write(root, "archive/atlas-copy.md", f"# Copy\n\n{text.replace(text.split()[20], 'edited', 1)}\n")
    _write(root, "weekly/2026-01-08.md", "# Midweek\n\nSee [[Ana Lima]].\n")
    (root / "weekly" / "2026-01-12.md").unlink()
    _write(root, "people/ana-lima.md", "# Ana Lima-Santos\n\nWorks on [[atlas]].\n")
    _index(root)
    incremental = set(_stored(root))
    _index(root, full=True)
    assert incremental == set(_stored(root))
    assert any(k[0] == "archive/atlas-copy.md" and k[2] == "duplicate-of" for k in incremental)


def test_incremental_equals_full_on_the_sample_vault(vault):
    """Renamed, deleted, added and edited notes: the incremental run (which asks the full-text index which
    documents may name a changed one) ends with the graph a full index computes."""
    _index(vault)
    atlas = vault / "projects" / "project-atlas.md"
    _write(vault, "projects/project-atlas.md", atlas.read_text(encoding="utf-8").replace(
        "name: Project Atlas", "name: Atlas Platform Migration"))
    (vault / "tech" / "kafka.md").unlink()
    _write(vault, "notes/new.md", "# New\n\nOn [[Kafka]] and the Checkout Revamp; see [[Atlas Platform Migration]].\n")
    sync = vault / "meetings" / "2026" / "02" / "17" / "atlas-weekly-sync.md"
    _write(vault, str(sync.relative_to(vault)), sync.read_text(encoding="utf-8") + "\nAlso Project Beacon.\n")
    _write(vault, "meetings/2026/03/03/atlas-weekly-sync.md", "# Atlas weekly sync\n\nShort one.\n")
    _index(vault)
    incremental = set(_stored(vault))
    assert ("notes/new.md", "projects/project-atlas.md", "references", 1.0,
            "wikilink [[Atlas Platform Migration]]", 1, None) in incremental
    _index(vault, full=True)
    assert incremental == set(_stored(vault))


@pytest.mark.parametrize("seed", [1, 2])
def test_random_edits_keep_incremental_equal_to_full(vault, seed):
    """Links, mentions, copies, moves, deletions and clashing titles in random order: after each incremental
    run the stored graph is the one a full index computes."""
    rng = random.Random(seed)
    _index(vault)
    for step in range(3):
        paths = sorted(str(p.relative_to(vault)) for p in vault.rglob("*.md")
                       if ".kbgraph" not in p.parts and "drafts" not in p.parts)
        store = open_store(vault)
        titles = [t for (t,) in store.db.execute("SELECT title FROM documents ORDER BY path")]
        store.close()
        for _ in range(4):
            path = rng.choice(paths)
            action = rng.choice(["link", "mention", "copy", "near", "move", "delete", "clash"])
            source = vault / path
            if not source.exists():
                continue
            text = source.read_text(encoding="utf-8")
            if action == "link":
                _write(vault, path, text + f"\nSee [[{rng.choice(titles)}]].\n")
            elif action == "mention":
                _write(vault, path, text + f"\nWe talked about {rng.choice(titles)} again.\n")
            elif action in ("copy", "near"):
                words = text.split(" ")
                if action == "near":
                    words[len(words) // 2] = "different"
                _write(vault, f"copies/{step}-{Path(path).name}", " ".join(words))
            elif action == "move":
                _write(vault, f"moved/{step}/{Path(path).name}", text)
                source.unlink()
            elif action == "delete":
                source.unlink()
            else:
                _write(vault, f"clash/{step}.md", f"# {rng.choice(titles)}\n\nSame title, other note.\n")
        _index(vault)
        incremental = set(_stored(vault))
        _index(vault, full=True)
        assert incremental == set(_stored(vault)), (seed, step)


# --- the reader, the stage and the CLI ------------------------------------------------------------


def test_stored_rows_of_an_unknown_type_are_ignored(small):
    store = open_store(small)
    try:
        ids = dict(store.db.execute("SELECT path, id FROM documents"))
        with store.transaction():
            store.db.execute("INSERT INTO doc_relations (source_doc_id, target_doc_id, type, score, evidence)"
                             " VALUES (?, ?, 'inspired-by', 0.8, 'a later version')",
                             (ids["notes/plan.md"], ids["notes/other.md"]))
        assert all(r.type in RELATION_TYPES for r in doc_relations(store, "notes/plan.md", access=LOCAL))
    finally:
        store.close()
    assert kbg(small, "doc", "relations", "notes/other.md")["count"] >= 1


def test_relate_is_a_named_stage_after_mentions_that_a_user_can_drop(tmp_path):
    names = Pipeline.default().names()
    assert names.index("relate") == names.index("mentions") + 1
    root = tmp_path / "v"
    _write(root, "a.md", "# A\n\n[[b]]\n")
    _write(root, "b.md", "# B\n")
    index_vault(root, pipeline=Pipeline.default().remove("relate"))
    assert _stored(root) == {}


def test_doc_relations_on_the_sample_vault(indexed_vault):
    copy = kbg(indexed_vault, "doc", "relations", "notes/atlas-retro-copy.md")
    first = copy["relations"][0]
    assert (first["type"], first["direction"], first["score"], first["path"]) == (
        "duplicate-of", "out", 1.0, "meetings/2026/03/31/atlas-retro.md")
    assert copy["path"] == "notes/atlas-retro-copy.md" and copy["count"] == len(copy["relations"]) == copy["total"]
    sam = kbg(indexed_vault, "doc", "relations", "people/sam-li.md", "--type", "references")
    assert {(r["path"], r["direction"]) for r in sam["relations"]} >= {
        ("people/chen-wei.md", "out"), ("people/chen-wei.md", "in")}
    assert all(r["type"] == "references" for r in sam["relations"])
    series = kbg(indexed_vault, "doc", "relations", "meetings/2026/01/13/atlas-weekly-sync.md", "--type", "continues")
    assert [(r["path"], r["score"]) for r in series["relations"]] == [("meetings/2026/02/17/atlas-weekly-sync.md", 0.9)]
    limited = kbg(indexed_vault, "doc", "relations", "people/sam-li.md", "--limit", "2")
    assert limited["count"] == 2 and limited["total"] > 2
    scores = [r["score"] for r in kbg(indexed_vault, "doc", "relations", "tech/kafka.md", "--limit", "0")["relations"]]
    assert scores == sorted(scores, reverse=True)


def test_doc_relations_table_fields_and_errors(indexed_vault):
    v = ("--vault", str(indexed_vault))
    table = run_kbg("doc", "relations", "notes/atlas-retro-copy.md", *v)
    assert table.returncode == 0 and "duplicate-of" in table.stdout and "identical text" in table.stdout
    lines = run_kbg("doc", "relations", "people/sam-li.md", "--format", "csv", "--fields", "type,path", *v)
    assert lines.stdout.splitlines()[0] == "type,path"
    missing = run_kbg("doc", "relations", "nope.md", *v)
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1 and "not in the index" in missing.stderr
    bad = run_kbg("doc", "relations", "people/sam-li.md", "--type", "cites", *v)
    assert bad.returncode == 1 and "references, continues, duplicate-of, parent, sibling" in bad.stderr
    error = kbg(indexed_vault, "doc", "relations", "people/sam-li.md", "--type", "cites", code=1)
    assert error["kind"] == "InvalidInput"


def test_library_errors_for_unknown_documents_and_types(small):
    store = open_store(small)
    try:
        with pytest.raises(NotFound):
            doc_relations(store, "missing.md", access=LOCAL)
        with pytest.raises(InvalidInput):
            doc_relations(store, "notes/plan.md", "cites", access=LOCAL)
        assert [r.type for r in doc_relations(store, "notes/plan.md", "sibling", access=LOCAL)] == ["sibling"]
    finally:
        store.close()


def test_references_by_meaning_go_when_a_document_loses_its_vectors(tmp_path, monkeypatch):
    monkeypatch.setenv("KBG_EMBEDDER", "fake")
    same = "# Tides\n\nThe moon pulls the sea twice a day.\n"
    for name in ("a.md", "b.md"):
        (tmp_path / name).write_text(same, encoding="utf-8")
    index_vault(tmp_path)
    with closing(open_store(tmp_path)) as store:
        assert {p for _, p in _by_meaning(store, "a.md")} == {"b.md"}
    (tmp_path / "a.md").write_text("# Tides\n", encoding="utf-8")  # no section left: no vector, nothing embedded
    index_vault(tmp_path)
    with closing(open_store(tmp_path)) as store:
        assert _by_meaning(store, "b.md") == {}


def test_the_index_stages_import_numpy_only_when_there_is_work():
    """The relate and similar stages are imported on every run; numpy (SimHash, centroids) costs about
    as much as a run that finds nothing changed, so it comes only with the work."""
    import subprocess
    import sys

    code = ("import sys, kbgraph.docgraph, kbgraph.docgraph.stage, kbgraph.docgraph.similar_stage;"
            " print('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
    assert callable(similar_references)  # the package's names are still there, imported on first use


def test_a_reader_is_shown_only_the_documents_it_may_read_among_the_relations(vault):
    """Siblings, an index note's children and stored relations name other documents: a reader of team
    notes is shown the team's, not a private page beside them, and the private page itself is not found."""
    from kbgraph.access import Access

    with open(vault / "kbgraph.toml", "a", encoding="utf-8") as handle:
        handle.write('\n[access]\nvisibility = "team"\n')
    page = vault / "people/chen-wei.md"
    page.write_text(page.read_text().replace("type: person\n", "type: person\nvisibility: private\nowner: chen\n", 1))
    _index(vault)
    bob, chen = (Access.of(p, ("team", "public"), "internal") for p in ("bob", "chen"))
    with closing(open_store(vault)) as store:
        everyone = {r.path for r in doc_relations(store, "people/ana-lima.md", access=LOCAL)}
        bobs = {r.path for r in doc_relations(store, "people/ana-lima.md", access=bob)}
        assert "people/chen-wei.md" in everyone and "people/ben-okafor.md" in bobs
        assert bobs == everyone - {"people/chen-wei.md"}
        with pytest.raises(NotFound):
            doc_relations(store, "people/chen-wei.md", access=bob)
        assert doc_relations(store, "people/chen-wei.md", access=chen)  # its owner reads it

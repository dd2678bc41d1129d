"""Bad files are reported (path + reason) and skipped; the run finishes and nothing indexed before is lost."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kbgraph.access import LOCAL
from kbgraph.model import Problem
from kbgraph.ingest.pipeline import Pipeline, index_vault
from kbgraph.store import open_store

from .conftest import run_kbg, tree_digest


def _problem(report, path: str) -> Problem:
    matches = [p for p in report.problems if p.path == path]
    assert matches, f"{path} not reported; problems: {report.problems}"
    return matches[0]


def _paths(vault: Path) -> set[str]:
    store = open_store(vault)
    try:
        return set(store.doc_states())
    finally:
        store.close()


@pytest.fixture
def small_vault(tmp_path: Path) -> Path:
    root = tmp_path / "v"
    root.mkdir()
    (root / "good.md").write_text("---\ntitle: Good\ntype: note\n---\n# Good\n\nA fine note about Kafka.\n")
    return root


def test_invalid_yaml_frontmatter_is_reported_with_its_line_and_skipped(small_vault):
    (small_vault / "bad.md").write_text("---\ntitle: [unclosed\ntags: x\n---\nBody\n")
    report = index_vault(small_vault)
    problem = _problem(report, "bad.md")
    assert "invalid YAML" in problem.reason and problem.severity == "error"
    assert _paths(small_vault) == {"good.md"}


def test_unterminated_or_non_mapping_frontmatter_is_an_error(small_vault):
    (small_vault / "open.md").write_text("---\ntitle: never closed\n\nBody\n")
    (small_vault / "list.md").write_text("---\n- a\n- b\n---\nBody\n")
    report = index_vault(small_vault)
    assert "never closed" in _problem(report, "open.md").reason
    assert "mapping" in _problem(report, "list.md").reason


def test_frontmatter_without_type_is_indexed_as_a_note(small_vault):
    (small_vault / "untyped.md").write_text("---\ntitle: No type here\ntags: [a, b]\n---\nText.\n")
    report = index_vault(small_vault)
    assert report.errors == 0
    store = open_store(small_vault)
    doc = store.get_document(LOCAL, path="untyped.md")
    assert (doc["kind"], doc["title"], doc["tags"]) == ("note", "No type here", ["a", "b"])
    store.close()


def test_binary_file_with_md_name_is_skipped(small_vault):
    (small_vault / "image.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    report = index_vault(small_vault)
    assert "binary" in _problem(report, "image.md").reason
    assert _paths(small_vault) == {"good.md"}


def test_invalid_utf8_is_skipped_with_the_byte_offset(small_vault):
    (small_vault / "latin1.md").write_bytes("# Café\n\nna\u00efve".encode("latin-1"))
    report = index_vault(small_vault)
    reason = _problem(report, "latin1.md").reason
    assert "UTF-8" in reason and "offset 5" in reason


def test_a_50_mb_file_is_skipped_without_being_read_whole(small_vault):
    with open(small_vault / "huge.md", "wb") as handle:
        handle.truncate(50 * 1024 * 1024)  # sparse: 50 MB on paper, no time to write
    report = index_vault(small_vault)
    reason = _problem(report, "huge.md").reason
    assert "too large" in reason and "max_file_mb" in reason
    assert _paths(small_vault) == {"good.md"}


def test_empty_file_is_a_warning_not_an_error(small_vault):
    (small_vault / "empty.md").write_text("")
    (small_vault / "blank.md").write_text("   \n\n")
    report = index_vault(small_vault)
    assert _problem(report, "empty.md").severity == "warning"
    assert report.errors == 0 and report.warnings == 2


def test_symlink_loop_is_reported_and_not_followed(small_vault):
    (small_vault / "sub").mkdir()
    (small_vault / "sub" / "note.md").write_text("Inside sub.\n")
    os.symlink("..", small_vault / "sub" / "loop")
    report = index_vault(small_vault)
    assert "symlink loop" in _problem(report, "sub/loop").reason
    assert _paths(small_vault) == {"good.md", "sub/note.md"}


def test_broken_symlink_is_reported(small_vault):
    os.symlink("missing.md", small_vault / "dangling.md")
    report = index_vault(small_vault)
    assert "broken symlink" in _problem(report, "dangling.md").reason


def test_file_deleted_mid_run_is_reported_and_the_run_finishes(small_vault):
    (small_vault / "doomed.md").write_text("Soon gone.\n")
    (small_vault / "later.md").write_text("Still here.\n")

    def delete_after_planning(run):
        os.remove(small_vault / "doomed.md")

    pipeline = Pipeline.default().insert_after("plan", "delete-a-file", delete_after_planning)
    report = index_vault(small_vault, pipeline=pipeline)
    assert "disappeared" in _problem(report, "doomed.md").reason
    assert _paths(small_vault) == {"good.md", "later.md"}


def test_paths_with_spaces_and_unicode(small_vault):
    folder = small_vault / "réunions 2026" / "équipe données"
    folder.mkdir(parents=True)
    (folder / "compte rendu — 2026-02-01.md").write_text("# Compte rendu\n\nDécision: on garde Kafka.\n")
    report = index_vault(small_vault)
    assert report.errors == 0
    store = open_store(small_vault)
    doc = store.get_document(LOCAL, path="réunions 2026/équipe données/compte rendu — 2026-02-01.md")
    assert doc["date"] == "2026-02-01"
    store.close()


def test_a_note_that_breaks_later_keeps_its_indexed_version(small_vault):
    index_vault(small_vault)
    (small_vault / "good.md").write_text("---\ntitle: [broken\n---\nNew text\n")
    report = index_vault(small_vault)
    assert report.errors == 1
    store = open_store(small_vault)
    doc = store.get_document(LOCAL, path="good.md")
    assert doc["title"] == "Good", "the last good version stays searchable"
    assert [p.path for p in store.problems()] == ["good.md"]
    store.close()
    (small_vault / "good.md").write_text("---\ntitle: Fixed\n---\nText\n")
    index_vault(small_vault)
    store = open_store(small_vault)
    assert store.get_document(LOCAL, path="good.md")["title"] == "Fixed"
    assert store.problems() == [], "a fixed file's problem is cleared"
    store.close()


def test_indexing_never_writes_to_the_notes(vault):
    before = tree_digest(vault)
    index_vault(vault)
    index_vault(vault, full=True)
    assert tree_digest(vault) == before


def test_every_bad_input_at_once_through_the_cli(small_vault):
    (small_vault / "bad.md").write_text("---\nkey: : :\n  - x\n---\n")
    (small_vault / "bin.md").write_bytes(b"\x00\x01\x02")
    (small_vault / "empty.md").write_text("")
    before = tree_digest(small_vault)
    result = run_kbg("index", "--vault", str(small_vault), subprocess_=True)
    assert result.returncode == 3, result.stderr
    assert "error: bad.md: invalid YAML" in result.stderr
    assert "error: bin.md: binary" in result.stderr
    assert "Traceback" not in result.stderr
    assert "indexed 1, skipped 0, removed 0, errors 2" in result.stdout
    assert tree_digest(small_vault) == before
    status = run_kbg("index", "status", "--vault", str(small_vault), "--json")
    assert status.returncode == 0
    import json

    problems = {p["path"]: p["severity"] for p in json.loads(status.stdout)["problems"]}
    assert problems == {"bad.md": "error", "bin.md": "error", "empty.md": "warning"}


def test_pipeline_stages_can_be_inserted_before_and_removed(small_vault):
    seen = []
    pipeline = Pipeline.default().insert_before("finish", "note", lambda run: seen.append(run.indexed))
    pipeline.remove("cooccur")
    assert "cooccur" not in pipeline.names() and pipeline.names()[-2:] == ["note", "finish"]
    index_vault(small_vault, pipeline=pipeline)
    assert seen == [1]
    from kbgraph.errors import InvalidInput

    with pytest.raises(InvalidInput, match="no stage named 'nope'"):
        pipeline.remove("nope")

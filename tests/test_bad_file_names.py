"""A file or folder name that is not UTF-8 is one reported problem ("rename it"); every other note indexes,
and no command that meets such a name (index, status, view, why-not) crashes on it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .conftest import run_kbg

# How Python hands such a name over (os.listdir, sys.argv): the byte 0xff as a lone surrogate.
BAD_NAME = os.fsdecode(b"bad-\xff.md")
BAD_FOLDER = os.fsdecode(b"dir-\xfe")


@pytest.fixture
def bad_vault(tmp_path: Path) -> Path:
    root = tmp_path / "v"
    root.mkdir()
    (root / "good.md").write_text("---\ntype: technology\nname: Kafka\n---\n# Kafka\n\nOur message bus.\n")
    try:
        (root / BAD_NAME).write_text("# x\n")
        (root / BAD_FOLDER).mkdir()
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system refuses names that are not UTF-8")
    (root / BAD_FOLDER / "inner.md").write_text("# Inner\n")
    return root


def _index(vault: Path) -> dict:
    result = run_kbg("index", "--vault", str(vault), "--json")
    assert "Traceback" not in result.stderr, result.stderr
    return json.loads(result.stdout)


def test_a_badly_named_note_is_one_problem_and_the_rest_indexes(bad_vault):
    report = _index(bad_vault)
    problems = {p["path"]: p for p in report["problems"]}
    assert problems["bad-\\xff.md"]["reason"] == "file name is not valid UTF-8; rename it"
    assert problems["bad-\\xff.md"]["severity"] == "error"
    assert problems["dir-\\xfe"]["reason"] == "folder name is not valid UTF-8; rename it"
    assert problems["dir-\\xfe"]["severity"] == "warning", "a folder may hold no notes at all"
    assert report["indexed"] == 1 and (report["errors"], report["warnings"]) == (1, 1)
    again = _index(bad_vault)  # every run, not only the first, gets through
    assert again["skipped"] == 1 and {p["path"] for p in again["problems"]} == set(problems)


def test_status_view_and_why_not_show_the_name_escaped(bad_vault):
    _index(bad_vault)
    status = run_kbg("index", "status", "--vault", str(bad_vault))
    assert status.returncode == 0 and "bad-\\xff.md: file name is not valid UTF-8; rename it" in status.stdout
    shown = json.loads(run_kbg("index", "status", "--vault", str(bad_vault), "--json").stdout)
    assert "bad-\\xff.md" in [p["path"] for p in shown["problems"]]
    view = run_kbg("view", BAD_NAME, "--vault", str(bad_vault))
    assert view.returncode == 1 and "Traceback" not in view.stderr
    assert "'bad-\\xff.md' is not in the index: its name is not valid UTF-8" in view.stderr
    why = run_kbg("search", "kafka", "--why-not", BAD_NAME, "--vault", str(bad_vault), "--json")
    assert why.returncode == 0, why.stderr
    assert json.loads(why.stdout)["why_not"] == {
        "path": "bad-\\xff.md", "reason": "not-indexed",
        "detail": "its name is not valid UTF-8, so it is never indexed: rename it"}


def test_a_vault_whose_own_path_is_not_utf8_indexes_and_reads(tmp_path):
    root = tmp_path / os.fsdecode(b"vault-\xfe")
    try:
        root.mkdir()
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system refuses names that are not UTF-8")
    (root / "n.md").write_text("# Note\n\nKafka things.\n")
    assert _index(root)["indexed"] == 1
    view = run_kbg("view", "n.md", "--vault", str(root))
    assert view.returncode == 0 and "Kafka things." in view.stdout


def test_mention_edits_name_a_bad_path_instead_of_crashing(bad_vault):
    _index(bad_vault)
    for command in ("link", "unlink"):
        result = run_kbg("entity", command, "Kafka", BAD_NAME, "--vault", str(bad_vault))
        assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
        assert "'bad-\\xff.md' is not in the index: its name is not valid UTF-8" in result.stderr

"""The vault is a boundary: no read or write leaves its real root, whatever symlinks or paths say.

The rule for a note replaced by a link out of the vault after it was indexed: it is reported (a
warning) on every run and never read; its document keeps what was indexed while it was a note of
the vault (a file that cannot be read now is not a deletion), and `view` refuses to show it.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from kbgraph.config import Config
from kbgraph.errors import InvalidInput, OutsideVault
from kbgraph.base.vault import read_file, vault_path, walk_vault
from kbgraph.model import Problem
from kbgraph.pages.files import append_to_note, create_entity_page, edit_page

from .conftest import kbg, run_kbg

SECRET = "TOPSECRET payroll figures\n"
OUTSIDE = "symlink points outside the vault; not followed"
NOT_REGULAR = "not a regular file (a FIFO, socket or device); skipped"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    (folder / "folder").mkdir(parents=True)
    (folder / "secret.md").write_text(SECRET)
    (folder / "folder" / "inner.md").write_text(SECRET)
    return folder


@pytest.fixture
def root(tmp_path: Path) -> Path:
    vault = tmp_path / "v"
    (vault / "sub").mkdir(parents=True)
    (vault / "good.md").write_text("# Good\n\nA note about Kafka.\n")
    (vault / "sub" / "x.md").write_text("# X\n\nInside.\n")
    return vault


def _index(vault: Path) -> dict:
    result = run_kbg("index", "--vault", str(vault), "--json")
    assert "Traceback" not in result.stderr, result.stderr
    return json.loads(result.stdout)


def _problems(report: dict) -> dict[str, tuple[str, str]]:
    return {p["path"]: (p["reason"], p["severity"]) for p in report["problems"]}


def _paths(vault: Path) -> set[str]:
    return {d["path"] for d in kbg(vault, "list")["documents"]}


def test_links_out_of_the_vault_are_reported_and_skipped_links_inside_still_work(root, outside):
    os.symlink(outside / "secret.md", root / "secret.md")
    os.symlink("../../outside/folder", root / "sub" / "linked")  # relative, and a folder
    os.symlink("good.md", root / "alias.md")
    report = _index(root)
    problems = _problems(report)
    assert problems["secret.md"] == (OUTSIDE, "warning")
    assert problems["sub/linked"] == (OUTSIDE, "warning")
    assert _paths(root) == {"good.md", "alias.md", "sub/x.md"}
    assert kbg(root, "search", "payroll", "--mode", "bm25")["hits"] == []


def test_a_note_replaced_by_a_link_out_after_indexing_is_never_read(root, outside):
    _index(root)
    (root / "good.md").unlink()
    os.symlink(outside / "secret.md", root / "good.md")
    view = run_kbg("view", "good.md", "--vault", str(root))
    assert view.returncode == 1 and "Traceback" not in view.stderr
    assert "good.md leads outside the vault" in view.stderr and "TOPSECRET" not in view.stdout + view.stderr
    report = _index(root)
    assert _problems(report)["good.md"] == (OUTSIDE, "warning")
    assert _paths(root) == {"good.md", "sub/x.md"}, "kept as indexed, like any note unreadable now"
    assert kbg(root, "search", "payroll", "--mode", "bm25")["hits"] == []
    assert run_kbg("view", "good.md", "--vault", str(root)).returncode == 1


def test_a_note_swapped_for_a_link_out_between_walk_and_read_is_not_read(root, outside):
    files, _ = walk_vault(root, Config())
    entry = next(f for f in files if f.path == "good.md")
    (root / "good.md").unlink()
    os.symlink(outside / "secret.md", root / "good.md")
    assert read_file(entry, Config()) == Problem("good.md", OUTSIDE, "warning")


def test_relate_on_a_page_linked_out_is_refused_and_the_outside_file_unchanged(unmapped_vault, tmp_path):
    page = unmapped_vault / "people" / "dana-kowalski.md"
    target = tmp_path / "dana-elsewhere.md"
    target.write_bytes(page.read_bytes())
    before = target.read_bytes()
    page.unlink()
    os.symlink(target, page)
    result = run_kbg("entity", "relate", "Dana Kowalski", "--type", "reports-to", "--target", "Ana Lima",
                     "--vault", str(unmapped_vault))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "people/dana-kowalski.md leads outside the vault" in result.stderr
    assert target.read_bytes() == before and page.is_symlink()
    assert kbg(unmapped_vault, "entity", "relations", "Dana Kowalski")["relations"] == []


def test_link_on_a_note_linked_out_is_refused_and_the_outside_file_unchanged(indexed_vault, tmp_path):
    note = indexed_vault / "notes" / "hiring-thoughts.md"
    target = tmp_path / "elsewhere.md"
    target.write_bytes(note.read_bytes())
    note.unlink()
    os.symlink(target, note)
    error = kbg(indexed_vault, "entity", "link", "Ana Lima", "notes/hiring-thoughts.md", code=1)["error"]
    assert "leads outside the vault" in error
    assert target.read_bytes() == (indexed_vault.parent / "elsewhere.md").read_bytes()
    assert "[[Ana Lima" not in target.read_text()


def test_pages_are_not_created_or_appended_through_a_folder_linked_out(root, outside):
    os.symlink(outside / "folder", root / "people")
    os.symlink(outside / "folder", root / "daily")
    with pytest.raises(OutsideVault):
        create_entity_page(root, "person", "Zed Quinn")
    with pytest.raises(OutsideVault):
        append_to_note(root, "daily/2026-01-01.md", "- 09:00 standup")
    assert sorted(p.name for p in (outside / "folder").iterdir()) == ["inner.md"]


def test_a_dangling_link_takes_a_page_name_and_is_never_written_through(root, outside):
    (root / "people").mkdir()
    os.symlink(outside / "zed-quinn.md", root / "people" / "zed-quinn.md")  # points outside, nothing there yet
    assert create_entity_page(root, "person", "Zed Quinn") == "people/zed-quinn-2.md"
    assert not (outside / "zed-quinn.md").exists()


def test_traversal_and_absolute_paths_are_refused(root, outside):
    for path in ("../outside/secret.md", str(outside / "secret.md"), "sub/../../outside/secret.md"):
        with pytest.raises(OutsideVault):
            vault_path(root, path)
        with pytest.raises(OutsideVault):
            edit_page(root, path, lambda text, offset: text + "- x\n")
    with pytest.raises(OutsideVault):
        create_entity_page(root, "../escape", "Zed Quinn")  # config refuses such a type; this is the second guard
    assert (outside / "secret.md").read_text() == SECRET and not (root.parent / "escapes").exists()
    assert vault_path(root, "sub/../good.md") == (root / "good.md").resolve()
    view = run_kbg("view", "../outside/secret.md", "--vault", str(root))
    assert view.returncode != 0 and "TOPSECRET" not in view.stdout


def test_a_page_linked_inside_the_vault_is_written_where_it_lives(root):
    os.symlink("good.md", root / "alias.md")
    assert edit_page(root, "alias.md", lambda text, offset: text + "More.\n")
    assert (root / "alias.md").is_symlink()
    assert (root / "good.md").read_text() == "# Good\n\nA note about Kafka.\nMore.\n"


def test_a_fifo_with_a_note_name_is_reported_and_never_opened(root):
    os.mkfifo(root / "pipe.md")
    os.mkfifo(root / "not-a-note.fifo")
    report = _index(root)
    assert _problems(report) == {"pipe.md": (NOT_REGULAR, "warning")}
    assert _paths(root) == {"good.md", "sub/x.md"}


def _alarm(signum, frame):
    raise TimeoutError("blocked opening a FIFO")


def test_a_note_replaced_by_a_fifo_is_refused_without_blocking(root):
    files, _ = walk_vault(root, Config())
    entry = next(f for f in files if f.path == "good.md")
    _index(root)
    (root / "good.md").unlink()
    os.mkfifo(root / "good.md")
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(10)  # opening a FIFO for reading blocks until a writer comes: fail instead of hanging
    try:
        assert read_file(entry, Config()) == Problem("good.md", NOT_REGULAR, "warning")
        view = kbg(root, "view", "good.md")
        assert view["stale"] is True and view["text"] == ""
        with pytest.raises(InvalidInput, match="not a regular file"):
            edit_page(root, "good.md", lambda text, offset: text + "- x\n")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)

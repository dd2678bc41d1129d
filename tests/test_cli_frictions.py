"""Small frictions a new user met (issue 16): the reference's usage lines, --vault before the command,
CSV cells, a read-only vault, and why an ignored file is not found."""

from __future__ import annotations

import csv
import errno
import importlib.util
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from .conftest import REPO, copy_indexed, run_kbg


def _generator():
    spec = importlib.util.spec_from_file_location("gen_cli_reference", REPO / "tools" / "gen_cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_usage_line_names_the_command_once():
    """It read `Usage: kbg kbg entity kbg entity relations`: each context's name was the whole path."""
    walked = list(_generator().walk())
    for path, command, ctx in walked:
        assert command.get_help(ctx).startswith(f"Usage: {path} "), path
    assert any(path == "kbg entity relations" for path, _, _ in walked)


# --- --vault before the command ------------------------------------------------------


def test_vault_before_the_command_is_taken(shared_sample, tmp_path):
    """`kbg --vault X search ...` was refused: "No such option: --vault"."""
    result = run_kbg("--vault", str(shared_sample), "search", "token rotation", "--mode", "bm25", "--json",
                     cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["hits"]


def test_vault_after_the_command_wins_over_one_before(shared_sample, tmp_path):
    result = run_kbg("--vault", str(tmp_path / "nowhere"), "index", "status", "--vault", str(shared_sample),
                     "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    result = run_kbg("--vault", str(shared_sample), "index", "status", "--vault", str(tmp_path / "nowhere"),
                     "--json", cwd=tmp_path)
    assert result.returncode != 0 and "nowhere" in result.stderr


def test_vault_before_the_command_wins_over_kbg_vault(shared_sample, tmp_path):
    result = run_kbg("--vault", str(shared_sample), "entity", "list", "--json", cwd=tmp_path,
                     env={"KBG_VAULT": str(tmp_path / "nowhere")})
    assert result.returncode == 0, result.stderr
    result = run_kbg("entity", "list", "--json", cwd=tmp_path, env={"KBG_VAULT": str(shared_sample)})
    assert result.returncode == 0, result.stderr


def test_init_takes_the_vault_given_before_it(tmp_path):
    """`kbg --vault X init` made the current folder a vault (kbgraph.toml written there), not X."""
    (tmp_path / "here").mkdir()
    (tmp_path / "notes").mkdir()
    result = run_kbg("--vault", str(tmp_path / "notes"), "init", "--json", cwd=tmp_path / "here")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "notes" / "kbgraph.toml").exists() and not (tmp_path / "here" / "kbgraph.toml").exists()
    assert json.loads(result.stdout)["vault"] == str((tmp_path / "notes").resolve())


def test_a_group_vault_reaches_a_subcommand(shared_sample, tmp_path):
    result = run_kbg("index", "--vault", str(shared_sample), "status", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["documents"] > 0


def test_db_before_the_command_is_used(shared_sample, tmp_path):
    """--db before the command reaches the store, as after it: the same connection error, not a usage error."""
    url = "postgresql://nobody@127.0.0.1:1/none"
    before = run_kbg("--db", url, "index", "status", "--vault", str(shared_sample), cwd=tmp_path)
    after = run_kbg("index", "status", "--vault", str(shared_sample), "--db", url, cwd=tmp_path)
    assert before.returncode == after.returncode == 1
    assert before.stderr == after.stderr and "127.0.0.1" in before.stderr


def test_model_status_takes_vault(shared_sample, tmp_path):
    """`kbg model status --vault X` was a usage error (exit 2); now it reports (exit 0, or 1 without the model)."""
    for args in (("model", "status", "--vault", str(shared_sample), "--json"),
                 ("--vault", str(shared_sample), "model", "status", "--json")):
        result = run_kbg(*args, cwd=tmp_path)
        assert result.returncode in (0, 1), result.stderr
        assert "name" in json.loads(result.stdout)


# --- CSV cells -------------------------------------------------------------------------


def _csv_rows(*args: str) -> list[dict]:
    result = run_kbg(*args, "--format", "csv")
    assert result.returncode == 0, result.stderr
    return list(csv.DictReader(io.StringIO(result.stdout)))


def test_csv_joins_a_list_and_leaves_an_empty_one_empty(shared_sample):
    """Aliases (a tuple) printed as "('Ana', 'A. Lima')" and no aliases as "()"."""
    rows = {r["name"]: r for r in _csv_rows("entity", "list", "--vault", str(shared_sample))}
    assert rows["Ana Lima"]["aliases"] == "Ana; A. Lima"
    assert rows["Kubernetes"]["aliases"] == "k8s; kube"
    assert all("(" not in r["aliases"] and "[" not in r["aliases"] for r in rows.values())
    hits = _csv_rows("search", "token rotation", "--mode", "bm25", "--vault", str(shared_sample),
                     "--fields", "path,duplicates")
    assert any(hit["duplicates"] == "" for hit in hits)  # an empty list: "[]" before
    assert not any(hit["duplicates"].startswith(("[", "(")) for hit in hits)


def test_csv_tags_and_attributes(shared_sample):
    docs = _csv_rows("list", "--vault", str(shared_sample), "--fields", "path,tags")
    tagged = {r["path"]: r["tags"] for r in docs}
    assert tagged["meetings/2026/03/31/atlas-retro.md"] == "atlas; retro"
    rows = {r["name"]: r for r in _csv_rows("entity", "list", "--vault", str(shared_sample))}
    assert json.loads(rows["Ana Lima"]["attributes"])["role"] == "Engineering Manager"
    assert rows["Kubernetes"]["attributes"] == ""


# --- a read-only vault -------------------------------------------------------------------
# Root ignores file permissions, and this suite may run as root. Three tests, each honest about what
# it proves: (1) os.access says "not writable" for the index folder (what a read-only mount says even
# to root), then every read works through the real entry point, the connection truly cannot write
# (SQLite's mode=ro/immutable refuses root too) and nothing is created beside the index; (2) a lock
# file the user may not open is a one-line error; (3) with real permissions, as a user permissions
# apply to (this user when not root, else uid 65534 through setpriv; skipped when neither is possible).


def _index_folder_unwritable(monkeypatch, vault: Path) -> None:
    real = os.access
    folder = str(vault / ".kbgraph")

    def access(path, mode, *args, **kwargs):
        if mode & os.W_OK and str(path).startswith(folder):
            return False
        return real(path, mode, *args, **kwargs)

    monkeypatch.setattr(os, "access", access)


def test_a_read_only_index_is_read_and_refuses_writes_by_name(indexed_vault, monkeypatch):
    """Every command failed with "cannot open the index ...: attempt to write a readonly database"."""
    from kbgraph.store import open_store

    _index_folder_unwritable(monkeypatch, indexed_vault)
    before = sorted(p.name for p in (indexed_vault / ".kbgraph").iterdir())
    v = ("--vault", str(indexed_vault))
    for args in (("search", "token rotation"), ("search", "token rotation", "--mode", "bm25"), ("entity", "list"),
                 ("index", "status"), ("entity", "suggestions"), ("list",), ("entity", "find", "Ana Lima")):
        result = run_kbg(*args, *v, "--json")
        assert result.returncode == 0, (args, result.stderr)
    assert json.loads(run_kbg("search", "token rotation", *v, "--json").stdout)["hits"]
    assert sorted(p.name for p in (indexed_vault / ".kbgraph").iterdir()) == before  # no -shm, no -wal made
    relate = run_kbg("entity", "relate", "Ana Lima", "--type", "mentors", "--target", "Sam Li", *v)
    assert relate.returncode == 1
    assert relate.stderr.startswith("error: cannot change the index ")
    assert f"its folder {indexed_vault / '.kbgraph'} is read-only" in relate.stderr
    assert len(relate.stderr.strip().splitlines()) == 1
    store = open_store(indexed_vault, create=False)
    try:
        assert store.read_only == indexed_vault / ".kbgraph"
        with pytest.raises(sqlite3.OperationalError, match="readonly"):  # even as root
            store.db.execute("INSERT INTO meta (key, value) VALUES ('x', 'y')")
    finally:
        store.close()


def test_a_lock_file_the_user_may_not_open_is_a_one_line_error(tmp_path, monkeypatch):
    from kbgraph import locks
    from kbgraph.errors import StoreError

    def refused(path, mode="r"):
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(locks, "open", refused, raising=False)
    with pytest.raises(StoreError, match=f"{tmp_path} is read-only"):
        with locks.exclusive(tmp_path / "write.lock", 0, RuntimeError("busy")):
            pass


def _as_a_user_permissions_apply_to() -> list[str]:
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: file permissions cannot be made to apply")
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def test_a_read_only_vault_with_real_permissions(indexed_sample):
    prefix = _as_a_user_permissions_apply_to()
    top = Path(tempfile.mkdtemp(prefix="kbg-ro-"))  # not under pytest's tmp (0700): the other user must reach it
    try:
        vault = copy_indexed(indexed_sample, top / "vault")
        os.chmod(top, 0o755)
        for path in [vault, *vault.rglob("*")]:
            os.chmod(path, 0o555 if path.is_dir() else 0o444)
        entry = [sys.executable, "-m", "kbgraph.cli.app"]
        env = {**os.environ, "HOME": str(top), "COLUMNS": "120"}
        env.pop("KBG_VAULT", None)

        def kbg(*args):
            return subprocess.run([*prefix, *entry, *args, "--vault", str(vault)], env=env, cwd=top,
                                  capture_output=True, text=True, timeout=60)

        searched = kbg("search", "token rotation", "--json")
        assert searched.returncode == 0, searched.stderr
        assert json.loads(searched.stdout)["hits"]
        assert kbg("entity", "list", "--json").returncode == 0
        relate = kbg("entity", "relate", "Ana Lima", "--type", "mentors", "--target", "Sam Li")
        assert relate.returncode == 1
        assert "is read-only" in relate.stderr and str(vault / ".kbgraph") in relate.stderr
        assert "Traceback" not in relate.stderr
    finally:
        for path in [top, *top.rglob("*")]:
            if path.is_dir():
                os.chmod(path, 0o755)
        shutil.rmtree(top)


# --- why not: an ignored file ----------------------------------------------------------------


def _why_not(vault: Path, path: str) -> dict:
    result = run_kbg("search", "rollout", "--mode", "bm25", "--why-not", path, "--vault", str(vault), "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["why_not"]


def test_why_not_names_the_ignore_pattern(shared_sample):
    """A file under drafts/ (ignored by the sample's kbgraph.toml) answered a generic "not-indexed"."""
    assert (shared_sample / "drafts" / "unfinished.md").is_file()
    why = _why_not(shared_sample, "drafts/unfinished.md")
    assert why["reason"] == "ignored"
    assert "[index] ignore (pattern 'drafts/**')" in why["detail"]
    assert _why_not(shared_sample, "./drafts/unfinished.md")["reason"] == "ignored"
    human = run_kbg("search", "rollout", "--mode", "bm25", "--why-not", "drafts/unfinished.md",
                    "--vault", str(shared_sample))
    assert "ignored" in human.stdout and "drafts/**" in human.stdout


def test_why_not_a_hidden_folder_or_an_extension_not_indexed(shared_sample):
    hidden = _why_not(shared_sample, ".obsidian/workspace.md")
    assert hidden["reason"] == "ignored" and ".obsidian/" in hidden["detail"]
    other = _why_not(shared_sample, "notes/diagram.pdf")
    assert other["reason"] == "ignored" and "[index] extensions" in other["detail"]


def test_why_not_a_file_no_rule_keeps_out_is_still_not_indexed(shared_sample):
    assert _why_not(shared_sample, "notes/never-written.md")["reason"] == "not-indexed"


def test_why_skipped_follows_the_walk_folder_by_folder():
    from kbgraph.config import config_from_dict
    from kbgraph.base.vault import why_skipped

    config = config_from_dict({"index": {"ignore": ["archive/", "*.tmp.md"]}})
    assert "pattern 'archive/'" in why_skipped("archive/2024/old.md", config)
    assert "pattern '*.tmp.md'" in why_skipped("notes/x.tmp.md", config)
    assert "node_modules/" in why_skipped("web/node_modules/readme.md", config)
    assert why_skipped("notes/archive.md", config) is None

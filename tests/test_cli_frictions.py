"""Small frictions a new user met (issue 16): the reference's usage lines, --vault before the command,
CSV cells, a read-only vault, and why an ignored file is not found."""

from __future__ import annotations

import csv
import importlib.util
import io
import json

from .conftest import REPO, run_kbg


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
    assert hits and all(hit["duplicates"] == "" for hit in hits)  # an empty list: "[]" before


def test_csv_tags_and_attributes(shared_sample):
    docs = _csv_rows("list", "--vault", str(shared_sample), "--fields", "path,tags")
    tagged = {r["path"]: r["tags"] for r in docs}
    assert tagged["meetings/2026/03/31/atlas-retro.md"] == "atlas; retro"
    rows = {r["name"]: r for r in _csv_rows("entity", "list", "--vault", str(shared_sample))}
    assert json.loads(rows["Ana Lima"]["attributes"])["role"] == "Engineering Manager"
    assert rows["Kubernetes"]["attributes"] == ""

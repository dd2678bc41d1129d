"""End-to-end: the real `kbg` entry point on a copy of the sample vault."""

from __future__ import annotations

import csv
import io
import json

import pytest

from .conftest import REPO, run_kbg


@pytest.fixture
def cli_vault(indexed_vault):
    """A copy of the sample vault indexed by `kbg index` (once per session; see conftest)."""
    return indexed_vault


def kbg_json(*args, vault=None, code=0, cwd=None, env=None):
    extra = ("--vault", str(vault)) if vault else ()
    result = run_kbg(*args, *extra, "--json", cwd=cwd, env=env)
    assert result.returncode == code, (result.stdout, result.stderr)
    return json.loads(result.stdout) if result.stdout.strip() else None


def test_init_writes_config_and_index_folder(tmp_path):
    target = tmp_path / "notes"
    result = run_kbg("init", str(target))
    assert result.returncode == 0, result.stderr
    assert (target / "kbgraph.toml").is_file() and (target / ".kbgraph").is_dir()
    original = (target / "kbgraph.toml").read_text()
    assert run_kbg("init", str(target)).returncode == 0
    assert (target / "kbgraph.toml").read_text() == original, "init never overwrites an existing config"


def test_vault_is_found_from_a_subfolder_and_from_KBG_VAULT(cli_vault, tmp_path):
    from_sub = kbg_json("list", cwd=cli_vault / "meetings" / "2026")
    assert from_sub["count"] > 30
    from_env = kbg_json("list", cwd=tmp_path, env={"KBG_VAULT": str(cli_vault)})
    assert from_env["count"] == from_sub["count"]


def test_installed_console_script_runs_end_to_end(vault):
    indexed = run_kbg("index", "--vault", str(vault), subprocess_=True)
    assert indexed.returncode == 0, indexed.stderr
    found = run_kbg("search", "Kafka", "--vault", str(vault), "--json", subprocess_=True)
    assert found.returncode == 0 and json.loads(found.stdout)["hits"]


def test_no_vault_is_a_one_line_error(tmp_path):
    result = run_kbg("search", "x", cwd=tmp_path, subprocess_=True)
    assert result.returncode == 1
    assert result.stderr.startswith("error: no vault at or above") and "kbg init" in result.stderr
    assert "Traceback" not in result.stderr


def test_unindexed_vault_says_to_run_index(tmp_path):
    run_kbg("init", str(tmp_path / "v"))
    result = run_kbg("search", "x", "--vault", str(tmp_path / "v"))
    assert result.returncode == 1 and "has not been indexed yet; run `kbg index`" in result.stderr


def test_index_json_summary_and_status(cli_vault):
    summary = kbg_json("index", vault=cli_vault)
    assert summary["indexed"] == 0 and summary["skipped"] >= 36 and summary["errors"] == 0
    status = kbg_json("index", "status", vault=cli_vault)
    assert status["documents"] == summary["skipped"]
    # 9 people pages, and the names 'Arjoon' and 'Dan' of meetings/2026/04/16, still asked about
    assert status["entities_by_type"]["person"] == 11
    assert status["last_indexed"] and status["index_bytes"] > 0 and status["problems"] == []


def test_index_human_summary_line(cli_vault):
    result = run_kbg("index", "--full", "--vault", str(cli_vault))
    assert result.returncode == 0
    assert result.stdout.startswith("indexed ") and " errors 0 in " in result.stdout


def test_search_finds_and_highlights(cli_vault):
    data = kbg_json("search", "token rotation", vault=cli_vault)
    assert data["mode"].startswith("all-terms") and data["count"] > 0
    top = data["hits"][0]
    assert {"path", "line", "title", "kind", "date", "heading", "snippet", "score", "doc_id", "chunk_id"} <= set(top)
    assert "**" in top["snippet"]


@pytest.mark.parametrize(
    "query",
    ['"unbalanced', "(atlas", "atlas)", "AND", "NEAR(a b)", "*", "-", "a -", "OR OR", "rotation*", "'; DROP",
     "col:umn", "^start", "{x}", "日本語", "😀"],
)
def test_search_is_safe_for_any_user_text(cli_vault, query):
    result = run_kbg("search", query, "--vault", str(cli_vault), "--json")
    assert result.returncode == 0, result.stderr
    json.loads(result.stdout)


def test_empty_query_is_an_error(cli_vault):
    result = run_kbg("search", "  ", "--vault", str(cli_vault))
    assert result.returncode == 1 and result.stderr.startswith("error: empty query")


def test_search_filters(cli_vault):
    meetings = kbg_json("search", "Atlas", "--type", "meeting", vault=cli_vault)
    assert meetings["hits"] and all(h["kind"] == "meeting" for h in meetings["hits"])
    dated = kbg_json("search", "Atlas", "--from", "2026-02", "--to", "2026-03-15", vault=cli_vault)
    assert dated["hits"] and all("2026-02-01" <= h["date"] <= "2026-03-15" for h in dated["hits"])
    under = kbg_json("search", "Atlas", "--path", "projects", vault=cli_vault)
    assert under["hits"] and all(h["path"].startswith("projects/") for h in under["hits"])
    tagged = kbg_json("search", "Atlas", "--tag", "sync", vault=cli_vault)
    assert tagged["hits"]
    bad = run_kbg("search", "Atlas", "--from", "March", "--vault", str(cli_vault))
    assert bad.returncode == 1 and "--from 'March'" in bad.stderr


def test_formats_and_fields(cli_vault):
    out = run_kbg("list", "--type", "person", "--format", "csv", "--fields", "title,path", "--vault", str(cli_vault))
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert len(rows) == 9 and set(rows[0]) == {"title", "path"}
    out = run_kbg("entity", "list", "--format", "jsonl", "--vault", str(cli_vault))
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(lines) == kbg_json("index", "status", vault=cli_vault)["entities"] and {"id", "type", "name", "aliases", "tier"} <= set(lines[0])
    bad = run_kbg("list", "--fields", "nope", "--vault", str(cli_vault))
    assert bad.returncode == 2 and "unknown field" in bad.stderr
    table = run_kbg("list", "--type", "team", "--vault", str(cli_vault))
    assert table.returncode == 0 and "teams/platform.md" in table.stdout


def test_view_by_path_line_and_id(cli_vault):
    by_path = kbg_json("view", "people/ana-lima.md", vault=cli_vault)
    assert by_path["document"]["title"] == "Ana Lima" and "# Ana Lima" in by_path["text"]
    by_id = kbg_json("view", str(by_path["document"]["id"]), vault=cli_vault)
    assert by_id["document"]["path"] == "people/ana-lima.md"
    second = by_path["chunks"][1]
    by_line = kbg_json("view", f"people/ana-lima.md:{second['line'] + 1}", vault=cli_vault)
    assert by_line["chunk"]["id"] == second["id"]
    missing = run_kbg("view", "nope.md", "--vault", str(cli_vault))
    assert missing.returncode == 1 and "not in the index" in missing.stderr
    past = run_kbg("view", "people/ana-lima.md:9999", "--vault", str(cli_vault))
    assert past.returncode == 1 and "past the end" in past.stderr


def test_list_filters_by_kind_and_date(cli_vault):
    data = kbg_json("list", "--type", "meeting", "--from", "2026-03-01", vault=cli_vault)
    assert data["count"] > 0
    assert all(d["kind"] == "meeting" and d["date"] >= "2026-03-01" for d in data["documents"])


def test_person_find_profile_and_by_alias(cli_vault):
    data = kbg_json("person", "find", "AJ", vault=cli_vault)
    assert data["entity"]["name"] == "Arjun Mehta" and data["documents"] > 3
    dates = [d["date"] for d in data["recent_documents"] if d["date"]]
    assert dates == sorted(dates, reverse=True), "recent documents are newest first"
    human = run_kbg("person", "find", "Ana", "--vault", str(cli_vault))
    assert human.returncode == 0 and "Ana Lima — Engineering Manager (Platform)" in human.stdout


def test_ambiguous_name_lists_candidates_and_exits_non_zero(cli_vault):
    result = run_kbg("person", "find", "Sam", "--vault", str(cli_vault))
    assert result.returncode == 1
    assert "ambiguous: 'Sam' matches" in result.stderr
    assert "Sam Li" in result.stderr and "Sam Ortiz" in result.stderr
    data = kbg_json("person", "find", "Sam", vault=cli_vault, code=1)
    assert {c["name"] for c in data["candidates"]} == {"Sam Li", "Sam Ortiz"}


def test_unknown_name_suggests_close_spellings(cli_vault):
    result = run_kbg("person", "find", "Arjun Metha", "--vault", str(cli_vault))
    assert result.returncode == 1 and "did you mean 'Arjun Mehta'" in result.stderr


def test_type_scoped_find(cli_vault):
    assert kbg_json("project", "find", "Atlas", vault=cli_vault)["entity"]["name"] == "Project Atlas"
    assert kbg_json("team", "find", "platform", vault=cli_vault)["entity"]["type"] == "team"
    result = run_kbg("team", "find", "Ana Lima", "--vault", str(cli_vault))
    assert result.returncode == 1 and "no team named" in result.stderr
    assert kbg_json("entity", "find", "k8s", vault=cli_vault)["entity"]["name"] == "Kubernetes"


def test_person_timeline_is_by_date(cli_vault):
    data = kbg_json("person", "timeline", "Dana Kowalski", vault=cli_vault)
    dates = [d["date"] for d in data["documents"] if d["date"]]
    assert dates == sorted(dates) and len(dates) >= 3
    assert data["entity"]["name"] == "Dana Kowalski"


def test_entity_list_by_type(cli_vault):
    data = kbg_json("entity", "list", "--type", "technology", vault=cli_vault)
    assert {e["name"] for e in data["entities"]} == {"Kafka", "Kubernetes", "PostgreSQL"}


def test_every_command_has_json(cli_vault):
    from kbgraph.cli.app import cli as group

    import click

    def walk(command, prefix=()):
        ctx = click.Context(command)
        names = command.list_commands(ctx) if isinstance(command, click.Group) else []
        for name in names:
            yield from walk(command.get_command(ctx, name), prefix + (name,))
        if not names or getattr(command, "invoke_without_command", False):
            yield prefix, command

    servers = {("mcp",), ("serve",)}  # long-running servers speak their own protocol, not one JSON document
    paths = list(walk(group))
    assert len(paths) > 60 and ("entity", "relate") in {p for p, _ in paths}  # the lazy commands were all found
    for path, command in paths:
        options = {o for p in command.params for o in getattr(p, "opts", [])}
        assert "--json" in options or path in servers, f"kbg {' '.join(path)} lacks --json"
    # The docs that say every command takes --json name the ones that do not (they said every command).
    for doc in ("README.md", "docs/json.md"):
        claim = next(p for p in (REPO / doc).read_text(encoding="utf-8").split("\n\n") if "`--json`" in p
                     and "Every" in p)
        assert all(f"`kbg {' '.join(server)}`" in claim for server in servers), (doc, claim)


def test_fields_are_validated_the_same_with_or_without_results(cli_vault):
    empty = run_kbg("search", "zzqqxx", "--fields", "path,line", "--format", "csv", "--vault", str(cli_vault))
    assert empty.returncode == 0 and empty.stdout == "path,line\n"
    wrong = run_kbg("search", "zzqqxx", "--fields", "where", "--vault", str(cli_vault))
    assert wrong.returncode == 2 and "unknown field" in wrong.stderr


def test_typed_commands_have_no_stray_options():
    result = run_kbg("person", "find", "--help")
    assert "---t" not in result.stdout and "--vault" in result.stdout


def test_errors_are_json_for_every_json_format_spelling(cli_vault):
    for spelling in (["--json"], ["--format", "json"], ["--format=jsonl"]):
        result = run_kbg("person", "timeline", "Nobody", *spelling, "--vault", str(cli_vault))
        assert result.returncode == 1 and json.loads(result.stdout)["kind"] == "NotFound"


@pytest.mark.parametrize("args, message", [
    (("export", "-o", "/nonexistent-dir/x.json"), "cannot write /nonexistent-dir/x.json"),
    (("view", "#99999999999999999999"), "is not in the index"),
    (("init", "/etc/hostname/x"), "cannot make /etc/hostname/x a vault"),
])
def test_odd_paths_and_numbers_are_one_line_errors(cli_vault, args, message):
    result = run_kbg(*args, "--vault", str(cli_vault)) if args[0] != "init" else run_kbg(*args)
    assert result.returncode == 1 and message in result.stderr and "Traceback" not in result.stderr


def test_lazy_command_table_matches_the_commands():
    """Each name in app.COMMANDS loads a command of that name, and nothing is loaded before it is asked for."""
    import click

    from kbgraph.cli.app import COMMANDS, LazyGroup

    group = LazyGroup(name="probe")
    ctx = click.Context(group)
    assert group.list_commands(ctx) == sorted(COMMANDS) and not group.commands
    for name in COMMANDS:
        command = group.get_command(ctx, name)
        assert isinstance(command, click.Command) and command.name == name
    assert group.get_command(ctx, "no-such-command") is None


def test_search_does_not_import_other_commands(tmp_path):
    """`kbg search` loads its own command module only (the others cost ~75 ms of start-up)."""
    import subprocess
    import sys

    code = ("import sys; from kbgraph.cli.app import main; sys.argv = ['kbg', 'search', '--help']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('kbgraph.cli.') and m.endswith('_cmd')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "['kbgraph.cli.documents_cmd']"


@pytest.mark.parametrize("args, words", [
    (("search", "--bogus", "x"), "No such option: --bogus"),
    (("search",), "Missing argument 'QUERY'"),
    (("search", "x", "--format", "xml"), "unknown format 'xml'"),
    (("nosuch",), "No such command 'nosuch'"),
])
def test_a_usage_error_is_one_line_and_json_under_json(tmp_path, args, words):
    """Was click's three lines (usage, a 'Try' hint, a blank line, the error), and never JSON."""
    plain = run_kbg(*args, cwd=tmp_path)
    assert plain.returncode == 2 and plain.stdout == ""
    assert plain.stderr.count("\n") == 1 and plain.stderr.startswith("error: ") and words in plain.stderr
    assert "--help` shows the usage" in plain.stderr
    if "--format" in args:  # --json and --format together: --json wins, so the format is never read
        return
    as_json = run_kbg(*args, "--json", cwd=tmp_path)
    assert as_json.returncode == 2
    assert json.loads(as_json.stdout)["kind"] == "UsageError" and words in json.loads(as_json.stdout)["error"]


def test_a_bare_group_still_shows_its_help(tmp_path):
    shown = run_kbg("entity", cwd=tmp_path)
    assert shown.returncode == 2 and "Usage: kbg entity" in shown.stdout + shown.stderr
    assert run_kbg("--version", cwd=tmp_path).returncode == 0

"""Library errors speak the library (a parameter, a neutral hint); the CLI says them as flags and commands."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from kbgraph import errors
from kbgraph.access import LOCAL
from kbgraph.cli.wording import cli_words

from .conftest import run_kbg

SRC = Path(__file__).resolve().parents[1] / "src" / "kbgraph"
CLI_SPEAK = re.compile(r"(?<![\w-])--[a-z][\w-]*|\bkbg [a-z]")
ERROR_NAMES = {name for name, value in vars(errors).items() if isinstance(value, type)
               and issubclass(value, errors.KbgError)}


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _module_strings(tree: ast.Module) -> dict[str, str]:
    """Module-level NAME = "..." constants, which an error message may use by name."""
    return {target.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
            for target in node.targets if isinstance(target, ast.Name)}


def cli_speak(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string a raise or an error constructor is given that names a flag or a command."""
    tree = ast.parse(source)
    constants = _module_strings(tree)
    messages = [node.exc for node in ast.walk(tree) if isinstance(node, ast.Raise) and node.exc is not None]
    messages += [node for node in ast.walk(tree) if isinstance(node, ast.Call) and _called_name(node) in ERROR_NAMES]
    found = set()
    for message in messages:
        for node in ast.walk(message):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
            elif isinstance(node, ast.Name) and node.id in constants:
                text = constants[node.id]
            else:
                continue
            if CLI_SPEAK.search(text):
                found.add((node.lineno, text))
    return sorted(found)


def test_the_scan_finds_flags_and_commands_in_raise_messages():
    old = '''
HINT = "run `kbg model install`"
def f(limit, store):
    if limit < 1:
        raise InvalidInput(f"--limit must be at least 1, got {limit}")
    busy = IndexLocked("another `kbg index` is running on this vault")
    raise ModelMissing(f"not installed; {HINT}")
    raise NotFound(f"no relation A --{limit}--> B")
'''
    assert [line for line, _ in cli_speak(old)] == [5, 6, 7]


def test_no_library_error_names_a_cli_flag_or_command():
    speaking = {f"{path.relative_to(SRC)}:{line}: {text!r}"
                for path in SRC.rglob("*.py") if path.relative_to(SRC).parts[0] != "cli"
                for line, text in cli_speak(path.read_text(encoding="utf-8"))}
    assert not speaking, "library errors must name parameters and neutral hints, not CLI words:\n" + \
        "\n".join(sorted(speaking))


def test_a_library_error_carries_its_param_and_hint(tmp_path):
    from kbgraph.documents.views import parse_date_option
    from kbgraph.base.vault import find_vault
    from kbgraph.relations.staleness import stale_report

    with pytest.raises(errors.InvalidInput) as bad_days:
        stale_report(None, days=-1, access=LOCAL)
    assert (bad_days.value.param, bad_days.value.hint) == ("days", None)
    assert str(bad_days.value) == "`days` must be between 0 and 365000, got -1"
    with pytest.raises(errors.InvalidInput) as bad_date:
        parse_date_option("2026-13", "date_from")
    assert bad_date.value.param == "date_from" and "--" not in str(bad_date.value)
    with pytest.raises(errors.VaultNotFound) as no_vault:
        find_vault(start=tmp_path)
    assert no_vault.value.param == "vault"
    assert no_vault.value.hint == "create a vault here, or give the vault's path (or set KBG_VAULT)"
    assert str(no_vault.value) == f"{no_vault.value.message}; {no_vault.value.hint}"


def test_the_cli_says_params_as_flags_and_hints_as_commands():
    assert cli_words("`limit` must be at least 1, got 0") == "--limit must be at least 1, got 0"
    assert cli_words("custom relations need `reason`: it is their label") == \
        "custom relations need --reason: it is their label"
    assert cli_words("`unknown` stays as written") == "`unknown` stays as written"
    assert cli_words("vault '/a b' is not a directory; create a vault at /a b first") == \
        "vault '/a b' is not a directory; run `kbg init '/a b'` to create it"  # pasted, it must be one argument
    assert cli_words("vault '/notes' is not a directory; create a vault at /notes first") == \
        "vault '/notes' is not a directory; run `kbg init /notes` to create it"
    assert cli_words("x.md has no unlinked mention of 'Sam Li'; list the unlinked mentions of 'Sam Li'") == \
        "x.md has no unlinked mention of 'Sam Li' (`kbg entity unlinked-mentions 'Sam Li'` lists them)"


@pytest.fixture
def small(tmp_path: Path) -> Path:
    root = tmp_path / "v"
    assert run_kbg("init", str(root)).returncode == 0
    (root / "people").mkdir()
    for name in ("Ana Lima", "Ben Okafor"):
        (root / "people" / f"{name.split()[0].lower()}.md").write_text(f"---\ntype: person\n---\n# {name}\n")
    assert run_kbg("index", "--vault", str(root)).returncode == 0
    return root


def _error(root: Path, *args: str) -> tuple[str, dict | None]:
    result = run_kbg(*args, "--vault", str(root))
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    return result.stderr, json.loads(result.stdout) if result.stdout.strip() else None


@pytest.mark.parametrize("args, said", [
    (("entity", "stale", "--days", "-1"), "--days must be between 0 and 365000, got -1"),
    (("entity", "suggest-relations", "--from-doc", "no.md"),
     "--from-doc 'no.md' is not in the index; give a vault-relative path (`kbg list`)"),
    (("list", "--from", "2026-13"), "--from '2026-13' is not a real date"),
    (("entity", "relate", "Ana Lima", "--type", "custom", "--target", "Ben Okafor"),
     "custom relations need --reason: it is their label"),
    (("entity", "relate", "Ana Lima", "--type", "mentors", "--target", "Ben Okafor", "--valid-until", "soon"),
     "--valid-until 'soon': use a real date as YYYY-MM-DD"),
    (("entity", "relate", "Ana Lima", "--type", "mentors", "--target", "Ben Okafor", "--source-doc", "no.md"),
     "--source-doc 'no.md' is not in the index; give a vault-relative path (`kbg list`)"),
    (("entity", "unrelate", "Ana Lima", "--type", "mentors", "--target", "Ben Okafor"),
     "no relation Ana Lima --mentors--> Ben Okafor; `kbg entity relations 'Ana Lima'` lists what exists"),
    (("view", "999"), "no document with id 999; `kbg list` shows ids"),
])
def test_the_cli_prints_the_flag_worded_message(small, args, said):
    stderr, _ = _error(small, *args)
    assert stderr == f"error: {said}\n"
    _, as_json = _error(small, *args, "--json")
    assert as_json["error"] == said and set(as_json) == {"error", "kind"}


def test_no_vault_names_kbg_init_and_the_vault_flag(tmp_path):
    result = run_kbg("list", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr == (f"error: no vault at or above {tmp_path.resolve()}; run `kbg init` here, "
                             "or pass --vault PATH (or set KBG_VAULT)\n")

"""A command-line argument holding bytes that are not UTF-8: a text argument (a query, a name, a filter) is
one clear error naming it; a path on disk (the vault, a backup file) keeps its bytes and works."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .conftest import copy_indexed, run_kbg

BAD = os.fsdecode(b"he\xff")  # how Python hands such bytes over in sys.argv


@pytest.fixture
def vault(tmp_path: Path, indexed_sample: Path) -> Path:
    return copy_indexed(indexed_sample, tmp_path / "vault")


@pytest.mark.parametrize("args, said", [
    (("search", BAD), "QUERY"),
    (("list", "--path", BAD), "--path"),
    (("entity", "find", BAD), "NAME"),
    (("search", "kafka", "--type", BAD), "--type"),
])
def test_a_text_argument_that_is_not_utf8_is_one_line_naming_it(vault, args, said):
    result = run_kbg(*args, "--vault", str(vault), subprocess_=True)  # real argv bytes, real entry point
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.strip().splitlines() == [
        f"error: {said} is not valid UTF-8 ('he\\xff'): kbgraph reads it as text; "
        "type it in UTF-8 (check the terminal's encoding)"]


def test_json_callers_get_the_error_as_json(vault):
    result = run_kbg("search", BAD, "--json", "--vault", str(vault))
    assert result.returncode == 2
    assert json.loads(result.stdout)["kind"] == "InvalidInput"


def test_a_vault_path_that_is_not_utf8_still_works(vault, tmp_path):
    odd = tmp_path / os.fsdecode(b"vault-\xfe")
    try:
        vault.rename(odd)
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system refuses names that are not UTF-8")
    result = run_kbg("search", "kafka", "--vault", str(odd), "--json", subprocess_=True)
    assert result.returncode == 0, result.stderr
    backup = run_kbg("backup", str(tmp_path / os.fsdecode(b"copy-\xfe.db")), "--vault", str(odd))
    assert backup.returncode == 0, backup.stderr


def test_a_missing_vault_path_that_is_not_utf8_is_shown_as_its_bytes(tmp_path):
    """It said "vault '/…/no\\udcff' is not a directory; run `kbg init /…/no\\udcff`": Python's surrogate
    escape, which no shell reads back as the byte."""
    missing = str(tmp_path / os.fsdecode(b"no-\xff"))
    result = run_kbg("search", "kafka", "--vault", missing, subprocess_=True)
    assert result.returncode == 1 and "udc" not in result.stderr, result.stderr
    shown = f"{tmp_path}/no-\\xff"
    assert result.stderr.strip() == f"error: vault '{shown}' is not a directory; run `kbg init '{shown}'` to create it"

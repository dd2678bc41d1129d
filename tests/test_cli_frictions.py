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

"""Every human table the CLI draws keeps a type, date, name or number on one line, at 80 and 120 columns.

Rich folded cells at any character when a table was narrower than its content: `kbg entity relations` at
80 columns (a terminal that wide, or any pipe) showed `reports-t|o`, `2026-12-0|7`, `people/an|a-lima.md`."""

from __future__ import annotations

import json
import re

import pytest

from kbgraph.clock import today_iso

from .conftest import copy_indexed, kbg, run_kbg

# One call per table the CLI makes (cli/output.py render_table, index status and model status).
TABLES = [
    ("entity", "relations", "Ana Lima"),
    ("entity", "relations", "Ben Okafor", "--type", "manages"),
    ("entity", "relations", "--type", "depends-on"),
    ("entity", "relations", "Chen Wei", "--as-of", today_iso()),  # a fixed day fails once the index is newer
    ("entity", "stale", "--days", "90", "--include-relations"),
    ("entity", "list"),
    ("entity", "find", "Ana"),
    ("entity", "suggestions"),
    ("entity", "candidates"),
    ("entity", "unlinked-mentions", "Ana Lima"),
    ("search", "token rotation"),
    ("list", "--type", "meeting"),
    ("doc", "relations", "meetings/2026/01/13/atlas-weekly-sync.md"),
    ("graph", "neighbours", "Ben Okafor", "-d", "2"),
    ("graph", "hubs", "--by", "pagerank"),
    ("graph", "conflicts"),
    ("resolve", "pending"),
    ("resolve", "log"),
    ("resolve", "duplicates"),
    ("fact", "list", "Arjun Mehta", "--all"),
    ("loop", "list"),
    ("token", "list"),
    ("index", "status"),
]


@pytest.fixture(scope="module")
def vault(indexed_sample, tmp_path_factory):
    root = copy_indexed(indexed_sample, tmp_path_factory.mktemp("widths") / "vault")
    kbg(root, "fact", "add", "Arjun Mehta", "--kind", "role", "staff engineer", "--date", "2026-03-02")
    kbg(root, "loop", "add", "Arjun Mehta", "ask about the surgery-recovery plan", "--due", "2026-08-15")
    kbg(root, "token", "create", "alice")
    return root


def _tokens(data: object) -> set[str]:
    """The values a reader takes in at a glance: dates, numbers, types, names, file names."""
    out: set[str] = set()
    if isinstance(data, dict):
        for value in data.values():
            out |= _tokens(value)
    elif isinstance(data, list):
        for value in data:
            out |= _tokens(value)
    elif isinstance(data, bool) or data is None:
        pass
    elif isinstance(data, (int, float)):
        if abs(data) >= 100:  # shorter ones match the next row's cell ("3" over "3" reads as "33")
            out.add(str(data))
    elif isinstance(data, str):
        text = data.strip()
        if re.match(r"\d{4}-\d{2}-\d{2}", text):
            out.add(text[:10])
        elif "/" in text and " " not in text:
            out.add(text.rsplit("/", 1)[-1])  # a path's file name stays visible
        elif 2 < len(text) <= 30 and re.fullmatch(r"\S+|[A-Z][\w.'-]*( [A-Z][\w.'-]*){1,3}", text):
            out.add(text)  # a type, a handle, a number as text, a name
    return {token for token in out if len(token) >= 2}


def _values(data: object) -> set[str]:
    if isinstance(data, dict):
        return set().union(*map(_values, data.values())) if data else set()
    if isinstance(data, list):
        return set().union(*map(_values, data)) if data else set()
    return {str(data)} if isinstance(data, (str, int, float)) and not isinstance(data, bool) else set()


def _split_tokens(table: str, tokens: set[str], values: set[str]) -> list[str]:
    """Tokens that end one line's cell and go on at the start of the same cell on the next line, where
    the two lines together are the token itself or a path (a sentence may wrap between a name's words)."""
    split = []
    lines = table.splitlines()
    for upper, lower in zip(lines, lines[1:]):
        bars = [i for i, ch in enumerate(upper) if ch in "│┃"]
        if len(bars) < 2 or bars != [i for i, ch in enumerate(lower) if ch in "│┃"]:
            continue
        for left, right in zip(bars, bars[1:]):
            a, b = upper[left + 1:right].strip(), lower[left + 1:right].strip()
            for token in tokens:
                if token in a or token in b or a in tokens or b in tokens:  # two whole values
                    continue
                for k in range(1, len(token)):
                    head, tail = token[:k].rstrip(), token[k:].lstrip()
                    if head and tail and a.endswith(head) and b.startswith(tail) \
                            and not a[:-len(head)][-1:].isalnum() and not b[len(tail):][:1].isalnum() \
                            and any(whole == token or ("/" in whole and any(whole in v for v in values))
                                    for whole in (a + b, f"{a} {b}")):
                        split.append(f"{token!r} as {a!r} / {b!r}")
                        break
    return split


@pytest.mark.parametrize("width", ["80", "120"])
def test_no_table_splits_a_word_across_lines(vault, width):
    problems, drawn = [], 0
    for args in TABLES:
        human = run_kbg(*args, "--vault", str(vault), env={"COLUMNS": width})
        data = run_kbg(*args, "--vault", str(vault), "--json")
        assert human.returncode == data.returncode == 0, (args, human.stderr, data.stderr)
        tokens, values = _tokens(json.loads(data.stdout)), _values(json.loads(data.stdout))
        drawn += "┃" in human.stdout or "│" in human.stdout
        assert all(len(line) <= int(width) for line in human.stdout.splitlines() if "│" in line), (args, human.stdout)
        problems += [f"{' '.join(args)}: {p}" for p in _split_tokens(human.stdout, tokens, values)]
    assert problems == []
    assert drawn >= 20  # the calls above really drew their tables


def test_a_long_path_keeps_its_file_name_and_says_it_was_shortened():
    from kbgraph.cli.output import shorten_path

    path = "meetings/2026/03/02/auth-service-launch-review.md:13"
    short = shorten_path(path, 36)
    assert short == "…/auth-service-launch-review.md:13" and len(short) <= 36
    assert shorten_path("people/ana-lima.md", 36) == "people/ana-lima.md"
    assert shorten_path(path, 20).endswith("review.md:13") and len(shorten_path(path, 20)) == 20

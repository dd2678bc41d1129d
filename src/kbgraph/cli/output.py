"""Rendering command results: Rich tables for people, JSON / JSONL / CSV for programs.

Imports of Rich are deferred to the functions that draw, so `--json` output and
start-up stay fast.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from typing import Iterable

import click

FORMATS = ("table", "json", "jsonl", "csv")


def resolve_format(fmt: str | None, as_json: bool) -> str:
    if as_json:
        return "json"
    fmt = (fmt or "table").lower()
    if fmt not in FORMATS:
        raise click.BadParameter(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}", param_hint="--format")
    return fmt


def select_fields(rows: list[dict], fields: str | None, available: Iterable[str]) -> tuple[list[dict], list[str]]:
    """Rows cut down to the requested comma-separated fields (all fields when none are given)."""
    available = list(available)
    if not fields:
        return rows, available
    wanted = [f.strip() for f in fields.split(",") if f.strip()]
    unknown = [f for f in wanted if f not in available]
    if unknown:
        raise click.BadParameter(
            f"unknown field(s) {', '.join(unknown)}; available: {', '.join(available)}", param_hint="--fields"
        )
    return [{k: row.get(k) for k in wanted} for row in rows], wanted


def print_json(data: object) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def emit_result(result: dict, as_json: bool, line: str) -> None:
    """One command's result: the object as JSON, or the one line a person reads."""
    if as_json:
        print_json(result)
    else:
        print(line)


def emit_rows(
    rows: list[dict],
    fmt: str,
    fields: str | None,
    envelope: dict,
    rows_key: str,
    table_columns: list[tuple],
    row_keys: tuple[str, ...],
    title: str | None = None,
    empty_message: str = "nothing found",
) -> None:
    """One list-like result in the chosen format.

    json: the envelope with the (field-selected) rows under rows_key; jsonl: one row per
    line; csv: a header and one row per line; table: table_columns (key, header) unless
    --fields picks others. row_keys are the row's documented fields, valid with or without rows.
    """
    selected, keys = select_fields(rows, fields, row_keys)
    if fmt == "json":
        print_json({**envelope, rows_key: selected})
    elif fmt == "jsonl":
        for row in selected:
            sys.stdout.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
    elif fmt == "csv":
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=keys, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for row in selected:
            writer.writerow({k: _csv_value(row.get(k)) for k in keys})
        sys.stdout.write(buffer.getvalue())
    else:
        columns = table_columns if not fields else [(k, k) for k in keys]
        render_table(selected if fields else rows, columns, title, empty_message)


CSV_LIST_SEPARATOR = "; "


def _csv_value(value: object) -> object:
    """One cell a spreadsheet shows as a person reads it: a list (aliases, tags) joined by "; ", a
    mapping as JSON (its keys matter, and a program can parse it back), an empty one of either empty."""
    if isinstance(value, (list, tuple)):
        return CSV_LIST_SEPARATOR.join(_csv_item(item) for item in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, default=str) if value else ""
    return value


def _csv_item(item: object) -> str:
    return json.dumps(item, ensure_ascii=False, default=str) if isinstance(item, (list, tuple, dict)) else str(item)


def render_table(rows: list[dict], columns: list[tuple], title: str | None, empty_message: str) -> None:
    console = stdout_console()
    if not rows:
        console.print(f"[dim]{empty_message}[/dim]")
        return
    from rich.table import Table

    table = Table(title=title, title_justify="left", show_lines=False, header_style="bold")
    for column in columns:
        options = column[2] if len(column) > 2 else {"overflow": "fold"}
        table.add_column(column[1], **options)
    for row in rows:
        table.add_row(*(cell(row.get(column[0])) for column in columns))
    console.print(table)


def cell(value: object):
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {v}" for k, v in value.items())
    if hasattr(value, "__rich__"):
        return value
    from rich.markup import escape

    return escape(str(value))


def highlight(snippet: str, spans: Iterable[tuple[int, int]]):
    """A snippet whose matched words (the (start, end) spans the search returned) are shown bold."""
    from rich.text import Text

    text = Text(snippet)
    for start, end in spans:
        text.stylize("bold yellow", start, end)
    return text


_console = None


def stdout_console():
    global _console
    if _console is None:
        from rich.console import Console

        _console = Console(soft_wrap=False)
    return _console


def stderr_console():
    from rich.console import Console

    return Console(stderr=True)

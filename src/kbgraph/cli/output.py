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
    cells = [[_table_cell(row.get(column[0])) for column in columns] for row in rows]
    if _needed_width(columns, cells) > console.width:
        # Too narrow for every column whole: a column empty in every row says nothing, so it goes first.
        kept = [i for i in range(len(columns)) if any(_plain(line[i]) for line in cells)]
        columns, cells = [columns[i] for i in kept], [[line[i] for i in kept] for line in cells]
    kinds = [column_kind([_plain(line[index]) for line in cells]) for index in range(len(columns))]
    budget = _path_width(console.width, kinds, cells)
    for line in cells:
        for index, kind in enumerate(kinds):
            if isinstance(line[index], str):
                line[index] = "\n".join(" ".join(shorten_path(word, budget) if _is_path(word) else word
                                                  for word in part.split(" "))
                                         for part in line[index].split("\n"))
    for index, column in enumerate(columns):
        texts = [_plain(line[index]) for line in cells]
        table.add_column(column[1], **_column_options(kinds[index], texts, column[2] if len(column) > 2 else {}))
    for line in cells:
        table.add_row(*line)
    console.print(table)


def _needed_width(columns: list[tuple], cells: list[list]) -> int:
    return 3 * len(columns) + 1 + sum(max([len(str(column[1]))] + [_width(line[i]) for line in cells])
                                      for i, column in enumerate(columns))


def _path_width(width: int, kinds: list[str], cells: list[list]) -> int:
    """What is left for each path or prose column once the atoms are whole (borders: 3 a column)."""
    atoms = sum(max((_width(line[i]) for line in cells), default=0) for i, kind in enumerate(kinds)
                if kind == "atom" and not any(_has_path(line[i]) for line in cells))
    atoms += sum(1 for kind in kinds if kind == "atom")  # room for a header a little longer than its cells
    others = sum(1 for i, kind in enumerate(kinds)
                 if kind != "atom" or any(_has_path(line[i]) for line in cells)) or 1
    return max(PATH_MIN, (width - 3 * len(kinds) - 1 - atoms) // others)


def _has_path(value: object) -> bool:
    return isinstance(value, str) and any(_is_path(word) for word in value.split())


def _is_path(text: str) -> bool:
    return "/" in text and not any(ch.isspace() for ch in text)


# A table cell is read as a whole: a type, a date, a name or a number split over two lines ("reports-t|o",
# "2026-12-0|7") reads as two words. Such columns never wrap, so Rich narrows the prose columns first; a
# path is shortened from the left (its file name is what a reader looks for) before it is drawn.
ATOM_WORDS, ATOM_CHARS, PATH_MIN = 4, 40, 16


def column_kind(texts: list[str]) -> str:
    """"path" (every cell one word with a slash), "atom" (every cell a few words: a type, date, name,
    number) or "prose" (a reason, a snippet: may wrap between words)."""
    filled = [line for text in texts for line in text.split("\n") if line]
    if filled and all(_is_path(text) for text in filled):
        return "path"
    if all(len(text.split()) <= ATOM_WORDS and len(text) <= ATOM_CHARS for text in filled):
        return "atom"
    return "prose"


def shorten_path(path: str, width: int) -> str:
    """path in at most width characters, its end kept: "…/2026/01/13/atlas-weekly-sync.md"."""
    if len(path) <= width:
        return path
    tail = path[-(width - 1):]
    cut = tail.find("/")
    # Start the kept part at a folder boundary when that still leaves the file name whole.
    return "…" + (tail[cut:] if 0 <= cut < len(tail) - 1 else tail)


def _column_options(kind: str, texts: list[str], given: dict) -> dict:
    if kind == "prose":
        # Wrap between words, never inside one (paths in it are shortened already); only a word longer
        # than WORD_MAX (a URL) may be folded rather than lost.
        return {**given, "overflow": "fold"}
    options = {**given, "no_wrap": True, "overflow": "ellipsis"}
    options.pop("ratio", None)
    return options


def _width(value: object) -> int:
    return max(len(line) for line in _plain(value).split("\n"))


def _plain(value: object) -> str:
    return value.plain if hasattr(value, "plain") else str(value)


def _table_cell(value: object):
    """A list (aliases, tags) one item a line, so that a line break never falls inside an item."""
    if isinstance(value, (list, tuple)) and all(not isinstance(v, (list, tuple, dict)) for v in value):
        from rich.markup import escape

        return "\n".join(escape(str(v)) for v in value)
    return cell(value)


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

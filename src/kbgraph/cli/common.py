"""Options every command shares, and opening the vault a command works on."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

VaultOpt = Annotated[
    Optional[str],
    typer.Option("--vault", envvar="KBG_VAULT", help="Vault folder (default: nearest vault up from the current folder)."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
FormatOpt = Annotated[Optional[str], typer.Option("--format", help="table, json, jsonl or csv.")]
FieldsOpt = Annotated[Optional[str], typer.Option("--fields", help="Comma-separated fields to show.")]
LimitOpt = Annotated[int, typer.Option("--limit", "-n", min=1, help="Maximum number of results.")]
TypeOpt = Annotated[Optional[list[str]], typer.Option("--type", help="Only documents of this kind (repeatable).")]
FromOpt = Annotated[Optional[str], typer.Option("--from", help="Only documents dated on or after (YYYY-MM-DD).")]
ToOpt = Annotated[Optional[str], typer.Option("--to", help="Only documents dated on or before (YYYY-MM-DD).")]
PathOpt = Annotated[Optional[str], typer.Option("--path", help="Only documents under this folder (or glob).")]
TagOpt = Annotated[Optional[list[str]], typer.Option("--tag", help="Only documents with this tag (repeatable).")]


def open_workspace(vault: str | None, create: bool = False):
    from ..workspace import Workspace

    return Workspace.open(vault, create=create)


def doc_filter(types, path, date_from, date_to, tags):
    from ..documents import parse_date_option
    from ..store.base import DocFilter

    return DocFilter(
        kinds=tuple(t.lower() for t in types or ()),
        path_prefix=path,
        date_from=parse_date_option(date_from, "--from"),
        date_to=parse_date_option(date_to, "--to", end=True),
        tags=tuple(t.lstrip("#") for t in tags or ()),
    )

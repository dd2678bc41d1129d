"""`kbg search`, `kbg view`, `kbg list`."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import (
    FieldsOpt, FormatOpt, FromOpt, JsonOpt, LimitOpt, PathOpt, TagOpt, ToOpt, TypeOpt, VaultOpt,
    doc_filter, open_workspace,
)


SEARCH_FIELDS = ("path", "line", "title", "kind", "date", "heading", "snippet", "score", "doc_id", "chunk_id")
DOCUMENT_FIELDS = ("id", "path", "title", "kind", "date", "tags", "size", "mtime", "indexed_at", "owner", "visibility")


def search(
    query: Annotated[str, typer.Argument(help="Words to find; \"a phrase\", prefix*, -exclude work.")],
    limit: LimitOpt = 10,
    types: TypeOpt = None,
    path: PathOpt = None,
    date_from: FromOpt = None,
    date_to: ToOpt = None,
    tags: TagOpt = None,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
    fmt: FormatOpt = None,
    fields: FieldsOpt = None,
) -> None:
    """Full-text search (BM25) over the vault's sections; one hit per document, best section first."""
    from .output import emit_rows, highlight, resolve_format

    fmt = resolve_format(fmt, as_json)
    flt = doc_filter(types, path, date_from, date_to, tags)
    from ..search import search as run_search

    with open_workspace(vault) as ws:
        result = run_search(ws.store, query, flt, limit)
    rows = [
        {
            "path": h.path, "line": h.line, "title": h.title, "kind": h.kind, "date": h.date,
            "heading": h.heading, "snippet": h.snippet, "score": h.score, "doc_id": h.doc_id, "chunk_id": h.chunk_id,
        }
        for h in result.hits
    ]
    if fmt == "table" and not fields:
        rows = [{**r, "where": _where(r), "snippet": highlight(r["snippet"])} for r in rows]
    empty = "no searchable words in the query" if result.mode == "empty" else f"no matches for {query!r}"
    emit_rows(
        rows, fmt, fields,
        envelope={"query": query, "mode": result.mode, "count": len(rows)}, rows_key="hits",
        table_columns=[("where", "Where", {"ratio": 2, "overflow": "fold"}), ("snippet", "Match", {"ratio": 3})],
        row_keys=SEARCH_FIELDS,
        empty_message=empty,
    )


def _where(row: dict):
    from rich.text import Text

    where = Text(f"{row['path']}:{row['line']}", style="cyan")
    where.append("\n" + " · ".join(x for x in (row["date"], row["title"]) if x), style="dim")
    return where


def view(
    target: Annotated[str, typer.Argument(help="A path, path:LINE, or a document id (12 or #12).")],
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show a document (or, with path:LINE, the section holding that line) with its metadata."""
    from ..documents import view_document

    with open_workspace(vault) as ws:
        result = view_document(ws.root, ws.store, target)
    if as_json:
        from .output import print_json

        print_json(result)
        return
    _print_view(result)


def _print_view(result: dict) -> None:
    from rich.markup import escape
    from rich.panel import Panel

    from .output import stdout_console

    doc = result["document"]
    meta = [f"[bold]{escape(doc['title'])}[/bold]", f"{escape(doc['path'])}  ·  id {doc['id']}  ·  {doc['kind']}"]
    if doc["date"]:
        meta[-1] += f"  ·  {doc['date']}"
    if doc["tags"]:
        meta.append("tags: " + escape(", ".join(doc["tags"])))
    if result["stale"]:
        meta.append("[yellow]changed since last indexed: run `kbg index`[/yellow]")
    console = stdout_console()
    console.print(Panel("\n".join(meta), expand=False))
    if result.get("chunk"):
        chunk = result["chunk"]
        console.print(f"[dim]section at line {chunk['line']}: {escape(chunk['heading'] or '(top)')}[/dim]")
    console.print(escape(result["text"]), highlight=False, soft_wrap=True)


def list_docs(
    types: TypeOpt = None,
    date_from: FromOpt = None,
    date_to: ToOpt = None,
    path: PathOpt = None,
    tags: TagOpt = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=0, help="Maximum rows (0: all).")] = 0,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
    fmt: FormatOpt = None,
    fields: FieldsOpt = None,
) -> None:
    """List indexed documents, newest first, filtered by kind, date, folder or tag."""
    from ..documents import list_documents
    from .output import emit_rows, resolve_format

    fmt = resolve_format(fmt, as_json)
    flt = doc_filter(types, path, date_from, date_to, tags)
    with open_workspace(vault) as ws:
        docs = list_documents(ws.store, flt, limit or None)
    emit_rows(
        docs, fmt, fields, envelope={"count": len(docs)}, rows_key="documents",
        table_columns=[("id", "Id"), ("date", "Date"), ("kind", "Kind"), ("title", "Title"), ("path", "Path")],
        row_keys=DOCUMENT_FIELDS, empty_message="no documents match",
    )

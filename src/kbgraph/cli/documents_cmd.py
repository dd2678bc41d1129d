"""`kbg search`, `kbg view`, `kbg list`."""

from __future__ import annotations

import click

from .common import doc_filter, doc_filter_options, json_option, list_options, open_workspace, vault_option


SEARCH_FIELDS = ("path", "line", "title", "kind", "date", "heading", "snippet", "score", "doc_id", "chunk_id")
DOCUMENT_FIELDS = ("id", "path", "title", "kind", "date", "tags", "size", "mtime", "indexed_at", "owner", "visibility")


@click.command()
@click.argument("query")
@click.option("--limit", "-n", default=10, show_default=True, type=click.IntRange(min=1), help="Maximum results.")
@doc_filter_options
@vault_option
@list_options
def search(query, limit, types, path, date_from, date_to, tags, vault, as_json, fmt, fields) -> None:
    """Full-text search (BM25) over the vault's sections; one hit per document, best section first.

    QUERY is plain words; "a phrase", prefix* and -exclude work, and any other text is safe.
    """
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


@click.command()
@click.argument("target")
@vault_option
@json_option
def view(target: str, vault: str | None, as_json: bool) -> None:
    """Show a document with its metadata. TARGET is a path, path:LINE (the section holding
    that line) or a document id (12 or #12)."""
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


@click.command("list")
@doc_filter_options
@click.option("--limit", "-n", default=0, type=click.IntRange(min=0), help="Maximum rows (0: all).")
@vault_option
@list_options
def list_docs(types, date_from, date_to, path, tags, limit, vault, as_json, fmt, fields) -> None:
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

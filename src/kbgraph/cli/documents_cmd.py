"""`kbg search`, `kbg view`, `kbg list`."""

from __future__ import annotations

import click

from .common import doc_filter, doc_filter_options, json_option, list_options, open_workspace, vault_option


SEARCH_FIELDS = ("path", "line", "title", "kind", "date", "heading", "snippet", "score", "doc_id", "chunk_id", "via",
                 "duplicates", "explain", "passage")
DOCUMENT_FIELDS = ("id", "path", "title", "kind", "date", "tags", "size", "mtime", "indexed_at", "owner", "visibility")


@click.command()
@click.argument("query")
@click.option("--limit", "-n", default=10, show_default=True, type=click.IntRange(min=1), help="Maximum results.")
@click.option("--mode", default="hybrid", show_default=True, type=click.Choice(["hybrid", "bm25", "vector"]),
              help="Signals to rank by: keyword (BM25) and vectors fused, or one alone (the graph joins any).")
@click.option("--entity", default=None, metavar="NAME", help="Only documents that mention this entity.")
@click.option("--expand-relations", is_flag=True,
              help="Also documents of entities related to the query's (or --entity's), up to two hops, weighted "
                   "1.0 / 0.7 / 0.4 by distance.")
@click.option("--explain", is_flag=True,
              help="Show each signal's rank and score, the fusion, boosts and relation path.")
@click.option("--why-not", "why_not", default=None, metavar="PATH", help="Say why this document is not a result.")
@click.option("--widen", is_flag=True,
              help="Give each hit's whole passage: a section indexing split into chunks, followed along 'continues'.")
@click.option("--as-of", default=None, metavar="DATE",
              help="The graph signal follows the relations true on DATE (YYYY-MM-DD), not today's.")
@click.option("--passages", is_flag=True,
              help="Rank sections across all documents, several per document: the passages that answer.")
@doc_filter_options
@vault_option
@list_options
def search(query, limit, mode, entity, expand_relations, explain, why_not, widen, as_of, passages, types, path,
           date_from, date_to, tags, vault, as_json, fmt, fields) -> None:
    """Hybrid search over the vault's sections (BM25 + vectors + the graph); one hit per document,
    or with --passages one per section.

    QUERY is plain words; "a phrase", prefix* and -exclude work, and any other text is safe.
    """
    from ..search import search as run_search
    from ..shapes import search_json
    from .output import emit_rows, highlight, resolve_format

    fmt = resolve_format(fmt, as_json)
    flt = doc_filter(types, path, date_from, date_to, tags)

    with open_workspace(vault) as ws:
        result = run_search(ws.store, query, flt, limit, config=ws.config, mode=mode, entity=entity,
                            expand_relations=expand_relations, explain=explain, why_not=why_not, widen=widen,
                            access=ws.access, as_of=as_of, unit="passage" if passages else "document")
    data = search_json(result, why_not_asked=why_not is not None)
    rows = data.pop("hits")
    envelope = data  # query, unit, mode, signals, entities, ambiguous, notes, count (why_not when asked)
    if fmt == "table" and not fields:
        _print_context(result)
        rows = [{**r, "where": _where(r), "snippet": _passage(r) if widen else highlight(h.snippet, h.highlights)}
                for r, h in zip(rows, result.hits)]
    empty = "no searchable words in the query" if result.mode == "empty" else f"no matches for {query!r}"
    emit_rows(
        rows, fmt, fields, envelope=envelope, rows_key="hits",
        table_columns=[("where", "Where", {"ratio": 2, "overflow": "fold"}), ("snippet", "Match", {"ratio": 3})],
        row_keys=SEARCH_FIELDS,
        empty_message=empty,
    )
    if fmt == "table" and not fields:
        _print_explain(result, explain)


def _print_context(result) -> None:
    from rich.markup import escape

    from .output import stderr_console

    console = stderr_console()
    for item in result.ambiguous:
        names = " or ".join(c["name"] for c in item["candidates"])
        console.print(f"[yellow]{escape(repr(item['surface']))} could be {escape(names)}: not used to rank "
                      "(give the full name, or --entity)[/yellow]", highlight=False)
    for note in result.notes:
        console.print(f"[dim]{escape(note)}[/dim]", highlight=False)


def _print_explain(result, explain: bool) -> None:
    from rich.markup import escape

    from .output import stdout_console

    console = stdout_console()
    if explain:
        for n, hit in enumerate(result.hits, 1):
            e = hit.explain
            parts = " · ".join(f"{s.signal} #{s.rank} ({s.score:g}) +{s.contribution:.4f}" for s in e.signals)
            boosts = "".join(f" ×{name} {factor:g}" for name, factor in e.boosts)
            console.print(f"{n}. {escape(hit.path)}  {parts} = {e.fused:.4f}{boosts} → {e.score:.4f}", highlight=False)
            if e.path:
                console.print(f"   [dim]via {escape(e.path)}[/dim]", highlight=False)
    if result.why_not is not None:
        w = result.why_not
        console.print(f"why not {escape(w['path'])}: {w['reason']} — {escape(w['detail'])}", highlight=False)


def _passage(row: dict) -> str:
    passage = row["passage"]
    return passage["text"] if passage else row["snippet"]


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
    from ..documents.views import view_document

    with open_workspace(vault) as ws:
        result = view_document(ws.root, ws.store, target, ws.access)
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
    from ..documents.views import list_documents
    from .output import emit_rows, resolve_format

    fmt = resolve_format(fmt, as_json)
    flt = doc_filter(types, path, date_from, date_to, tags)
    with open_workspace(vault) as ws:
        docs = list_documents(ws.store, flt, limit or None, access=ws.access)
    emit_rows(
        docs, fmt, fields, envelope={"count": len(docs)}, rows_key="documents",
        table_columns=[("id", "Id"), ("date", "Date"), ("kind", "Kind"), ("title", "Title"), ("path", "Path")],
        row_keys=DOCUMENT_FIELDS, empty_message="no documents match",
    )

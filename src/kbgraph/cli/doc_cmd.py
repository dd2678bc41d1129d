"""`kbg doc relations`: how a document relates to other documents and to its folders."""

from __future__ import annotations

import click

from .common import list_options, open_workspace, vault_option

RELATION_FIELDS = ("type", "direction", "score", "path", "title", "doc_id", "line", "other_line", "evidence",
                   "derived")
_ARROWS = {"out": "→", "in": "←", "both": "↔"}


@click.group("doc")
def doc() -> None:
    """Documents and how they relate: references, continues, duplicates, parents and siblings."""


@doc.command("relations")
@click.argument("path")
@click.option("--type", "type_name", default=None, metavar="TYPE",
              help="Only this type: references, continues, duplicate-of, parent or sibling.")
@click.option("--limit", "-n", default=50, show_default=True, type=click.IntRange(min=0),
              help="Maximum rows, strongest first (0: all).")
@vault_option
@list_options
def relations(path, type_name, limit, vault, as_json, fmt, fields) -> None:
    """The relations of the document PATH (or a document id) in both directions, strongest first.

    Stored by `kbg index`: references (links 1.0, a title or file name written out 0.6), continues
    (a split section, the next note of a dated series), duplicate-of (identical or near-identical
    text). Derived from paths: parent (the folders above, as index notes where they exist) and
    sibling (the same folder).
    """
    from dataclasses import asdict

    from ..docgraph.read import relations_of
    from .output import emit_rows, resolve_format

    fmt = resolve_format(fmt, as_json)
    with open_workspace(vault) as ws:
        document, found = relations_of(ws.store, path, type_name, access=ws.access)
    rows = [asdict(r) for r in (found[:limit] if limit else found)]
    if fmt == "table" and not fields:
        rows = [{**r, "relation": f"{_ARROWS[r['direction']]} {r['type']}", "other": _other(r)} for r in rows]
    emit_rows(
        rows, fmt, fields,
        envelope={"path": document["path"], "doc_id": document["id"], "count": len(rows), "total": len(found)},
        rows_key="relations",
        table_columns=[("relation", "Relation"), ("score", "Score"), ("other", "Other end"), ("evidence", "Evidence")],
        row_keys=RELATION_FIELDS,
        title=f"{document['path']}: {len(rows)} of {len(found)} relations" if found else None,
        empty_message=f"no relations{' of type ' + type_name if type_name else ''} for {document['path']}",
    )


def _other(row: dict) -> str:
    where = row["path"] + (f":{row['other_line']}" if row["other_line"] else "")
    if row["line"]:
        where = f"(line {row['line']}) {where}"
    return where

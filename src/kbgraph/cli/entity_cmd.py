"""`kbg entity ...` and the typed shortcuts `kbg person|project|team ...`."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from .common import FieldsOpt, FormatOpt, JsonOpt, VaultOpt, open_workspace
from .documents_cmd import DOCUMENT_FIELDS

entity_app = typer.Typer(help="Entities: people, projects, teams, technologies and more.", no_args_is_help=True)
NameArg = Annotated[str, typer.Argument(help="A name or alias.")]
EntityTypeOpt = Annotated[Optional[str], typer.Option("--type", help="Only entities of this type.")]


@entity_app.command("find")
def entity_find(name: NameArg, entity_type: EntityTypeOpt = None, vault: VaultOpt = None, as_json: JsonOpt = False):
    """Show an entity's profile (any type)."""
    _find(name, entity_type, vault, as_json)


@entity_app.command("list")
def entity_list(
    entity_type: EntityTypeOpt = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=0, help="Maximum rows (0: all).")] = 0,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
    fmt: FormatOpt = None,
    fields: FieldsOpt = None,
):
    """List entities, most mentioned first within each type."""
    from ..model import as_dict
    from .output import emit_rows, resolve_format

    fmt = resolve_format(fmt, as_json)
    with open_workspace(vault) as ws:
        rows = [as_dict(e) for e in ws.store.list_entities(entity_type, limit or None)]
    emit_rows(
        rows, fmt, fields, envelope={"count": len(rows)}, rows_key="entities",
        table_columns=[("id", "Id"), ("type", "Type"), ("name", "Name"), ("aliases", "Aliases"),
                       ("mention_count", "Mentions"), ("tier", "Tier"), ("page_path", "Page")],
        row_keys=("id", "type", "name", "aliases", "page_path", "attributes", "mention_count", "tier", "status"),
        empty_message="no entities" + (f" of type {entity_type!r}" if entity_type else ""),
    )


def _find(name: str, entity_type: str | None, vault: str | None, as_json: bool) -> None:
    from ..documents import profile
    from ..lookup import find_entity

    with open_workspace(vault) as ws:
        entity = find_entity(ws.store, name, entity_type)
        data = profile(ws.store, entity, ws.config.vocabulary)
    if as_json:
        from .output import print_json

        print_json(data)
        return
    _print_profile(data)


def _print_profile(data: dict) -> None:
    from rich.markup import escape

    from .output import cell, render_table, stdout_console

    e = data["entity"]
    attrs = e["attributes"]
    headline = f"[bold]{escape(e['name'])}[/bold]"
    role = attrs.get("role")
    team = attrs.get("team")
    if role:
        headline += f" — {escape(str(role))}" + (f" ({escape(str(team))})" if team else "")
    console = stdout_console()
    console.print(headline)
    lines = [f"type: {e['type']}   id: {e['id']}   tier: {e['tier']}   mentions: {e['mention_count']}"
             f" in {data['documents']} documents"]
    if e["aliases"]:
        lines.append("aliases: " + escape(", ".join(e["aliases"])))
    if e["page_path"]:
        lines.append("page: " + escape(e["page_path"]))
    for key, value in attrs.items():
        if key not in ("role",):
            lines.append(f"{escape(key)}: {cell(value)}")
    if data["first_seen"]:
        lines.append(f"seen: {data['first_seen']} → {data['last_seen']}")
    for line in lines:
        console.print("  " + line, highlight=False)
    if data["relations"]:
        console.print("[bold]Relations[/bold]")
        for key, names in data["relations"].items():
            label = key.replace("_", " ").capitalize()
            console.print(f"  {escape(label)}: {escape(', '.join(names))}", highlight=False)
    render_table(
        data["recent_documents"],
        [("date", "Date"), ("title", "Title"), ("path", "Path"), ("mentions", "Mentions")],
        "Recent documents", "not mentioned in any document yet",
    )


def _timeline(name: str, entity_type: str | None, vault, as_json: bool, fmt, fields) -> None:
    from ..documents import timeline
    from ..lookup import find_entity
    from ..model import as_dict
    from .output import emit_rows, resolve_format

    fmt = resolve_format(fmt, as_json)
    with open_workspace(vault) as ws:
        entity = find_entity(ws.store, name, entity_type)
        docs = timeline(ws.store, entity)
    emit_rows(
        docs, fmt, fields,
        envelope={"entity": {k: as_dict(entity)[k] for k in ("id", "type", "name")}, "count": len(docs)},
        rows_key="documents",
        table_columns=[("date", "Date"), ("kind", "Kind"), ("title", "Title"), ("path", "Path"),
                       ("mentions", "Mentions")],
        row_keys=DOCUMENT_FIELDS + ("mentions", "mention_kinds"),
        title=f"Timeline of {entity.name}", empty_message=f"{entity.name} is not mentioned in any document",
    )


def typed_apps() -> dict[str, typer.Typer]:
    """`kbg person find|timeline`, `kbg project ...`, `kbg team ...`: the entity commands for one type."""
    return {entity_type: _typed_app(entity_type) for entity_type in ("person", "project", "team")}


def _typed_app(entity_type: str) -> typer.Typer:
    sub = typer.Typer(help=f"{entity_type.title()} entities.", no_args_is_help=True)

    @sub.command("find", help=f"Show a {entity_type}'s profile.")
    def find(name: NameArg, vault: VaultOpt = None, as_json: JsonOpt = False):
        _find(name, entity_type, vault, as_json)

    @sub.command("timeline", help=f"Documents mentioning a {entity_type}, oldest first.")
    def timeline(name: NameArg, vault: VaultOpt = None, as_json: JsonOpt = False, fmt: FormatOpt = None,
                 fields: FieldsOpt = None):
        _timeline(name, entity_type, vault, as_json, fmt, fields)

    return sub


@entity_app.command("timeline")
def entity_timeline(name: NameArg, entity_type: EntityTypeOpt = None, vault: VaultOpt = None,
                    as_json: JsonOpt = False, fmt: FormatOpt = None, fields: FieldsOpt = None):
    """Documents mentioning an entity, oldest first."""
    _timeline(name, entity_type, vault, as_json, fmt, fields)

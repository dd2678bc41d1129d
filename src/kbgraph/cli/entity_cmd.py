"""`kbg entity ...` and the typed shortcuts `kbg person|project|team ...`."""

from __future__ import annotations

import click

from .common import json_option, list_options, open_workspace, vault_option
from .documents_cmd import DOCUMENT_FIELDS


@click.group()
def entity() -> None:
    """Entities: people, projects, teams, technologies and more, and their relations."""


def _as_of_option(fn):
    return click.option("--as-of", default=None, metavar="DATE",
                        help="Relations and connections as they were on DATE (YYYY-MM-DD).")(fn)


def _entity_type_option(fn):
    return click.option("--type", "entity_type", default=None, metavar="TYPE", help="Only entities of this type.")(fn)


@entity.command("find")
@click.argument("name")
@_entity_type_option
@_as_of_option
@vault_option
@json_option
def entity_find(name, entity_type, as_of, vault, as_json):
    """Show the profile of the entity NAME (a name or alias; any type): relations, everything within two
    hops, and where it is mentioned."""
    _find(name, entity_type, vault, as_json, as_of)


@entity.command("list")
@_entity_type_option
@click.option("--limit", "-n", default=0, type=click.IntRange(min=0), help="Maximum rows (0: all).")
@vault_option
@list_options
def entity_list(entity_type, limit, vault, as_json, fmt, fields):
    """List entities, most mentioned first within each type."""
    from ..model import as_dict
    from .output import emit_rows, resolve_format

    fmt = resolve_format(fmt, as_json)
    with open_workspace(vault) as ws:
        rows = [as_dict(e) for e in ws.store.list_entities(ws.access, entity_type, limit or None)]
    emit_rows(
        rows, fmt, fields, envelope={"count": len(rows)}, rows_key="entities",
        table_columns=[("id", "Id"), ("type", "Type"), ("name", "Name"), ("aliases", "Aliases"),
                       ("mention_count", "Mentions"), ("tier", "Tier"), ("page_path", "Page")],
        row_keys=("id", "type", "name", "aliases", "page_path", "attributes", "mention_count", "tier", "status"),
        empty_message="no entities" + (f" of type {entity_type!r}" if entity_type else ""),
    )


def _find(name: str, entity_type: str | None, vault: str | None, as_json: bool, as_of: str | None = None) -> None:
    from ..documents.views import profile
    from ..entities.lookup import find_entity

    with open_workspace(vault) as ws:
        entity = find_entity(ws.store, name, entity_type, access=ws.access, questions=True)
        data = profile(ws.store, entity, ws.config.vocabulary, access=ws.access, as_of=as_of)
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
    if data.get("confirmed_names"):
        lines.append("confirmed names: " + escape(", ".join(data["confirmed_names"])))
    if len(data.get("pages", ())) > 1:  # pages linked by `same_as:` (or one name given to two pages)
        lines.append("pages: " + escape(", ".join(data["pages"])))
    elif e["page_path"]:
        lines.append("page: " + escape(e["page_path"]))
    for key, value in attrs.items():
        if key not in ("role",):
            lines.append(f"{escape(key)}: {cell(value)}")
    if data["first_seen"]:
        lines.append(f"seen: {data['first_seen']} → {data['last_seen']}")
    for line in lines:
        console.print("  " + line, highlight=False)
    if data["relations"]:
        console.print("[bold]Relations[/bold]" + (f" as of {data['as_of']}" if data["as_of"] else ""))
        for key, names in data["relations"].items():
            label = key.replace("_", " ").capitalize()
            console.print(f"  {escape(label)}: {escape(', '.join(names))}", highlight=False)
    connected = data["connected"]
    if connected["count"]:
        console.print(f"[bold]Connected[/bold] (within {connected['hops']} hops: {connected['count']};"
                      " `kbg graph neighbours` shows the paths)")
        for kind, names in connected["by_type"].items():
            console.print(f"  {escape(kind)}: {escape(', '.join(names))}", highlight=False)
    render_table(
        data["recent_documents"],
        [("date", "Date"), ("title", "Title"), ("path", "Path"), ("mentions", "Mentions")],
        "Recent documents", "not mentioned in any document yet",
    )


def _timeline(name: str, entity_type: str | None, vault, as_json: bool, fmt, fields) -> None:
    from ..documents.views import timeline
    from ..entities.lookup import find_entity
    from ..model import as_dict
    from .output import emit_rows, resolve_format

    fmt = resolve_format(fmt, as_json)
    with open_workspace(vault) as ws:
        entity = find_entity(ws.store, name, entity_type, access=ws.access)
        docs = timeline(ws.store, entity, access=ws.access)
    emit_rows(
        docs, fmt, fields,
        envelope={"entity": {k: as_dict(entity)[k] for k in ("id", "type", "name")}, "count": len(docs)},
        rows_key="documents",
        table_columns=[("date", "Date"), ("kind", "Kind"), ("title", "Title"), ("path", "Path"),
                       ("mentions", "Mentions")],
        row_keys=DOCUMENT_FIELDS + ("mentions", "mention_kinds"),
        title=f"Timeline of {entity.name}", empty_message=f"{entity.name} is not mentioned in any document",
    )


def typed_groups() -> list[click.Group]:
    """`kbg person find|timeline`, `kbg project ...`, `kbg team ...`: the entity commands for one type."""
    return [_typed_group(entity_type) for entity_type in ("person", "project", "team")]


def _typed_group(entity_type: str) -> click.Group:
    @click.group(entity_type, help=f"{entity_type.title()} entities.")
    def group() -> None:
        pass

    @group.command("find", help=f"Show the profile of the {entity_type} NAME (a name or alias): relations,"
                                 " everything within two hops, and where it is mentioned.")
    @click.argument("name")
    @_as_of_option
    @vault_option
    @json_option
    def find(name, as_of, vault, as_json):
        _find(name, entity_type, vault, as_json, as_of)

    @group.command("timeline", help=f"Documents mentioning the {entity_type} NAME, oldest first.")
    @click.argument("name")
    @vault_option
    @list_options
    def timeline(name, vault, as_json, fmt, fields):
        _timeline(name, entity_type, vault, as_json, fmt, fields)

    return group


@entity.command("timeline")
@click.argument("name")
@_entity_type_option
@vault_option
@list_options
def entity_timeline(name, entity_type, vault, as_json, fmt, fields):
    """Documents mentioning the entity NAME, oldest first."""
    _timeline(name, entity_type, vault, as_json, fmt, fields)

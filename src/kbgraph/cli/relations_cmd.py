"""`kbg entity relate|unrelate|relations|stale`: typed relations between entities."""

from __future__ import annotations

import click

from .common import json_option, list_options, open_workspace, vault_option


def register(group: click.Group) -> None:
    """Add the relation commands to `kbg entity`."""
    for command in (relate, unrelate, relations, stale, merge):
        group.add_command(command)


def _type_and_target(fn):
    fn = click.option("--target", required=True, metavar="NAME", help="The other entity (name or alias).")(fn)
    return click.option("--type", "type_name", required=True, metavar="TYPE",
                        help="Relation type, in either direction (reports-to or manages).")(fn)

# The relation as a sentence from the entity asked about (kbgraph.relations.reading), in every row format.
_SENTENCE = ("subject", "type", "object")
_VIEW_FIELDS = ("type", "reason", "since", "valid_until", "confidence", "source_doc", "strength", "expired")
_ROW_COLUMNS = [("type", "Type"), ("other", "Entity"), ("reason", "Reason"), ("since", "Since"),
                ("valid_until", "Until"), ("confidence", "Confidence"), ("source_doc", "Evidence")]


@click.command("relate")
@click.argument("source")
@_type_and_target
@click.option("--reason", default=None, help="Why (required for custom).")
@click.option("--source-doc", default=None, metavar="PATH", help="Evidence: a vault-relative path.")
@click.option("--valid-until", default=None, metavar="DATE", help="YYYY-MM-DD; a past date expires the relation.")
@click.option("--create", default=None, metavar="TYPE", help="Create a missing target, of this entity type.")
@click.option("--since", default=None, metavar="DATE", help="YYYY-MM-DD it became true (dates a change of manager or lead).")
@click.option("--context", default=None, metavar="TEXT", help="The context it holds in (\"dotted line\"): not a contradiction.")
@vault_option
@json_option
def relate(source, type_name, target, reason, source_doc, valid_until, create, since, context, vault, as_json) -> None:
    """Relate SOURCE to --target (stored once; mirrored into the source entity's page under ## Relations).
    A second current relation where one is allowed at a time (reports-to, leads, replaces) is settled
    by its date, kept with its context, or left for `kbg graph resolve`."""
    from ..relations.edits import relate as do_relate
    from ..relations.reading import relation_line

    with open_workspace(vault) as ws:
        result = do_relate(ws, source, type_name, target, reason, source_doc, valid_until, create, since, context)
    if as_json:
        from .output import print_json

        print_json(result)
        return
    where = f" (written to {result['mirrored_to']})" if result["mirrored_to"] else " (stored in the index)"
    strength = f", observed {result['strength']}×" if result["strength"] > 1 else ""
    print(f"{relation_line(result)}{where}{strength}")
    _print_conflicts(result["conflicts"])


def _print_conflicts(conflicts: list[dict]) -> None:
    """One line per contradiction made: with which relation, and how it ended or how to settle it."""
    for conflict in conflicts:
        outcome = conflict["resolution"] or f"open: `kbg graph resolve {conflict['id']} --keep old|new|both`"
        note = f" ({conflict['note']})" if conflict["note"] else ""
        print(f"{conflict['kind']} conflict {conflict['id']} with {conflict['old']['relation']}: {outcome}{note}")


@click.command("unrelate")
@click.argument("source")
@_type_and_target
@vault_option
@json_option
def unrelate(source, type_name, target, vault, as_json) -> None:
    """Remove the relation SOURCE --type--> --target (and its line from the page that holds it)."""
    from ..relations.edits import unrelate as do_unrelate
    from ..relations.reading import relation_line

    with open_workspace(vault) as ws:
        result = do_unrelate(ws, source, type_name, target)
    if as_json:
        from .output import print_json

        print_json(result)
        return
    where = f" (removed from {result['page']})" if result["page"] else ""
    print(f"removed {relation_line(result)}{where}")


@click.command("relations")
@click.argument("name", required=False)
@click.option("--type", "type_name", default=None, metavar="TYPE", help="Only this relation type (either direction's name).")
@click.option("--include-expired", is_flag=True, help="Also relations past their valid_until date.")
@click.option("--as-of", default=None, metavar="DATE", help="The relations NAME had on DATE (YYYY-MM-DD).")
@click.option("--limit", "-n", default=100, show_default=True, type=click.IntRange(min=0),
              help="Rows read per direction for one entity (0: all); totals always count all.")
@vault_option
@list_options
def relations(name, type_name, include_expired, as_of, limit, vault, as_json, fmt, fields) -> None:
    """The relations and inverse relations of the entity NAME; without NAME, every relation of --type."""
    from ..entities.lookup import find_entity
    from ..relations.records import entity_relations, relations_of_type
    from .output import emit_rows, resolve_format

    fmt = resolve_format(fmt, as_json)
    if name is None and not type_name:
        raise click.UsageError("give an entity name, or --type to list every relation of a type")
    with open_workspace(vault) as ws:
        vocab = ws.config.vocabulary
        if name is None:
            rows = relations_of_type(ws.store, vocab, type_name, include_expired, access=ws.access)
            emit_rows(rows, fmt, fields, {"type": type_name.strip().lower(), "count": len(rows)}, "relations",
                      [("source", "Source"), ("type", "Type"), ("target", "Target"), ("reason", "Reason"),
                       ("since", "Since"), ("valid_until", "Until"), ("confidence", "Confidence")],
                      row_keys=(*_SENTENCE, "source", "target") + _VIEW_FIELDS[1:],
                      empty_message=f"no {type_name} relations")
            return
        entity = find_entity(ws.store, name, access=ws.access)
        if as_of:
            return _relations_as_of(ws, entity, as_of, type_name, fmt, fields)
        data = entity_relations(ws.store, vocab, entity, type_name, include_expired, limit=limit or None,
                                access=ws.access, with_unresolved=True)
    if fmt == "json" and not fields:
        from .output import print_json

        print_json(data)
        return
    rows = [{**r, "direction": "out", "other": r["target"]} for r in data["relations"]]
    rows += [{**r, "direction": "in", "other": r["source"]} for r in data["inverse_relations"]]
    total = data["total"]["relations"] + data["total"]["inverse_relations"]
    shown = f" (showing {len(rows)} of {total}; --limit 0 shows all)" if data["truncated"] else ""
    emit_rows(rows, fmt, fields, {"entity": data["entity"], "count": len(rows), "total": total}, "relations",
              _ROW_COLUMNS, row_keys=("direction", "other", *_SENTENCE, "source", "target") + _VIEW_FIELDS[1:],
              title=f"Relations of {data['entity']}{shown}", empty_message=_nothing_current(data, type_name))
    if fmt == "table" and not fields:
        for item in data["unresolved"]:
            why = "more than one entity has that name" if item["why"] == "ambiguous" else "no entity of that name yet"
            print(f"unresolved: {item['type']} [[{item['target']}]] ({item['page']} line {item['line']}): {why}")


def _nothing_current(data: dict, type_name: str | None) -> str:
    what = f"{type_name} relations" if type_name else "relations"
    if data.get("expired"):
        return (f"{data['entity']} has no current {what} ({data['expired']} expired: --include-expired shows them,"
                " --as-of DATE reads an earlier day)")
    return f"{data['entity']} has no {what} yet"


def _relations_as_of(ws, entity, as_of: str, type_name: str | None, fmt: str, fields) -> None:
    from ..relations.history import relations_as_of
    from .output import emit_rows, print_json

    data = relations_as_of(ws.store, ws.config.vocabulary, entity, as_of, type_name, access=ws.access)
    if fmt == "json" and not fields:
        print_json(data)
        return
    rows = [{**r, "direction": "out" if side == "relations" else "in"}
            for side in ("relations", "inverse_relations") for r in data[side]]
    emit_rows(rows, fmt, fields, {"entity": data["entity"], "as_of": data["as_of"], "count": len(rows)},
              "relations", [("read_as", "Type"), ("other", "Entity"), ("reason", "Reason"),
                            ("valid_from", "From"), ("valid_until", "Until"), ("current", "Still true")],
              row_keys=("direction", "read_as", "other", "subject", "source", "type", "target", "object", "reason",
                        "valid_from",
                        "valid_until", "current", "change"),
              title=f"Relations of {data['entity']} as of {data['as_of']}",
              empty_message=f"{data['entity']} had no {type_name or ''} relations on {data['as_of']}".replace("  ", " "))


@click.command("stale")
@click.option("--days", default=90, show_default=True, type=int, help="Quiet for this many days.")
@click.option("--type", "entity_type", default=None, metavar="TYPE", help="Only entities of this type.")
@click.option("--include-relations", is_flag=True,
              help="Also relations that are expired, unconfirmed, or whose ends went quiet.")
@vault_option
@json_option
def stale(days, entity_type, include_relations, vault, as_json) -> None:
    """Entities neither updated nor mentioned in --days days (and, optionally, doubtful relations)."""
    from ..relations.staleness import stale_report

    with open_workspace(vault) as ws:
        report = stale_report(ws.store, days, entity_type, include_relations, access=ws.access)
    if as_json:
        from .output import print_json

        print_json(report)
        return
    from .output import render_table

    render_table(report["entities"], [("type", "Type"), ("name", "Name"), ("last_mentioned", "Last mentioned"),
                                      ("last_updated", "Last updated")],
                 f"Quiet since {report['cutoff']} ({days} days)", "nothing has gone quiet")
    if include_relations:
        render_table(report["relations"], [("source", "Source"), ("type", "Type"), ("target", "Target"),
                                           ("why", "Why")], "Relations to review", "no relations to review")


@click.command("merge")
@click.argument("merged")
@click.argument("into")
@vault_option
@json_option
def merge(merged, into, vault, as_json) -> None:
    """Merge the entity MERGED into INTO: its names become INTO's aliases and its mentions and
    relations move to INTO (recorded, so it survives a full re-index and export/import)."""
    from ..curation.merging import merge_entities

    with open_workspace(vault) as ws:
        result = merge_entities(ws, merged, into)
    if as_json:
        from .output import print_json

        print_json(result)
        return
    print(f"merged {result['merged']} into {result['into']} (aliases: {', '.join(result['aliases'])}; "
          f"{result['relations_moved']} relations moved, {result['duplicates_collapsed']} duplicates collapsed)")
    for dropped in result["self_relations_dropped"]:
        print(f"dropped {dropped}: it would relate {result['into']} to itself")
    _print_conflicts(result["conflicts"])

"""`kbg entity relate|unrelate|relations|stale`: typed relations between entities."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from .common import FieldsOpt, FormatOpt, JsonOpt, VaultOpt, open_workspace
from .entity_cmd import entity_app

RelTypeOpt = Annotated[str, typer.Option("--type", help="Relation type, in either direction (reports-to or manages).")]
TargetOpt = Annotated[str, typer.Option("--target", help="The other entity (name or alias).")]
_VIEW_FIELDS = ("type", "reason", "since", "valid_until", "confidence", "source_doc", "strength", "expired")
_ROW_COLUMNS = [("type", "Type"), ("other", "Entity"), ("reason", "Reason"), ("since", "Since"),
                ("valid_until", "Until"), ("confidence", "Confidence"), ("source_doc", "Evidence")]


@entity_app.command("relate")
def relate(
    source: Annotated[str, typer.Argument(help="The entity the relation starts from.")],
    type_name: RelTypeOpt,
    target: TargetOpt,
    reason: Annotated[Optional[str], typer.Option("--reason", help="Why (required for custom).")] = None,
    source_doc: Annotated[Optional[str], typer.Option("--source-doc", help="Evidence: a vault-relative path.")] = None,
    valid_until: Annotated[Optional[str], typer.Option("--valid-until", help="YYYY-MM-DD; past dates expire it.")] = None,
    create: Annotated[Optional[str], typer.Option("--create", help="Create a missing target of this entity type.")] = None,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Relate two entities (stored once; mirrored into the source entity's page under ## Relations)."""
    from ..relation_edits import relate as do_relate

    with open_workspace(vault) as ws:
        result = do_relate(ws, source, type_name, target, reason, source_doc, valid_until, create)
    if as_json:
        from .output import print_json

        print_json(result)
        return
    where = f" (written to {result['mirrored_to']})" if result["mirrored_to"] else " (stored in the index)"
    strength = f", observed {result['strength']}×" if result["strength"] > 1 else ""
    print(f"{result['source']} --{result['type']}--> {result['target']}{where}{strength}")


@entity_app.command("unrelate")
def unrelate(
    source: Annotated[str, typer.Argument(help="The entity the relation starts from.")],
    type_name: RelTypeOpt,
    target: TargetOpt,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Remove a relation (and its line from the page that holds it)."""
    from ..relation_edits import unrelate as do_unrelate

    with open_workspace(vault) as ws:
        result = do_unrelate(ws, source, type_name, target)
    if as_json:
        from .output import print_json

        print_json(result)
        return
    where = f" (removed from {result['page']})" if result["page"] else ""
    print(f"removed {result['source']} --{result['type']}--> {result['target']}{where}")


@entity_app.command("relations")
def relations(
    name: Annotated[Optional[str], typer.Argument(help="An entity; omit it to list every relation of --type.")] = None,
    type_name: Annotated[Optional[str], typer.Option("--type", help="Only this relation type.")] = None,
    include_expired: Annotated[bool, typer.Option("--include-expired", help="Also relations past valid_until.")] = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
    fmt: FormatOpt = None,
    fields: FieldsOpt = None,
) -> None:
    """An entity's relations and inverse relations, or every relation of one type across the graph."""
    from ..lookup import find_entity
    from ..relations import entity_relations, relations_of_type
    from .output import emit_rows, resolve_format

    fmt = resolve_format(fmt, as_json)
    if name is None and not type_name:
        raise typer.BadParameter("give an entity name, or --type to list every relation of a type")
    with open_workspace(vault) as ws:
        vocab = ws.config.vocabulary
        if name is None:
            rows = relations_of_type(ws.store, vocab, type_name, include_expired)
            emit_rows(rows, fmt, fields, {"type": type_name, "count": len(rows)}, "relations",
                      [("source", "Source"), ("type", "Type"), ("target", "Target"), ("reason", "Reason"),
                       ("since", "Since"), ("valid_until", "Until"), ("confidence", "Confidence")],
                      row_keys=("source", "type", "target") + _VIEW_FIELDS[1:],
                      empty_message=f"no {type_name} relations")
            return
        data = entity_relations(ws.store, vocab, find_entity(ws.store, name), type_name, include_expired)
    if fmt == "json" and not fields:
        from .output import print_json

        print_json(data)
        return
    rows = [{**r, "direction": "out", "other": r["target"]} for r in data["relations"]]
    rows += [{**r, "direction": "in", "other": r["source"]} for r in data["inverse_relations"]]
    emit_rows(rows, fmt, fields, {"entity": data["entity"], "count": len(rows)}, "relations", _ROW_COLUMNS,
              row_keys=("direction", "other", "source", "target") + _VIEW_FIELDS,
              title=f"Relations of {data['entity']}", empty_message=f"{data['entity']} has no relations yet")


@entity_app.command("stale")
def stale(
    days: Annotated[int, typer.Option("--days", help="Quiet for this many days.")] = 90,
    entity_type: Annotated[Optional[str], typer.Option("--type", help="Only entities of this type.")] = None,
    include_relations: Annotated[bool, typer.Option("--include-relations",
                                                    help="Also relations worth a second look.")] = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Entities neither updated nor mentioned in --days days (and, optionally, doubtful relations)."""
    from ..staleness import stale_report

    with open_workspace(vault) as ws:
        report = stale_report(ws.store, days, entity_type, include_relations)
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

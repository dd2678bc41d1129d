"""`kbg fact add|list|supersede` and `kbg loop add|list|resolve`: facts and follow-ups about entities."""

from __future__ import annotations

import sys

import click

from ..shapes import loop_json, recorded_json
from .common import json_option, list_options, open_workspace, vault_option

FACT_FIELDS = ("id", "entity_key", "entity", "kind", "text", "date", "source", "origin", "page", "recorded_at",
               "superseded_at", "superseded_by", "change", "owner", "visibility", "sensitivity")
LOOP_FIELDS = ("id", "entity_key", "entity", "text", "due", "status", "resolved_on", "source", "origin", "page",
               "recorded_at", "updated_at", "owner", "visibility", "sensitivity", "overdue")


@click.group()
def fact() -> None:
    """Facts about entities: append-only; a correction supersedes, history stays."""


@click.group()
def loop() -> None:
    """Loops: follow-ups about entities with a due date; resolving one keeps it."""


def _say(data: dict, as_json: bool, line: str) -> None:
    if as_json:
        from .output import print_json

        print_json(data)
    else:
        where = f" (written to {data['page']})" if data["page"] else " (kept in the index: no page)"
        print(line + where)
    for warning in data["warnings"]:
        sys.stderr.write(f"warning: {warning}\n")


@fact.command("add")
@click.argument("entity")
@click.argument("text")
@click.option("--kind", required=True, metavar="KIND", help="interest, role, note or event (int = interest).")
@click.option("--date", default=None, metavar="DATE", help="YYYY-MM-DD it was said or true (or today).")
@click.option("--source", default="manual", show_default=True, metavar="PATH",
              help="The note it came from (vault-relative), or manual.")
@vault_option
@json_option
def fact_add(entity, text, kind, date, source, vault, as_json) -> None:
    """Record a fact about ENTITY (a `## Facts` line on its page, when it has one)."""
    from ..context.facts import add_fact

    with open_workspace(vault) as ws:
        data = recorded_json(add_fact(ws, entity, kind, text, date, source), "fact")
    f = data["fact"]
    _say(data, as_json, f"fact {f['id']} about {f['entity']}: {f['kind']}: {f['text']}"
                        + (f" ({f['date']})" if f["date"] else ""))


@fact.command("list")
@click.argument("entity", required=False)
@click.option("--all", "include_superseded", is_flag=True, help="Also superseded facts (history), with what replaced them.")
@vault_option
@list_options
def fact_list(entity, include_superseded, vault, as_json, fmt, fields) -> None:
    """The current facts of ENTITY (or of every entity); --all adds history."""
    from ..context.facts import list_facts
    from ..model import as_dict
    from .output import emit_rows, resolve_format

    with open_workspace(vault) as ws:
        rows = [as_dict(f) for f in list_facts(ws.store, ws.access, entity, include_superseded)]
    fmt = resolve_format(fmt, as_json)
    for row in rows if fmt == "table" else ():  # how it became history, in words, for the table only
        row["history"] = (f"{row['change']} {row['superseded_at'][:10]}"
                          + (f" by #{row['superseded_by']}" if row["superseded_by"] else "")) if row["change"] else ""
    columns = [("id", "Id"), ("entity", "Entity"), ("kind", "Kind"), ("text", "Fact"), ("date", "Date"),
               ("source", "Source")] + ([("history", "Superseded")] if include_superseded else [])
    emit_rows(rows, fmt, fields, {"entity": entity, "count": len(rows)}, "facts", columns,
              row_keys=FACT_FIELDS, title=f"Facts{' about ' + entity if entity else ''}",
              empty_message=f"no facts{' about ' + entity if entity else ''} yet")


@fact.command("supersede")
@click.argument("fact_id", type=int, metavar="ID")
@click.argument("text")
@click.option("--kind", default=None, metavar="KIND", help="A new kind (default: the old fact's).")
@click.option("--date", default=None, metavar="DATE", help="YYYY-MM-DD of the correction (default: the old fact's).")
@click.option("--source", default=None, metavar="PATH", help="Where the correction comes from (default: the old source).")
@vault_option
@json_option
def fact_supersede(fact_id, text, kind, date, source, vault, as_json) -> None:
    """Correct fact ID with TEXT: a new fact supersedes it; the old one stays in history (fact list --all)."""
    from ..context.facts import supersede_fact

    with open_workspace(vault) as ws:
        data = recorded_json(supersede_fact(ws, fact_id, text, kind, date, source), "fact")
    f = data["fact"]
    _say(data, as_json, f"fact {f['id']} supersedes fact {fact_id}: {f['kind']}: {f['text']}")


@loop.command("add")
@click.argument("entity")
@click.argument("text")
@click.option("--due", default=None, metavar="DATE", help="YYYY-MM-DD (or write @YYYY-MM-DD at the end of TEXT).")
@click.option("--source", default="manual", show_default=True, metavar="PATH", help="The note it came from, or manual.")
@vault_option
@json_option
def loop_add(entity, text, due, source, vault, as_json) -> None:
    """Open a loop about ENTITY ("ask about the surgery @2026-08-15"). A past due date is allowed, and flagged."""
    from ..context.loops import add_loop

    with open_workspace(vault) as ws:
        data = recorded_json(add_loop(ws, entity, text, due, source), "loop")
    item = data["loop"]
    _say(data, as_json, f"loop {item['id']} about {item['entity']}: {item['text']}"
                        + (f", due {item['due']}" if item["due"] else ""))


@loop.command("list")
@click.argument("entity", required=False)
@click.option("--due", default=None, metavar="DATE|today|overdue",
              help="Only loops due on or before DATE (today: overdue ones too); overdue: due before today.")
@click.option("--all", "include_closed", is_flag=True, help="Also resolved and dropped loops.")
@vault_option
@list_options
def loop_list(entity, due, include_closed, vault, as_json, fmt, fields) -> None:
    """Open loops of ENTITY (or of every entity), soonest due first."""
    from ..context.loops import list_loops
    from .output import emit_rows, resolve_format

    with open_workspace(vault) as ws:
        rows = [loop_json(x) for x in list_loops(ws.store, ws.access, entity, due, include_closed)]
    columns = [("id", "Id"), ("entity", "Entity"), ("text", "Loop"), ("due", "Due"), ("status", "Status"),
               ("overdue", "Overdue")] + ([("resolved_on", "Resolved")] if include_closed else [])
    emit_rows(rows, resolve_format(fmt, as_json), fields, {"entity": entity, "due": due, "count": len(rows)},
              "loops", columns, row_keys=LOOP_FIELDS, title=f"Loops{' about ' + entity if entity else ''}",
              empty_message="no open loops" + (f" due by {due}" if due else ""))


@loop.command("resolve")
@click.argument("loop_id", type=int, metavar="ID")
@click.option("--on", "day", default=None, metavar="DATE", help="The day it was done (default: today).")
@vault_option
@json_option
def loop_resolve(loop_id, day, vault, as_json) -> None:
    """Resolve loop ID (its page line is ticked); it stays in history (loop list --all)."""
    from ..context.loops import resolve_loop

    with open_workspace(vault) as ws:
        data = recorded_json(resolve_loop(ws, loop_id, day), "loop")
    item = data["loop"]
    _say(data, as_json, f"resolved loop {item['id']} about {item['entity']} on {item['resolved_on']}: {item['text']}")

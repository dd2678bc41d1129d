"""`kbg note` (quick capture) and `kbg brief` (three things worth knowing)."""

from __future__ import annotations

import sys

import click

from .common import json_option, open_workspace, vault_option


@click.command("note")
@click.argument("text")
@click.option("--confirm", is_flag=True, help="Accept the closest entity for a name kbgraph asked about.")
@vault_option
@json_option
def note(text, confirm, vault, as_json) -> None:
    """Capture TEXT: "person: Arjun; alias: AJ; int: fountain pens; loop: ask about surgery @2026-08-15"
    stores facts and loops about one entity (all or nothing); free text goes to today's daily note.
    A name kbgraph is not sure of is asked about (CONFIRM?) and nothing is stored: exit code 1."""
    from ..context.capture import capture
    from ..shapes import captured_json

    with open_workspace(vault) as ws:
        result = capture(ws, text, confirm)
    data = captured_json(result)
    if as_json:
        from .output import print_json

        print_json(data)
    elif result.questions:
        for question in result.questions:
            print(question)
        print("nothing was stored: run it again with --confirm, or write the name as kbgraph knows it")
    elif result.daily_note:
        print(f"appended to {result.daily_note}")
    else:
        made = " (new)" if result.created else ""
        print(f"{result.entity}{made}: {len(result.facts)} facts, {len(result.loops)} loops"
              + (f", aliases {', '.join(result.aliases)}" if result.aliases else ""))
    for warning in result.warnings:
        sys.stderr.write(f"warning: {warning}\n")
    if not result.stored:
        sys.exit(1)


@click.command("brief")
@click.argument("entity", required=False)
@click.option("--today", "today_flag", is_flag=True, help="Across entities: loops due today or overdue, today's meetings.")
@vault_option
@json_option
def brief(entity, today_flag, vault, as_json) -> None:
    """At most three things worth knowing about ENTITY (or --today), ranked by recency (45-day half-life),
    open loops x3 and due dates (docs/memory.md)."""
    from ..context.brief import brief_entity, brief_today
    from ..model import as_dict

    if bool(entity) == today_flag:
        raise click.UsageError("give an ENTITY or --today")
    with open_workspace(vault) as ws:
        result = (brief_today(ws.store, ws.access) if today_flag
                  else brief_entity(ws.store, ws.access, ws.config.vocabulary, entity))
    if as_json:
        from .output import print_json

        print_json(as_dict(result))
        return
    print(f"{result.about} ({result.today})")
    if not result.items:
        print("  nothing to brief")
    for item in result.items:
        who = f"{item.entity}: " if result.about == "today" and item.kind == "loop" else ""
        print(f"  {item.score:4.2f}  {item.kind:<8} {who}{item.text}" + (f"  [{item.ref}]" if item.kind != "note" else ""))

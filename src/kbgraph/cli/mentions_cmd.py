"""`kbg entity unmerge|unlink|relink|unlinked-mentions|link`: correcting who a name means."""

from __future__ import annotations

import click

from .common import json_option, list_options, open_workspace, vault_option
from .output import emit_result


def register(group: click.Group) -> None:
    for command in (unmerge, unlink, relink, unlinked_mentions, link):
        group.add_command(command)




@click.command("unmerge")
@click.argument("merged")
@vault_option
@json_option
def unmerge(merged, vault, as_json) -> None:
    """Undo a merge: MERGED is its own entity again, with its aliases, mentions and the relations
    that came from it; the pair is remembered as two entities."""
    from ..curation.merging import unmerge_entity

    with open_workspace(vault) as ws:
        result = unmerge_entity(ws, merged)
    emit_result(result, as_json, f"{result['unmerged']} is separate from {result['from']} again "
                           f"({result['relations_restored']} relations given back)")


@click.command("unlink")
@click.argument("entity")
@click.argument("doc")
@vault_option
@json_option
def unlink(entity, doc, vault, as_json) -> None:
    """ENTITY is not what DOC's text means: drop those mentions, now and on every re-index."""
    from ..curation.mention_edits import unlink as do_unlink

    with open_workspace(vault) as ws:
        result = do_unlink(ws, entity, doc)
    emit_result(result, as_json, f"{result['path']} no longer mentions {result['entity']}"
                           + ("" if result["changed"] else " (it was unlinked already)"))


@click.command("relink")
@click.argument("entity")
@click.argument("doc")
@vault_option
@json_option
def relink(entity, doc, vault, as_json) -> None:
    """Undo `kbg entity unlink ENTITY DOC`."""
    from ..curation.mention_edits import relink as do_relink

    with open_workspace(vault) as ws:
        result = do_relink(ws, entity, doc)
    emit_result(result, as_json, f"{result['path']} may mention {result['entity']} again")


@click.command("unlinked-mentions")
@click.argument("entity", required=False)
@click.option("--limit", "-n", default=100, show_default=True, type=click.IntRange(min=0), help="Rows (0: all).")
@vault_option
@list_options
def unlinked_mentions(entity, limit, vault, as_json, fmt, fields) -> None:
    """Documents whose text names ENTITY (or any entity) without linking it; `kbg entity link` promotes one."""
    from ..curation.mention_edits import unlinked_mentions as find
    from .output import resolve_format

    fmt = resolve_format(fmt, as_json)
    with open_workspace(vault) as ws:
        rows = find(ws, entity, limit or None)
    emit_unlinked(rows, fmt, fields)


def emit_unlinked(rows: list[dict], fmt: str, fields) -> None:
    """Unlinked mentions as every command that lists them shows them (here and `kbg graph unlinked`)."""
    from .output import emit_rows

    emit_rows(rows, fmt, fields, {"count": len(rows)}, "mentions",
              [("entity", "Entity"), ("path", "Document"), ("count", "Times"), ("context", "First mention")],
              row_keys=("entity_id", "entity", "entity_type", "path", "count", "surface", "start", "context"),
              title="Unlinked mentions", empty_message="no unlinked mentions")


@click.command("link")
@click.argument("entity")
@click.argument("doc")
@vault_option
@json_option
def link(entity, doc, vault, as_json) -> None:
    """Turn the first unlinked mention of ENTITY in DOC into a [[wikilink]] (the only change to the note)."""
    from ..curation.mention_edits import link as do_link

    with open_workspace(vault) as ws:
        result = do_link(ws, entity, doc)
    if not result["changed"]:
        emit_result(result, as_json, f"{result['path']} links {result['entity']} already; nothing changed")
        return
    emit_result(result, as_json, f"{result['path']}: {result['surface']!r} -> {result['link']}"
                + (f" ({result['remaining']} more mentions stay plain text)" if result["remaining"] else ""))

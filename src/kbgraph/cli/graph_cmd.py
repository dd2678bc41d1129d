"""`kbg graph neighbours|path|hubs|unlinked|export`: the relation graph read as a graph."""

from __future__ import annotations

import sys

import click

from .common import json_option, list_options, open_workspace, vault_option


def _view_options(fn):
    """--type, --as-of, --include-inferred, --include-expired: which graph a question reads."""
    for decorator in reversed([
        click.option("--type", "types", multiple=True, metavar="TYPE",
                     help="Only relations of this type, in either direction's name (repeatable)."),
        click.option("--as-of", default=None, metavar="DATE", help="The graph as it was on DATE (YYYY-MM-DD)."),
        click.option("--include-inferred", is_flag=True, help="Also relations inferred by `kbg graph infer`."),
        click.option("--include-expired", is_flag=True, help="Also relations past their valid_until date."),
    ]):
        fn = decorator(fn)
    return fn


def _view(types, as_of, include_inferred, include_expired):
    from ..graph.view import GraphView

    return GraphView(tuple(types), as_of, include_inferred, include_expired)


@click.group("graph")
def graph() -> None:
    """Neighbourhoods, paths, hubs and exports of the relation graph."""


def _hops_text(hops: list[dict]) -> str:
    if not hops:
        return ""
    text = hops[0]["from"]
    for h in hops:
        text += f" --{h['type']}--> {h['to']}"
    return text


@graph.command("neighbours")
@click.argument("entity")
@click.option("--depth", "-d", default=1, show_default=True, type=int, help="Hops out (1 to 6).")
@click.option("--direction", default="both", show_default=True, type=click.Choice(["out", "in", "both"]),
              help="Follow relations from ENTITY (out), to it (in), or both.")
@click.option("--limit", "-n", default=200, show_default=True, type=click.IntRange(min=0),
              help="Entities listed at most (0: all).")
@_view_options
@vault_option
@list_options
def neighbours(entity, depth, direction, limit, types, as_of, include_inferred, include_expired, vault, as_json,
               fmt, fields) -> None:
    """Entities within --depth hops of ENTITY, nearest first, each with the path that reached it."""
    from ..entities.lookup import find_entity
    from ..graph.neighbours import neighbours as walk
    from .output import emit_rows, print_json, resolve_format

    fmt = resolve_format(fmt, as_json)
    with open_workspace(vault) as ws:
        data = walk(ws.store, ws.config.vocabulary, find_entity(ws.store, entity, access=ws.access), depth,
                    direction, _view(types, as_of, include_inferred, include_expired), limit or None, access=ws.access)
    if fmt == "json" and not fields:
        print_json(data)
        return
    rows = [{"distance": level["distance"], **e, "via": _hops_text(e["path"])}
            for level in data["levels"] for e in level["entities"]]
    when = f" as of {data['as_of']}" if data["as_of"] else ""
    more = " (truncated: --limit 0 shows all)" if data["truncated"] else ""
    emit_rows(rows, fmt, fields, {"entity": data["entity"], "count": data["count"]}, "neighbours",
              [("distance", "Hops"), ("type", "Type"), ("name", "Entity"), ("via", "Path")],
              row_keys=("distance", "id", "name", "type", "relations", "via"),
              title=f"Within {depth} hop{'s' if depth > 1 else ''} of {data['entity']}{when}{more}",
              empty_message=f"{data['entity']} has no relations{when} in this view")


@graph.command("path")
@click.argument("source")
@click.argument("target")
@click.option("--all", "all_paths", is_flag=True, help="Every shortest path, not only the first.")
@click.option("--max-hops", default=6, show_default=True, type=int, help="Give up beyond this many hops (1 to 6).")
@_view_options
@vault_option
@json_option
def path(source, target, all_paths, max_hops, types, as_of, include_inferred, include_expired, vault,
         as_json) -> None:
    """How SOURCE and TARGET are connected: the shortest chain of relations, either direction."""
    from ..entities.lookup import find_entity
    from ..graph.paths import path as shortest
    from .output import print_json

    with open_workspace(vault) as ws:
        data = shortest(ws.store, ws.config.vocabulary, find_entity(ws.store, source, access=ws.access),
                        find_entity(ws.store, target, access=ws.access), all_paths, max_hops,
                        _view(types, as_of, include_inferred, include_expired), access=ws.access)
    if as_json:
        print_json(data)
        return
    when = f" as of {data['as_of']}" if data["as_of"] else ""
    print(f"{data['source']} to {data['target']}{when}: {data['hops']} hop{'s' if data['hops'] > 1 else ''}"
          + (f", {data['count']} shortest paths" if all_paths else ""))
    for hops in data["paths"]:
        print(f"  {_hops_text(hops)}")
    if data["truncated"]:
        print(f"  (more shortest paths exist; {data['count']} shown)")


@graph.command("hubs")
@click.option("--limit", "-n", default=10, show_default=True, type=click.IntRange(min=1), help="Entities listed.")
@click.option("--by", default="degree", show_default=True, type=click.Choice(["degree", "pagerank"]),
              help="Rank by relations at either end, or by PageRank along relations.")
@_view_options
@vault_option
@list_options
def hubs(limit, by, types, as_of, include_inferred, include_expired, vault, as_json, fmt, fields) -> None:
    """The entities the graph turns on."""
    from ..graph.hubs import hubs as rank
    from .output import emit_rows, resolve_format

    fmt = resolve_format(fmt, as_json)
    with open_workspace(vault) as ws:
        data = rank(ws.store, ws.config.vocabulary, limit, by, _view(types, as_of, include_inferred, include_expired),
                    access=ws.access)
    columns = [("type", "Type"), ("name", "Entity"), ("degree", "Relations")]
    if by == "pagerank":
        columns.append(("score", "PageRank"))
    emit_rows(data["hubs"], fmt, fields, {"by": by, "count": data["count"], "as_of": data["as_of"]}, "hubs", columns,
              row_keys=("id", "name", "type", "degree", "score"), title=f"Hubs by {by}",
              empty_message="no relations in this view")


@graph.command("unlinked")
@click.option("--limit", "-n", default=100, show_default=True, type=click.IntRange(min=0), help="Rows (0: all).")
@vault_option
@list_options
def unlinked(limit, vault, as_json, fmt, fields) -> None:
    """Every document that names an entity without linking it; `kbg entity link` links one."""
    from ..curation.mention_edits import unlinked_mentions
    from .mentions_cmd import emit_unlinked
    from .output import resolve_format

    fmt = resolve_format(fmt, as_json)
    with open_workspace(vault) as ws:
        rows = unlinked_mentions(ws, None, limit or None)
    emit_unlinked(rows, fmt, fields)


@graph.command("infer")
@vault_option
@list_options
def infer(vault, as_json, fmt, fields) -> None:
    """Compute the relations the inference rules give (kbg index also keeps them current), and list
    them with the two relations each comes from. They show elsewhere only with --include-inferred."""
    from ..graph.inference import infer as run_rules
    from ..graph.inference import inferred_relations
    from .output import emit_rows, resolve_format

    fmt = resolve_format(fmt, as_json)
    with open_workspace(vault) as ws:
        summary = run_rules(ws.store, ws.config.inference_rules)
        rows = inferred_relations(ws.store, ws.access)
    for row in rows:
        row["path"] = _hops_text(row["via"])
    emit_rows(rows, fmt, fields, {"rules": summary["rules"], "count": summary["count"], "added": summary["added"],
                                  "removed": summary["removed"]}, "inferred",
              [("source", "Source"), ("type", "Inferred"), ("target", "Target"), ("path", "From")],
              row_keys=("source", "type", "target", "rule", "confidence", "via", "path", "since"),
              title=f"Inferred relations ({summary['added']} new, {summary['removed']} gone)",
              empty_message="no relation follows from the rules (see [graph.rules] in docs/note-format.md)")


@graph.command("conflicts")
@click.option("--all", "include_resolved", is_flag=True, help="Also the conflicts already settled, and how.")
@vault_option
@list_options
def conflicts(include_resolved, vault, as_json, fmt, fields) -> None:
    """Contradictions: a second current relation where one is allowed at a time (a second manager, a second
    lead), or a hierarchy stated both ways or round a loop (Ana reports to Ben, Ben reports to Ana)."""
    from ..relations.conflict_resolution import list_conflicts
    from .output import emit_rows, resolve_format

    fmt = resolve_format(fmt, as_json)
    with open_workspace(vault) as ws:
        rows = list_conflicts(ws, include_resolved)
    for row in rows:
        row["old_other"], row["new_other"] = row["old"]["other"], row["new"]["other"]
    table = rows
    if fmt == "table":  # Subject / Type / Old reads "subject type old", true of a factual conflict only:
        # an inverse or cycle's sides run the other way, so its cells are the sentences themselves.
        table = [{**row, "old_other": row["old"]["relation"], "new_other": row["new"]["relation"]}
                 if row["kind"] in ("inverse", "cycle") else row for row in rows]
    emit_rows(table, fmt, fields, {"count": len(rows)}, "conflicts",
              [("id", "Id"), ("kind", "Kind"), ("subject", "Subject"), ("type", "Type"), ("old_other", "Old"),
               ("new_other", "New"), ("status", "Status"), ("note", "Note")],
              row_keys=("id", "kind", "type", "subject", "old", "new", "status", "resolution", "note",
                        "old_other", "new_other"),
              title="Conflicts", empty_message="no open conflicts" if not include_resolved else "no conflicts")


@graph.command("resolve")
@click.argument("conflict_id", type=int)
@click.option("--keep", required=True, type=click.Choice(["old", "new", "both"]),
              help="Which relation holds: the old one, the new one, or both (different contexts).")
@vault_option
@json_option
def resolve(conflict_id, keep, vault, as_json) -> None:
    """Settle an open conflict; the relation not kept is true until today (its history stays)."""
    from ..relations.conflict_resolution import resolve as settle

    with open_workspace(vault) as ws:
        result = settle(ws, conflict_id, keep)
    if as_json:
        from .output import print_json

        print_json(result)
        return
    print(f"conflict {result['id']}: {result['resolution']}")


@graph.command("export")
@click.option("--format", "fmt", default="graphml", show_default=True, type=click.Choice(["graphml", "json", "dot"]),
              help="GraphML (Gephi, Cytoscape, yEd), Cytoscape JSON, or Graphviz DOT.")
@click.option("--output", "-o", default=None, metavar="FILE", help="Write here instead of standard output.")
@click.option("--connected", is_flag=True, help="Only entities with at least one relation.")
@_view_options
@vault_option
@json_option
def export(fmt, output, connected, types, as_of, include_inferred, include_expired, vault, as_json) -> None:
    """The graph for other tools (entities as nodes, relations as directed edges). With --json: the
    graph as Cytoscape JSON on standard output, or, with --output, what was written."""
    from ..graph.export import export_graph

    if as_json and output is None:
        fmt = "json"
    with open_workspace(vault) as ws:
        lines = export_graph(ws.store, ws.config.vocabulary, fmt, _view(types, as_of, include_inferred,
                                                                        include_expired), connected, access=ws.access)
        if output is None:
            for line in lines:
                sys.stdout.write(line + "\n")
            return
        count = 0
        with open(output, "w", encoding="utf-8") as handle:
            for line in lines:
                handle.write(line + "\n")
                count += 1
    if as_json:
        from .output import print_json

        print_json({"path": output, "format": fmt, "lines": count})
        return
    sys.stderr.write(f"wrote {output} ({fmt}, {count} lines)\n")

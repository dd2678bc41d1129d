"""`kbg entity suggest-relations|suggestions|accept|reject`: reviewing extracted relations."""

from __future__ import annotations

import sys

import click

from .common import json_option, list_options, open_workspace, vault_option

_FIELDS = ("id", "source", "type", "target", "confidence", "rule", "status", "strength", "evidence", "source_doc",
           "created_at", "decided_at", "source_id", "target_id", "source_type", "target_type", "new_source",
           "new_target")
_COLUMNS = [("id", "Id"), ("source", "Source"), ("type", "Type"), ("target", "Target"),
            ("confidence", "Confidence"), ("strength", "Seen"), ("evidence", "Evidence", {"ratio": 2})]


def register(group: click.Group) -> None:
    for command in (suggest_relations, suggestions, accept, reject, candidates, extract):
        group.add_command(command)


@click.command("suggest-relations")
@click.option("--from-doc", default=None, metavar="PATH", help="Only what this document states.")
@click.option("--min-confidence", default="low", show_default=True, type=click.Choice(["high", "low"]))
@click.option("--auto-accept", is_flag=True, help="Accept every suggestion listed, without asking.")
@vault_option
@json_option
def suggest_relations(from_doc, min_confidence, auto_accept, vault, as_json) -> None:
    """Relations found in the notes and waiting for review; accept them all, some, or none."""
    from ..relations.suggestions import accept as do_accept
    from ..relations.suggestions import list_suggestions

    with open_workspace(vault) as ws:
        pending = list_suggestions(ws.store, "pending", from_doc, min_confidence, access=ws.access)
        chosen = []
        if auto_accept:
            chosen = [s["id"] for s in pending]
        elif pending and not as_json and sys.stdin.isatty():
            _print_pending(pending)
            chosen = _ask(pending)
        accepted = [do_accept(ws, i) for i in chosen]
    if as_json:
        from .output import print_json

        print_json({"pending": pending, "accepted": [a["id"] for a in accepted]})
        return
    if not chosen:
        _print_pending(pending)
    for item in accepted:
        r = item["relation"]
        created = f" (created {', '.join(item['created'])})" if item["created"] else ""
        print(f"accepted #{item['id']}: {r['source']} --{r['type']}--> {r['target']}{created}")


def _print_pending(pending: list[dict]) -> None:
    from rich.markup import escape

    from .output import stdout_console

    console = stdout_console()
    if not pending:
        console.print("[dim]no suggestions waiting[/dim]")
    for s in pending:
        console.print(f"#{s['id']}  {_end(s, 'source')} --{s['type']}--> {_end(s, 'target')}  "
                      f"(confidence: {s['confidence'].removeprefix('auto-')}, seen {s['strength']}×, "
                      f"source: {escape(repr(s['evidence']))}{_why(s['rule'])})", highlight=False)


def _why(rule: str) -> str:
    """A rule that carries its reason ("depends-on; 'It' read as the subject of the sentence before") says it."""
    from rich.markup import escape

    return f", why: {escape(rule.split('; ', 1)[1])}" if "; " in rule else ""


def _end(suggestion: dict, end: str) -> str:
    from rich.markup import escape

    name = escape(suggestion[end])
    return f"{name} [dim](new {suggestion[end + '_type']})[/dim]" if suggestion[f"new_{end}"] else name


def _ask(pending: list[dict]) -> list[int]:
    answer = click.prompt("Accept all? [y/N/select]", default="n", show_default=False).strip().lower()
    if answer in ("y", "yes"):
        return [s["id"] for s in pending]
    if answer in ("s", "select"):
        ids = {s["id"] for s in pending}
        picked = click.prompt("Ids to accept (space-separated)", default="", show_default=False)
        return [int(x) for x in picked.replace(",", " ").split() if x.isdigit() and int(x) in ids]
    return []


@click.command("extract")
@click.argument("paths", nargs=-1, metavar="[PATH]...")
@vault_option
@json_option
def extract(paths, vault, as_json) -> None:
    """Run extraction again now on these documents (default: all): the pattern rules and, when
    kbgraph.toml configures one, the LLM extractor. Lists what is waiting for review from them."""
    from ..model import as_dict
    from ..relations.suggestions import extract_now
    from .index_cmd import _ProgressBar

    with open_workspace(vault) as ws:
        if not as_json and sys.stderr.isatty():
            with _ProgressBar() as bar:
                result = extract_now(ws, list(paths), bar.update)
        else:
            result = extract_now(ws, list(paths))
    report, pending = result["report"], result["pending"]
    if as_json:
        from .output import print_json

        print_json({"documents": result["documents"], "pending": pending,
                    "problems": [as_dict(p) for p in report.problems]})
        return
    for problem in report.problems:
        sys.stderr.write(f"{problem.severity}: {problem.path}: {problem.reason}\n")
    print(f"extracted from {result['documents']} document(s): {len(pending)} suggestion(s) waiting")
    if pending:
        _print_pending(pending)


@click.command("suggestions")
@click.option("--status", default="pending", show_default=True, type=click.Choice(["pending", "accepted", "rejected"]))
@vault_option
@list_options
def suggestions(status, vault, as_json, fmt, fields) -> None:
    """Suggested relations by status, with the sentence that states each."""
    from ..relations.suggestions import list_suggestions
    from .output import emit_rows, resolve_format

    fmt = resolve_format(fmt, as_json)
    with open_workspace(vault) as ws:
        rows = list_suggestions(ws.store, status, access=ws.access)
    emit_rows(rows, fmt, fields, {"status": status, "count": len(rows)}, "suggestions", _COLUMNS,
              row_keys=_FIELDS, empty_message=f"no {status} suggestions")


@click.command("accept")
@click.argument("suggestion_id", type=int)
@vault_option
@json_option
def accept(suggestion_id, vault, as_json) -> None:
    """Accept a suggestion: it becomes a relation (mirrored to the source's page, its evidence kept)."""
    from ..relations.suggestions import accept as do_accept

    with open_workspace(vault) as ws:
        result = do_accept(ws, suggestion_id)
    if as_json:
        from .output import print_json

        print_json(result)
        return
    r = result["relation"]
    notes = ([f"created {', '.join(result['created'])}"] if result["created"] else []) + (
        [result["note"]] if result["note"] else [])
    print(f"accepted #{suggestion_id}: {r['source']} --{r['type']}--> {r['target']}"
          + (f" ({'; '.join(notes)})" if notes else ""))


@click.command("reject")
@click.argument("suggestion_id", type=int)
@vault_option
@json_option
def reject(suggestion_id, vault, as_json) -> None:
    """Reject a suggestion: it is remembered and not suggested again."""
    from ..relations.suggestions import reject as do_reject

    with open_workspace(vault) as ws:
        result = do_reject(ws, suggestion_id)
    if as_json:
        from .output import print_json

        print_json(result)
        return
    print(f"rejected #{suggestion_id}")


@click.command("candidates")
@click.option("--type", "entity_type", default=None, metavar="TYPE", help="Only candidates of this entity type.")
@click.option("--min-count", default=2, show_default=True, type=click.IntRange(min=1),
              help="Seen at least this many times.")
@click.option("--limit", "-n", default=100, show_default=True, type=click.IntRange(min=0), help="Rows (0: all).")
@vault_option
@list_options
def candidates(entity_type, min_count, limit, vault, as_json, fmt, fields) -> None:
    """Names the notes use that are not entities yet (handles, issue keys, technologies, people named in
    context, CamelCase, code, paths, URLs), each with the rule that found it; give the real ones a page."""
    from ..extract.candidates import collect
    from .output import emit_rows, resolve_format

    fmt = resolve_format(fmt, as_json)
    with open_workspace(vault) as ws:
        rows = collect(ws.store, entity_type, min_count, limit or None, access=ws.access)
    emit_rows(rows, fmt, fields, {"count": len(rows)}, "candidates",
              [("surface", "Name"), ("type", "Type"), ("rule", "Rule"), ("count", "Seen"),
               ("documents", "Docs"), ("example", "Example")],
              row_keys=("surface", "type", "rule", "count", "documents", "example"),
              empty_message="no candidates: every name the rules find is an entity already")

"""`kbg resolve pending|duplicates|confirm|reject|calibrate|log`: the questions entity resolution asks, and its log."""

from __future__ import annotations

import click

from .common import json_option, list_options, open_workspace, vault_option
from .output import emit_result

_FIELDS = ("id", "surface", "surface_key", "surface_type", "candidate_key", "candidate_name", "score", "features",
           "outcome", "decided_by", "doc_path", "created_at", "decided_at", "why")


@click.group("resolve")
def resolve() -> None:
    """Entity resolution: answer its questions, read its log, refit its weights."""


@resolve.command("pending")
@vault_option
@list_options
def pending(vault, as_json, fmt, fields) -> None:
    """Questions waiting for an answer: is this name that entity?"""
    from ..resolve.answers import pending as find
    from ..resolve.explain import with_reasons
    from .output import emit_rows, resolve_format

    fmt = resolve_format(fmt, as_json)
    with open_workspace(vault) as ws:
        rows = with_reasons(find(ws.store, ws.access))
    if fmt == "table" and not fields:
        _print_questions(rows)
        return
    emit_rows(rows, fmt, fields, {"count": len(rows)}, "questions",
              [("id", "Id"), ("surface", "Name"), ("candidate_name", "Is it"), ("score", "P"), ("doc_path", "Seen in")],
              row_keys=_FIELDS, title="Pending questions", empty_message="no questions waiting")


def _print_questions(rows: list[dict]) -> None:
    from rich.markup import escape

    from .output import stdout_console

    console = stdout_console()
    if not rows:
        console.print("[dim]no questions waiting[/dim]")
    for r in rows:
        if isinstance(r["features"], dict) and r["features"].get("kind") == "duplicate-pages":
            _print_duplicate(console, r)
            continue
        seen = f"  [dim](in {escape(r['doc_path'])})[/dim]" if r["doc_path"] else ""
        console.print(f"#{r['id']}  {escape(repr(r['surface']))} == {escape(r['candidate_name'] or '?')} "
                      f"(P={r['score']:.2f})?{seen}", highlight=False)
        console.print(f"    [dim]{escape(r['why'])}[/dim]", highlight=False)
    if rows:
        console.print("[dim]answer with `kbg resolve confirm ID` or `kbg resolve reject ID`[/dim]")


def _print_duplicate(console, r: dict) -> None:
    from rich.markup import escape

    f = r["features"]
    console.print(f"#{r['id']}  page {escape(r['doc_path'] or '?')} ({escape(r['surface'])}) is the same "
                  f"{escape(r['surface_type'])} as {escape(f.get('candidate_path') or '?')} "
                  f"({escape(r['candidate_name'] or '?')})? (P={r['score']:.2f})", highlight=False)
    console.print(f"      [dim]{escape(f.get('explain', ''))}[/dim]", highlight=False)


@resolve.command("duplicates")
@vault_option
@json_option
def duplicates(vault, as_json) -> None:
    """Find entity pages that are likely one entity (names, email, phone, handle, birth date, address,
    role, team) and ask about each new pair; `kbg resolve pending` lists them. Confirming adds
    `same_as: "[[Other]]"` to one page's frontmatter; rejecting means the pair is never asked again."""
    from ..resolve.duplicate_pages import find_duplicate_pages
    from .index_cmd import _ProgressBar

    with open_workspace(vault) as ws, _ProgressBar(as_json=as_json) as bar:
        result = find_duplicate_pages(ws.store, ws.access,
                                      progress=lambda done, total: bar.update("compare", done, total))
    if as_json:
        from .output import print_json

        print_json(result)
        return
    from .output import render_table

    render_table(result["asked"], [("id", "Id"), ("page", "Page"), ("same_as_page", "Same as"),
                                   ("probability", "P"), ("explain", "Why")],
                 f"Likely duplicate pages: {len(result['asked'])} new questions", "no new likely duplicates")
    for item in result["namesake_pages"]:
        click.echo(f"warning: {' and '.join(item['pages'])} are one entity by their name ({item['name']}) but may be "
                   f"two: {item['explain']}; give one page another name to separate them", err=True)
    # Pairs sharing no blocking key (a like name, an email, a phone, a handle, a birth date) are not compared.
    print(f"{result['pages']:,} entities with a page: {result['comparisons']:,} of {result['all_pairs']:,} possible "
          f"pairs had something in common to compare ({result['seconds']:.2f} s)"
          + ("; answer with `kbg resolve confirm ID` or `kbg resolve reject ID`" if result["asked"] else ""))


@resolve.command("log")
@click.option("--outcome", default=None, type=click.Choice(["auto-linked", "asked", "confirmed", "rejected", "new"]),
              help="Only decisions with this outcome.")
@vault_option
@list_options
def log(outcome, vault, as_json, fmt, fields) -> None:
    """Every resolution decision, oldest first: the data `kbg resolve calibrate` learns from."""
    from ..resolve.explain import with_reasons
    from .output import emit_rows, resolve_format

    fmt = resolve_format(fmt, as_json)
    with open_workspace(vault) as ws:
        rows = with_reasons(ws.store.decisions(ws.access, outcome))
    emit_rows(rows, fmt, fields, {"count": len(rows)}, "decisions",
              [("id", "Id"), ("surface", "Name"), ("candidate_name", "Entity"), ("score", "P"),
               ("outcome", "Outcome"), ("decided_by", "By"), ("why", "Why")],
              row_keys=_FIELDS, title="Resolution decisions", empty_message="no decisions logged")


@resolve.command("confirm")
@click.argument("question_id", type=int)
@vault_option
@json_option
def confirm(question_id, vault, as_json) -> None:
    """Yes: the name is that entity. A full name becomes its alias (a merge; `kbg entity unmerge NAME`
    undoes it); a short one ("Sam", "T. Becker") is linked in its notes and finds the entity from now on."""
    from ..resolve.answers import confirm as do_confirm

    with open_workspace(vault) as ws:
        result = do_confirm(ws, question_id)
    emit_result(result, as_json, f"confirmed #{question_id}: {result['surface']!r} is {result['entity']}"
                + _found_by(result))


def _found_by(result: dict) -> str:
    """What a lookup of the confirmed name gives now (resolve/answers.py reports it)."""
    lookup = result.get("lookup")
    if lookup == "unique":
        return f"; finding {result['surface']!r} now gives {result['entity']}"
    if lookup == "ambiguous":
        return f"; finding {result['surface']!r} lists {result['entity']} with {', '.join(result['also_named'])}"
    return ""


@resolve.command("reject")
@click.argument("question_id", type=int)
@vault_option
@json_option
def reject(question_id, vault, as_json) -> None:
    """No: the name is not that entity; the pair is never asked about again.

    Also takes back a short name or a name in prose confirmed by mistake (its links go, and it is no
    longer a confirmed name of the entity); a confirmed merge is undone with `kbg entity unmerge`."""
    from ..resolve.answers import reject as do_reject

    with open_workspace(vault) as ws:
        result = do_reject(ws, question_id)
    emit_result(result, as_json, f"rejected #{question_id}: {result['surface']!r} is not {result['entity']}")


@resolve.command("calibrate")
@click.option("--dry-run", is_flag=True, help="Report the refit without saving the new weights.")
@vault_option
@json_option
def calibrate(dry_run, vault, as_json) -> None:
    """Refit the scorer's weights from confirmed and rejected answers; report before and after on them."""
    from ..resolve.answers import calibrate as do_calibrate

    with open_workspace(vault) as ws:
        result = do_calibrate(ws.store, ws.config, dry_run)
    if as_json:
        from .output import print_json

        print_json(result)
        return
    from .output import render_table

    rows = [{"model": side, **result[side]} for side in ("before", "after")]
    render_table(rows, [("model", "Model"), ("version", "Weights"), ("log_loss", "Log-loss"), ("brier", "Brier"),
                        ("accuracy", "Accuracy"), ("auto_links", "Auto-links"), ("auto_precision", "Auto precision")],
                 f"Calibration on {result['examples']} answers ({result['same']} same)", "")
    print("saved: the next `kbg index` uses the new weights" if result["saved"] else "dry run: nothing saved")

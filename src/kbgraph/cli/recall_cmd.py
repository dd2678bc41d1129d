"""`kbg recall`: a question about one of your people, read from your side ([me] in kbgraph.toml)."""

from __future__ import annotations

import click

from .common import doc_filter, doc_filter_options, json_option, open_workspace, vault_option


@click.command("recall")
@click.argument("query")
@click.option("--limit", "-n", default=10, show_default=True, type=click.IntRange(min=1), help="Passages at most (for each person).")
@doc_filter_options
@vault_option
@json_option
def recall(query, limit, types, path, date_from, date_to, tags, vault, as_json) -> None:
    """Answer a question that names no one but says "my manager", "my sister"...: the one person your
    own current relation names, with their facts and the passages about them. Several people fit
    a singular word ("my report"): it lists them and answers for none; a plural word ("my reports")
    answers for each of them, one after the other.
    """
    from ..context.recall import recall as run_recall

    flt = doc_filter(types, path, date_from, date_to, tags)
    with open_workspace(vault) as ws:
        answer = run_recall(ws.store, ws.config, query, flt, limit, access=ws.access)
    if as_json:
        from ..shapes import recall_json
        from .output import print_json

        print_json(recall_json(answer))
        return
    _print(answer)


def _print(answer) -> None:
    from rich.markup import escape

    from .output import highlight, stdout_console

    out = stdout_console()
    if answer.status != "answered":
        out.print(f"[bold]{escape(answer.status)}[/bold]: {escape(answer.why)}")
        for c in answer.candidates:
            out.print(f"  - {escape(c.person)}  ({escape(c.relation)})")
        return
    for person in answer.people:  # one, or each person a plural word ("my reports") fits
        relations = "; ".join(t.relation for t in person.ties)
        out.print(f"[bold]{escape(person.person)}[/bold]  ({escape(relations)})")
        for f in person.facts:
            out.print(f"  {escape(f.kind)}: {escape(f.text)}" + (f"  ({f.date})" if f.date else ""))
        for h in person.passages:
            out.print(f"  [cyan]{escape(h.path)}:{h.line}[/cyan]  ", highlight(h.snippet, h.highlights))

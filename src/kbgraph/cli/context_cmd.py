"""`kbg context` and `kbg slice`: token-lean text for an agent, printed as is (notes on stderr)."""

from __future__ import annotations

import click

from .common import json_option, open_workspace, vault_option


@click.command("context")
@click.option("--for", "topic", default=None, metavar="TOPIC",
              help="What the context is for: the entities it names, their neighbours and the best passages. "
                   "Without it, the vault's most central entities.")
@click.option("--budget", default=2000, show_default=True, type=int, metavar="TOKENS",
              help="Tokens at most, header included (the embedding model's tokenizer counts them).")
@click.option("--items", default=20, show_default=True, type=int, metavar="N", help="Entity lines and passages at most.")
@vault_option
@json_option
def context(topic, budget, items, vault, as_json) -> None:
    """A compact entity index with key relations, and the best passages for TOPIC with their citations
    (path:line), never over the token budget or the item limit."""
    from ..context.agent import build_context

    with open_workspace(vault) as ws:
        result = build_context(ws.store, ws.config, topic, budget, items, access=ws.access)
    if as_json:
        from ..shapes import context_json
        from .output import print_json

        print_json(context_json(result))
        return
    _print_text(result.text, result.notes, "nothing to give: the context is empty")


@click.command("slice")
@click.argument("names", nargs=-1, required=True, metavar="ENTITY...")
@click.option("--include-expired", is_flag=True, help="Also relations whose valid-until has passed, marked expired.")
@click.option("--include-inferred", is_flag=True, help="Also relations graph inference derived, marked inferred.")
@vault_option
@json_option
def slice_(names, include_expired, include_inferred, vault, as_json) -> None:
    """Short lines (~15 tokens each) on one to three entities: who they are, their current relations
    (unconfirmed ones marked), for an agent's context."""
    from ..context.slice import slice_entities

    with open_workspace(vault) as ws:
        result = slice_entities(ws.store, ws.config, list(names), access=ws.access, include_expired=include_expired,
                                include_inferred=include_inferred)
    if as_json:
        from ..shapes import slice_json
        from .output import print_json

        print_json(slice_json(result))
        return
    _print_text(result.text, result.notes, "nothing known")


def _print_text(text: str, notes, empty: str) -> None:
    import sys

    from .wording import cli_words

    for note in notes:
        sys.stderr.write(cli_words(note) + "\n")
    if text:
        sys.stdout.write(text + "\n")
    elif not notes:
        sys.stderr.write(empty + "\n")

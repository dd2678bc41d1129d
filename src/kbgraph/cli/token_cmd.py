"""`kbg token create|list|revoke`: bearer tokens for `kbg serve`."""

from __future__ import annotations

import click

from .common import json_option, list_options, open_workspace, vault_option


@click.group()
def token() -> None:
    """Bearer tokens for the HTTP API (`kbg serve`). Only a salted hash is kept: a token is shown once."""


@token.command("create")
@click.argument("name")
@click.option("--visibility", "visibilities", multiple=True, default=("public", "team"), show_default=True,
              metavar="VIS", help="What its holder reads: public, team, private (repeatable).")
@click.option("--max-sensitivity", default="internal", show_default=True, metavar="LEVEL",
              help="The highest sensitivity it reads: normal, internal, confidential, restricted.")
@vault_option
@json_option
def create(name, visibilities, max_sensitivity, vault, as_json) -> None:
    """Create the token NAME and print it once. Its holder reads as principal NAME: the visibilities given,
    up to --max-sensitivity, and the private rows NAME owns."""
    from ..api.tokens import create_token

    with open_workspace(vault) as ws:
        secret, row = create_token(ws.store, name, tuple(visibilities), max_sensitivity)
    if as_json:
        from .output import print_json

        print_json({**row, "token": secret})
        return
    click.echo(secret)
    click.echo(f"token {name!r} created: keep it now, it is not shown again "
               "(send it as `Authorization: Bearer TOKEN`)", err=True)


@token.command("list")
@vault_option
@list_options
def list_(vault, as_json, fmt, fields) -> None:
    """The live tokens: name, what they read, when created (never the token)."""
    from ..api.tokens import list_tokens
    from .output import emit_rows, resolve_format

    with open_workspace(vault) as ws:
        rows = list_tokens(ws.store)
    emit_rows(rows, resolve_format(fmt, as_json), fields, {"count": len(rows)}, "tokens",
              [("name", "Name"), ("visibilities", "Reads"), ("max_sensitivity", "Up to"), ("created_at", "Created")],
              row_keys=("id", "name", "visibilities", "max_sensitivity", "created_at"), empty_message="no tokens")


@token.command("revoke")
@click.argument("name")
@vault_option
@json_option
def revoke(name, vault, as_json) -> None:
    """Revoke the token NAME: requests bearing it get 401 from now on."""
    from ..api.tokens import revoke_token

    with open_workspace(vault) as ws:
        result = revoke_token(ws.store, name)
    if as_json:
        from .output import print_json

        print_json(result)
        return
    click.echo(f"revoked token {name!r}")

"""`kbg mcp`: the MCP server over stdio, for an agent's MCP client to start."""

from __future__ import annotations

import click

from .common import db_url, vault_option


@click.command("mcp")
@vault_option
def mcp(vault: str | None) -> None:
    """Serve the vault to an AI agent over MCP (stdio): search, entities, relations, the graph, review
    queues, context, facts and loops as tools; notes and entity pages as resources. Needs the serve
    extra (pip install 'kbgraph[serve]'); an MCP client starts it, see docs/mcp.md."""
    from ..mcp import run_stdio

    run_stdio(vault, db_url())

"""The MCP server over one vault: its tools and resources, built from the modules beside this one."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from ..workspace import Workspace
from .browse_tools import register as browse_tools
from .curation_tools import register as curation_tools
from .entity_tools import register as entity_tools
from .memory_tools import register as memory_tools
from .resources import register as resources
from .review_tools import register as review_tools
from .search_tools import register as search_tools

INSTRUCTIONS = """kbgraph: a knowledge graph over the user's markdown notes (people, projects, teams,
technologies, decisions) with typed relations and hybrid search.
Start with `search` (unit="passage" for the sections that answer; cite path:line), `context` for a
token-lean brief on a topic, or `entity_profile` for one entity. A name that matches several entities
is an error listing the candidates: ask again with one of them, never guess. Writes (relate, facts,
loops, notes, accepting suggestions, confirming identities, merges, mention links) change the user's
notes: make them only when the user asked."""


def build_server(vault: str | None = None, workspace: Workspace | None = None) -> MCPServer:
    """An MCPServer whose tools read and write the vault given (or KBG_VAULT, or the nearest one up from
    the current folder). With `workspace`, that open one is used and the caller closes it."""
    ws = workspace or Workspace.open(vault)
    from importlib.metadata import version

    server: MCPServer = MCPServer("kbgraph", instructions=INSTRUCTIONS, version=version("kbgraph"),
                                  log_level="WARNING")
    for register in (search_tools, browse_tools, entity_tools, curation_tools, review_tools, memory_tools, resources):
        register(server, ws)
    return server


def run_stdio(vault: str | None = None, db: str | None = None) -> None:
    ws = Workspace.open(vault, db=db)
    try:
        build_server(workspace=ws).run()
    finally:
        ws.close()

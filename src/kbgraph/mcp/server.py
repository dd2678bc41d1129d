"""The MCP server over one vault: its tools and resources, built from the modules beside this one."""

from __future__ import annotations

import difflib
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, InputRequiredResult
from mcp.types import Tool as ListedTool
from pydantic import ValidationError

from ..errors import NotFound
from ..workspace import Workspace
from .arguments import invalid_arguments, mistyped_arguments, unknown_arguments
from .errors import error_result
from .outputs import output_schema
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


class CheckedServer(MCPServer):
    """The SDK's server, with what every tool shares done once here rather than in 44 bodies: a call's
    arguments are checked against the tool's schema before it runs (arguments.py: an unknown name is
    refused, a bad value is one line), and each tool lists `additionalProperties: false` and the output
    schema of its structured content (outputs.py)."""

    _schemas: dict[str, dict[str, Any]] | None = None

    async def list_tools(self) -> list[ListedTool]:
        return [tool.model_copy(update={"input_schema": {**tool.input_schema, "additionalProperties": False},
                                        "output_schema": output_schema(tool.name)})
                for tool in await super().list_tools()]

    def add_tool(self, *args: Any, **kwargs: Any) -> None:
        self._schemas = None
        super().add_tool(*args, **kwargs)

    def remove_tool(self, name: str) -> None:
        self._schemas = None
        super().remove_tool(name)

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None,
                        ) -> CallToolResult | InputRequiredResult:
        if self._schemas is None:
            self._schemas = {tool.name: tool.input_schema for tool in await super().list_tools()}
        if name not in self._schemas:
            close = difflib.get_close_matches(name, list(self._schemas), 3, 0.6)
            hint = f"did you mean {', '.join(close)}?" if close else "tools/list names them all"
            return error_result(NotFound(f"no tool named {name!r}", hint=hint), name)
        schema = self._schemas[name]
        if unknown := unknown_arguments(name, schema, arguments):
            return error_result(unknown, name, known=list(schema.get("properties", {})))
        if mistyped := mistyped_arguments(name, schema, arguments):
            return error_result(mistyped, name)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            # Only the SDK's own argument check raises a plain ToolError caused by a ValidationError; a
            # crash inside a tool is an UnexpectedToolError and keeps the SDK's answer.
            if type(exc) is ToolError and isinstance(exc.__cause__, ValidationError):
                return error_result(invalid_arguments(name, schema, exc.__cause__), name)
            raise


def build_server(vault: str | None = None, workspace: Workspace | None = None) -> MCPServer:
    """An MCPServer whose tools read and write the vault given (or KBG_VAULT, or the nearest one up from
    the current folder). With `workspace`, that open one is used and the caller closes it."""
    ws = workspace or Workspace.open(vault)
    from importlib.metadata import version

    server: MCPServer = CheckedServer("kbgraph", instructions=INSTRUCTIONS, version=version("kbgraph"),
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

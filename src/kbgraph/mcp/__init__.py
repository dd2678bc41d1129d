"""The MCP server: kbgraph's tools and resources for AI agents, over stdio (`kbg mcp`) or mounted
under `kbg serve` at /mcp (streamable HTTP). A thin interface: every tool calls one library
function and renders its result; `errors.py` is the one place library errors become tool errors.

Importing this package needs no MCP SDK; `build_server` and `run_stdio` check for it first and
raise MissingDependency naming the extra to install.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ..errors import MissingDependency

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from ..workspace import Workspace

INSTALL = "pip install 'kbgraph[serve]'"


def require_sdk() -> None:
    """MissingDependency (naming the pip command) when the `mcp` package cannot be imported."""
    try:
        importlib.import_module("mcp.server.mcpserver")
    except ImportError as exc:
        raise MissingDependency(f"the MCP server needs the `mcp` package, which is not installed: {INSTALL}") from exc


def build_server(vault: str | None = None, workspace: "Workspace | None" = None) -> "MCPServer":
    """The MCP server over one vault (or an open workspace, which the caller keeps and closes).
    `kbg serve` mounts `build_server(...).streamable_http_app()`."""
    require_sdk()
    from .server import build_server as build

    return build(vault, workspace)


def run_stdio(vault: str | None = None, db: str | None = None) -> None:
    """Serve the vault's tools over stdio until the client hangs up; db: its index in PostgreSQL."""
    require_sdk()
    from .server import run_stdio as run

    run(vault, db)


__all__ = ["INSTALL", "build_server", "require_sdk", "run_stdio"]

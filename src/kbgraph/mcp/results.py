"""What a tool returns: compact text an agent can act on, plus the JSON shape of docs/json.md as
structured content (kbgraph.shapes, the shapes every door prints)."""

from __future__ import annotations

from typing import Any

from mcp.types import CallToolResult, TextContent, ToolAnnotations


READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


def write(destructive: bool = False, idempotent: bool = False) -> ToolAnnotations:
    """Annotations of a tool that changes the vault or its index (never read-only)."""
    return ToolAnnotations(read_only_hint=False, destructive_hint=destructive, idempotent_hint=idempotent,
                           open_world_hint=False)


def result(text: str, data: dict[str, Any]) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def lines(*parts: str | None) -> str:
    return "\n".join(p for p in parts if p)

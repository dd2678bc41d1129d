"""The one place library errors become MCP tool errors: the library's message (and, for an ambiguous
name, its candidates with the call to make next) as an is_error result, never a traceback."""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar, cast

from mcp.types import CallToolResult, TextContent

from ..errors import Ambiguous, KbgError

F = TypeVar("F", bound=Callable[..., CallToolResult])


def tool_errors(fn: F) -> F:
    """Wrap a tool: a KbgError it raises comes back as a tool error naming what to do next."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> CallToolResult:
        try:
            return fn(*args, **kwargs)
        except KbgError as exc:
            return error_result(exc, fn.__name__)

    return cast(F, call)


def error_result(exc: KbgError, tool: str, **extra: Any) -> CallToolResult:
    """The tool error for `exc`; `extra` adds keys to its structured content (`known`: the arguments a tool takes)."""
    data: dict[str, Any] = {"error": str(exc), "kind": type(exc).__name__}
    if exc.param:
        data["param"] = exc.param
    data.update(extra)
    text = f"error: {exc}"
    if isinstance(exc, Ambiguous):
        data["candidates"] = exc.candidates
        names = "; ".join(_candidate(c) for c in exc.candidates)
        text += f"\n{len(exc.candidates)} candidates: call {tool} again with one of: {names}"
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data, is_error=True)


def _candidate(c: dict) -> str:
    where = f", {c['page_path']}" if c.get("page_path") else f", {c['note']}" if c.get("note") else ""
    return f"{c['name']} ({c['type']}{where})"

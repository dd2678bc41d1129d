"""Tools for the review queues: relation suggestions, entity-resolution questions and relation conflicts."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from ..workspace import Workspace
from .errors import tool_errors
from .results import READ, lines, result, write

Id = Annotated[int, Field(ge=1, description="The id the list shows.")]


def register(server: MCPServer, ws: Workspace) -> None:
    _register_suggestions(server, ws)
    _register_questions(server, ws)
    _register_conflicts(server, ws)


def _register_suggestions(server: MCPServer, ws: Workspace) -> None:
    from ..relations.suggestions import accept, list_suggestions, reject

    @server.tool(annotations=READ)
    @tool_errors
    def suggestions_list(status: Literal["pending", "accepted", "rejected"] = "pending") -> CallToolResult:
        """Relations found in the notes, by review status, each with the sentence that states it."""
        rows = list_suggestions(ws.store, status, access=ws.access)
        out = [f"#{s['id']} {s['source']} --{s['type']}--> {s['target']} ({s['confidence']}, seen {s['strength']}×): "
               f"{' '.join((s['evidence'] or '').split())[:160]}" for s in rows]
        data = {"status": status, "count": len(rows), "suggestions": rows}
        if not rows:
            return result(f"no {status} suggestions", data)
        nxt = "next: suggestion_accept or suggestion_reject with an id" if status == "pending" else None
        return result(lines(f"{len(rows)} {status} suggestions:", *out, nxt), data)

    @server.tool(annotations=write(idempotent=True))
    @tool_errors
    def suggestion_accept(suggestion_id: Id) -> CallToolResult:
        """Accept a pending suggestion: it becomes a relation (written to the source's page, evidence kept)."""
        data = accept(ws, suggestion_id)
        r = data["relation"]
        notes = ([f"created {', '.join(data['created'])}"] if data["created"] else []) + ([data["note"]] if data["note"] else [])
        return result(f"accepted #{suggestion_id}: {r['source']} --{r['type']}--> {r['target']}"
                      + (f" ({'; '.join(notes)})" if notes else ""), data)

    @server.tool(annotations=write(idempotent=True))
    @tool_errors
    def suggestion_reject(suggestion_id: Id) -> CallToolResult:
        """Reject a pending suggestion: it is remembered and never suggested again."""
        return result(f"rejected #{suggestion_id}", reject(ws, suggestion_id))


def _register_questions(server: MCPServer, ws: Workspace) -> None:
    from ..resolve.answers import confirm, pending, reject
    from ..resolve.explain import with_reasons

    @server.tool(annotations=READ)
    @tool_errors
    def resolution_pending() -> CallToolResult:
        """Entity-resolution questions waiting for an answer: is this name that entity?"""
        rows = with_reasons(pending(ws.store, ws.access))
        data = {"count": len(rows), "questions": rows}
        if not rows:
            return result("no questions waiting", data)
        out = [f"#{r['id']} is {r['surface']!r} {r['candidate_name'] or '?'}? (P={r['score']:.2f}"
               + (f", in {r['doc_path']})" if r["doc_path"] else ")") + f": {r['why']}" for r in rows]
        return result(lines(f"{len(rows)} questions:", *out,
                            "next: resolution_confirm or resolution_reject with an id (ask the user: never guess)"), data)

    @server.tool(annotations=write(destructive=True, idempotent=True))
    @tool_errors
    def resolution_confirm(question_id: Id) -> CallToolResult:
        """Yes, the name is that entity: recorded as a merge (or, for a bare first name, a link in the
        documents that use it). Identities change: confirm only what the user said."""
        data = confirm(ws, question_id)
        return result(f"confirmed #{question_id}: {data['surface']!r} is {data['entity']}", data)

    @server.tool(annotations=write(idempotent=True))
    @tool_errors
    def resolution_reject(question_id: Id) -> CallToolResult:
        """No, the name is not that entity; the pair is never asked about again."""
        data = reject(ws, question_id)
        return result(f"rejected #{question_id}: {data['surface']!r} is not {data['entity']}", data)


def _register_conflicts(server: MCPServer, ws: Workspace) -> None:
    from ..relations.conflict_resolution import list_conflicts, resolve

    @server.tool(annotations=READ)
    @tool_errors
    def conflicts(include_resolved: bool = False) -> CallToolResult:
        """Contradictions between relations allowed one at a time (a second manager, a second lead), and
        hierarchies stated both ways or round a loop (Ana reports to Ben, Ben reports to Ana); the open
        ones wait for the user to say which holds."""
        rows = list_conflicts(ws, include_resolved)
        data = {"count": len(rows), "conflicts": rows}
        if not rows:
            return result("no conflicts" if include_resolved else "no open conflicts", data)
        out = [f"#{c['id']} {c['old']['relation']} (old) vs {c['new']['relation']} (new), "
               f"{c['kind']}, {c['status']}: {c['resolution'] or c['note'] or ''}" for c in rows]
        nxt = ("next: resolve_conflict with an id and keep old, new or both (ask the user: never guess)"
               if any(c["status"] == "open" for c in rows) else None)
        return result(lines(f"{len(rows)} conflicts:", *out, nxt), data)

    # Destructive: keeping one side ends the other relation (true until yesterday, its history kept).
    @server.tool(annotations=write(destructive=True))
    @tool_errors
    def resolve_conflict(conflict_id: Id, keep: Literal["old", "new", "both"]) -> CallToolResult:
        """Settle an open conflict: keep the old relation, the new one, or both (they hold in different
        contexts). The one not kept is true until yesterday. Settle only as the user said."""
        data = resolve(ws, conflict_id, keep)
        return result(f"conflict #{conflict_id} ({data['subject']} {data['type']}): {data['resolution']}", data)

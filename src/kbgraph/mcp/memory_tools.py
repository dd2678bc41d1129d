"""Tools for what the vault remembers about entities: facts, loops, briefs and quick capture."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from ..model import as_dict
from ..workspace import Workspace
from .errors import tool_errors
from ..shapes import captured_json, loop_json, recorded_json
from .results import READ, lines, result, write

Name = Annotated[str, Field(min_length=1, max_length=500, description="An entity's name or alias.")]
Text = Annotated[str, Field(min_length=1, max_length=2000)]
Date = Annotated[str | None, Field(max_length=10, description="YYYY-MM-DD.")]
Source = Annotated[str, Field(min_length=1, max_length=1000, description="The note it came from (vault-relative), or manual.")]
Id = Annotated[int, Field(ge=1, description="The id the list shows.")]


def register(server: MCPServer, ws: Workspace) -> None:
    _register_facts(server, ws)
    _register_loops(server, ws)
    _register_capture(server, ws)


def _written(data: dict) -> str:
    where = f"written to {data['page']}" if data["page"] else "kept in the index: no page"
    return lines(f"({where})", *(f"warning: {w}" for w in data["warnings"]))


def _register_facts(server: MCPServer, ws: Workspace) -> None:
    from ..context.facts import add_fact, list_facts, supersede_fact

    @server.tool(annotations=write())
    @tool_errors
    def fact_add(entity: Name, text: Text, kind: Annotated[str, Field(min_length=1, max_length=20, description=(
                     "interest, role, note or event."))], date: Date = None, source: Source = "manual") -> CallToolResult:
        """Record a fact about an entity (a `## Facts` line on its page, when it has one). Facts are
        append-only: correct one with fact_supersede."""
        data = recorded_json(add_fact(ws, entity, kind, text, date, source), "fact")
        f = data["fact"]
        return result(f"fact {f['id']} about {f['entity']}: {f['kind']}: {f['text']} {_written(data)}", data)

    @server.tool(annotations=READ)
    @tool_errors
    def fact_list(entity: Annotated[str | None, Field(max_length=500, description="The entity (default: all).")] = None,
                  include_superseded: bool = False) -> CallToolResult:
        """The current facts of an entity (or of all); include_superseded adds history."""
        rows = [as_dict(f) for f in list_facts(ws.store, ws.access, entity, include_superseded)]
        out = [f"#{f['id']} {f['entity']}: {f['kind']}: {f['text']}" + (f" ({f['date']})" if f["date"] else "")
               + (f" [{f['change']}]" if f["change"] else "") for f in rows]
        data = {"entity": entity, "count": len(rows), "facts": rows}
        return result(lines(*out, "next: fact_supersede with an id to correct one") if rows else "no facts yet", data)

    @server.tool(annotations=write())
    @tool_errors
    def fact_supersede(fact_id: Id, text: Text,
                       kind: Annotated[str | None, Field(max_length=20, description="A new kind (default: the old one's).")] = None,
                       date: Date = None, source: Annotated[str | None, Field(max_length=1000)] = None) -> CallToolResult:
        """Correct a fact: a new fact supersedes it; the old one stays in history."""
        data = recorded_json(supersede_fact(ws, fact_id, text, kind, date, source), "fact")
        f = data["fact"]
        return result(f"fact {f['id']} supersedes fact {fact_id}: {f['kind']}: {f['text']} {_written(data)}", data)


def _register_loops(server: MCPServer, ws: Workspace) -> None:
    from ..context.brief import brief_entity, brief_today
    from ..context.loops import add_loop, list_loops, resolve_loop

    @server.tool(annotations=write())
    @tool_errors
    def loop_add(entity: Name, text: Text, due: Date = None, source: Source = "manual") -> CallToolResult:
        """Open a loop (a follow-up) about an entity, with an optional due date."""
        data = recorded_json(add_loop(ws, entity, text, due, source), "loop")
        item = data["loop"]
        return result(f"loop {item['id']} about {item['entity']}: {item['text']}"
                      + (f", due {item['due']}" if item["due"] else "") + f" {_written(data)}", data)

    @server.tool(annotations=READ)
    @tool_errors
    def loop_list(entity: Annotated[str | None, Field(max_length=500, description="The entity (default: all).")] = None,
                  due: Annotated[str | None, Field(max_length=10, description=(
                      "YYYY-MM-DD, today or overdue: only loops due by then."))] = None,
                  include_closed: bool = False) -> CallToolResult:
        """Open loops (of an entity, or of all), soonest due first."""
        rows = [loop_json(x) for x in list_loops(ws.store, ws.access, entity, due, include_closed)]
        out = [f"#{x['id']} {x['entity']}: {x['text']}" + (f" (due {x['due']}{', overdue' if x['overdue'] else ''})"
                                                           if x["due"] else "") + f" [{x['status']}]" for x in rows]
        data = {"entity": entity, "due": due, "count": len(rows), "loops": rows}
        return result(lines(*out, "next: loop_resolve with an id once done") if rows else "no open loops", data)

    @server.tool(annotations=write(idempotent=True))
    @tool_errors
    def loop_resolve(loop_id: Id, on: Date = None) -> CallToolResult:
        """Resolve an open loop (its page line is ticked); it stays in history."""
        data = recorded_json(resolve_loop(ws, loop_id, on), "loop")
        item = data["loop"]
        return result(f"resolved loop {item['id']} about {item['entity']} on {item['resolved_on']} {_written(data)}", data)

    @server.tool(annotations=READ)
    @tool_errors
    def brief(entity: Annotated[str | None, Field(max_length=500, description=(
                  "The entity; without it, today's brief across entities."))] = None) -> CallToolResult:
        """At most three things worth knowing about an entity (or today): recent facts, open loops, meetings."""
        found = (brief_entity(ws.store, ws.access, ws.config.vocabulary, entity) if entity
                 else brief_today(ws.store, ws.access))
        out = [f"- {i.kind}: {i.text}" + (f" [{i.ref}]" if i.kind != "note" else "") for i in found.items]
        return result(lines(f"{found.about} ({found.today})", *out) if out else f"{found.about}: nothing to brief",
                      as_dict(found))


def _register_capture(server: MCPServer, ws: Workspace) -> None:
    from ..context.capture import capture

    @server.tool(annotations=write())
    @tool_errors
    def note(text: Annotated[str, Field(min_length=1, max_length=20_000, description=(
                 "\"person: Arjun; alias: AJ; int: fountain pens; loop: ask about surgery @2026-08-15\", "
                 "or free text for today's daily note."))],
             confirm: Annotated[bool, Field(description=(
                 "Accept the closest entity for a name asked about (only after the user said so)."))] = False,
             ) -> CallToolResult:
        """Quick capture: facts, aliases and loops about one entity in one line (all or nothing), or free
        text appended to today's daily note. A name kbgraph is not sure of comes back as a question and
        nothing is stored: ask the user, then call again with confirm=true or the name as kbgraph knows it."""
        found = capture(ws, text, confirm)
        data = captured_json(found)
        warnings = [f"warning: {w}" for w in found.warnings]
        if found.questions:
            return result(lines(*(q["text"] for q in data["questions"]),
                                "nothing was stored: ask the user, then call note again with confirm=true",
                                *warnings), data)
        if found.daily_note:
            return result(lines(f"appended to {found.daily_note}", *warnings), data)
        made = " (new)" if found.created else ""
        aliases = f", aliases {', '.join(found.aliases)}" if found.aliases else ""
        return result(lines(f"{found.entity}{made}: {len(found.facts)} facts, {len(found.loops)} loops{aliases}",
                            *warnings, f"next: fact_list or loop_list with entity={found.entity!r}"), data)

"""Read-only tools for the rest of the vault: the document list, a document's relations, an entity's
timeline, the graph's hubs, the resolution log and the index's status."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from ..model import as_dict
from ..workspace import Workspace
from .errors import tool_errors
from .results import READ, lines, result

Name = Annotated[str, Field(min_length=1, max_length=500, description="An entity's name or alias.")]
Date = Annotated[str | None, Field(max_length=10, description="YYYY-MM-DD.")]
Words = Annotated[list[Annotated[str, Field(max_length=100)]], Field(max_length=20)]
Limit = Annotated[int, Field(ge=1, le=1000, description="Rows at most.")]


def register(server: MCPServer, ws: Workspace) -> None:
    _register_documents(server, ws)
    _register_graph(server, ws)
    _register_index(server, ws)


def _register_documents(server: MCPServer, ws: Workspace) -> None:
    from ..docgraph.read import relations_of
    from ..documents.views import list_documents, parse_date_option
    from ..store.base import DocFilter

    @server.tool(annotations=READ)
    @tool_errors
    def document_list(kinds: Words | None = None, path: Annotated[str | None, Field(max_length=500, description=(
                          "Only documents under this folder (or glob)."))] = None,
                      date_from: Date = None, date_to: Date = None, tags: Words | None = None,
                      limit: Limit = 50) -> CallToolResult:
        """Indexed documents, newest first, filtered by kind (meeting, decision, ...), folder, date and tag."""
        flt = DocFilter(kinds=tuple(k.lower() for k in kinds or ()), path_prefix=path,
                        date_from=parse_date_option(date_from, "date_from"),
                        date_to=parse_date_option(date_to, "date_to", end=True),
                        tags=tuple(t.lstrip("#") for t in tags or ()))
        docs = list_documents(ws.store, flt, limit, access=ws.access)
        data = {"count": len(docs), "documents": docs}
        out = [f"- {d['path']} — {d['title']} ({d['kind']}{', ' + d['date'] if d['date'] else ''})" for d in docs]
        return result(lines(f"{len(docs)} documents:", *out, "next: document_view with a path") if docs
                      else "no documents match", data)

    @server.tool(annotations=READ)
    @tool_errors
    def document_relations(target: Annotated[str, Field(min_length=1, max_length=1000, description=(
                               "A vault-relative path or a document id."))],
                           type_name: Annotated[str | None, Field(max_length=20, description=(
                               "references, continues, duplicate-of, parent or sibling."))] = None,
                           limit: Limit = 50) -> CallToolResult:
        """How a document relates to others, strongest first: references, continues, duplicate-of (stored
        by indexing), parent and sibling (from its folder)."""
        document, found = relations_of(ws.store, target, type_name, access=ws.access)
        rows = [asdict(r) for r in found[:limit]]
        data = {"path": document["path"], "doc_id": document["id"], "count": len(rows), "total": len(found),
                "relations": rows}
        arrows = {"out": "→", "in": "←", "both": "↔"}
        out = [f"- {arrows[r['direction']]} {r['type']} {r['path']} ({r['score']:.2f})" for r in rows]
        return result(lines(f"{document['path']}: {len(rows)} of {len(found)} relations", *out,
                            "next: document_view with a path" if rows else None), data)


def _register_graph(server: MCPServer, ws: Workspace) -> None:
    from ..documents.views import timeline
    from ..entities.lookup import find_entity
    from ..graph.hubs import hubs
    from ..graph.view import GraphView

    @server.tool(annotations=READ)
    @tool_errors
    def entity_timeline(name: Name, entity_type: Annotated[str | None, Field(max_length=100)] = None,
                        limit: Limit = 100) -> CallToolResult:
        """The documents that mention an entity, oldest first (undated ones last)."""
        entity = find_entity(ws.store, name, entity_type, access=ws.access)
        docs = timeline(ws.store, entity, limit, access=ws.access)
        data = {"entity": {k: as_dict(entity)[k] for k in ("id", "type", "name")}, "count": len(docs),
                "documents": docs}
        out = [f"- {d['date'] or 'undated'}: {d['path']} — {d['title']} ({d['mentions']} mentions)" for d in docs]
        return result(lines(f"{entity.name}: {len(docs)} documents", *out,
                            "next: document_view with a path" if docs else None), data)

    @server.tool(annotations=READ)
    @tool_errors
    def graph_hubs(limit: Annotated[int, Field(ge=1, le=1000)] = 10, by: Literal["degree", "pagerank"] = "degree",
                   types: Words | None = None, as_of: Date = None, include_inferred: bool = False,
                   include_expired: bool = False) -> CallToolResult:
        """The entities the graph turns on: most relations (degree) or PageRank."""
        view = GraphView(tuple(types or ()), as_of, include_inferred, include_expired)
        data = hubs(ws.store, ws.config.vocabulary, limit, by, view, access=ws.access)
        out = [f"{n}. {h['name']} ({h['type']}): degree {h['degree']}" + (f", score {h['score']:.4f}" if by == "pagerank"
                                                                           else "")
               for n, h in enumerate(data["hubs"], 1)]
        return result(lines(f"hubs by {by}:", *out, "next: entity_profile or graph_neighbours on one") if out
                      else "no relations in this view", data)


def _register_index(server: MCPServer, ws: Workspace) -> None:
    from ..shapes import index_status_json

    @server.tool(annotations=READ)
    @tool_errors
    def resolution_log(outcome: Literal["auto-linked", "asked", "confirmed", "rejected", "new"] | None = None
                       ) -> CallToolResult:
        """Every entity-resolution decision, oldest first (auto-linked, asked, confirmed, rejected, new)."""
        rows = ws.store.decisions(ws.access, outcome)
        data = {"count": len(rows), "decisions": rows}
        out = [f"#{r['id']} {r['surface']!r} → {r['candidate_name'] or '(new)'}: {r['outcome']}" for r in rows[-50:]]
        more = f" (the last {len(out)} shown)" if len(rows) > len(out) else ""
        return result(lines(f"{len(rows)} decisions{more}:", *out) if rows else "no decisions logged", data)

    @server.tool(annotations=READ)
    @tool_errors
    def index_status() -> CallToolResult:
        """The index: counts, sizes, when the vault was last indexed, and files with problems."""
        data = index_status_json(ws.store, ws.root, ws.access)
        problems = [f"- {p['severity']}: {p['path']}: {p['reason']}" for p in data["problems"]]
        return result(lines(f"{data['documents']} documents, {data['entities']} entities, {data['relations']} "
                            f"relations; last indexed {data['last_indexed'] or 'never'}", *problems), data)

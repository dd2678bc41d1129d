"""Tools on entities and their relations: find, list, profile, relations, relate, unrelate,
neighbours and paths."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from ..model import as_dict
from ..workspace import Workspace
from .errors import tool_errors
from .results import READ, lines, result, write

Name = Annotated[str, Field(min_length=1, max_length=500, description="An entity's name or alias.")]
EntityType = Annotated[str | None, Field(max_length=100, description="Only entities of this type (person, project, ...).")]
RelationType = Annotated[str, Field(min_length=1, max_length=100, description=(
    "A relation type, in either direction's name (reports-to or manages)."))]
Date = Annotated[str | None, Field(max_length=10, description="YYYY-MM-DD.")]
Types = Annotated[list[Annotated[str, Field(max_length=100)]], Field(max_length=20, description=(
    "Only relations of these types (either direction's name)."))]


def register(server: MCPServer, ws: Workspace) -> None:
    _register_entities(server, ws)
    _register_relations(server, ws)
    _register_graph(server, ws)


def _register_entities(server: MCPServer, ws: Workspace) -> None:
    from ..documents.views import profile
    from ..entities.lookup import find_entity

    @server.tool(annotations=READ)
    @tool_errors
    def entity_find(name: Name, entity_type: EntityType = None) -> CallToolResult:
        """The one entity a name or alias names (an ambiguous name is an error listing the candidates)."""
        entity = as_dict(find_entity(ws.store, name, entity_type, access=ws.access, questions=True))
        aliases = f"; aliases {', '.join(entity['aliases'])}" if entity["aliases"] else ""
        page = f"; page {entity['page_path']}" if entity["page_path"] else ""
        text = (f"{entity['name']} ({entity['type']}, id {entity['id']}, {entity['mention_count']} mentions{aliases}{page})"
                f"\nnext: entity_profile, relations_list or graph_neighbours with name={entity['name']!r}")
        return result(text, {"entity": entity})

    @server.tool(annotations=READ)
    @tool_errors
    def entity_list(entity_type: EntityType = None,
                    limit: Annotated[int, Field(ge=1, le=500, description="Rows at most.")] = 50) -> CallToolResult:
        """Entities, most mentioned first within each type."""
        rows = [as_dict(e) for e in ws.store.list_entities(ws.access, entity_type, limit)]
        text = "\n".join(f"- {e['name']} ({e['type']}, {e['mention_count']} mentions)" for e in rows)
        return result(lines(f"{len(rows)} entities:", text, "next: entity_profile with a name") if rows
                      else "no entities" + (f" of type {entity_type!r}" if entity_type else ""),
                      {"count": len(rows), "entities": rows})

    @server.tool(annotations=READ)
    @tool_errors
    def entity_profile(name: Name, entity_type: EntityType = None, as_of: Date = None) -> CallToolResult:
        """What the vault knows of an entity: its record, relations (as of a date, if given), everything
        within two hops, and the documents that mention it most recently."""
        entity = find_entity(ws.store, name, entity_type, access=ws.access, questions=True)
        data = profile(ws.store, entity, ws.config.vocabulary, access=ws.access, as_of=as_of)
        return result(_profile_text(data), data)


def _profile_text(data: dict) -> str:
    e = data["entity"]
    role = e["attributes"].get("role")
    out = [f"{e['name']} ({e['type']}{', ' + str(role) if role else ''}; {e['mention_count']} mentions in "
           f"{data['documents']} documents" + (f"; page {e['page_path']}" if e["page_path"] else "") + ")"]
    if e["aliases"]:
        out.append("aliases: " + ", ".join(e["aliases"]))
    for key, names in data["relations"].items():
        out.append(f"{key.replace('_', ' ')}: {', '.join(names)}")
    for kind, names in data["connected"]["by_type"].items():
        out.append(f"within {data['connected']['hops']} hops, {kind}: {', '.join(names)}")
    for doc in data["recent_documents"][:5]:
        out.append(f"- {doc['path']}" + (f" ({doc['date']})" if doc["date"] else ""))
    out.append(f"next: graph_neighbours, relations_list or search with entity={e['name']!r}")
    return "\n".join(out)


def _register_relations(server: MCPServer, ws: Workspace) -> None:
    from ..entities.lookup import find_entity
    from ..relations.edits import relate as do_relate
    from ..relations.edits import unrelate as do_unrelate
    from ..relations.reading import relation_line
    from ..relations.records import entity_relations, relations_of_type

    @server.tool(annotations=READ)
    @tool_errors
    def relations_list(name: Annotated[str | None, Field(max_length=500, description=(
                           "The entity; without it, every relation of `type_name`."))] = None,
                       type_name: Annotated[str | None, Field(max_length=100, description="Only this relation type.")] = None,
                       include_expired: bool = False,
                       limit: Annotated[int, Field(ge=1, le=1000, description="Rows per direction.")] = 100,
                       ) -> CallToolResult:
        """An entity's relations and inverse relations (or every relation of one type)."""
        vocab = ws.config.vocabulary
        if name is None:
            from ..errors import InvalidInput

            if not type_name:
                raise InvalidInput("give `name`, or `type_name` to list every relation of a type", param="name")
            rows = relations_of_type(ws.store, vocab, type_name, include_expired, access=ws.access)
            text = "\n".join(f"- {relation_line(r)}" for r in rows)
            return result(text or f"no {type_name} relations",
                          {"type": type_name.strip().lower(), "count": len(rows), "relations": rows})
        entity = find_entity(ws.store, name, access=ws.access)
        data = entity_relations(ws.store, vocab, entity, type_name, include_expired, limit=limit, access=ws.access)
        out = [f"- {relation_line(r)}" + _when(r) for r in data["relations"] + data["inverse_relations"]]
        if not out:
            return result(f"{data['entity']} has no current relations"
                          + (f" ({data['expired']} expired: include_expired=true shows them)" if data.get("expired") else ""),
                          data)
        more = "; more exist: raise limit" if data["truncated"] else ""
        return result(lines(f"{len(out)} relations of {data['entity']}{more}:", *out,
                            "next: graph_neighbours for more hops, graph_path between two entities"), data)

    @server.tool(annotations=write())
    @tool_errors
    def relate(source: Name, type_name: RelationType, target: Name,
               reason: Annotated[str | None, Field(max_length=500, description="Why (required for custom).")] = None,
               source_doc: Annotated[str | None, Field(max_length=1000, description="Evidence: a vault-relative path.")] = None,
               valid_until: Date = None, since: Date = None,
               create: Annotated[str | None, Field(max_length=100, description="Create a missing target of this entity type.")] = None,
               context: Annotated[str | None, Field(max_length=200, description="The context it holds in (\"dotted line\").")] = None,
               ) -> CallToolResult:
        """Relate source --type--> target: stored, and written under `## Relations` on the source's page.
        Relating again re-observes it (strength + 1). A second current relation where one is allowed at a
        time (reports-to, leads) is settled by date, kept with its context, or recorded as a conflict."""
        data = do_relate(ws, source, type_name, target, reason, source_doc, valid_until, create, since, context)
        where = f"written to {data['mirrored_to']}" if data["mirrored_to"] else "stored in the index (no page)"
        conflicts = [f"{c['kind']} conflict {c['id']} with {c['old']['relation']}: "
                     f"{c['resolution'] or 'open'}" for c in data["conflicts"]]
        return result(lines(f"{relation_line(data)} ({where}, observed "
                            f"{data['strength']}×)", *conflicts), data)

    @server.tool(annotations=write(destructive=True, idempotent=True))
    @tool_errors
    def unrelate(source: Name, type_name: RelationType, target: Name) -> CallToolResult:
        """End the relation source --type--> target and remove its page line (its history stays)."""
        data = do_unrelate(ws, source, type_name, target)
        where = f" (removed from {data['page']})" if data["page"] else ""
        return result(f"removed {relation_line(data)}{where}", data)


def _when(row: dict) -> str:
    parts = [f"since {row['since']}" if row.get("since") else "", f"until {row['valid_until']}" if row.get("valid_until") else "",
             "expired" if row.get("expired") else "", row.get("confidence") or ""]
    shown = ", ".join(p for p in parts if p and p != "manual")
    return f" ({shown})" if shown else ""


def _register_graph(server: MCPServer, ws: Workspace) -> None:
    from ..entities.lookup import find_entity
    from ..graph.neighbours import neighbours
    from ..graph.paths import path as shortest
    from ..graph.view import GraphView

    @server.tool(annotations=READ)
    @tool_errors
    def graph_neighbours(name: Name, depth: Annotated[int, Field(ge=1, le=6)] = 1,
                         direction: Literal["out", "in", "both"] = "both",
                         limit: Annotated[int, Field(ge=1, le=1000, description="Entities listed at most.")] = 50,
                         types: Types | None = None, as_of: Date = None, include_inferred: bool = False,
                         include_expired: bool = False) -> CallToolResult:
        """Entities within `depth` hops of an entity, nearest first, each with the path that reached it."""
        view = GraphView(tuple(types or ()), as_of, include_inferred, include_expired)
        data = neighbours(ws.store, ws.config.vocabulary, find_entity(ws.store, name, access=ws.access), depth,
                          direction, view, limit, access=ws.access)
        out = [f"{level['distance']} hop{'s' if level['distance'] > 1 else ''}: " + "; ".join(
                   f"{e['name']} ({e['type']}) via {_hops(e['path'])}" for e in level["entities"])
               for level in data["levels"]]
        if not out:
            return result(f"{data['entity']} has no relations in this view", data)
        more = " (truncated: raise limit)" if data["truncated"] else ""
        return result(lines(f"{data['count']} entities near {data['entity']}{more}:", *out,
                            "next: entity_profile on one, graph_path between two"), data)

    @server.tool(annotations=READ)
    @tool_errors
    def graph_path(source: Name, target: Name, all_paths: bool = False,
                   max_hops: Annotated[int, Field(ge=1, le=6)] = 6, types: Types | None = None, as_of: Date = None,
                   include_inferred: bool = False, include_expired: bool = False) -> CallToolResult:
        """How two entities are connected: the shortest chain of relations, either direction."""
        view = GraphView(tuple(types or ()), as_of, include_inferred, include_expired)
        data = shortest(ws.store, ws.config.vocabulary, find_entity(ws.store, source, access=ws.access),
                        find_entity(ws.store, target, access=ws.access), all_paths, max_hops, view, access=ws.access)
        head = f"{data['source']} to {data['target']}: {data['hops']} hop{'s' if data['hops'] > 1 else ''}"
        return result(lines(head, *(f"- {_hops(p)}" for p in data["paths"])), data)


def _hops(hops: list[dict]) -> str:
    if not hops:
        return ""
    text = hops[0]["from"]
    for h in hops:
        text += f" --{h['type']}--> {h['to']}"
    return text

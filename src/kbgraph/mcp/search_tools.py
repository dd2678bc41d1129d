"""Tools that read text: search (documents or passages), a document, recall, context and slice."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from ..workspace import Workspace
from .errors import tool_errors
from ..shapes import context_json, recall_json, search_json, slice_json
from .results import READ, lines, result

Query = Annotated[str, Field(min_length=1, max_length=2000, description="Plain words; \"a phrase\", prefix*, -exclude.")]
Name = Annotated[str, Field(min_length=1, max_length=500, description="An entity's name or alias.")]
Limit = Annotated[int, Field(ge=1, le=100, description="Results at most.")]


def register(server: MCPServer, ws: Workspace) -> None:
    from ..context.agent import build_context
    from ..context.recall import recall as run_recall
    from ..context.slice import slice_entities
    from ..documents.views import view_document
    from ..search import search as run_search

    @server.tool(annotations=READ)
    @tool_errors
    def search(query: Query, unit: Literal["document", "passage"] = "document", limit: Limit = 10,
               explain: bool = False, entity: Annotated[str | None, Field(max_length=500)] = None,
               expand_relations: bool = False, mode: Literal["hybrid", "bm25", "vector"] = "hybrid") -> CallToolResult:
        """Hybrid search (keywords + vectors + the relation graph) over the notes: one hit per document, or
        with unit="passage" the best sections across documents. explain=true adds each signal's rank and
        score. entity pins results to documents mentioning that entity (with expand_relations, its
        neighbours' too). Each hit cites path:line; read one with document_view."""
        found = run_search(ws.store, query, None, limit, config=ws.config, mode=mode, entity=entity,
                           expand_relations=expand_relations, explain=explain, access=ws.access, unit=unit)
        data = search_json(found)
        return result(_search_text(data, found), data)

    @server.tool(annotations=READ)
    @tool_errors
    def document_view(target: Annotated[str, Field(min_length=1, max_length=1000, description=(
            "A vault-relative path, path:LINE (the section holding that line) or a document id."))]) -> CallToolResult:
        """A document's text and metadata (the same as the note://PATH resource)."""
        data = view_document(ws.root, ws.store, target, ws.access)
        doc = data["document"]
        head = f"{doc['title']} — {doc['path']} (id {doc['id']}, {doc['kind']}{', ' + doc['date'] if doc['date'] else ''})"
        stale = "changed on disk since indexing: the index may lag" if data["stale"] else None
        return result(lines(head, stale, "", data["text"]), data)

    @server.tool(annotations=READ)
    @tool_errors
    def recall(query: Query, limit: Limit = 10) -> CallToolResult:
        """A question about one of the vault owner's people that names no one ("what does my manager
        care about?"): the one person the owner's own current relation names, their facts and passages.
        When several fit a singular word it lists them and answers for none; a plural word ("my
        reports") answers for each, grouped by person."""
        answer = run_recall(ws.store, ws.config, query, None, limit, access=ws.access)
        data = recall_json(answer)
        if answer.status != "answered":
            names = ", ".join(f"{c['name']} ({c['relation']})" for c in data["candidates"])
            more = f"\ncandidates: {names}; ask again with the person's name, or call entity_profile" if names else ""
            return result(f"{answer.status}: {answer.why}{more}", data)
        text = []
        for person in data["people"]:  # one, or each person a plural word ("my reports") fits
            text.append(f"{person['name']} ({'; '.join(t['relation'] for t in person['relations'])})")
            text += [f"- {f['kind']}: {f['text']}" for f in person["facts"]]
            text += [f"- {p['path']}:{p['line']} {p['snippet']}" for p in person["passages"]]
        return result(lines(*text), data)

    @server.tool(annotations=READ)
    @tool_errors
    def context(topic: Annotated[str | None, Field(max_length=2000, description=(
                    "What the context is for; without it, the vault's most central entities."))] = None,
                budget: Annotated[int, Field(ge=50, le=32000, description="Tokens at most.")] = 2000,
                items: Annotated[int, Field(ge=1, le=100, description="Entity lines and passages at most.")] = 20,
                ) -> CallToolResult:
        """Token-lean context for a topic: the entities it names with their key relations, their
        neighbours, and the best passages with citations (path:line), never over the token budget."""
        packed = build_context(ws.store, ws.config, topic, budget, items, access=ws.access)
        data = context_json(packed)
        return result(lines(*packed.notes, packed.text or "nothing to give: the context is empty"), data)

    @server.tool(name="slice", annotations=READ)
    @tool_errors
    def slice_(names: Annotated[list[Name], Field(min_length=1, max_length=3, description="One to three entities.")],
               include_expired: bool = False, include_inferred: bool = False) -> CallToolResult:
        """Short lines (~15 tokens each) on one to three entities: who they are and their current
        relations (unconfirmed ones marked)."""
        sliced = slice_entities(ws.store, ws.config, names, access=ws.access, include_expired=include_expired,
                                include_inferred=include_inferred)
        return result(lines(*sliced.notes, sliced.text or "nothing known"), slice_json(sliced))


def _search_text(data: dict, found) -> str:
    if not data["hits"]:
        return lines(*data["notes"], f"no matches for {data['query']!r}: try other words, or mode=\"bm25\"")
    out = [f"{data['count']} {'passages' if data['unit'] == 'passage' else 'documents'} for {data['query']!r}:"]
    for n, (row, hit) in enumerate(zip(data["hits"], found.hits), 1):
        when = f" ({row['date']})" if row["date"] else ""
        out.append(f"{n}. {row['path']}:{row['line']} — {row['title']}{when}" + (f" · {row['heading']}" if row["heading"] else ""))
        out.append(f"   {' '.join(row['snippet'].split())}")
        if hit.explain:
            e = hit.explain
            parts = " · ".join(f"{s.signal} #{s.rank} ({s.score:g})" for s in e.signals)
            out.append(f"   why: {parts} → {e.score:.4f}" + (f"; via {e.path}" if e.path else ""))
    for item in data["ambiguous"]:
        names = " or ".join(c["name"] for c in item["candidates"])
        out.append(f"{item['surface']!r} could be {names}: not used to rank (give the full name, or entity=)")
    out.extend(data["notes"])
    out.append("next: document_view with a path (or read note://PATH); explain=true says why each hit ranks")
    return "\n".join(out)

"""Tools for correcting who is who: merge and unmerge entities, link, unlink and relink mentions,
unlinked mentions, quiet entities, name candidates, and running extraction again."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from ..model import as_dict
from ..workspace import Workspace
from .errors import tool_errors
from .results import READ, lines, result, write

Name = Annotated[str, Field(min_length=1, max_length=500, description="An entity's name or alias.")]
Doc = Annotated[str, Field(min_length=1, max_length=1000, description="A vault-relative path.")]
EntityType = Annotated[str | None, Field(max_length=100, description="Only entities of this type.")]


def register(server: MCPServer, ws: Workspace) -> None:
    _register_merges(server, ws)
    _register_mentions(server, ws)
    _register_review(server, ws)


def _register_merges(server: MCPServer, ws: Workspace) -> None:
    from ..curation.merging import merge_entities, unmerge_entity

    @server.tool(annotations=write(destructive=True))
    @tool_errors
    def entity_merge(merged: Annotated[str, Field(min_length=1, max_length=500, description=(
                         "The entity merged away: its names become aliases of `into`."))], into: Name) -> CallToolResult:
        """Merge two entities of one type that are the same: `merged`'s names become aliases of `into`, its
        mentions and relations move there (duplicates collapse). Identities change: merge only what the user
        said is one entity; entity_unmerge undoes it."""
        data = merge_entities(ws, merged, into)
        dropped = [f"dropped {r}: it would relate {data['into']} to itself" for r in data["self_relations_dropped"]]
        return result(lines(f"merged {data['merged']} into {data['into']} (aliases: {', '.join(data['aliases'])}; "
                            f"{data['relations_moved']} relations moved, {data['duplicates_collapsed']} duplicates "
                            "collapsed)", *dropped, f"next: entity_profile with name={data['into']!r}"), data)

    @server.tool(annotations=write(destructive=True))
    @tool_errors
    def entity_unmerge(merged: Annotated[str, Field(min_length=1, max_length=500, description=(
                           "The name of the entity that was merged away."))]) -> CallToolResult:
        """Undo a merge: the merged entity is its own again, with its aliases, mentions and the relations that
        came from it; the pair is remembered as two entities and never merged again."""
        data = unmerge_entity(ws, merged)
        return result(f"{data['unmerged']} is separate from {data['from']} again ({data['relations_restored']} "
                      f"relations given back)\nnext: entity_profile with name={data['unmerged']!r}", data)


def _register_mentions(server: MCPServer, ws: Workspace) -> None:
    from ..curation.mention_edits import link, relink, unlink, unlinked_mentions

    @server.tool(annotations=READ)
    @tool_errors
    def mentions_unlinked(entity: Annotated[str | None, Field(max_length=500, description=(
                              "The entity (default: every entity)."))] = None,
                          limit: Annotated[int, Field(ge=1, le=1000, description="Rows at most.")] = 50,
                          ) -> CallToolResult:
        """Documents whose text names an entity without linking it, with the first such mention."""
        rows = unlinked_mentions(ws, entity, limit)
        data = {"count": len(rows), "mentions": rows}
        if not rows:
            return result("no unlinked mentions", data)
        out = [f"- {r['entity']} in {r['path']} ({r['count']}×): {' '.join(r['context'].split())[:120]}" for r in rows]
        return result(lines(f"{len(rows)} unlinked mentions:", *out,
                            "next: mention_link with entity and doc (it edits the note), or mention_unlink "
                            "when the text means someone else"), data)

    @server.tool(annotations=write())
    @tool_errors
    def mention_link(entity: Name, doc: Doc) -> CallToolResult:
        """Turn the first unlinked mention of the entity in the document into a [[wikilink]] (the only
        change to the note)."""
        data = link(ws, entity, doc)
        if not data["changed"]:
            return result(f"{data['path']} links {data['entity']} already; nothing changed", data)
        more = f" ({data['remaining']} more mentions stay plain text)" if data["remaining"] else ""
        return result(f"{data['path']}: {data['surface']!r} -> {data['link']}{more}", data)

    @server.tool(annotations=write(destructive=True, idempotent=True))
    @tool_errors
    def mention_unlink(entity: Name, doc: Doc) -> CallToolResult:
        """The entity is not what the document's text means: drop those mentions, now and on every
        re-index (mention_relink undoes it)."""
        data = unlink(ws, entity, doc)
        already = "" if data["changed"] else " (it was unlinked already)"
        return result(f"{data['path']} no longer mentions {data['entity']}{already}", data)

    @server.tool(annotations=write(idempotent=True))
    @tool_errors
    def mention_relink(entity: Name, doc: Doc) -> CallToolResult:
        """Undo mention_unlink: the document's text may mention the entity again."""
        data = relink(ws, entity, doc)
        return result(f"{data['path']} may mention {data['entity']} again", data)


def _register_review(server: MCPServer, ws: Workspace) -> None:
    from ..extract.candidates import collect
    from ..relations.staleness import stale_report
    from ..relations.suggestions import extract_now

    @server.tool(annotations=READ)
    @tool_errors
    def entity_stale(days: Annotated[int, Field(ge=0, le=365_000, description="Quiet for this many days.")] = 90,
                     entity_type: EntityType = None, include_relations: bool = False) -> CallToolResult:
        """Entities neither updated nor mentioned in `days` days; include_relations adds relations that are
        expired, never confirmed, or whose ends went quiet."""
        data = stale_report(ws.store, days, entity_type, include_relations, access=ws.access)
        out = [f"- {e['name']} ({e['type']}), last active {e['last_activity'] or 'never'}" for e in data["entities"]]
        out += [f"- {r['source']} --{r['type']}--> {r['target']}: {r['why']}" for r in data.get("relations", [])]
        head = f"quiet since {data['cutoff']} ({days} days): {len(data['entities'])} entities"
        return result(lines(head, *out, "next: entity_profile on one" if out else None), data)

    @server.tool(annotations=READ)
    @tool_errors
    def entity_candidates(entity_type: EntityType = None,
                          min_count: Annotated[int, Field(ge=1, le=1000, description="Seen at least this often.")] = 2,
                          limit: Annotated[int, Field(ge=1, le=1000, description="Rows at most.")] = 50,
                          ) -> CallToolResult:
        """Names the notes use that are not entities yet (handles, issue keys, technologies, people named
        in context, ...), each with the rule that found it, most frequent first."""
        rows = collect(ws.store, entity_type, min_count, limit, access=ws.access)
        data = {"count": len(rows), "candidates": rows}
        if not rows:
            return result("no candidates: every name the rules find is an entity already", data)
        out = [f"- {c['surface']} ({c['type']}, {c['rule']}): {c['count']}× in {c['documents']} documents, "
               f"e.g. {c['example']}" for c in rows]
        return result(lines(f"{len(rows)} candidates:", *out, "next: search or document_view to see one in use"), data)

    @server.tool(annotations=write(idempotent=True))
    @tool_errors
    def extract(paths: Annotated[list[Doc], Field(max_length=100, description=(
                    "The documents (default: every one)."))] | None = None) -> CallToolResult:
        """Run relation extraction again now on these documents: the pattern rules and, when kbgraph.toml
        configures one, the LLM extractor. Lists the suggestions waiting for review from them."""
        found = extract_now(ws, list(paths or ()))
        data = {"documents": found["documents"], "pending": found["pending"],
                "problems": [as_dict(p) for p in found["report"].problems]}
        out = [f"#{s['id']} {s['source']} --{s['type']}--> {s['target']} ({s['confidence']})" for s in data["pending"]]
        problems = [f"{p['severity']}: {p['path']}: {p['reason']}" for p in data["problems"]]
        nxt = "next: suggestion_accept or suggestion_reject with an id" if out else None
        return result(lines(f"extracted from {data['documents']} documents: {len(out)} suggestions waiting",
                            *problems, *out, nxt), data)

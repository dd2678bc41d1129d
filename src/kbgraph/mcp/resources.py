"""Resources: a document's markdown (`note://PATH`) and an entity's page (`entity://NAME`).

Only indexed documents are served (a path is looked up in the index, never joined to the vault
root as given), and the SDK refuses `..` and absolute paths before that."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError

from ..errors import KbgError
from ..workspace import Workspace


def register(server: MCPServer, ws: Workspace) -> None:
    from ..documents.views import profile, view_document
    from ..entities.lookup import find_entity

    @server.resource("note://{+path}", name="note", mime_type="text/markdown",
                     description="A document's markdown, by its vault-relative path.")
    def note(path: str) -> str:
        try:
            return str(view_document(ws.root, ws.store, path, ws.access)["text"])
        except KbgError as exc:
            raise ResourceError(str(exc)) from None

    @server.resource("entity://{name}", name="entity", mime_type="text/markdown",
                     description="An entity's page (its markdown), or a summary when it has no page.")
    def entity(name: str) -> str:
        try:
            found = find_entity(ws.store, name, access=ws.access)
            if found.page_path:
                return str(view_document(ws.root, ws.store, found.page_path, ws.access)["text"])
            data = profile(ws.store, found, ws.config.vocabulary, access=ws.access)
        except KbgError as exc:
            raise ResourceError(str(exc)) from None
        relations = [f"- {key.replace('_', ' ')}: {', '.join(names)}" for key, names in data["relations"].items()]
        return "\n".join([f"# {found.name}", "", f"{found.type}; no page of its own", *relations]) + "\n"

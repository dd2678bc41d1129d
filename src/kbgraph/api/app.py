"""The app factory: one FastAPI app over one opened vault, its routes, limits and error mapping."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, HTTPException

from ..workspace import Workspace
from . import errors
from .errors import error_body
from .hosts import HostRule
from .query_params import refuse_unknown_query
from .routes import curation, documents, entities, graph, memory, relations, review, search, status
from .tokens import request_access

MAX_BODY_BYTES = 1_000_000


def create_app(ws: Workspace, *, loopback: bool = True, max_body: int = MAX_BODY_BYTES,
               mcp_server: Any = None, hosts: HostRule | None = None) -> FastAPI:
    """The API for ws. loopback: the server listens on loopback only (then, with no tokens, callers read as
    the local user). mcp_server: an MCP server for the same vault (`MCPServer`), mounted at /mcp and served
    to the local user only; None leaves /mcp out. hosts: the Host values answered (`kbg serve` always
    gives its bound address's rule, api/hosts.py); None answers any, for an app behind a server that
    checks Host itself."""
    app = FastAPI(title="kbgraph", version=_version(), lifespan=_lifespan(mcp_server), responses=errors.RESPONSES,
                  description="The HTTP API of kbgraph: the same library functions as the `kbg` CLI, the JSON "
                              "shapes of docs/json.md. Errors and auth: docs/api.md.")
    app.state.workspace = ws
    app.state.loopback = loopback
    errors.install(app)
    for module in (search, documents, entities, relations, graph, review, curation, memory, status):
        app.include_router(module.router, dependencies=[Depends(refuse_unknown_query)])
    _mount_web(app)
    if mcp_server is not None:
        mcp_app = mcp_server.streamable_http_app(streamable_http_path="/", **_mcp_hosts(hosts))
        app.mount("/mcp", _local_only(mcp_app, ws, loopback))
    app.add_middleware(_BodyLimit, limit=max_body)
    if hosts is not None:
        app.add_middleware(_HostCheck, rule=hosts)  # added last: the outermost, before the web view and /mcp too
    return app


WEB = Path(__file__).resolve().parent.parent / "web"
# The page's assets, as pyproject's package-data names them: never the package's Python or its caches.
WEB_ASSETS = {1: (".html", ".js", ".css"), 2: (".js", ".json")}


def _mount_web(app: FastAPI) -> None:
    """The web view (docs/web.md): its page at / and its files at /web/. Static files only: the page calls
    the routes above from the browser, so it reads as whoever the browser's requests read as."""
    from fastapi.responses import FileResponse
    from fastapi.staticfiles import StaticFiles

    class WebAssets(StaticFiles):
        """/web/NAME.{html,js,css} and /web/vendor/NAME.{js,json}; anything else in the folder is a 404."""

        def lookup_path(self, path: str):
            parts = Path(path).parts
            allowed = WEB_ASSETS.get(len(parts), ())
            if not path.endswith(allowed) or (len(parts) == 2 and parts[0] != "vendor"):
                return "", None
            return super().lookup_path(path)

    app.add_api_route("/", lambda: FileResponse(WEB / "index.html"), include_in_schema=False)
    app.mount("/web", WebAssets(directory=WEB), name="web")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("kbgraph")
    except PackageNotFoundError:
        return "0"


def _lifespan(mcp_server: Any):
    """Run the MCP session manager with the app: Starlette does not run a mounted app's lifespan."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        if mcp_server is None:
            yield
            return
        async with mcp_server.session_manager.run():
            yield

    return lifespan


async def _send_error(send, status: int, code: str, message: str, headers: tuple = ()) -> None:
    import json

    body = json.dumps(error_body(code, message)).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            *headers]})
    await send({"type": "http.response.body", "body": body})


def _mcp_hosts(rule: HostRule | None) -> dict[str, Any]:
    """The MCP SDK checks Host (and Origin) itself, against loopback names with a port: behind our check it
    would refuse, in its own words, an --allow-host name or port 80's bare 'localhost' that every other path
    answers. Given our rule, it is told the same names with any port or none (ours checks the port first)."""
    if rule is None:
        return {}
    from mcp.server.transport_security import TransportSecuritySettings

    names = list(dict.fromkeys([*rule.bound, *(name for name, _ in rule.allowed)]))
    return {"transport_security": TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[*names, *(f"{name}:*" for name in names)],
        allowed_origins=[f"{scheme}://{name}{port}" for scheme in ("http", "https") for name in names
                         for port in ("", ":*")])}


class _HostCheck:
    """421 for a request whose Host is not one the server is addressed by (DNS rebinding: api/hosts.py)."""

    def __init__(self, app, rule: HostRule):
        self.app, self.rule = app, rule

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":  # lifespan; there are no websocket routes
            return await self.app(scope, receive, send)
        header = dict(scope["headers"]).get(b"host")
        host = header.decode("latin-1") if header is not None else None
        if not self.rule.allows(host):
            return await _send_error(send, 421, "wrong_host", self.rule.refusal(host))
        await self.app(scope, receive, send)


class _BodyLimit:
    """413 for a request body over the limit: by its Content-Length, or while it streams in."""

    def __init__(self, app, limit: int):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            return await _send_error(send, 413, "too_large", f"the request body is over {self.limit} bytes")
        seen = 0
        started = False

        async def counted():
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise _TooLarge()
            return message

        async def tracked(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, tracked)
        except _TooLarge:
            if not started:
                await _send_error(send, 413, "too_large", f"the request body is over {self.limit} bytes")


class _TooLarge(HTTPException):
    """An HTTPException, so that FastAPI's body reader passes it on as it is (413), not as a parse error."""

    def __init__(self) -> None:
        super().__init__(413, "the request body is too large")


def _local_only(asgi, ws: Workspace, loopback: bool):
    """The MCP server reads as the local user, so it answers only callers who read as the local user."""

    async def app(scope, receive, send):
        if scope["type"] == "http":
            headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
            access = request_access(ws.store, headers.get("authorization"), loopback)
            if access is None or not access.sees_everything:
                return await _send_error(send, 403, "forbidden", "MCP over HTTP is served to the local user only "
                                         "(loopback, no tokens); agents elsewhere use `kbg mcp` on the vault's machine")
        await asgi(scope, receive, send)

    return app

"""The app each `kbg serve --workers N` process builds for itself.

uvicorn starts N>1 workers as fresh processes that import an app factory by its dotted name, so nothing
open in `kbg serve` itself (the workspace, a PostgreSQL connection) can be handed over: each worker
opens the vault again from what the command put in the environment. It lives in cli/, not api/,
because it mounts the MCP server as the one-process path does, and api/ may not import mcp/."""

from __future__ import annotations

import atexit
import os

VAULT_ENV = "KBG_SERVE_VAULT"  # the vault's resolved root, so every worker opens the same one
HOST_ENV = "KBG_SERVE_HOST"  # the address bound: a worker reads callers as loopback only if it is loopback
PORT_ENV = "KBG_SERVE_PORT"  # the port bound, and
ALLOW_ENV = "KBG_SERVE_ALLOW_HOSTS"  # the --allow-host names (one a line): the Host rule, as in one process
POOL_ENV = "KBG_SERVE_DB_CONNECTIONS"  # --db-connections: each worker bounds its own PostgreSQL pool
# --db travels as KBG_DB, which Workspace.open already reads.


def create_worker_app():
    """One worker's app: the same create_app, bind rule, Host rule and /mcp mount as `kbg serve` in one process."""
    from ..api.app import create_app
    from ..api.hosts import host_rule
    from ..api.tokens import is_loopback
    from ..mcp import build_server
    from ..workspace import Workspace

    ws = Workspace.open(os.environ[VAULT_ENV])
    size_pool(ws.store, int(os.environ[POOL_ENV]) if os.environ.get(POOL_ENV) else None)
    atexit.register(ws.close)  # a worker lives as long as its process; close its connections on the way out
    host = os.environ[HOST_ENV]
    rule = host_rule(host, int(os.environ.get(PORT_ENV) or 0), os.environ.get(ALLOW_ENV, "").split("\n")
                     if os.environ.get(ALLOW_ENV) else ())
    return create_app(ws, loopback=is_loopback(host), mcp_server=build_server(workspace=ws), hosts=rule)


def size_pool(store, size: int | None) -> None:
    """The PostgreSQL store's pool bounded to size connections (`kbg serve --db-connections`, in one process
    or in each worker); SQLite has no server connections to bound."""
    resize = getattr(store, "resize_pool", None)
    if size is not None and resize is not None:
        resize(size)

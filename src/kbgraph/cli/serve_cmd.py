"""`kbg serve`: the HTTP API (and MCP at /mcp) over one vault, with uvicorn."""

from __future__ import annotations

import click

from .common import open_workspace, vault_option

SERVE_EXTRA = "pip install 'kbgraph[serve]'"


def require_serve_extra() -> None:
    """FastAPI and uvicorn come with the serve extra; without them, one line saying what to install."""
    from ..errors import MissingDependency

    try:
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise MissingDependency(f"kbg serve needs FastAPI and uvicorn ({exc.name} is missing): {SERVE_EXTRA}") from None


def mcp_server_for(ws):
    """The MCP server over the same open workspace, mounted at /mcp."""
    from ..mcp import build_server

    return build_server(workspace=ws)


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Anything but loopback needs tokens (`kbg token create`).")
@click.option("--port", default=8321, show_default=True, type=click.IntRange(0, 65535), help="Port to listen on.")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Server processes sharing the port, each with its own connections to the vault's store.")
@click.option("--db-connections", type=click.IntRange(1, 1000), default=None,
              help="With --db postgresql://: connections each server process keeps at most, shared by its request"
                   " threads; a request waits for a free one (default 10). Size the server's max_connections for"
                   " workers x this.")
@vault_option
def serve(host: str, port: int, workers: int, db_connections: int | None, vault: str | None) -> None:
    """Serve the HTTP API (OpenAPI at /openapi.json, docs/api.md) and MCP at /mcp. On loopback with no
    tokens, callers read as you; with tokens, each request needs `Authorization: Bearer TOKEN`."""
    require_serve_extra()
    import uvicorn

    from ..api.app import create_app
    from ..api.tokens import check_bind, is_loopback

    from .serve_worker import size_pool

    with open_workspace(vault) as ws:
        check_bind(host, ws.store)
        size_pool(ws.store, db_connections)
        if workers > 1:
            root = ws.root
        else:
            app = create_app(ws, loopback=is_loopback(host), mcp_server=mcp_server_for(ws))
            click.echo(f"kbgraph API for {ws.root} on http://{host}:{port} (Ctrl-C stops)", err=True)
            uvicorn.run(app, host=host, port=port, log_level="warning")
            return
    # Several workers: the bind rule was checked (and the store migrated) here, once; each worker opens the
    # vault again in its own process (serve_worker.py), so this process keeps no connection while it waits.
    _serve_workers(root, host, port, workers, db_connections)


def _serve_workers(root, host: str, port: int, workers: int, db_connections: int | None) -> None:
    """uvicorn's supervisor: N processes accept on one socket; Ctrl-C or SIGTERM stops them all.
    SQLite works too: WAL lets the workers read beside one writer, writers wait on BEGIN IMMEDIATE's
    busy timeout, page writes on the vault's file lock, and the graph cache checks a counter in the file."""
    import os

    import uvicorn

    from .common import db_url
    from .serve_worker import HOST_ENV, POOL_ENV, VAULT_ENV

    os.environ[VAULT_ENV], os.environ[HOST_ENV] = str(root), host
    if db_connections is not None:
        os.environ[POOL_ENV] = str(db_connections)
    url = db_url()
    if url:
        os.environ["KBG_DB"] = url
    click.echo(f"kbgraph API for {root} on http://{host}:{port}, {workers} workers (Ctrl-C stops)", err=True)
    uvicorn.run("kbgraph.cli.serve_worker:create_worker_app", factory=True, workers=workers, host=host, port=port,
                log_level="warning")

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
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="NAME[:PORT]",
              help="A further name clients address the server by (repeatable): requests whose Host is neither the"
                   " bound address (on loopback: localhost, 127.0.0.1, [::1]) with --port nor one of these are"
                   " refused (421). Needed with --host 0.0.0.0 or behind a proxy that keeps the Host it was sent.")
@vault_option
def serve(host: str, port: int, workers: int, db_connections: int | None, allow_hosts: tuple[str, ...],
          vault: str | None) -> None:
    """Serve the HTTP API (OpenAPI at /openapi.json, docs/api.md) and MCP at /mcp. On loopback with no
    tokens, callers read as you; with tokens, each request needs `Authorization: Bearer TOKEN`. Only
    requests addressed to the bound address (or an --allow-host name) are answered.
    """
    require_serve_extra()
    import uvicorn

    from ..api.app import create_app
    from ..api.hosts import host_rule, is_wildcard
    from ..api.tokens import check_bind, is_loopback

    from .serve_worker import size_pool

    rule = host_rule(host, port, allow_hosts)
    with open_workspace(vault) as ws:
        check_bind(host, ws.store)
        size_pool(ws.store, db_connections)
        if is_wildcard(host) and not allow_hosts:
            click.echo(f"note: on {host} only requests addressed to {', '.join(rule.names())} are answered; "
                       "give each name clients use with --allow-host NAME", err=True)
        if workers > 1:
            root = ws.root
        else:
            app = create_app(ws, loopback=is_loopback(host), mcp_server=mcp_server_for(ws), hosts=rule)
            click.echo(f"kbgraph API for {ws.root} on http://{host}:{port} (Ctrl-C stops)", err=True)
            uvicorn.run(app, host=host, port=port, log_level="warning")
            return
    # Several workers: the bind rule was checked (and the store migrated) here, once; each worker opens the
    # vault again in its own process (serve_worker.py), so this process keeps no connection while it waits.
    _serve_workers(root, host, port, workers, db_connections, allow_hosts)


def _serve_workers(root, host: str, port: int, workers: int, db_connections: int | None,
                   allow_hosts: tuple[str, ...]) -> None:
    """uvicorn's supervisor: N processes accept on one socket; Ctrl-C or SIGTERM stops them all.
    SQLite works too: WAL lets the workers read beside one writer, writers wait on BEGIN IMMEDIATE's
    busy timeout, page writes on the vault's file lock, and the graph cache checks a counter in the file."""
    import os

    import uvicorn

    from .common import db_url
    from .serve_worker import ALLOW_ENV, HOST_ENV, POOL_ENV, PORT_ENV, VAULT_ENV

    os.environ[VAULT_ENV], os.environ[HOST_ENV], os.environ[PORT_ENV] = str(root), host, str(port)
    os.environ[ALLOW_ENV] = "\n".join(allow_hosts)
    if db_connections is not None:
        os.environ[POOL_ENV] = str(db_connections)
    url = db_url()
    if url:
        os.environ["KBG_DB"] = url
    click.echo(f"kbgraph API for {root} on http://{host}:{port}, {workers} workers (Ctrl-C stops)", err=True)
    uvicorn.run("kbgraph.cli.serve_worker:create_worker_app", factory=True, workers=workers, host=host, port=port,
                log_level="warning")

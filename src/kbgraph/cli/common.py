"""Options every command shares, and opening the vault a command works on.

Click, not Typer: Typer builds a pydantic adapter for every parameter of every
command at start-up (~125 ms), which alone broke the 0.15 s budget for `kbg search`.
"""

from __future__ import annotations

import click
from click.core import ParameterSource


VAULT_HELP = "Vault folder (default: the nearest vault up from the current folder)."
DB_HELP = "The index in a PostgreSQL database (postgresql://user@host/db) instead of <vault>/.kbgraph."


def vault_option(fn):
    """--vault, and --db: the store that vault's index lives in, when not its own SQLite file (a team's
    PostgreSQL). --db is kept for open_workspace rather than passed to every command.

    Either may also come before the command (`kbg --vault X search ...`, see root_options): the
    value nearest the command on its line wins, then KBG_VAULT / KBG_DB."""
    fn = click.option("--db", envvar="KBG_DB", default=None, metavar="URL", expose_value=False,
                      callback=_remember_db, help=DB_HELP)(fn)
    return click.option("--vault", envvar="KBG_VAULT", default=None, metavar="PATH", callback=_vault_value,
                        help=VAULT_HELP)(fn)


def root_options(fn):
    """--vault and --db on `kbg` itself, kept in ctx.meta (which every subcommand's context shares)
    for the command's own options to fall back on. No envvar here: the command reads those itself."""
    fn = click.option("--db", default=None, metavar="URL", expose_value=False, callback=_remember_db,
                      help=DB_HELP)(fn)
    return click.option("--vault", default=None, metavar="PATH", expose_value=False, callback=_vault_value,
                        help=VAULT_HELP)(fn)


def _given(ctx: click.Context, name: str | None) -> bool:
    return name is not None and ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE


def _vault_value(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A --vault typed on the line is remembered for the commands under it; one not typed here
    takes the one typed before the command, else KBG_VAULT (value)."""
    if _given(ctx, param.name):
        ctx.meta["kbg_vault"] = value
        return value
    return ctx.meta.get("kbg_vault", value)


def _remember_db(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if _given(ctx, param.name) or (value and "kbg_db" not in ctx.meta):
        ctx.meta["kbg_db"] = value


def db_url() -> str | None:
    """The --db (or KBG_DB) the running command was given, if any."""
    ctx = click.get_current_context(silent=True)
    return ctx.meta.get("kbg_db") if ctx is not None else None


def json_option(fn):
    return click.option("--json", "as_json", is_flag=True, help="Print JSON.")(fn)


def format_option(fn):
    return click.option("--format", "fmt", default=None, metavar="FORMAT", help="table, json, jsonl or csv.")(fn)


def fields_option(fn):
    return click.option("--fields", default=None, metavar="A,B", help="Comma-separated fields to show.")(fn)


def list_options(fn):
    """--json, --format and --fields: what every list-like command takes."""
    return json_option(format_option(fields_option(fn)))


def doc_filter_options(fn):
    """--type, --path, --from, --to, --tag: filters on documents."""
    for decorator in reversed([
        click.option("--type", "types", multiple=True, metavar="KIND", help="Only documents of this kind (repeatable)."),
        click.option("--path", default=None, metavar="FOLDER", help="Only documents under this folder (or glob)."),
        click.option("--from", "date_from", default=None, metavar="DATE", help="Only documents dated on or after (YYYY-MM-DD)."),
        click.option("--to", "date_to", default=None, metavar="DATE", help="Only documents dated on or before (YYYY-MM-DD)."),
        click.option("--tag", "tags", multiple=True, metavar="TAG", help="Only documents with this tag (repeatable)."),
    ]):
        fn = decorator(fn)
    return fn


def open_workspace(vault: str | None, create: bool = False):
    from ..workspace import Workspace

    return Workspace.open(vault, create=create, db=db_url())


def doc_filter(types, path, date_from, date_to, tags):
    from ..documents.views import parse_date_option
    from ..store.base import DocFilter

    return DocFilter(
        kinds=tuple(t.lower() for t in types or ()),
        path_prefix=path,
        date_from=parse_date_option(date_from, "date_from"),
        date_to=parse_date_option(date_to, "date_to", end=True),
        tags=tuple(t.lstrip("#") for t in tags or ()),
    )

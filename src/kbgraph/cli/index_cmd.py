"""`kbg init`, `kbg index`, `kbg index status`."""

from __future__ import annotations

import sys
from typing import Any

import click

from .common import db_url, json_option, open_workspace, vault_option
from .wording import cli_words

EXIT_FILE_ERRORS = 3
# A second `kbg index` (or one meeting a write's re-read) waits its turn, saying so, instead of failing:
# bounded by what a full index of a large vault takes.
INDEX_LOCK_WAIT = 600.0


@click.command()
@click.argument("path", required=False)
@click.option("--me", default=None, metavar="NAME",
              help="Whose vault it is (your own page's name): \"my manager\" in `kbg recall` is read from them.")
@click.option("--infer", is_flag=True,
              help="Write the profile inferred from the notes' frontmatter (`kbg profile show`) as kbgraph.toml; "
                   "refused where one exists.")
@json_option
@click.pass_context
def init(ctx: click.Context, path: str | None, me: str | None, infer: bool, as_json: bool) -> None:
    """Make PATH (default: the vault given before the command, else the current folder) a vault: writes
    kbgraph.toml; the index lives in PATH/.kbgraph/."""
    from ..workspace import init_vault

    # `kbg --vault X init` means X, as for every other command (it made the current folder a vault).
    root, created = init_vault(path or ctx.meta.get("kbg_vault") or ".", me=me, infer=infer)
    if as_json:
        from .output import print_json

        print_json({"vault": str(root), "created_config": created, "me": me, "inferred": infer})
        return
    verb = "Created" if created else "Kept existing"
    print(f"{verb} {root / 'kbgraph.toml'}\nNext: kbg index --vault {root}")


@click.group(invoke_without_command=True)
@click.option("--full", is_flag=True, help="Re-read every file, not only changed ones.")
@click.option("--embed", "embed", type=click.Choice(["now", "later", "background"]), default="now",
              show_default=True,
              help="now: once text and graph search are ready, embed the sections that lack vectors (Ctrl-C keeps "
                   "what is done); later: stop there, and make the vectors with `kbg embed`; background: stop "
                   "there and embed in a detached process (`kbg embed --status` says how far it is).")
@vault_option
@json_option
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or problem list.")
@click.pass_context
def index(ctx: click.Context, full: bool, embed: str, vault: str | None, as_json: bool, quiet: bool) -> None:
    """Index the vault: new, changed, moved and deleted files (by content hash).

    Text and graph search are ready (and said so) before embedding starts. `kbg index status` shows
    counts, sizes and problems instead.
    """
    if ctx.invoked_subcommand is not None:
        return
    from ..model import as_dict
    from ..ingest.pipeline import index_vault

    with open_workspace(vault, create=True) as ws, _ProgressBar(quiet, as_json) as bar:
        try:
            report = index_vault(ws.root, full=full, progress=bar.update, store=ws.store,
                                 lock_wait=INDEX_LOCK_WAIT, embed=embed, db=db_url())
        except KeyboardInterrupt:
            bar.close()
            sys.stderr.write(f"interrupted: {bar.interrupted_state()}\n")
            raise SystemExit(130) from None
    if as_json:
        from .output import print_json

        print_json(as_dict(report))
    else:
        _print_report(report, quiet, vectors_off=ws.config.search.embedder == "none")
    if report.errors:
        raise SystemExit(EXIT_FILE_ERRORS)


def _print_report(report, quiet: bool, vectors_off: bool = False) -> None:
    if not quiet:
        for problem in report.problems:
            sys.stderr.write(f"{problem.severity}: {problem.path}: {cli_words(problem.reason)}\n")
    moved = f", {report.moved} moved" if report.moved else ""
    if report.config_changed:
        print("the configuration changed since the last index (kbgraph.toml, or what kbgraph reads from notes):"
              " every note was read again")
    embedded = f", {report.embedded:,} sections embedded" if report.embedded else ""
    print(
        f"indexed {report.indexed}, skipped {report.skipped}, removed {report.removed}{moved}, "
        f"errors {report.errors} in {report.seconds:.2f}s "
        f"({report.chunks} chunks, {report.entities} entities, {report.mentions} mentions{embedded})"
    )
    if report.background is not None:
        from .background_words import start_line

        print(f"{report.vectors_missing:,} of {report.chunks:,} sections have no vectors yet; "
              + start_line(report.background))
    elif report.vectors_missing and not vectors_off:  # off: no `kbg embed` would make them
        print(missing_vectors_line(report.vectors_missing, report.chunks))
    from ..relations.records import unresolved_summary

    waiting = unresolved_summary(report.problems)
    if waiting:
        print(waiting)


def missing_vectors_line(missing: int, sections: int) -> str:
    return (f"{missing:,} of {sections:,} sections have no vectors yet: hybrid search uses text for them; "
            "run `kbg embed`")


SHOW_AFTER_S = 0.5  # a run still going after this long gets a progress display (a shorter one none)


class _ProgressBar:
    """The run's progress on stderr: a Rich bar per stage once the run has lasted SHOW_AFTER_S (a huge
    note or embedding shows within a second; a quick run shows nothing), on a terminal only; and, when
    embedding follows, one line saying text and graph search are ready."""

    def __init__(self, quiet: bool = False, as_json: bool = False):
        import threading

        self.quiet, self.as_json = quiet, as_json
        self.live = not quiet and sys.stderr.isatty()
        self.progress: Any = None  # a rich Progress, made on the first update (rich loads only then)
        self.tasks: dict[str, Any] = {}
        self.ready: tuple[int, int] | None = None  # (documents, sections), once text and graph are committed
        self.embedding: tuple[int, int] | None = None  # (done, total) of the embedding, once it starts
        self.lock = threading.Lock()
        self.timer: threading.Timer | None = None

    def __enter__(self):
        return self

    def update(self, stage: str, done: int, total: int) -> None:
        if stage == "ready":
            self.ready = (done, total)
            return
        if stage == "embed":
            if self.embedding is None:
                self._say_ready(total)
            self.embedding = (done, total)
        if not self.live:
            return
        with self.lock:
            if self.progress is None:
                self.progress = self._make()
                self.timer = _timer(SHOW_AFTER_S, self._show)
            if stage not in self.tasks:
                self.tasks[stage] = self.progress.add_task(stage, total=total)
            self.progress.update(self.tasks[stage], completed=done, total=total)

    def _make(self):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        from .output import stderr_console

        return Progress(TextColumn("{task.description:>10}"), BarColumn(), MofNCompleteColumn(), _rate_column(),
                        TimeRemainingColumn(), console=stderr_console(), transient=True, auto_refresh=True)

    def _show(self) -> None:
        with self.lock:
            if self.progress is not None and self.timer is not None:
                self.progress.start()

    def _say_ready(self, to_embed: int) -> None:
        if self.quiet or self.as_json or self.ready is None:
            return
        documents, sections = self.ready
        line = (f"text and graph search ready: {documents:,} notes, {sections:,} sections; embedding {to_embed:,} "
                "sections (search works meanwhile; Ctrl-C keeps what is done, `kbg embed` resumes)")
        with self.lock:
            if self.progress is not None and self.progress.live.is_started:
                self.progress.console.print(line, highlight=False)
            else:
                sys.stderr.write(line + "\n")

    def interrupted_state(self) -> str:
        if self.embedding is not None:
            done, total = self.embedding
            return (f"text and graph search are ready and {done:,} of {total:,} sections were embedded and saved; "
                    "run `kbg embed` to embed the rest")
        return "the index is consistent; run `kbg index` again to finish"

    def close(self) -> None:
        with self.lock:
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            if self.progress is not None:
                self.progress.stop()
                self.progress = None

    def __exit__(self, *exc):
        self.close()


def _timer(seconds: float, then):
    import threading

    timer = threading.Timer(seconds, then)
    timer.daemon = True
    timer.start()
    return timer


def _rate_column():
    from rich.progress import ProgressColumn
    from rich.text import Text

    class Rate(ProgressColumn):
        """Items a second, once there is a rate to show."""

        def render(self, task):
            return Text(f"{task.speed:,.0f}/s" if task.speed else "", style="progress.data.speed")

    return Rate()


@index.command("status")
@vault_option
@json_option
def status(vault: str | None, as_json: bool) -> None:
    """Counts, sizes, when the vault was last indexed, and files with problems."""
    from ..shapes import index_status_json

    with open_workspace(vault) as ws:
        stats = index_status_json(ws.store, ws.root, ws.access)
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

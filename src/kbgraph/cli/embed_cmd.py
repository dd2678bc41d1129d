"""`kbg embed`: vectors for the sections that have none, after `kbg index --embed later` or an
interrupted embedding, with the same progress bar; resumable. `--background` runs it in a detached
process of its own, `--status` says how far that one is."""

from __future__ import annotations

import sys

import click

from .common import db_url, json_option, open_workspace, vault_option
from .background_words import start_line, status_line
from .index_cmd import INDEX_LOCK_WAIT, _ProgressBar, missing_vectors_line
from .wording import cli_words


@click.command()
@vault_option
@json_option
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--background", is_flag=True,
              help="Embed in a detached process (closing the terminal does not stop it; output in "
                   ".kbgraph/embed.log), unless one is running already.")
@click.option("--status", "show_status", is_flag=True,
              help="Whether a background embedding is running, and how far it is (sections, rate, time left).")
def embed(vault: str | None, as_json: bool, quiet: bool, background: bool, show_status: bool) -> None:
    """Embed the sections that have no vector yet (after `kbg index --embed later`, or an interrupted run).

    Saved as it goes: Ctrl-C (or killing a background run) keeps what is done, and the next `kbg embed`
    (or `kbg index`) goes on from there. Search works meanwhile. `--background` embeds in a process of
    its own; `kbg index` meanwhile waits at most one round of it and leaves the new sections to it.
    """
    if background and show_status:
        raise click.UsageError("give --background or --status, not both")
    if show_status or background:
        _background(vault, as_json, background)
        return
    from ..ingest.embedding import embed_vault
    from ..model import as_dict

    with open_workspace(vault) as ws, _ProgressBar(quiet, as_json) as bar:
        try:
            report = embed_vault(ws.root, progress=bar.update, store=ws.store, lock_wait=INDEX_LOCK_WAIT)
        except KeyboardInterrupt:
            bar.close()
            done, total = bar.embedding or (0, 0)
            sys.stderr.write(f"interrupted: {done:,} of {total:,} sections were embedded and saved; "
                             "run `kbg embed` again to embed the rest\n")
            raise SystemExit(130) from None
        sections = ws.store.vector_counts()[1]
        vectors_off = ws.config.search.embedder == "none"
    if as_json:
        from .output import print_json

        print_json(as_dict(report))
        return
    for problem in report.problems:
        sys.stderr.write(f"{problem.severity}: {problem.path}: {cli_words(problem.reason)}\n")
    if vectors_off:
        from ..embed.background import EMBEDDINGS_OFF

        print(f"{EMBEDDINGS_OFF}: nothing to embed; search uses text and the graph")
        return
    print(f"embedded {report.embedded:,} sections in {report.seconds:.2f}s"
          + (f" with {report.model}" if report.model else ""))
    if report.vectors_missing:
        print(missing_vectors_line(report.vectors_missing, sections))


def _background(vault: str | None, as_json: bool, start: bool) -> None:
    from ..embed.background import embed_status, start_background
    from ..model import as_dict

    with open_workspace(vault) as ws:
        root = ws.root
    if not start:
        status = embed_status(root)
        if as_json:
            from .output import print_json

            print_json(as_dict(status))
        else:
            print(status_line(status))
        return
    started = start_background(root, db=db_url())
    if as_json:
        from .output import print_json

        print_json(as_dict(started))
    else:
        print(start_line(started))

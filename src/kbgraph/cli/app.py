"""The `kbg` entry point: the command tree, and the one place errors become exit codes."""

from __future__ import annotations

import sys

import click

from . import (context_cmd, doc_cmd, documents_cmd, entity_cmd, graph_cmd, index_cmd, mentions_cmd, model_cmd,
               portable_cmd, relations_cmd,
               resolve_cmd, suggestions_cmd)
from . import capture_cmd, mcp_cmd, memory_cmd, recall_cmd
from . import embed_cmd, serve_cmd, token_cmd
from .common import root_options
from .wording import cli_words


@click.group(name="kbg", context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="kbgraph", prog_name="kbg")
@root_options
def cli() -> None:
    """kbgraph: a local-first knowledge graph for your markdown notes."""


cli.add_command(index_cmd.init)
cli.add_command(index_cmd.index)
cli.add_command(embed_cmd.embed)
cli.add_command(documents_cmd.search)
cli.add_command(recall_cmd.recall)
cli.add_command(documents_cmd.view)
cli.add_command(documents_cmd.list_docs)
cli.add_command(doc_cmd.doc)
cli.add_command(entity_cmd.entity)
for _group in entity_cmd.typed_groups():
    cli.add_command(_group)
cli.add_command(portable_cmd.export)
cli.add_command(portable_cmd.import_)
cli.add_command(portable_cmd.migrate_to)
cli.add_command(portable_cmd.backup)
cli.add_command(portable_cmd.restore)
cli.add_command(model_cmd.model)
cli.add_command(resolve_cmd.resolve)
cli.add_command(graph_cmd.graph)
cli.add_command(memory_cmd.fact)
cli.add_command(memory_cmd.loop)
cli.add_command(capture_cmd.note)
cli.add_command(capture_cmd.brief)
cli.add_command(context_cmd.context)
cli.add_command(context_cmd.slice_)
cli.add_command(serve_cmd.serve)
cli.add_command(token_cmd.token)
cli.add_command(mcp_cmd.mcp)
relations_cmd.register(entity_cmd.entity)
suggestions_cmd.register(entity_cmd.entity)
mentions_cmd.register(entity_cmd.entity)


def main() -> None:
    """Run the CLI; kbgraph errors become a one-line message (in the CLI's words: flags and commands)
    and a non-zero exit, never a traceback."""
    from ..errors import Ambiguous, KbgError
    from ..locks import on_wait

    on_wait(lambda message: sys.stderr.write(f"{cli_words(message)}\n"))
    try:
        cli.main(prog_name="kbg")
    except Ambiguous as exc:
        _report_ambiguous(exc)
    except KbgError as exc:
        message = cli_words(str(exc))
        if _wants_json():
            from .output import print_json

            print_json({"error": message, "kind": type(exc).__name__})
        sys.stderr.write(f"error: {message}\n")
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)


def _wants_json() -> bool:
    argv = sys.argv[1:]
    return "--json" in argv or any(
        a == "--format" and i + 1 < len(argv) and argv[i + 1] in ("json", "jsonl") for i, a in enumerate(argv)
    ) or "--format=json" in argv or "--format=jsonl" in argv


def _report_ambiguous(exc) -> None:
    message = cli_words(str(exc))
    if _wants_json():
        from .output import print_json

        print_json({"error": message, "kind": "Ambiguous", "candidates": exc.candidates})
    sys.stderr.write(f"error: {message}\n")
    for c in exc.candidates:
        where = f" ({c['page_path']})" if c.get("page_path") else ""
        sys.stderr.write(f"  - {c['name']} [{c['type']}, id {c['id']}]{where}\n")
    sys.exit(exc.exit_code)


if __name__ == "__main__":
    main()

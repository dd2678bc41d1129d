"""The `kbg` entry point: the Typer app, its command groups, and the one place errors become exit codes."""

from __future__ import annotations

import sys

import typer

from . import documents_cmd, entity_cmd, index_cmd, portable_cmd, relations_cmd  # noqa: F401  (registers commands)

app = typer.Typer(
    name="kbg",
    help="kbgraph: a local-first knowledge graph for your markdown notes.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,
)

app.command("init")(index_cmd.init)
app.add_typer(index_cmd.index_app, name="index")
app.command("search")(documents_cmd.search)
app.command("view")(documents_cmd.view)
app.command("list")(documents_cmd.list_docs)
app.add_typer(entity_cmd.entity_app, name="entity")
for _type, _app in entity_cmd.typed_apps().items():
    app.add_typer(_app, name=_type)
app.command("export")(portable_cmd.export)
app.command("import")(portable_cmd.import_)


def main() -> None:
    """Run the CLI; kbgraph errors become a one-line message and a non-zero exit, never a traceback."""
    from ..errors import Ambiguous, KbgError

    try:
        app()
    except Ambiguous as exc:
        _report_ambiguous(exc)
    except KbgError as exc:
        if _wants_json():
            from .output import print_json

            print_json({"error": str(exc), "kind": type(exc).__name__})
        sys.stderr.write(f"error: {exc}\n")
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
    if _wants_json():
        from .output import print_json

        print_json({"error": str(exc), "kind": "Ambiguous", "candidates": exc.candidates})
    sys.stderr.write(f"error: {exc}\n")
    for c in exc.candidates:
        where = f" ({c['page_path']})" if c.get("page_path") else ""
        sys.stderr.write(f"  - {c['name']} [{c['type']}, id {c['id']}]{where}\n")
    sys.exit(exc.exit_code)


if __name__ == "__main__":
    main()

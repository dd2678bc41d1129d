"""The `kbg` entry point: the command tree, and the one place errors become exit codes."""

from __future__ import annotations

import sys

import importlib

import click

from .common import root_options
from .wording import cli_words

# Every command, by name -> (module, attribute) under kbgraph.cli. Loaded only when run (or listed in
# --help): importing every command module cost ~75 ms of a ~200 ms `kbg search`, most of it for
# commands the run never touches. tests/test_cli.py checks this table against the modules.
COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("index_cmd", "init"),
    "index": ("index_cmd", "index"),
    "embed": ("embed_cmd", "embed"),
    "search": ("documents_cmd", "search"),
    "recall": ("recall_cmd", "recall"),
    "view": ("documents_cmd", "view"),
    "list": ("documents_cmd", "list_docs"),
    "doc": ("doc_cmd", "doc"),
    "entity": ("entity_groups", "entity_group"),
    "person": ("entity_groups", "person_group"),
    "project": ("entity_groups", "project_group"),
    "team": ("entity_groups", "team_group"),
    "export": ("portable_cmd", "export"),
    "import": ("portable_cmd", "import_"),
    "migrate-to": ("portable_cmd", "migrate_to"),
    "backup": ("portable_cmd", "backup"),
    "restore": ("portable_cmd", "restore"),
    "model": ("model_cmd", "model"),
    "resolve": ("resolve_cmd", "resolve"),
    "profile": ("profile_cmd", "profile"),
    "graph": ("graph_cmd", "graph"),
    "fact": ("memory_cmd", "fact"),
    "loop": ("memory_cmd", "loop"),
    "note": ("capture_cmd", "note"),
    "brief": ("capture_cmd", "brief"),
    "context": ("context_cmd", "context"),
    "slice": ("context_cmd", "slice_"),
    "serve": ("serve_cmd", "serve"),
    "token": ("token_cmd", "token"),
    "mcp": ("mcp_cmd", "mcp"),
}


class LazyGroup(click.Group):
    """A group whose commands are imported the first time they are asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            module, attribute = COMMANDS[cmd_name]
            loaded = getattr(importlib.import_module(f"{__package__}.{module}"), attribute)
            self.add_command(loaded() if attribute.endswith("_group") else loaded, cmd_name)
        return self.commands.get(cmd_name)


@click.group(name="kbg", cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="kbgraph", prog_name="kbg")
@root_options
def cli() -> None:
    """kbgraph: a local-first knowledge graph for your markdown notes."""


def main() -> None:
    """Run the CLI; kbgraph errors become a one-line message (in the CLI's words: flags and commands)
    and a non-zero exit, never a traceback."""
    from ..errors import Ambiguous, KbgError
    from ..locks import on_wait

    on_wait(lambda message: sys.stderr.write(f"{cli_words(message)}\n"))
    from .arguments import find_undecodable

    if (undecodable := find_undecodable(cli, sys.argv[1:])) is not None:
        _fail(undecodable, "InvalidInput", 2)
    try:
        # Not standalone: click would print a usage error as three lines (usage, a hint, the error) and
        # never as JSON; here it becomes one line like every other error.
        exit_code = cli.main(prog_name="kbg", standalone_mode=False)
        if isinstance(exit_code, int) and not isinstance(exit_code, bool):  # --help, --version, ctx.exit(n)
            sys.exit(exit_code)
    except click.exceptions.NoArgsIsHelpError as exc:  # bare `kbg` or `kbg entity`: the help is the answer
        exc.show()
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        _fail(_usage_message(exc), "UsageError" if isinstance(exc, click.UsageError) else type(exc).__name__,
              exc.exit_code)
    except click.Abort as exc:  # Ctrl-C or end of input at a prompt, or Ctrl-C outside a command's handler
        if isinstance(exc.__cause__ or exc.__context__, EOFError):  # prompt() raises Abort from None
            _fail("no answer: the input ended at a prompt; nothing more was done", "Aborted", 1)
        sys.stderr.write("interrupted\n")
        sys.exit(130)
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


def _fail(message: str, kind: str, exit_code: int) -> None:
    if _wants_json():
        from .output import print_json

        print_json({"error": message, "kind": kind})
    sys.stderr.write(f"error: {message}\n")
    sys.exit(exit_code)


def _usage_message(exc: click.ClickException) -> str:
    message = " ".join(exc.format_message().split())
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and ctx is not None:
        return f"{message} (`{ctx.command_path} --help` shows the usage)"
    return message


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
        where = f" ({c['page_path']})" if c.get("page_path") else f" ({c['note']})" if c.get("note") else ""
        ident = f", id {c['id']}" if c.get("id") is not None else ""
        sys.stderr.write(f"  - {c['name']} [{c['type']}{ident}]{where}\n")
    sys.exit(exc.exit_code)


if __name__ == "__main__":
    main()

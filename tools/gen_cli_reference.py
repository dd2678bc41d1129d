"""Generate docs/cli.md, the `kbg` command reference, from the click command tree itself.

    python tools/gen_cli_reference.py           # write docs/cli.md
    python tools/gen_cli_reference.py --check   # exit 1 if docs/cli.md is out of date

Every command and subcommand gets a `## kbg ...` heading and its `--help` text,
rendered at a fixed width of 100 columns so the output does not depend on the terminal.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUTPUT = REPO / "docs" / "cli.md"
WIDTH = 100

INTRO = """\
# kbg command reference

Every `kbg` command with its `--help` text. This file is generated from the CLI itself by
`python tools/gen_cli_reference.py`; do not edit it by hand (a test fails when it is out of date).

Every command that reads the index takes `--vault PATH` (or the `KBG_VAULT` environment variable;
without either, the vault is the nearest folder at or above the current one that holds a
`kbgraph.toml` or a `.kbgraph/` folder) and `--json`. `--vault` and `--db` may also come before the
command (`kbg --vault ~/notes search kafka`); one given after it wins. List-like commands also take
`--format table|json|jsonl|csv` and `--fields a,b,c`. The JSON shapes, error output and exit
codes are in [json.md](json.md); what gets indexed is in [note-format.md](note-format.md).
"""


def _root_command():
    from kbgraph.cli.app import cli

    return cli


def _context(command, path: str, parent=None):
    import click

    settings = {**getattr(parent, "_settings", {}), **command.context_settings}
    # info_name is the command's own name: click prefixes the parents' names to make the usage line.
    ctx = click.Context(command, info_name=path.rsplit(" ", 1)[-1], parent=parent, terminal_width=WIDTH, max_content_width=WIDTH,
                        **settings)
    ctx._settings = settings  # inherited by subcommands, as in a real run
    return ctx


def walk(command=None, path: str = "kbg", parent=None):
    """(command path, click command, context) for the root and every visible subcommand, depth first."""
    command = command or _root_command()
    ctx = _context(command, path, parent)
    yield path, command, ctx
    if not hasattr(command, "list_commands"):  # a group's commands may load lazily: ask, don't peek
        return
    for name in command.list_commands(ctx):
        sub = command.get_command(ctx, name)
        if sub is None or getattr(sub, "hidden", False):
            continue
        yield from walk(sub, f"{path} {name}", ctx)


def command_paths() -> list[str]:
    return [path for path, _, _ in walk()]


def render() -> str:
    """The full text of docs/cli.md."""
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(WIDTH)
    try:
        entries = [(path, command, command.get_help(ctx)) for path, command, ctx in walk()]
    finally:
        if saved is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = saved
    lines = [INTRO, "## Commands", ""]
    for path, command, _ in entries:
        summary = (command.get_short_help_str(limit=80) or "").strip()
        anchor = path.replace(" ", "-")
        lines.append(f"- [`{path}`](#{anchor})" + (f": {summary}" if summary and path != "kbg" else ""))
    lines.append("")
    for path, _, help_text in entries:
        lines += [f"## {path}", "", "```text", help_text.rstrip(), "```", ""]
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/cli.md differs from the generated text")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            sys.stderr.write(f"{OUTPUT.relative_to(REPO)} is out of date; run `python tools/gen_cli_reference.py`\n")
            return 1
        print(f"{OUTPUT.relative_to(REPO)} is up to date")
        return 0
    OUTPUT.parent.mkdir(exist_ok=True)
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(REPO)} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

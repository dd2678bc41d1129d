"""`kbg export` and `kbg import`."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from .common import JsonOpt, VaultOpt, open_workspace


def export(
    fmt: Annotated[str, typer.Option("--format", help="json (one document) or jsonl (one record per line).")] = "json",
    output: Annotated[Optional[str], typer.Option("--output", "-o", help="Write here instead of stdout.")] = None,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Write every entity, asserted entity and relation (with evidence and dates) for `kbg import`."""
    import json

    from ..portable import export_data, to_jsonl

    if fmt not in ("json", "jsonl"):
        raise typer.BadParameter("use json or jsonl", param_hint="--format")
    with open_workspace(vault) as ws:
        data = export_data(ws.store)
    text = to_jsonl(data) if fmt == "jsonl" else json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    if output:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
        summary = {"output": output, "entities": len(data["entities"]), "relations": len(data["relations"]),
                   "asserted_entities": len(data["asserted_entities"])}
        if as_json:
            from .output import print_json

            print_json(summary)
        else:
            print(f"exported {summary['relations']} relations and {summary['entities']} entities to {output}")
        return
    sys.stdout.write(text)


def import_(
    path: Annotated[str, typer.Argument(help="A file written by `kbg export` (json or jsonl), or - for stdin.")],
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Restore asserted entities and relations from an export (validated whole before anything is written)."""
    from ..errors import InvalidInput
    from ..portable import import_data, load_export

    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise InvalidInput(f"{path} is not UTF-8 text; give a file written by `kbg export`") from None
    data = load_export(text)
    with open_workspace(vault, create=True) as ws:
        counts = import_data(ws, data)
    if as_json:
        from .output import print_json

        print_json(counts)
        return
    print(f"imported {counts['relations']} relations and {counts['asserted_entities']} asserted entities"
          f" ({counts['created_entities']} entities created)")

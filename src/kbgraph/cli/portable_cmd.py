"""`kbg export` and `kbg import`."""

from __future__ import annotations

import sys
import click

from .common import db_url, json_option, open_workspace, vault_option


@click.command()
@click.option("--format", "fmt", default="json", show_default=True, type=click.Choice(["json", "jsonl"]),
              help="json (one document) or jsonl (one record per line).")
@click.option("--output", "-o", default=None, metavar="FILE", help="Write here instead of stdout.")
@vault_option
@json_option
def export(fmt, output, vault, as_json) -> None:
    """Write every entity, asserted entity and relation (with evidence and dates) for `kbg import`."""
    import json

    from ..portable import export_data, to_jsonl

    with open_workspace(vault) as ws:
        data = export_data(ws.store, ws.config.vocabulary.symmetric_names())
    text = to_jsonl(data) if fmt == "jsonl" else json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    if output:
        from ..errors import InvalidInput

        try:
            with open(output, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as exc:
            raise InvalidInput(f"cannot write {output}: {exc.strerror}") from None
        summary = {"output": output, "entities": len(data["entities"]), "relations": len(data["relations"]),
                   "asserted_entities": len(data["asserted_entities"])}
        if as_json:
            from .output import print_json

            print_json(summary)
        else:
            print(f"exported {summary['relations']} relations and {summary['entities']} entities to {output}")
        return
    sys.stdout.write(text)


@click.command("import")
@click.argument("path")
@vault_option
@json_option
def import_(path, vault, as_json) -> None:
    """Restore asserted entities and relations from PATH, a file written by `kbg export` (json or
    jsonl; - reads stdin). The whole file is validated before anything is written. Relations the
    exporting vault kept on pages get their `## Relations` lines back in this vault's pages; importing
    the same file again changes nothing."""
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
    written = (f"; {counts['lines_written']} relation lines written to {', '.join(counts['pages_edited'])}"
               if counts["lines_written"] else "")
    print(f"imported {counts['relations']} relations ({counts['relations_added']} new to this vault) and "
          f"{counts['asserted_entities']} asserted entities"
          f" ({counts['created_entities']} entities created){written}{_also_imported(counts)}")
    if counts["waiting"]:
        print(f"{len(counts['waiting'])} relations name an entity this vault does not have; their lines wait on "
              f"their pages by name (`kbg index` lists them): {'; '.join(counts['waiting'][:3])}")


def _also_imported(counts: dict) -> str:
    """The rest of what the file held, so an import that restored only answers, unlinks or facts does not
    read as one that did nothing."""
    read = [(counts["merges"], "merge"), (counts["unlinks"], "unlink"),
            (counts["reference_links"], "short-name link")]
    added = [(counts["facts"], "fact"), (counts["loops"], "loop"), (counts["relation_history"], "relation version")]
    parts = [f"{n} {word}{'s' if n != 1 else ''}" for n, word in read + added if n]
    if counts["decisions"]:
        parts.append(f"{counts['decisions']} resolution decision{'s' if counts['decisions'] != 1 else ''}"
                     f" ({counts['decisions_added']} new)")
    return f"; also {', '.join(parts)}" if parts else ""


@click.command("migrate-to")
@click.argument("url")
@vault_option
@json_option
def migrate_to(url, vault, as_json) -> None:
    """Move the vault's index into the empty PostgreSQL database at URL (postgresql://user@host/db):
    the notes indexed there, every relation, decision, fact and loop you asserted, vectors and API
    tokens. Checked before it commits; interrupted, it leaves the database as it was. Afterwards run
    commands with --db URL (or KBG_DB). See docs/team.md."""
    from ..migrate import migrate_to as run

    with open_workspace(vault) as ws:
        result = run(ws, url)
    if as_json:
        from .output import print_json

        print_json(result)
        return
    print(f"migrated {result['documents']} notes, {result['relations']} asserted relations, {result['vectors']} "
          f"vectors and {result['tokens']} tokens to {result['target']} (verified: the export matches)")


@click.command()
@click.argument("path")
@vault_option
@json_option
def backup(path, vault, as_json) -> None:
    """Copy the index to PATH (a new file, or a folder for a dated one): a consistent snapshot, safe while
    other commands write, checked before it is named. The notes are yours to back up; the index holds
    what they do not (relations, merges and answers you asserted, vectors, tokens). `kbg restore PATH`."""
    from ..backup import backup_index

    with open_workspace(vault) as ws:
        report = backup_index(ws, path)
    _print_backup(report, "backed up", as_json)


@click.command()
@click.argument("path")
@vault_option
@json_option
def restore(path, vault, as_json) -> None:
    """Replace the vault's index with the backup at PATH, written by `kbg backup`. The backup is checked
    first (a damaged or foreign file changes nothing); indexing and writes wait while it is copied in."""
    import os

    from ..backup import restore_index
    from ..base.vault import find_vault

    root = find_vault(explicit=vault or os.environ.get("KBG_VAULT") or None)
    _print_backup(restore_index(root, path, db=db_url()), "restored", as_json)


def _print_backup(report, verb: str, as_json: bool) -> None:
    if as_json:
        from ..model import as_dict
        from .output import print_json

        print_json(as_dict(report))
        return
    print(f"{verb} {report.documents} notes, {report.entities} entities and {report.relations} relations "
          f"({report.bytes / 1024 / 1024:.1f} MB, integrity checked) {'to' if verb == 'backed up' else 'from'} "
          f"{report.path} in {report.seconds:.2f}s")
    if report.notes_missing:
        other = " (a backup of another vault?)" if report.notes_missing == report.documents else ""
        print(f"warning: {report.notes_missing} of {report.documents} notes the backup indexed are not in this "
              f"vault{other}; the next `kbg index` drops them and what was said about them alone")

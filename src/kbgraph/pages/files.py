"""Editing a user's page file: minimal, atomic, serialised between processes.

The only place kbgraph writes into the user's notes. A write replaces the file
atomically (temporary file in the same folder, then rename), keeps the file's
permissions and line endings, and never touches the frontmatter.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from ..errors import InvalidInput, StoreError, VaultBusy
from ..ingest.vault import FrontmatterError, split_frontmatter

LOCK_WAIT_SECONDS = 30.0


def write_lock(root: Path, wait: float = LOCK_WAIT_SECONDS):
    """A vault-wide lock for read-modify-write of pages together with the matching database change."""
    from ..locks import exclusive

    busy = VaultBusy("another kbgraph process is writing to this vault; nothing was changed", hint="try again")
    return exclusive(Path(root) / ".kbgraph" / "write.lock", wait, busy)


def edit_page(root: Path, rel_path: str, change: Callable[[str, int], str]) -> bool:
    """Apply change(text, body_offset) -> new text to a page; returns whether the file changed."""
    path = Path(root) / rel_path
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StoreError(f"cannot read {rel_path}: {exc.strerror}; nothing was changed") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(f"{rel_path} is not valid UTF-8; kbgraph will not edit it (nothing was changed)") from None
    bom = text.startswith("\ufeff")
    text = text[1:] if bom else text
    # A file written with CRLF throughout keeps it; a file that mixes endings is edited as it is,
    # so that no line kbgraph did not add changes.
    crlf = "\r\n" in text and text.count("\r\n") == text.count("\n")
    if crlf:
        text = text.replace("\r\n", "\n")
    try:
        _, body_offset = split_frontmatter(text)
    except FrontmatterError as exc:
        raise InvalidInput(f"{rel_path}: {exc}; fix it before kbgraph edits the page (nothing was changed)") from None
    new_text = change(text, body_offset)
    if new_text == text:
        return False
    if crlf:
        new_text = new_text.replace("\n", "\r\n")
    _atomic_write(path, (("\ufeff" if bom else "") + new_text).encode("utf-8"))
    return True


def _atomic_write(path: Path, data: bytes) -> None:
    path = path.resolve()  # a symlinked note is written where it lives, and stays a link
    tmp = path.with_name(f".{path.name}.kbg-tmp")
    try:
        mode = path.stat().st_mode & 0o7777
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise StoreError(f"cannot write {path.name}: {exc.strerror}; the page was not changed") from exc


def append_to_note(root: Path, rel_path: str, line: str, header: str = "") -> None:
    """Append line to a note (created with header when missing): what was there stays byte-for-byte; a
    last line without a newline gets one first, so the new line is a line of its own."""
    path = Path(root) / rel_path
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with open(path, "x", encoding="utf-8") as handle:
                handle.write(header + line + "\n")
            return
        except FileExistsError:
            pass
        except OSError as exc:
            raise StoreError(f"cannot create {rel_path}: {exc.strerror}") from exc
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StoreError(f"cannot read {rel_path}: {exc.strerror}; nothing was changed") from exc
    newline = b"\r\n" if b"\r\n" in data else b"\n"
    glue = b"" if not data or data.endswith(b"\n") else newline
    _atomic_write(path, data + glue + line.encode("utf-8") + newline)


PAGE_FOLDERS = {"person": "people", "project": "projects", "team": "teams", "technology": "tech",
                "organization": "orgs", "concept": "concepts"}


def create_entity_page(root: Path, entity_type: str, name: str) -> str:
    """Write a new page for an entity that has none (only when kbgraph.toml asks for it); returns its path.

    Never overwrites: a taken file name gets a numeric suffix.
    """
    import re

    import yaml

    folder = PAGE_FOLDERS.get(entity_type, f"{entity_type}s")
    slug = re.sub(r"[^\w]+", "-", name.casefold()).strip("-") or "entity"
    for n in range(1, 1000):
        rel_path = f"{folder}/{slug}{'' if n == 1 else f'-{n}'}.md"
        path = Path(root) / rel_path
        if not path.exists():
            break
    else:
        raise StoreError(f"cannot find a free file name for {name!r} in {folder}/")
    frontmatter = yaml.safe_dump({"type": entity_type, "name": name}, allow_unicode=True, sort_keys=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(f"---\n{frontmatter}---\n# {name}\n")
    except OSError as exc:
        raise StoreError(f"cannot create {rel_path}: {exc.strerror}") from exc
    return rel_path

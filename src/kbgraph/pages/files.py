"""Editing a user's page file: minimal, atomic, serialised between processes.

The only place kbgraph writes into the user's notes. A write replaces the file
atomically (temporary file in the same folder, then rename), keeps the file's
permissions and line endings, and never touches the frontmatter.

No write leaves the vault: each page is found through base.vault.vault_path at the
moment of the write, so a page that is (or sits in a folder that is) a symlink out of the
vault is refused, and one that links inside the vault is written where it lives.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from ..errors import InvalidInput, StoreError, VaultBusy
from ..base.vault import FrontmatterError, NotRegularFile, read_in_vault, split_frontmatter, vault_path

LOCK_WAIT_SECONDS = 30.0


def write_lock(root: Path, wait: float = LOCK_WAIT_SECONDS):
    """A vault-wide lock for read-modify-write of pages together with the matching database change."""
    from ..locks import exclusive

    busy = VaultBusy("another kbgraph process is writing to this vault; nothing was changed", hint="try again")
    return exclusive(Path(root) / ".kbgraph" / "write.lock", wait, busy)


def edit_page(root: Path, rel_path: str, change: Callable[[str, int], str]) -> bool:
    """Apply change(text, body_offset) -> new text to a page; returns whether the file changed."""
    text, bom, crlf, st, path = _page_text(root, rel_path)
    try:
        _, body_offset = split_frontmatter(text)
    except FrontmatterError as exc:
        raise InvalidInput(f"{rel_path}: {exc}; fix it before kbgraph edits the page (nothing was changed)") from None
    new_text = change(text, body_offset)
    if new_text == text:
        return False
    if crlf:
        new_text = new_text.replace("\n", "\r\n")
    _atomic_write(path, (("\ufeff" if bom else "") + new_text).encode("utf-8"), st.st_mode)
    return True


def page_text(root: Path, rel_path: str) -> str:
    """A page's text as edit_page hands it to a change (and as the index counts offsets in it)."""
    return _page_text(root, rel_path)[0]


def _page_text(root: Path, rel_path: str) -> tuple[str, bool, bool, os.stat_result, Path]:
    data, st, path = _read_page(root, rel_path)
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
    return text, bom, crlf, st, path


def _read_page(root: Path, rel_path: str) -> tuple[bytes, os.stat_result, Path]:
    """A page's bytes, stat and real path (inside the vault, or OutsideVault is raised)."""
    try:
        return read_in_vault(root, rel_path)
    except NotRegularFile:
        raise InvalidInput(f"{rel_path} is not a regular file (a FIFO, socket or device); kbgraph will not "
                           "edit it (nothing was changed)", param="path") from None
    except OSError as exc:
        raise StoreError(f"cannot read {rel_path}: {exc.strerror}; nothing was changed") from exc


def _atomic_write(path: Path, data: bytes, mode: int) -> None:
    """Replace the file at path, a real path inside the vault (a symlinked note is written where it
    lives, and stays a link), with data, keeping mode's permission bits."""
    tmp = path.with_name(f".{path.name}.kbg-tmp")
    try:
        tmp.unlink(missing_ok=True)  # left by a killed run; O_EXCL below never writes through a link there
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode & 0o7777)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise StoreError(f"cannot write {path.name}: {exc.strerror}; the page was not changed") from exc


def append_to_note(root: Path, rel_path: str, line: str, header: str = "") -> None:
    """Append line to a note (created with header when missing): what was there stays byte-for-byte; a
    last line without a newline gets one first, so the new line is a line of its own."""
    path = vault_path(root, rel_path)
    if not os.path.lexists(path):
        try:
            _create(path, header + line + "\n")
            return
        except FileExistsError:
            pass
        except OSError as exc:
            raise StoreError(f"cannot create {rel_path}: {exc.strerror}") from exc
    data, st, path = _read_page(root, rel_path)
    newline = b"\r\n" if b"\r\n" in data else b"\n"
    glue = b"" if not data or data.endswith(b"\n") else newline
    _atomic_write(path, data + glue + line.encode("utf-8") + newline, st.st_mode)


def _create(path: Path, text: str) -> None:
    """Write a new file at path (a real path inside the vault), creating its folders; FileExistsError
    if anything, a dangling link included, is there already (O_EXCL never follows one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "x", encoding="utf-8") as handle:
        handle.write(text)


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
    real_folder = vault_path(root, folder)  # a folder linked out of the vault is refused here
    for n in range(1, 1000):
        file_name = f"{slug}{'' if n == 1 else f'-{n}'}.md"
        if not os.path.lexists(real_folder / file_name):  # a dangling link takes its name too
            break
    else:
        raise StoreError(f"cannot find a free file name for {name!r} in {folder}/")
    rel_path = f"{folder}/{file_name}"
    frontmatter = yaml.safe_dump({"type": entity_type, "name": name}, allow_unicode=True, sort_keys=False)
    try:
        _create(real_folder / file_name, f"---\n{frontmatter}---\n# {name}\n")
    except OSError as exc:
        raise StoreError(f"cannot create {rel_path}: {exc.strerror}") from exc
    return rel_path

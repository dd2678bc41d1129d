"""A vault's frontmatter as profile inference reads it: each note's head, and the profile the notes
infer now (what `kbg profile show` prints, `kbg init --infer` writes and `kbg import` validates against
before the first index of a fresh vault)."""

from __future__ import annotations

from pathlib import Path

from ..base.vault import FrontmatterError, read_file, read_in_vault, split_frontmatter, walk_vault
from ..config import Config, load_config, user_config
from ..model import Problem
from .infer import infer_profile

HEAD_BYTES = 16384  # a note's frontmatter is at its head: the rest is read only when it runs past this


def frontmatters(files, config: Config):
    for entry in files:
        if not entry.path.lower().endswith((".md", ".markdown")) or entry.size > config.max_file_bytes:
            continue
        frontmatter = _head_frontmatter(entry)
        if frontmatter is None:
            raw = read_file(entry, config)
            if isinstance(raw, Problem):
                continue
            try:
                frontmatter, _ = split_frontmatter(raw.text)
            except FrontmatterError:
                continue  # the documents stage reports it
        yield entry.path, frontmatter


def _head_frontmatter(entry) -> dict | None:
    """The frontmatter from the note's first HEAD_BYTES (whole lines), {} for a note with none, None when
    it must be read whole (the frontmatter runs past them, or the head is not UTF-8)."""
    from ..errors import KbgError

    try:
        data, _, _ = read_in_vault(entry.root, entry.path, HEAD_BYTES)
    except (OSError, KbgError):
        return {}  # the documents stage reports an unreadable note
    if not data.startswith(b"---"):
        return {}
    if len(data) >= HEAD_BYTES:
        data = data[: data.rfind(b"\n") + 1]
    try:
        return split_frontmatter(data.decode("utf-8"))[0]
    except (UnicodeDecodeError, FrontmatterError):
        return None


def infer_vault_profile(root: Path):
    """The profile an index of the vault at root would infer now (profile.infer.Inferred), from its
    notes as they are: what `kbg profile show` prints and `kbg init --infer` writes."""
    user, _ = user_config(root)
    config = load_config(root)
    files, _ = walk_vault(root, config)
    return infer_profile(frontmatters(files, config), user)

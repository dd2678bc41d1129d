"""The index stage that infers the vault's profile before any note is read (after the walk).

Every walked note's frontmatter goes to profile.infer; what it infers is kept in
<vault>/.kbgraph/profile.json (the index's own folder: nothing is written to the user's kbgraph.toml)
and becomes the run's configuration, merged under the user's file. When it changes what notes say
(the configuration's fingerprint), every note is read again under it, as after an edit of kbgraph.toml.
A re-read of pages kbgraph wrote (a run with `only`) keeps the profile the last index inferred.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..config import (PROFILE_NAME, Config, config_from_dict, merge_inferred, stored_profile, user_config)
from ..errors import ConfigError
from ..model import Problem
from ..base.vault import FrontmatterError, INDEX_DIR, read_file, read_in_vault, split_frontmatter

IndexRun = Any  # pipeline.IndexRun, which imports this stage

PROFILE_VERSION = 1


def profile_stage(run: IndexRun) -> None:
    if run.only is not None or not run.config.infer_profile:
        return
    from ..profile.infer import infer_profile

    user, source = user_config(run.root)
    inferred = infer_profile(_frontmatters(run.files, run.config), user)
    config = _configured(user, inferred.raw, source, run)
    if config is None:
        return
    _write(Path(run.root), inferred.as_json())
    if config.fingerprint != run.config.fingerprint:
        stored = run.store.get_meta("config_fingerprint")
        if stored is not None and stored != config.fingerprint:
            run.full = True  # the notes were read under another profile: read them all again
        run.config = config


HEAD_BYTES = 16384  # a note's frontmatter is at its head: the rest is read only when it runs past this


def _frontmatters(files, config: Config):
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


def _configured(user: dict, inferred: dict, source: str, run: IndexRun) -> Config | None:
    try:
        return config_from_dict(merge_inferred(user, inferred), source=source)
    except ConfigError as exc:  # an inferred profile the user's file contradicts: the file is read alone
        run.problems.append(Problem(f"{INDEX_DIR}/{PROFILE_NAME}", f"inferred profile not used: {exc}", "warning"))
        return None


def _write(root: Path, data: dict) -> None:
    path = root / INDEX_DIR / PROFILE_NAME
    text = json.dumps({"version": PROFILE_VERSION, **data}, indent=1, sort_keys=True, ensure_ascii=False)
    try:
        if path.exists() and path.read_text(encoding="utf-8") == text:
            return
        path.parent.mkdir(exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass  # a read-only index folder: the profile is inferred again next time



def infer_vault_profile(root: Path):
    """The profile an index of the vault at root would infer now (profile.infer.Inferred), from its
    notes as they are: what `kbg profile show` prints and `kbg init --infer` writes."""
    from ..config import load_config
    from ..profile.infer import infer_profile
    from ..base.vault import walk_vault

    user, _ = user_config(root)
    config = load_config(root)
    files, _ = walk_vault(root, config)
    return infer_profile(_frontmatters(files, config), user)


__all__ = ["infer_vault_profile", "profile_stage", "stored_profile"]

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
from ..base.vault import INDEX_DIR
from ..profile.vault import HEAD_BYTES, frontmatters, infer_vault_profile

IndexRun = Any  # pipeline.IndexRun, which imports this stage

PROFILE_VERSION = 1


def profile_stage(run: IndexRun) -> None:
    if run.only is not None or not run.config.infer_profile:
        return
    from ..profile.infer import infer_profile

    user, source = user_config(run.root)
    inferred = infer_profile(frontmatters(run.files, run.config), user)
    config = _configured(user, inferred.raw, source, run)
    if config is None:
        return
    _write(Path(run.root), inferred.as_json())
    if config.fingerprint != run.config.fingerprint:
        stored = run.store.get_meta("config_fingerprint")
        if stored is not None and stored != config.fingerprint:
            run.full = True  # the notes were read under another profile: read them all again
        run.config = config


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



__all__ = ["HEAD_BYTES", "infer_vault_profile", "profile_stage", "stored_profile"]

"""A vault opened for use: its root, configuration and store, found the way every command finds it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .access import LOCAL, Access
from .config import CONFIG_NAME, DEFAULT_TEMPLATE, Config, load_config
from .errors import InvalidInput
from .ingest.vault import INDEX_DIR, find_vault
from .store.base import Store


@dataclass
class Workspace:
    root: Path
    config: Config
    store: Store
    access: Access = LOCAL  # who reads through this workspace; the terminal user sees everything

    @classmethod
    def open(cls, vault: str | None = None, create: bool = False, db: str | None = None) -> "Workspace":
        """Open the vault given (or KBG_VAULT, or the nearest one up from cwd); create: allow a new index.
        db (or KBG_DB): a PostgreSQL URL holding the index, instead of the vault's own SQLite file."""
        from .store import open_store

        root = find_vault(explicit=vault or os.environ.get("KBG_VAULT") or None)
        config = load_config(root)
        return cls(root, config, open_store(root, create=create, db=db or os.environ.get("KBG_DB") or None))

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> "Workspace":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def init_vault(path: str | os.PathLike, me: str | None = None, infer: bool = False) -> tuple[Path, bool]:
    """Make path a vault: write kbgraph.toml (unless present) and create .kbgraph/. Returns (root, created).
    me: the person the vault belongs to, written as `[me] name` (appended; nothing else in the file changes).
    infer: write the profile inferred from the notes' frontmatter (`kbg profile show`) instead of the
    commented template; refused where a kbgraph.toml exists (it is never overwritten)."""
    root = Path(path).expanduser()
    if root.exists() and not root.is_dir():
        raise InvalidInput(f"{root} exists and is not a directory")
    if me is not None and (not me.strip() or "\n" in me or "\r" in me):
        raise InvalidInput(f"`me` must be a person's name on one line, got {me!r}", param="me")
    if infer and (root / CONFIG_NAME).exists():
        raise InvalidInput(f"{root / CONFIG_NAME} exists and is never overwritten; copy what you want from the"
                           " inferred profile into it (profile show prints it)", param="infer")
    text = DEFAULT_TEMPLATE
    if infer and root.is_dir():
        from .ingest.profile_stage import infer_vault_profile
        from .profile.toml_text import profile_toml

        text = profile_toml(infer_vault_profile(root))
    try:
        root.mkdir(parents=True, exist_ok=True)
        config = root / CONFIG_NAME
        created = not config.exists()
        if created:
            config.write_text(text, encoding="utf-8")
        (root / INDEX_DIR).mkdir(exist_ok=True)
    except OSError as exc:
        raise InvalidInput(f"cannot make {root} a vault: {exc.strerror}") from None
    current = load_config(root)  # an existing, broken kbgraph.toml is reported now, not at first index
    if me is not None:
        _set_me(config, current.me, me.strip())
    return root.resolve(), created


def _set_me(config: Path, current: str | None, name: str) -> None:
    """Append `[me] name = "..."` to kbgraph.toml; one already there is never overwritten."""
    import json

    if current == name:
        return
    if current is not None:
        raise InvalidInput(f"{config} already says [me] name = {current!r}; edit that line to change it", param="me")
    text = config.read_text(encoding="utf-8")
    lead = "" if not text or text.endswith("\n") else "\n"
    with open(config, "a", encoding="utf-8") as handle:  # a TOML basic string: JSON's escapes are TOML's
        handle.write(f"{lead}\n[me]\nname = {json.dumps(name, ensure_ascii=False)}\n")

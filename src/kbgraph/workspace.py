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
    def open(cls, vault: str | None = None, create: bool = False) -> "Workspace":
        """Open the vault given (or KBG_VAULT, or the nearest one up from cwd); create: allow a new index."""
        from .store import open_store

        root = find_vault(explicit=vault or os.environ.get("KBG_VAULT") or None)
        config = load_config(root)
        return cls(root, config, open_store(root, create=create))

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> "Workspace":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def init_vault(path: str | os.PathLike) -> tuple[Path, bool]:
    """Make path a vault: write kbgraph.toml (unless present) and create .kbgraph/. Returns (root, created)."""
    root = Path(path).expanduser()
    if root.exists() and not root.is_dir():
        raise InvalidInput(f"{root} exists and is not a directory")
    try:
        root.mkdir(parents=True, exist_ok=True)
        config = root / CONFIG_NAME
        created = not config.exists()
        if created:
            config.write_text(DEFAULT_TEMPLATE, encoding="utf-8")
        (root / INDEX_DIR).mkdir(exist_ok=True)
    except OSError as exc:
        raise InvalidInput(f"cannot make {root} a vault: {exc.strerror}") from None
    load_config(root)  # an existing, broken kbgraph.toml is reported now, not at first index
    return root.resolve(), created

"""A vault opened for use: its root, configuration and store, found the way every command finds it,
and the port through which a feature has the index re-read after a write.

A feature that writes a page (or changes what the index derives from) re-reads through the workspace
(`ws.reread`, `ws.refresh`, `ws.reindex`), never by importing the index pipeline, which runs the
features' stages and so sits above them. kbgraph.workspace, the composition module, opens the
workspace with the default pipeline as that port.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..access import LOCAL, Access
from ..config import Config, load_config
from ..model import IndexReport
from .vault import find_vault
from ..store.base import Store

ProgressFn = Callable[[str, int, int], None]


class IndexPort(Protocol):
    """The index run as a feature needs it after a write: over the workspace's own config and store
    (kbgraph.toml is not read again, the store not reopened), waiting for a running `kbg index`."""

    def reread(self, ws: "Workspace", paths: Iterable[str]) -> bool:
        """Re-read pages just written once the write is committed; False: another index held the vault
        past the wait (the write stands, the next index reads the changed pages)."""
        ...

    def refresh(self, ws: "Workspace") -> IndexReport:
        """Run the stages over what the index holds, reading no file (after a change made in the index)."""
        ...

    def reindex(self, ws: "Workspace", paths: Iterable[str] | None = None,
                progress: ProgressFn | None = None) -> IndexReport:
        """Index these pages now (every changed one when None), raising IndexLocked past the wait."""
        ...


@dataclass
class Workspace:
    root: Path
    config: Config
    store: Store
    access: Access = LOCAL  # who reads through this workspace; the terminal user sees everything
    index: IndexPort | None = None  # the re-read port; kbgraph.workspace.Workspace fills in the default

    def _port(self) -> IndexPort:
        if self.index is None:
            raise TypeError("this workspace has no index port: open it with kbgraph.workspace.Workspace")
        return self.index

    def reread(self, paths: Iterable[str]) -> bool:
        """Re-read pages kbgraph has just written (see IndexPort.reread)."""
        return self._port().reread(self, paths)

    def refresh(self) -> IndexReport:
        """Bring entities, mentions and relations up to a change made in the index itself."""
        return self._port().refresh(self)

    def reindex(self, paths: Iterable[str] | None = None, progress: ProgressFn | None = None) -> IndexReport:
        """Index these pages now, or every changed one (see IndexPort.reindex)."""
        return self._port().reindex(self, paths, progress)

    @classmethod
    def open(cls, vault: str | None = None, create: bool = False, db: str | None = None) -> "Workspace":
        """Open the vault given (or KBG_VAULT, or the nearest one up from cwd); create: allow a new index.
        db (or KBG_DB): a PostgreSQL URL holding the index, instead of the vault's own SQLite file."""
        from ..store import open_store

        root = find_vault(explicit=vault or os.environ.get("KBG_VAULT") or None)
        config = load_config(root)
        return cls(root, config, open_store(root, create=create, db=db or os.environ.get("KBG_DB") or None))

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> "Workspace":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

"""The composition module: the workspace every interface opens, with the default index pipeline as
its re-read port.

Features sit below the index run machinery (ingest/), which runs their stages; a feature that writes
asks the workspace to re-read (base.workspace.IndexPort). Here, above both, that port is the default
pipeline, run over the workspace's own config and store: a re-read neither reads kbgraph.toml again
nor opens the store a second time.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .base.vault import INDEX_DIR
from .base.workspace import IndexPort, ProgressFn
from .base.workspace import Workspace as BaseWorkspace
from .config import CONFIG_NAME, DEFAULT_TEMPLATE, load_config
from .errors import IndexLocked, InvalidInput
from .model import IndexReport

WRITE_REREAD_WAIT = 30.0  # seconds a write's re-read waits for a running `kbg index` (then leaves it to the next)
INDEX_WAIT = 30.0  # seconds a refresh or a reindex waits for one (then raises IndexLocked)


class DefaultIndex:
    """IndexPort over ingest.pipeline.index_vault with its default stages."""

    def reread(self, ws: BaseWorkspace, paths: Iterable[str]) -> bool:
        """When another index holds the vault past the wait, the write still stands (its row is stored,
        its line is in the page) and is not reported as failed -- a user would retry it and record it
        twice: the next index re-reads the pages, whose files changed."""
        try:
            self._run(ws, set(paths), WRITE_REREAD_WAIT)
        except IndexLocked:
            return False
        return True

    def refresh(self, ws: BaseWorkspace) -> IndexReport:
        return self._run(ws, set(), INDEX_WAIT)

    def reindex(self, ws: BaseWorkspace, paths: Iterable[str] | None = None,
                progress: ProgressFn | None = None) -> IndexReport:
        return self._run(ws, None if paths is None else set(paths), INDEX_WAIT, progress)

    @staticmethod
    def _run(ws: BaseWorkspace, only: set[str] | None, wait: float, progress: ProgressFn | None = None) -> IndexReport:
        # Imported on the first re-read: a command that only reads (kbg search) never loads the stages.
        from .ingest import pipeline

        return pipeline.index_vault(Path(ws.root), store=ws.store, config=ws.config, only=only, lock_wait=wait,
                                    progress=progress)


@dataclass
class Workspace(BaseWorkspace):
    """A workspace whose re-reads run the default index pipeline (base.workspace.Workspace's port)."""

    index: IndexPort | None = None

    def __post_init__(self) -> None:
        if self.index is None:
            self.index = DefaultIndex()


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
        raise InvalidInput(f"{root / CONFIG_NAME} exists and is never overwritten", param="infer",
                           hint="show the inferred profile and copy from it")
    text = DEFAULT_TEMPLATE
    if infer and root.is_dir():
        from .profile.vault import infer_vault_profile
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

"""Storage: the Store contract and its backends. All SQL lives under this package."""

from .base import DocFilter, DocState, Store

__all__ = ["DocFilter", "DocState", "Store", "open_store"]


def open_store(vault_root, create: bool = True) -> Store:
    """The vault's default store: SQLite in <vault>/.kbgraph/index.db."""
    from .sqlite.store import SqliteStore

    return SqliteStore.open_vault(vault_root, create=create)

"""Storage: the Store contract and its backends. All SQL lives under this package."""

from .base import DocFilter, DocState, Store

__all__ = ["DocFilter", "DocState", "Store", "open_store"]


def open_store(vault_root, create: bool = True, db: str | None = None) -> Store:
    """The vault's store: SQLite in <vault>/.kbgraph/index.db, or the PostgreSQL database the URL db names."""
    if db:
        if not db.startswith(("postgresql://", "postgres://")):
            from ..errors import InvalidInput

            raise InvalidInput(f"the database URL must start with postgresql://, got {db.split('://')[0]!r}",
                               param="db", hint="as postgresql://user@host:5432/kbgraph")
        from . import postgres

        return postgres.open_store(db)
    from .sqlite.store import SqliteStore

    return SqliteStore.open_vault(vault_root, create=create)

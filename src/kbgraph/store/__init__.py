"""Storage: the Store contract and its backends. All SQL lives under this package."""

from .base import DocFilter, DocState, Store

__all__ = ["DocFilter", "DocState", "Store", "open_store"]


def _check_url(db: str) -> None:
    if not db.startswith(("postgresql://", "postgres://")):
        from ..errors import InvalidInput

        raise InvalidInput(f"the database URL must start with postgresql://, got {db.split('://')[0]!r}",
                           param="db", hint="as postgresql://user@host:5432/kbgraph")


def server_objects(db: str) -> set[tuple[str, str]]:
    """What the PostgreSQL database at db holds, by kind and name (to put it back as it was: drop_added)."""
    _check_url(db)
    from .postgres.cleanup import database_objects

    return database_objects(db)


def drop_added(db: str, before: set[tuple[str, str]]) -> list[tuple[str, str]]:
    """Drop what the database at db holds that `before` (server_objects) did not: only what came since."""
    from .postgres import cleanup

    return cleanup.drop_added(db, before)


def open_store(vault_root, create: bool = True, db: str | None = None) -> Store:
    """The vault's store: SQLite in <vault>/.kbgraph/index.db, or the PostgreSQL database the URL db names."""
    if db:
        _check_url(db)
        from . import postgres

        return postgres.open_store(db)
    from .sqlite.store import SqliteStore

    return SqliteStore.open_vault(vault_root, create=create)

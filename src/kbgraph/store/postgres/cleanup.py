"""What a database holds, by name, and the removal of whatever was added since: a migration into a
database that fails leaves it as it was, the user's own objects untouched (only names not there before
are dropped). The schema is made at open, on a connection of its own (store.py _migrate), so no one
transaction of the copy can take it back."""

from __future__ import annotations

from .store import _connect

# Each kind of object the schema and the vector tables create, listed by a name DROP takes. Objects an
# extension owns (pg_trgm's functions) go with it, so they are left out.
_OWN = "NOT EXISTS (SELECT 1 FROM pg_depend dep WHERE dep.objid = {oid} AND dep.deptype = 'e')"


def _in_schema(relkinds: str) -> str:
    """The tables, views or sequences (pg_class relkinds) of the current schema that no extension owns."""
    return ("SELECT format('%I', c.relname) FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace"
            f" AND c.relkind IN ({relkinds}) AND " + _OWN.format(oid="c.oid"))


_KINDS = (
    ("TABLE", _in_schema("'r', 'p'")),
    ("VIEW", _in_schema("'v'")),
    ("SEQUENCE", _in_schema("'S'")),
    ("TEXT SEARCH CONFIGURATION", "SELECT c.oid::regconfig::text FROM pg_ts_config c WHERE c.cfgnamespace ="
                                  " current_schema()::regnamespace AND " + _OWN.format(oid="c.oid")),
    ("TEXT SEARCH DICTIONARY", "SELECT d.oid::regdictionary::text FROM pg_ts_dict d WHERE d.dictnamespace ="
                               " current_schema()::regnamespace AND " + _OWN.format(oid="d.oid")),
    ("FUNCTION", "SELECT p.oid::regprocedure::text FROM pg_proc p WHERE p.pronamespace ="
                 " current_schema()::regnamespace AND " + _OWN.format(oid="p.oid")),
    ("EXTENSION", "SELECT format('%I', extname) FROM pg_extension"),
)


def database_objects(url: str) -> set[tuple[str, str]]:
    """(kind, name) of every table, view, sequence, text search configuration and dictionary and function
    in the database's current schema, and every extension."""
    db = _connect(url)
    try:
        return {(kind, row[0]) for kind, sql in _KINDS for row in db.execute(sql)}
    finally:
        db.close()


def drop_added(url: str, before: set[tuple[str, str]]) -> list[tuple[str, str]]:
    """Drop what the database holds now and did not before, in one transaction; returns what was dropped.
    CASCADE takes an index, trigger or owned sequence with its table: nothing older can depend on an
    object made after it."""
    added = sorted(database_objects(url) - before, key=lambda o: [k for k, _ in _KINDS].index(o[0]))
    db = _connect(url)
    try:
        with db.conn.transaction():
            for kind, name in added:
                db.execute(f"DROP {kind} IF EXISTS {name} CASCADE")
    finally:
        db.close()
    return added

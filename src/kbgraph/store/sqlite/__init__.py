"""The SQLite backend of the Store contract (WAL, FTS5). All of its SQL lives here."""

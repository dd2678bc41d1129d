"""What moving an index to another store copies that no export carries: vectors by text hash (so that
nothing is embedded twice) and API tokens with their salted digests (so that every token keeps working).
Portable SQL: PostgreSQL runs it too."""

from __future__ import annotations

import sqlite3

_TOKEN_FIELDS = ("name", "salt", "digest", "visibilities", "max_sensitivity", "created_at", "revoked_at")


class TransferQueries:
    db: sqlite3.Connection

    def vector_rows(self, after: str = "", limit: int = 1000) -> list[tuple[str, bytes]]:
        """(text hash, vector) in hash order from after: a page of every stored vector."""
        return [(r[0], bytes(r[1])) for r in self.db.execute(
            "SELECT text_hash, vector FROM vectors WHERE text_hash > ? ORDER BY text_hash LIMIT ?", (after, limit))]

    def add_vector_rows(self, rows: list[tuple[str, bytes]]) -> None:
        self.db.executemany("INSERT INTO vectors (text_hash, vector) VALUES (?, ?) ON CONFLICT DO NOTHING", rows)

    def token_rows(self) -> list[dict]:
        """Every API token as stored, revoked ones and digests included."""
        rows = self.db.execute(f"SELECT {', '.join(_TOKEN_FIELDS)} FROM api_tokens ORDER BY id")
        return [dict(zip(_TOKEN_FIELDS, r)) for r in rows]

    def add_token_row(self, row: dict) -> None:
        self.db.execute(f"INSERT INTO api_tokens ({', '.join(_TOKEN_FIELDS)}) VALUES"
                        f" ({', '.join('?' * len(_TOKEN_FIELDS))})", [row[k] for k in _TOKEN_FIELDS])

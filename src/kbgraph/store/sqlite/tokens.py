"""Bearer tokens for the HTTP API: the SQL of the TokenStore contract (m019).

Only a salt and a digest are stored, never a token. These are the vault owner's bookkeeping rows, so
they are not access-checked."""

from __future__ import annotations

import json
import sqlite3

_COLUMNS = "id, name, salt, digest, visibilities, max_sensitivity, created_at, revoked_at"


def _token(row) -> dict:
    keys = [c.strip() for c in _COLUMNS.split(",")]
    token = dict(zip(keys, row))
    token["visibilities"] = json.loads(token["visibilities"])
    return token


class TokenQueries:
    db: sqlite3.Connection

    def add_api_token(self, row: dict) -> int:
        return self.db.execute(
            "INSERT INTO api_tokens (name, salt, digest, visibilities, max_sensitivity, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            (row["name"], row["salt"], row["digest"], json.dumps(list(row["visibilities"])), row["max_sensitivity"],
             row["created_at"]),
        ).fetchone()[0]

    def api_token(self, token_id: int) -> dict | None:
        row = self.db.execute(f"SELECT {_COLUMNS} FROM api_tokens WHERE id = ? AND revoked_at IS NULL",
                              (token_id,)).fetchone()
        return _token(row) if row else None

    def api_tokens(self, include_revoked: bool = False) -> list[dict]:
        where = "" if include_revoked else " WHERE revoked_at IS NULL"
        return [_token(r) for r in self.db.execute(f"SELECT {_COLUMNS} FROM api_tokens{where} ORDER BY id")]

    def has_api_tokens(self) -> bool:
        return self.db.execute("SELECT 1 FROM api_tokens WHERE revoked_at IS NULL LIMIT 1").fetchone() is not None

    def revoke_api_token(self, name: str, now: str) -> bool:
        cursor = self.db.execute("UPDATE api_tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL",
                                 (now, name))
        return cursor.rowcount > 0

"""Bearer tokens and who a request reads as. Standard library only: `kbg token` uses it without FastAPI.

A token reads `kbg_<id>_<secret>`. The index keeps a random salt and sha256(salt + secret), never the
secret, so a token is shown once. Its holder reads as `Access.of(name, visibilities, max_sensitivity)`:
by default public and team rows up to `internal`, and the private rows it owns (owner == name)."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re
import secrets
from datetime import datetime, timezone

from ..access import LOCAL, SENSITIVITIES, VISIBILITIES, Access
from ..errors import InvalidInput, NotFound
from ..store.base import Store

DEFAULT_VISIBILITIES = ("public", "team")
DEFAULT_SENSITIVITY = "internal"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
_TOKEN = re.compile(r"kbg_(\d{1,18})_([A-Za-z0-9_-]{20,100})")


def _digest(salt: str, secret: str) -> str:
    return hashlib.sha256(bytes.fromhex(salt) + secret.encode("ascii")).hexdigest()


def create_token(store: Store, name: str, visibilities: tuple[str, ...] = DEFAULT_VISIBILITIES,
                 max_sensitivity: str = DEFAULT_SENSITIVITY) -> tuple[str, dict]:
    """A new token for name: (the token, to show once; its stored row without salt and digest)."""
    if not _NAME.fullmatch(name or ""):
        raise InvalidInput(f"`name` {name!r}: use letters, digits, '.', '_', '@' or '-' (64 at most)", param="name")
    unknown = sorted(set(visibilities) - set(VISIBILITIES))
    if unknown or not visibilities:
        raise InvalidInput(f"`visibilities`: use {', '.join(VISIBILITIES)}", param="visibilities")
    if max_sensitivity not in SENSITIVITIES:
        raise InvalidInput(f"`max_sensitivity` {max_sensitivity!r}: use {', '.join(SENSITIVITIES)}",
                           param="max_sensitivity")
    if any(t["name"] == name for t in store.api_tokens()):
        raise InvalidInput(f"a token named {name!r} exists", param="name", hint="revoke it first, or pick another name")
    salt, secret = secrets.token_hex(16), secrets.token_urlsafe(32)
    row = {"name": name, "salt": salt, "digest": _digest(salt, secret), "visibilities": tuple(visibilities),
           "max_sensitivity": max_sensitivity, "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    with store.transaction():
        token_id = store.add_api_token(row)
    return f"kbg_{token_id}_{secret}", public_row({**row, "id": token_id, "revoked_at": None})


def public_row(row: dict) -> dict:
    """A token's row as shown: never its salt or digest."""
    return {"id": row["id"], "name": row["name"], "visibilities": list(row["visibilities"]),
            "max_sensitivity": row["max_sensitivity"], "created_at": row["created_at"]}


def list_tokens(store: Store) -> list[dict]:
    return [public_row(t) for t in store.api_tokens()]


def revoke_token(store: Store, name: str) -> dict:
    with store.transaction():
        done = store.revoke_api_token(name, datetime.now(timezone.utc).isoformat(timespec="seconds"))
    if not done:
        raise NotFound(f"no token named {name!r}", param="name", hint="list the tokens to see their names")
    return {"revoked": name}


def token_access(store: Store, token: str) -> Access | None:
    """The access a bearer token reads as, or None when it is not a live token."""
    match = _TOKEN.fullmatch(token or "")
    row = store.api_token(int(match.group(1))) if match else None
    if row is None or match is None:
        return None
    if not hmac.compare_digest(row["digest"], _digest(row["salt"], match.group(2))):
        return None
    return Access.of(row["name"], row["visibilities"], row["max_sensitivity"])


def is_loopback(host: str) -> bool:
    # Host names are case-insensitive: `--host LOCALHOST` is this machine too, not a network address
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, store: Store) -> None:
    """Serving beyond loopback needs tokens: without them anyone who reaches the port reads everything."""
    if not is_loopback(host) and not store.has_api_tokens():
        raise InvalidInput(f"refusing to serve on {host} without tokens: anyone reaching it could read the vault",
                           param="host", hint="create a token first, or bind to a loopback address")


def request_access(store: Store, authorization: str | None, loopback: bool = True) -> Access | None:
    """Who a request reads as: LOCAL on loopback while the vault has no tokens, else the bearer token's
    principal; None when a token is needed and missing or wrong (off loopback one is always needed, even
    after the last token was revoked)."""
    if loopback and not store.has_api_tokens():
        return LOCAL
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token_access(store, token.strip())

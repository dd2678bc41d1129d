"""One exception hierarchy for kbgraph.

Interfaces map these once, at their boundary (the CLI turns them into a one-line
message and an exit code). Library code raises the most specific class that fits
and words the message so that it tells the reader what to do next.

The words are the library's, never an interface's: an error names the argument at fault
by its parameter name, in backticks (`limit`), and says what to do next as a hint
("index the vault first"), not as a flag or a command. Each interface says those its own
way (the CLI: --limit, `kbg index`); an HTTP or MCP client reads `param` and `hint`.
"""

from __future__ import annotations


class KbgError(Exception):
    """Base of every error kbgraph raises on purpose.

    message: what is wrong, readable on its own. param: the parameter at fault, as the library
    names it ("limit"). hint: what to do next, in neutral words. str() is "message; hint".
    """

    exit_code = 1

    def __init__(self, message: str, *, param: str | None = None, hint: str | None = None):
        super().__init__(f"{message}; {hint}" if hint else message)
        self.message = message
        self.param = param
        self.hint = hint


# --- where the vault and its configuration live ---------------------------------


class VaultError(KbgError):
    """The vault cannot be found or opened."""


class VaultNotFound(VaultError):
    """No vault at or above the given path."""


class ConfigError(KbgError):
    """kbgraph.toml is invalid."""


# --- the index -------------------------------------------------------------------


class StoreError(KbgError):
    """The index database cannot be read or written."""


class VaultBusy(StoreError):
    """Another process holds the vault's lock (indexing or writing) past the wait; retrying later works."""


class IndexLocked(VaultBusy):
    """Another process is indexing this vault right now."""


class EmbeddingRunning(VaultBusy):
    """A background embedding is running on this vault: it is doing what was asked."""


class SchemaTooNew(StoreError):
    """The index was written by a newer kbgraph."""


class ForeignAccess(StoreError):
    """A store read was given something other than a kbgraph.access.Access: it cannot filter by it."""


# --- what the user asked for -----------------------------------------------------


class InvalidInput(KbgError):
    """An argument is malformed (a date, a field name, a target); `param` names it."""


class OutsideVault(InvalidInput):
    """A path leads out of the vault (through `..`, an absolute path or a symlink): kbgraph neither reads
    nor writes there."""


class NotFound(KbgError):
    """The document or entity does not exist in the index."""


class Ambiguous(KbgError):
    """A name matches more than one entity; the caller must choose."""

    def __init__(self, message: str, candidates: list[dict], *, hint: str | None = None):
        super().__init__(message, hint=hint)
        self.candidates = candidates


# --- the embedding model ---------------------------------------------------------


class ModelError(KbgError):
    """The embedding model cannot be used."""


class ModelMissing(ModelError):
    """The model files are not installed; installing the model fetches them."""


class ModelCorrupt(ModelError):
    """A model file does not match its pinned sha256; installing the model again replaces it."""


class ModelUnreadable(ModelError):
    """The model folder or a file in it exists but cannot be read (permissions)."""


class ModelInstallFailed(ModelError):
    """Installing the model could not fetch, verify or unpack it."""


class BackendUnavailable(ModelError):
    """An optional embedding backend's package is not installed; the message names the extra."""


# --- optional dependencies -------------------------------------------------------


class MissingDependency(KbgError):
    """A feature needs a package that is not installed; the message names what to install."""

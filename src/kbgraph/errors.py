"""One exception hierarchy for kbgraph.

Interfaces map these once, at their boundary (the CLI turns them into a one-line
message and an exit code). Library code raises the most specific class that fits
and words the message so that it tells the reader what to do next.
"""

from __future__ import annotations


class KbgError(Exception):
    """Base of every error kbgraph raises on purpose."""

    exit_code = 1


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


class IndexLocked(StoreError):
    """Another process is indexing this vault right now."""


class SchemaTooNew(StoreError):
    """The index was written by a newer kbgraph."""


# --- what the user asked for -----------------------------------------------------


class InvalidInput(KbgError):
    """An argument is malformed (a date, a field name, a target)."""


class NotFound(KbgError):
    """The document or entity does not exist in the index."""


class Ambiguous(KbgError):
    """A name matches more than one entity; the caller must choose."""

    def __init__(self, message: str, candidates: list[dict]):
        super().__init__(message)
        self.candidates = candidates


# --- the embedding model ---------------------------------------------------------


class ModelError(KbgError):
    """The embedding model cannot be used."""


class ModelMissing(ModelError):
    """The model files are not installed; `kbg model install` fetches them."""


class ModelCorrupt(ModelError):
    """A model file does not match its pinned sha256; `kbg model install` replaces it."""


class ModelInstallFailed(ModelError):
    """`kbg model install` could not fetch, verify or unpack the model."""


class BackendUnavailable(ModelError):
    """An optional embedding backend's package is not installed; the message names the extra."""


# --- optional dependencies -------------------------------------------------------


class MissingDependency(KbgError):
    """A feature needs a package that is not installed; the message names what to install."""

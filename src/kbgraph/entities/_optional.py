"""The third-party packages entity resolution needs, imported with an error that says what to install."""

from __future__ import annotations

import importlib
from types import ModuleType

from ..errors import MissingDependency

# The versions measured for this code (see ../shared/DEPS.md): rapidfuzz for string
# similarity, jellyfish for the phonetic codes rapidfuzz does not have.
PINS = {"rapidfuzz": "rapidfuzz==3.14.6", "jellyfish": "jellyfish==1.3.0"}


def require(name: str) -> ModuleType:
    """The module `name`, or MissingDependency naming the pip command that installs it."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        wanted = " ".join(f"'{pin}'" for pin in PINS.values())
        raise MissingDependency(
            f"entity resolution needs {name}, which is not installed: pip install {wanted}"
        ) from exc

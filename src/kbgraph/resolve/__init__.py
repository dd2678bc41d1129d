"""Entity resolution, the pure core: which known entity a name means, or whether to ask.

    index = ResolverIndex([EntityProfile(1, "person", "Arjun Mehta", aliases=("AJ",))])
    index.resolve(MentionInfo("Arjoon Mehta")).outcome   # "auto-link", "ask" or "new"

entities/keys.py (blocking keys, below entity lookup) -> features.py (evidence) -> scoring.py (logistic model, rules,
refit) -> resolver.py (the index and the decision). No database: the caller stores the
decision log (Decision.log_rows) and feeds answers back as confirmed / rejected pairs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..entities.keys import MAX_NAME_CHARS, blocking_keys, parse_name, surface_key
    from .model import FEATURE_NAMES, OUTCOMES, Candidate, Decision, EntityProfile, Features, MentionInfo
    from .resolver import ResolverIndex, decide
    from .scoring import (
        DEFAULT_THRESHOLDS,
        DEFAULT_WEIGHTS,
        CalibrationReport,
        Example,
        Thresholds,
        Weights,
        calibration_report,
        examples_from_log,
        fit,
        probability,
    )

# Loaded on first use (PEP 562): every `kbgraph.resolve.<module>` import runs this file first, and a
# one-page write that only reads the stored weights (decisions -> scoring) paid ~13 ms here for the
# fuzzy matcher (rapidfuzz) and the resolver it never used. The function features() is imported from
# kbgraph.resolve.features: here its name would be the submodule's once anything imported that module.
_SOURCES = {
    "..entities.keys": ("MAX_NAME_CHARS", "blocking_keys", "parse_name", "surface_key"),
    ".model": ("FEATURE_NAMES", "Features", "OUTCOMES", "Candidate", "Decision", "EntityProfile", "MentionInfo"),
    ".resolver": ("ResolverIndex", "decide"),
    ".scoring": ("DEFAULT_THRESHOLDS", "DEFAULT_WEIGHTS", "CalibrationReport", "Example", "Thresholds", "Weights",
                "calibration_report", "examples_from_log", "fit", "probability"),
}
_MODULE_OF = {name: module for module, names in _SOURCES.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_MODULE_OF))


__all__ = [
    "DEFAULT_THRESHOLDS",
    "DEFAULT_WEIGHTS",
    "FEATURE_NAMES",
    "MAX_NAME_CHARS",
    "OUTCOMES",
    "CalibrationReport",
    "Candidate",
    "Decision",
    "EntityProfile",
    "Example",
    "Features",
    "MentionInfo",
    "ResolverIndex",
    "Thresholds",
    "Weights",
    "blocking_keys",
    "calibration_report",
    "decide",
    "examples_from_log",
    "fit",
    "parse_name",
    "probability",
    "surface_key",
]

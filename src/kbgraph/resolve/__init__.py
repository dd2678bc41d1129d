"""Entity resolution, the pure core: which known entity a name means, or whether to ask.

    index = ResolverIndex([EntityProfile(1, "person", "Arjun Mehta", aliases=("AJ",))])
    index.resolve(MentionInfo("Arjoon Mehta")).outcome   # "auto-link", "ask" or "new"

keys.py (blocking keys) -> features.py (evidence) -> scoring.py (logistic model, rules,
refit) -> resolver.py (the index and the decision). No database: the caller stores the
decision log (Decision.log_rows) and feeds answers back as confirmed / rejected pairs.
"""

from .features import FEATURE_NAMES, Features, features
from .keys import MAX_NAME_CHARS, blocking_keys, parse_name, surface_key
from .model import OUTCOMES, Candidate, Decision, EntityProfile, MentionInfo
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
    "features",
    "fit",
    "parse_name",
    "probability",
    "surface_key",
]

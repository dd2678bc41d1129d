"""Why a logged resolution decision came out as it did, in one line, from the row alone.

The decision log keeps the surface, the candidate's name, the features and the outcome, not the
resolver's reason; the reason is worked out again here, purely, so `kbg resolve pending` and
`kbg resolve log` can show it for rows logged before this module existed too:

    "surname differs (Shaw / Shah): another person's name, asked"
    "surname differs (Shaw / Shah): another person's name; linked on: same email address"
    "low-information name, asked"
"""

from __future__ import annotations

from ..errors import InvalidInput
from .duplicate_questions import is_duplicate_question
from .features import describe_namesake
from .model import Features
from .scoring import DEFAULT_THRESHOLDS, NAMESAKE, Thresholds, apply_rules, namesake_evidence

_LINKED = ("auto-linked", "confirmed")


def explain_decision(row: dict, thresholds: Thresholds = DEFAULT_THRESHOLDS) -> str:
    """One line for a decision-log row (keys as `Store.decisions` returns them)."""
    if is_duplicate_question(row):  # two pages, scored by resolve/duplicates.py: its own explanation was logged
        return f"duplicate pages: {row['features'].get('explain') or 'likely one entity'}"
    features = Features.from_dict(row.get("features") or {})
    outcome, name = row.get("outcome"), row.get("candidate_name")
    if name is None:
        return "no known entity came close"
    evidence = namesake_evidence(features, thresholds)
    if features.namesake:
        detail = _namesake(row.get("surface") or "", name)
        if outcome == "auto-linked" and evidence:
            return f"{detail}; linked on: {', '.join(evidence)}"
        if outcome == "asked":
            return f"{detail}, asked"
        return detail
    _, rule = apply_rules(1.0, features, thresholds)
    if rule:
        return f"{rule}, asked" if outcome == "asked" else rule
    if outcome == "auto-linked" and evidence:
        return f"linked on: {', '.join(evidence)}"
    return "name similarity" if outcome != "new" else "name similarity too low"


def _namesake(surface: str, name: str) -> str:
    try:
        return describe_namesake(surface, [name]) or NAMESAKE
    except InvalidInput:
        return NAMESAKE


def with_reasons(rows: list[dict], thresholds: Thresholds = DEFAULT_THRESHOLDS) -> list[dict]:
    """The rows, each with `why`: explain_decision's line."""
    return [{**row, "why": explain_decision(row, thresholds)} for row in rows]

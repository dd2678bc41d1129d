"""The values entity resolution takes and returns: frozen, JSON-ready with kbgraph.model.as_dict."""

from __future__ import annotations

from dataclasses import dataclass, fields
from operator import attrgetter

from ..errors import InvalidInput

OUTCOMES = ("auto-link", "ask", "new")
LOW_INFO = 0.5  # a mention with info at or below this is "low information" (see scoring.apply_rules)


@dataclass(frozen=True, slots=True)
class Features:
    """The evidence for one (mention, candidate) pair; each field is described in the module docstring."""

    jw_name: float = 0.0
    jw_sorted: float = 0.0
    tokens: float = 0.0
    theirs: float = 0.0
    conflict: float = 0.0
    partial: float = 0.0
    rival: float = 0.0
    namesake: float = 0.0
    near: float = 0.0
    phonetic: float = 0.0
    alias: float = 0.0
    email: float = 0.0
    handle: float = 0.0
    same_type: float = 0.5
    context: float = 0.0
    context_n: float = 0.0
    info: float = 1.0
    label: float = 0.0

    def values(self) -> tuple[float, ...]:
        return _values(self)

    def as_dict(self) -> dict[str, float]:
        return dict(zip(FEATURE_NAMES, self.values()))

    @classmethod
    def from_dict(cls, data: dict) -> Features:
        """Features from a logged dict; unknown keys are ignored, missing ones take their defaults."""
        return cls(**{name: float(data[name]) for name in FEATURE_NAMES if name in data})

    @property
    def low_info(self) -> bool:
        return self.info <= LOW_INFO


FEATURE_NAMES = tuple(f.name for f in fields(Features))
_values = attrgetter(*FEATURE_NAMES)  # dataclasses.astuple deep-copies: 100x slower on the hot path


@dataclass(frozen=True)
class EntityProfile:
    """What the resolver knows of one entity: its names, addresses and the ids it appears with."""

    entity_id: int
    type: str
    name: str
    aliases: tuple[str, ...] = ()
    emails: tuple[str, ...] = ()
    context: frozenset[int] = frozenset()  # team, projects, co-mentioned entities


@dataclass(frozen=True)
class MentionInfo:
    """A name to resolve, with what its note says around it."""

    surface: str  # as written: "Arjun", "AJ", "@amehta", "arjun@acme.io"
    type: str | None = None  # the extractor's type hint, if any
    context: frozenset[int] = frozenset()  # ids of entities the same note or section names
    email: str | None = None  # an address seen with the name ("Arjun <arjun@acme.io>")


@dataclass(frozen=True)
class Candidate:
    """One entity the mention may name, with the evidence and the score the rules left it."""

    entity_id: int
    name: str
    score: float  # after the rules (a low-information match is capped below auto-link)
    probability: float  # the logistic model's output, before the rules
    features: Features
    capped_by: str | None = None  # the rule that lowered the score, if one did
    confirmed: bool = False  # the user said earlier that this surface names this entity
    # What carried a link past a namesake rule ("surname differs (Shaw / Shah); linked on: same email").
    evidence: str | None = None


@dataclass(frozen=True)
class Decision:
    """What to do with a mention: link it, ask the user, or open a new entity."""

    surface: str
    key: str  # the surface key remembered confirmations and rejections use
    outcome: str  # one of OUTCOMES
    best: Candidate | None
    candidates: tuple[Candidate, ...]  # the top k, best first; all of them are shown when asking
    reason: str  # one line, for the log and for the question put to the user
    weights_version: str

    def log_rows(self) -> list[dict]:
        """One row per candidate for the decision log: the data a recalibration learns from."""
        return [
            {
                "surface": self.surface,
                "key": self.key,
                "entity_id": c.entity_id,
                "score": round(c.score, 6),
                "probability": round(c.probability, 6),
                "features": c.features.as_dict(),
                "outcome": self.outcome,
                "linked": self.outcome == "auto-link" and c is self.best,
                "reason": self.reason,
                "weights_version": self.weights_version,
            }
            for c in self.candidates
        ]


def profile_keys(profile: EntityProfile) -> frozenset[str]:
    """Blocking keys of every name, alias and email of a profile (InvalidInput: nothing in it to match).
    Here rather than in resolver.py: checking a profile must not load the fuzzy matcher."""
    from ..entities.keys import email_keys, name_keys, normalize_email, parse_name

    if not isinstance(profile.entity_id, int):
        raise InvalidInput(f"entity_id must be an int, not {type(profile.entity_id).__name__}")
    keys: set[str] = set()
    for name in (profile.name, *profile.aliases):
        keys |= name_keys(parse_name(name))
    for email in profile.emails:
        keys |= email_keys(normalize_email(email))
    return frozenset(keys)

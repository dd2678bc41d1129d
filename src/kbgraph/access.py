"""Who is asking: a principal, the visibilities it may read, and the highest sensitivity it may read.

Every read of the store takes an Access and filters inside the query, before any LIMIT or top-k.
Single-user mode passes LOCAL, which may read every visibility and sensitivity, so every row: rows
whose visibility kbgraph does not know included.

A row is readable when its sensitivity is at most the access's highest, and either its visibility is
one the access may read or the principal owns it. A sensitivity the levels do not name (a typo in
frontmatter) counts as the highest: unknown means careful.
"""

from __future__ import annotations

from dataclasses import dataclass

VISIBILITIES = ("private", "team", "public")
SENSITIVITIES = ("normal", "internal", "confidential", "restricted")  # lowest first


def sensitivity_rank(value: str | None) -> int:
    """The level's place in SENSITIVITIES; an unknown level is the highest."""
    return SENSITIVITIES.index(value) if value in SENSITIVITIES else len(SENSITIVITIES) - 1


@dataclass(frozen=True)
class Access:
    """A reader of the store. Build one with Access.of(); LOCAL is the single user's."""

    principal: str
    visibilities: frozenset[str]
    max_sensitivity: str

    def __post_init__(self) -> None:
        if not isinstance(self.principal, str) or not self.principal:
            raise ValueError("an access needs a principal")
        unknown = set(self.visibilities) - set(VISIBILITIES)
        if unknown:
            raise ValueError(f"unknown visibility {sorted(unknown)[0]!r}; known: {', '.join(VISIBILITIES)}")
        if self.max_sensitivity not in SENSITIVITIES:
            raise ValueError(f"unknown sensitivity {self.max_sensitivity!r}; known: {', '.join(SENSITIVITIES)}")

    @classmethod
    def of(cls, principal: str, visibilities=("public",), max_sensitivity: str = "normal") -> "Access":
        return cls(principal, frozenset(visibilities), max_sensitivity)

    @property
    def max_rank(self) -> int:
        return SENSITIVITIES.index(self.max_sensitivity)

    @property
    def sees_everything(self) -> bool:
        """Every visibility and the highest sensitivity: every row is readable (the single user's)."""
        return self.visibilities == frozenset(VISIBILITIES) and self.max_sensitivity == SENSITIVITIES[-1]

    def may_read(self, owner: str | None, visibility: str | None, sensitivity: str | None) -> bool:
        """The rule every backend's query applies; stated once here for tests and for values in memory."""
        if self.sees_everything:
            return True
        if sensitivity_rank(sensitivity) > self.max_rank:
            return False
        return visibility in self.visibilities or (owner is not None and owner == self.principal)


LOCAL = Access("local", frozenset(VISIBILITIES), SENSITIVITIES[-1])


@dataclass(frozen=True)
class Governance:
    """Who may read a row: its owner, visibility and sensitivity (unset: private, normal)."""

    owner: str | None = None
    visibility: str = "private"
    sensitivity: str = "normal"

    def openness(self) -> tuple[int, int]:
        """Larger is readable by more: a wider visibility first, then a lower sensitivity."""
        wide = VISIBILITIES.index(self.visibility) if self.visibility in VISIBILITIES else 0  # private first
        return wide, -sensitivity_rank(self.sensitivity)


def most_readable(items) -> Governance | None:
    """The one of items that the most readers may read (None for none): what a name seen in several
    notes may be read as, since a reader of that note has seen it. Always one of items, never wider."""
    return max(items, key=Governance.openness, default=None)


def least_readable(items) -> Governance | None:
    """What a row that reveals all of items (a relation and its two ends) may be read as: the narrowest
    visibility and the highest sensitivity among them, owned by the owner of the narrowest, so that
    whoever may read it may read every one of them."""
    items = list(items)
    if not items:
        return None
    narrowest = min(items, key=lambda g: g.openness()[0])
    highest = max(items, key=lambda g: sensitivity_rank(g.sensitivity))
    return Governance(narrowest.owner, narrowest.visibility, highest.sensitivity)

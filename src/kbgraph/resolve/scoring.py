"""From features to a probability: a versioned logistic model, its refit, and its report card.

probability = 1 / (1 + exp(-(bias + sum(weight[f] * feature[f]))))

The default weights are hand-set; the reason for each is next to it. `bench/resolution_eval.py
--fit` fits the same model on a generated training set (seed 7) and scores it on the evaluation
seed: neither makes a wrong auto-link there, and the fit links more at once, but being calibrated
candidate by candidate it opens a new entity for a bare first name that several people share,
where the defaults ask. The defaults keep the issue's policy: when unsure, ask.

`fit` refits the weights from confirmed and rejected decisions: plain Newton iterations with an
L2 pull towards the current weights, so a few dozen answers nudge the model rather than replace
it, and the same examples always give the same weights. The rules in `apply_rules` are not
learnt and no refit can lift them.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from ..errors import InvalidInput
from .model import FEATURE_NAMES, Features


@dataclass(frozen=True)
class Weights:
    version: str
    bias: float
    coef: tuple[float, ...]  # one per FEATURE_NAMES, in that order

    def __post_init__(self):
        if len(self.coef) != len(FEATURE_NAMES):
            raise InvalidInput(
                f"weights need {len(FEATURE_NAMES)} coefficients ({', '.join(FEATURE_NAMES)}), got {len(self.coef)}"
            )

    def as_dict(self) -> dict[str, float]:
        return {"bias": self.bias, **dict(zip(FEATURE_NAMES, self.coef))}

    @classmethod
    def from_dict(cls, version: str, data: dict) -> Weights:
        """Weights from a stored dict (as as_dict writes it); a missing feature weighs 0."""
        return cls(version, float(data.get("bias", 0.0)), tuple(float(data.get(n, 0.0)) for n in FEATURE_NAMES))


DEFAULT_WEIGHTS = Weights.from_dict(
    "hand-2026.4",
    {
        "bias": -11.0,
        "jw_name": 1.0,  # whole-name similarity; weak alone (Jaro-Winkler loves shared prefixes)
        "jw_sorted": 1.0,  # the same, robust to "Last, First"
        "tokens": 7.0,  # every word of the mention accounted for: the main evidence
        "theirs": 3.0,  # every word of the candidate accounted for ("Arjun Mehta" vs "Arjun Kumar Mehta": 2/3)
        "conflict": -4.0,  # a word on each side with no match: "Sam Li" / "Sam Ortiz" are two people
        "partial": -3.0,  # "Lee Fournier" for Ana Lee Fournier: maybe, maybe not
        "rival": -3.0,  # "Andres" for Andrew when an Andres exists: likely that other person
        # "Shaw" for Shah: maybe another person. Mild, so the pair lands in the gray zone (the rule
        # caps it there); a refit learns from answers how often such pairs are one person.
        "namesake": -1.0,
        "near": 3.0,  # one slip in the whole name lifts it into the gray zone, or a spacing slip to a link
        "phonetic": 0.5,  # sounds alike; mostly already inside `tokens`
        "alias": 5.0,  # the exact name or a declared alias (spaces and hyphens aside)
        "email": 8.0,  # an address is an identifier: decisive on its own
        "handle": 2.5,  # "@amehta" is a user-name shape of Arjun Mehta, not proof
        "same_type": 2.0,  # 0.5 (unknown) adds 1; a different type adds nothing
        "context": 2.0,  # shared team / co-mentioned entities...
        "context_n": 3.0,  # ...counted, so one shared id weighs less than three
        "info": 2.5,  # a full name is worth more than a first name
        "label": -1.5,  # "Will", "Grant", "Data": likely a word, not this person
    },
)


WEAK_MATCH = 0.75  # a `tokens` share below this ("Babak Salamat" for @bsalamat: 0.35) never auto-links


@dataclass(frozen=True)
class Thresholds:
    """auto: link without asking at or above; ask: put the question at or above; below: new entity."""

    auto: float = 0.90
    ask: float = 0.55
    strong_context: float = 2 / 3  # context_n that lets a low-information mention link (2+ shared ids)

    def __post_init__(self):
        if not 0.0 < self.ask < self.auto <= 1.0:
            raise InvalidInput(f"thresholds must satisfy 0 < ask < auto <= 1 (got ask={self.ask}, auto={self.auto})")

    @property
    def cap(self) -> float:
        """The score a capped match keeps at most: just under auto-link, so it is asked, never linked."""
        return self.auto - 1e-3


DEFAULT_THRESHOLDS = Thresholds()


def probability(features: Features, weights: Weights = DEFAULT_WEIGHTS) -> float:
    z = weights.bias + sum(w * x for w, x in zip(weights.coef, features.values()))
    return _sigmoid(z)


def apply_rules(p: float, f: Features, thresholds: Thresholds) -> tuple[float, str | None]:
    """The score after the rules no weight may override, and the rule that capped it (or None).

    The rules exist because a learnt weight can drift: string similarity alone must never
    auto-link a bare first name, initials, a differing surname, part of a longer name, a near-miss
    of another known name, a spelling that is another person's name (a namesake: "Ravi Shaw" for
    Ravi Shah), or an entity of another type. An exact name, alias or email is exempt (a shared one
    is caught by resolver.decide), except across types. A namesake links only on independent
    evidence (`namesake_evidence`).
    """
    exact = f.alias == 1.0 or f.email == 1.0
    if f.same_type == 0.0:
        reason = "different type"
    elif exact:
        return p, None
    elif f.conflict or f.tokens < WEAK_MATCH:
        reason = "names disagree"  # context must not carry a name that barely matches
    elif f.partial:
        reason = "part of a longer name"
    elif f.rival:
        reason = "a word differs and is another entity's name"
    elif f.namesake and not namesake_evidence(f, thresholds):
        reason = NAMESAKE
    elif f.low_info and not (f.context_n >= thresholds.strong_context and f.tokens == 1.0):
        # Shared context may vouch for a bare first name spelt exactly, never for a near-miss.
        reason = "low-information name"
    else:
        return p, None
    return min(p, thresholds.cap), reason


NAMESAKE = "a word differs and is another person's name"


def namesake_evidence(f: Features, thresholds: Thresholds = DEFAULT_THRESHOLDS) -> list[str]:
    """The independent evidence that a respelt name is still this entity, in words; empty when none.

    Only what the spelling cannot fake: the same address, the exact name or alias, a user-name
    shape of theirs, or a note that shares two or more context ids with them (team, projects,
    people named with them). One shared id is not enough: namesakes often sit in one team.
    """
    said = []
    if f.email == 1.0:
        said.append("same email address")
    if f.alias == 1.0:
        said.append("their exact name or alias")
    if f.handle == 1.0:
        said.append("a user name of theirs")
    if f.context_n >= thresholds.strong_context:
        shared = round(f.context_n * 3)  # context_n saturates at 3 shared ids
        said.append(f"{shared}{'+' if shared == 3 else ''} shared context ids (team, projects, people named with them)")
    return said


# --- refitting -------------------------------------------------------------------


@dataclass(frozen=True)
class Example:
    """A decision the user answered: these features, and whether the pair was the same entity."""

    features: Features
    same: bool


@dataclass(frozen=True)
class Metrics:
    log_loss: float
    brier: float
    accuracy: float  # at p >= 0.5
    auto_links: int  # examples at or above the auto threshold once the rules have capped them
    auto_precision: float  # the share of those that were the same entity (1.0 when none)


@dataclass(frozen=True)
class CalibrationReport:
    examples: int
    positives: int
    before_version: str
    after_version: str
    before: Metrics
    after: Metrics


def examples_from_log(rows) -> list[Example]:
    """Examples from decision-log rows a user answered: each a dict with "features" (as
    Features.as_dict writes them) and "answer" ("confirmed" or "rejected"); other rows are skipped."""
    answers = {"confirmed": True, "rejected": False}
    return [
        Example(Features.from_dict(r["features"]), answers[r["answer"]]) for r in rows if r.get("answer") in answers
    ]


def fit(examples: list[Example], prior: Weights = DEFAULT_WEIGHTS, l2: float = 1.0, iterations: int = 50) -> Weights:
    """Logistic regression by Newton's method, L2-pulled towards `prior`; deterministic."""
    if not examples:
        raise InvalidInput("nothing to calibrate on: confirm or reject some pending resolutions first")
    if l2 <= 0:
        raise InvalidInput(f"l2 must be positive (got {l2}); it keeps the fit finite on separable answers")
    rows = [(1.0, *e.features.values()) for e in examples]
    labels = [1.0 if e.same else 0.0 for e in examples]
    w = [prior.bias, *prior.coef]
    w0 = list(w)
    penalty = [1e-6] + [l2] * len(prior.coef)  # the bias is (almost) free
    loss = _penalised_loss(rows, labels, w, w0, penalty)
    for _ in range(iterations):
        step = _newton_step(rows, labels, w, w0, penalty)
        w, loss, moved = _line_search(rows, labels, w, w0, penalty, step, loss)
        if moved < 1e-9:
            break
    coef = tuple(round(x, 6) for x in w[1:])
    digest = hashlib.sha256(repr((round(w[0], 6), coef)).encode()).hexdigest()[:8]
    return Weights(f"fit-{digest}-n{len(examples)}", round(w[0], 6), coef)


def calibration_report(
    examples: list[Example], before: Weights, after: Weights, thresholds: Thresholds = DEFAULT_THRESHOLDS
) -> CalibrationReport:
    """Log-loss, Brier score, accuracy (of the model alone) and auto-link precision (model + rules)
    of two weight sets on the same answers. Candidate by candidate: the rival rules of
    resolver.decide (two above auto, a shared alias) need the whole decision and are not replayed."""
    return CalibrationReport(
        len(examples),
        sum(e.same for e in examples),
        before.version,
        after.version,
        _metrics(examples, before, thresholds),
        _metrics(examples, after, thresholds),
    )


def _metrics(examples: list[Example], weights: Weights, thresholds: Thresholds) -> Metrics:
    if not examples:
        return Metrics(0.0, 0.0, 0.0, 0, 1.0)
    eps = 1e-12
    loss = brier = correct = 0.0
    autos = auto_right = 0
    for e in examples:
        p = probability(e.features, weights)
        y = 1.0 if e.same else 0.0
        loss -= y * math.log(max(p, eps)) + (1 - y) * math.log(max(1 - p, eps))
        brier += (p - y) ** 2
        correct += (p >= 0.5) == e.same
        if apply_rules(p, e.features, thresholds)[0] >= thresholds.auto:
            autos += 1
            auto_right += e.same
    n = len(examples)
    return Metrics(loss / n, brier / n, correct / n, autos, auto_right / autos if autos else 1.0)


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    ez = math.exp(z)  # written this way so a very negative z cannot overflow
    return ez / (1.0 + ez)


def _penalised_loss(rows, labels, w, w0, penalty) -> float:
    total = 0.0
    for x, y in zip(rows, labels):
        z = sum(a * b for a, b in zip(w, x))
        # log(1 + e^z) - y*z, computed without overflow
        total += (z if z > 0 else 0.0) + math.log1p(math.exp(-abs(z))) - y * z
    return total + 0.5 * sum(p * (a - b) ** 2 for p, a, b in zip(penalty, w, w0))


def _newton_step(rows, labels, w, w0, penalty) -> list[float]:
    d = len(w)
    grad = [p * (a - b) for p, a, b in zip(penalty, w, w0)]
    hess = [[penalty[i] if i == j else 0.0 for j in range(d)] for i in range(d)]
    for x, y in zip(rows, labels):
        p = _sigmoid(sum(a * b for a, b in zip(w, x)))
        r, s = p - y, p * (1 - p)
        for i in range(d):
            if x[i]:
                grad[i] += r * x[i]
                sx = s * x[i]
                row = hess[i]
                for j in range(i + 1):
                    row[j] += sx * x[j]
    for i in range(d):
        for j in range(i):
            hess[j][i] = hess[i][j]
    return _solve(hess, grad)


def _line_search(rows, labels, w, w0, penalty, step, loss):
    """Take the Newton step, halved until the loss does not rise (keeps far-off starts stable)."""
    scale = 1.0
    for _ in range(30):
        trial = [a - scale * s for a, s in zip(w, step)]
        trial_loss = _penalised_loss(rows, labels, trial, w0, penalty)
        if trial_loss <= loss + 1e-12:
            return trial, trial_loss, max(abs(scale * s) for s in step)
        scale /= 2
    return w, loss, 0.0


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting; `a` is positive definite thanks to the penalty."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(col + 1, n):
            factor = m[r][col] / m[col][col]
            if factor:
                for c in range(col, n + 1):
                    m[r][c] -= factor * m[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][c] * x[c] for c in range(r + 1, n))) / m[r][r]
    return x

"""The in-memory resolver: blocking keys -> candidates -> features -> score -> rules -> decision.

Cascade, cheapest first: the mention's blocking keys select its block; the block is ranked
by the keys each entity shares with the mention (rarer keys count more) and only the best
`max_scored` are scored, plus every entity with an exact claim on the name (so a shared alias
is always seen whole). Then `decide` turns scores into one outcome.

Remembered answers: `rejected` and `confirmed` are sets of (surface key, entity id) pairs,
the key as `surface_key` makes it. A rejected pair is never proposed again; a confirmed pair
links, unless two entities were confirmed for the same key, or the mention is low-information
and this note's context points more to another candidate (a "Sam" confirmed in Sam Li's notes
is asked again in Sam Ortiz's).
"""

from __future__ import annotations

import heapq
import math
from functools import lru_cache

from ..errors import InvalidInput
from ..entities._optional import require
from .features import MentionView, Prepared, compute, namesake_detail, prepare_profile
from ..entities.keys import ParsedName, email_keys, name_keys, normalize_email, parse_name, surface_key
from .model import Candidate, Decision, EntityProfile, MentionInfo, profile_keys
from .scoring import (
    DEFAULT_THRESHOLDS,
    DEFAULT_WEIGHTS,
    NAMESAKE,
    Thresholds,
    Weights,
    apply_rules,
    namesake_evidence,
    probability,
)

process = require("rapidfuzz.process")
JaroWinkler = require("rapidfuzz.distance").JaroWinkler

__all__ = ["Candidate", "Decision", "EntityProfile", "MentionInfo", "ResolverIndex", "decide", "profile_keys"]

# How much one shared key of each family says (exact identifiers most, sounds least).
_KEY_WEIGHT = {"e": 8.0, "n": 6.0, "s": 5.0, "u": 3.0, "k": 2.0, "t": 2.0, "i": 1.0, "p": 1.0, "y": 1.0}
# A key this common (an initial pair, the code of a common first name) ranks nothing at 100k entities.
_HUGE_BLOCK = 3000
_BIG_BLOCK = 200  # above this, a block's members are ranked by name similarity rather than key by key
_MAX_EXACT = 200  # entities with an exact claim always scored; more than this many share one name: ask anyway


class ResolverIndex:
    """Entity profiles by blocking key; resolve() scores a mention only against its block."""

    def __init__(
        self,
        profiles=(),
        *,
        weights: Weights = DEFAULT_WEIGHTS,
        thresholds: Thresholds = DEFAULT_THRESHOLDS,
        top_k: int = 5,
        max_scored: int = 40,
    ):
        self.weights, self.thresholds, self.top_k, self.max_scored = weights, thresholds, top_k, max_scored
        self._profiles: dict[int, EntityProfile] = {}
        self._prepared: dict[int, Prepared] = {}
        self._texts: dict[int, str] = {}  # the name's tokens, for ranking a large block by similarity
        # key -> one id, or a set of ids: most keys (a full name, a user name) belong to one entity,
        # and a bare int is ~200 bytes lighter than a one-element set, 100k times over.
        self._postings: dict[str, int | set[int]] = {}
        for profile in profiles:
            self.add(profile)

    def __len__(self) -> int:
        return len(self._profiles)

    def __contains__(self, entity_id: object) -> bool:
        return entity_id in self._profiles

    def get(self, entity_id: int) -> EntityProfile | None:
        return self._profiles.get(entity_id)

    def add(self, profile: EntityProfile) -> None:
        """Index a profile, replacing the one with the same id (InvalidInput for a name with nothing to match)."""
        keys = profile_keys(profile)  # validates before anything changes
        prepared = prepare_profile(profile)
        self.remove(profile.entity_id)
        eid = profile.entity_id
        self._profiles[eid], self._prepared[eid] = profile, prepared
        self._texts[eid] = prepared.forms[0].text
        for key in keys:
            held = self._postings.get(key)
            if held is None:
                self._postings[key] = eid
            elif isinstance(held, int):
                self._postings[key] = {held, eid}
            else:
                held.add(eid)

    def remove(self, entity_id: int) -> bool:
        """Forget an entity (merged away, deleted); False when it was not indexed."""
        profile = self._profiles.pop(entity_id, None)
        if profile is None:
            return False
        for key in profile_keys(profile):  # the same keys add() posted: keys are a pure function
            held = self._postings[key]
            if isinstance(held, int):
                del self._postings[key]
            else:
                held.discard(entity_id)
                if len(held) == 1:
                    self._postings[key] = next(iter(held))
        del self._prepared[entity_id], self._texts[entity_id]
        return True

    def resolve(
        self,
        mention: MentionInfo | str,
        *,
        rejected: frozenset[tuple[str, int]] | set = frozenset(),
        confirmed: frozenset[tuple[str, int]] | set = frozenset(),
    ) -> Decision:
        """Link, ask or new for one mention (InvalidInput for a name with nothing to match, or too long)."""
        if isinstance(mention, str):
            mention = MentionInfo(mention)
        parsed = parse_name(mention.surface)
        email = normalize_email(mention.email) if mention.email else parsed.email
        key = surface_key(mention.surface)
        no = {eid for k, eid in rejected if k == key}
        yes = {eid for k, eid in confirmed if k == key and eid in self._profiles} - no
        ids = self._comparable(parsed, self._block(parsed, email) | yes) - no
        view = MentionView.of(parsed, email, mention.type, frozenset(mention.context))
        scored = sorted(
            (self._score(view, eid, eid in yes) for eid in ids),
            key=lambda c: (-c.score, -c.probability, c.entity_id),
        )
        outcome, best, reason = decide(mention.surface, scored, self.thresholds)
        shown = scored[: self.top_k]
        # Every entity that claims the name exactly is shown when asking, however many: no silent winner.
        shown += [c for c in scored[self.top_k :] if c.features.alias == 1.0 or c.confirmed]
        return Decision(mention.surface, key, outcome, best, tuple(shown), reason, self.weights.version)

    def _block(self, parsed: ParsedName, email: str | None) -> set[int]:
        """Entities worth scoring: exact claims, then the best by shared keys and by name similarity."""
        exact: set[int] = set()
        rank: dict[int, float] = {}
        pool: set[int] = set()  # members of big blocks: ranked by name similarity only (C speed)
        for key in sorted(mention_keys(parsed, email)):  # sorted: the same ties break the same way every run
            held = self._postings.get(key)
            if held is None:
                continue
            ids = (held,) if isinstance(held, int) else held
            if key[0] in "ne" and len(ids) <= _MAX_EXACT:
                exact.update(ids)
            if len(ids) > _HUGE_BLOCK:
                continue
            if len(ids) > _BIG_BLOCK:
                pool.update(ids)
                continue
            weight = _KEY_WEIGHT[key[0]] / (1.0 + math.log10(len(ids)))
            for eid in ids:
                rank[eid] = rank.get(eid, 0.0) + weight
        pool.update(rank)
        if len(pool) <= self.max_scored:
            return exact | pool
        # Half by shared keys, half by how close the whole name is, so a typo in the surname
        # ("Arjun Mehat" among 600 Arjuns) still reaches the right Arjun.
        half = self.max_scored // 2
        chosen = set(heapq.nlargest(half, rank, key=rank.get))
        ids = list(pool)  # a set of ints built in a fixed order iterates in a fixed order
        texts = [self._texts[eid] for eid in ids]
        for _, _, i in process.extract(
            " ".join(parsed.tokens), texts, scorer=JaroWinkler.normalized_similarity, limit=half
        ):
            chosen.add(ids[i])
        return exact | chosen

    def _comparable(self, parsed: ParsedName, ids: set[int]) -> set[int]:
        """An identifier (KEP-1288) is compared with the entity that has it exactly and with nothing
        else; an entity named by an identifier is a candidate only for a name it has exactly (a title
        alias): "KEP-1288" is not KEP-1488, nor "kubernetes" a KEP whose title says Kubernetes."""
        held = self._postings.get("n:" + parsed.compact)
        exact = {held} if isinstance(held, int) else set(held or ())
        if parsed.kind == "identifier":
            return ids & exact
        return {eid for eid in ids if eid in exact or parse_name(self._profiles[eid].name).kind != "identifier"}

    def _known_word(self, word: str) -> bool:
        return ("t:" + word) in self._postings

    def _score(self, view: MentionView, entity_id: int, confirmed: bool) -> Candidate:
        prepared = self._prepared[entity_id]
        f = compute(view, prepared, self._known_word)
        p = probability(f, self.weights)
        score, capped_by = apply_rules(p, f, self.thresholds)
        evidence = None
        if f.namesake:  # say which word differs, and what (if anything) vouched for the link anyway
            detail = namesake_detail(view, prepared) or NAMESAKE
            if capped_by == NAMESAKE:
                capped_by = detail
            elif capped_by is None:
                evidence = f"{detail}; linked on: {', '.join(namesake_evidence(f, self.thresholds))}"
        return Candidate(entity_id, self._profiles[entity_id].name, score, p, f, capped_by, confirmed, evidence)


@lru_cache(maxsize=65536)
def mention_keys(parsed: ParsedName, email: str | None) -> frozenset[str]:
    keys = name_keys(parsed)
    return keys | email_keys(email) if email else keys


def decide(surface: str, scored: list[Candidate], t: Thresholds) -> tuple[str, Candidate | None, str]:
    """(outcome, chosen or best candidate, one-line reason) for candidates sorted best first."""
    if not scored:
        return "new", None, "no known entity shares a key with this name"
    conflict = _conflict(surface, scored)
    if conflict:
        return "ask", scored[0], conflict
    confirmed = [c for c in scored if c.confirmed]
    if confirmed:
        return _confirmed(surface, confirmed[0], scored)
    above = [c for c in scored if c.score >= t.auto]
    best = scored[0]
    if len(above) > 1:
        return "ask", best, f"{_names(above)} all score above {t.auto:.2f} for {surface!r}: which one?"
    if above and best.features.alias != 1.0 and best.features.email != 1.0:
        # A namesake capped below auto-link still fits the name as well as the best does
        # ("Maisford": Maruford by two slips, Kaisford by one letter): the cap must not hand the link
        # to the other one silently.
        close = [c for c in scored if c.features.namesake and c.score < t.auto <= c.probability]
        if close:
            return "ask", best, f"{_names([best, *close])} all fit {surface!r} about as well: which one?"
    if above:
        rivals = [c for c in scored if c is not best and c.score >= t.ask]
        # An address names one person however little the rest of the mention says.
        if best.features.low_info and rivals and best.features.email != 1.0:
            return "ask", best, f"{surface!r} says little and fits {_names([best, *rivals])}: which one?"
        carried = f"; {best.evidence}" if best.evidence else ""
        return "auto-link", best, f"score {best.score:.3f} >= {t.auto:.2f}{carried}"
    if best.score >= t.ask:
        if best.capped_by and " differs (" in best.capped_by:  # a namesake: say which word, plainly
            return "ask", best, f"is {surface!r} {best.name}? {best.capped_by}, asked (score {best.score:.3f})"
        why = f" ({best.capped_by})" if best.capped_by else ""
        return "ask", best, f"is {surface!r} {best.name}? score {best.score:.3f}{why} is in the gray zone"
    return "new", None, f"best candidate {best.name} scores {best.score:.3f} < {t.ask:.2f}"


def _conflict(surface: str, scored: list[Candidate]) -> str | None:
    """Two entities claim the same name, alias, address or confirmation: no silent winner."""
    typed = [c for c in scored if c.features.same_type != 0.0]
    for claim, hits in (
        ("is the name or an alias of", [c for c in typed if c.features.alias == 1.0]),
        ("is the address of", [c for c in typed if c.features.email == 1.0]),
        ("was confirmed earlier as", [c for c in scored if c.confirmed]),
    ):
        if len(hits) > 1:
            return f"{surface!r} {claim} {_names(hits)}: which one? (or give the full name)"
    return None


def _confirmed(surface: str, chosen: Candidate, scored: list[Candidate]) -> tuple[str, Candidate, str]:
    if chosen.features.low_info:
        closer = [c for c in scored if c.features.context > chosen.features.context]
        if closer:
            return (
                "ask",
                chosen,
                f"{surface!r} was confirmed as {chosen.name}, but this note's context fits {_names(closer)}",
            )
    return "auto-link", chosen, f"{surface!r} was confirmed as {chosen.name} earlier"


def _names(cands: list[Candidate]) -> str:
    shown = [f"{c.name} (#{c.entity_id})" for c in cands[:4]]
    if len(cands) > 4:
        shown.append(f"{len(cands) - 4} more")
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]

"""Resolution of referenced-only entities, the names the notes use that no page or user stands behind.

`reports_to: Arjoon Mehta`, `attendees: [AJ]` or `- mentors [[Arjun]]` name someone; when no page's
name or alias spells it exactly, entity assembly makes a page-less entity of it. Here each such
entity is put to the resolver against the entities that do have a page (or that a user created):

- auto-link: the reference is the same entity; it becomes a recorded merge (undone by
  `kbg entity unmerge`), logged as decided by kbgraph;
- ask: a pending question per candidate in the gray zone (`kbg resolve pending`);
- new: it stays its own entity; logged once.

A name the user confirmed for an entity ("T. Becker") is that entity's in every note, as a lookup of
it is: the resolver is told so, and links it unless the note's context fits someone else.

Pure: the entity stage gives it the assembled records and the decision log, and writes what it returns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import InvalidInput
from ..model import EntityClaim, EntityRecord
from .model import Candidate, EntityProfile, MentionInfo
from .scoring import DEFAULT_WEIGHTS, Thresholds, Weights

MAX_CONTEXT = 50  # ids of co-claimed entities kept per profile: enough to see a shared team


@dataclass(frozen=True)
class ReferenceDecision:
    """What the resolver decided for one referenced-only entity."""

    record_key: str  # the referenced-only entity
    surface: str
    type: str
    surface_key: str
    outcome: str  # "auto-link" | "ask" | "new"
    candidates: tuple[tuple[str, str, Candidate], ...]  # (entity key, name, candidate) worth logging
    doc_path: str | None  # the first document that uses the name
    doc_paths: tuple[str, ...]  # every document that uses it
    reason: str


def resolve_references(
    records: list[EntityRecord],
    claims: list[EntityClaim],
    decided: dict[tuple[str, str], str],
    weights: Weights = DEFAULT_WEIGHTS,
    thresholds: Thresholds = Thresholds(),
    resolved: dict[tuple[int, str, str], str] | None = None,
) -> list[ReferenceDecision]:
    """A decision for every referenced-only entity; `decided` maps (surface key, entity key) to the
    latest logged outcome, so rejected pairs are never proposed again. `resolved` is the assembly's
    (doc, type, name) -> entity key of each reference: a name linked in one note is not the
    referenced-only entity of the same spelling in another."""
    anchored_keys = {c_key for c_key in _anchored(records, claims)}
    if all(record.key in anchored_keys for record in records):
        return []  # nothing to decide (only referenced-only entities get a decision): no profiles to build
    # After that return only: the resolver index below loads the fuzzy matcher (~15 ms).
    index_of = {r.key: i for i, r in enumerate(records)}
    owner = _owner(records, claims, index_of, resolved or {})
    context = _context(claims, owner)
    rejected = _rejections(decided, index_of)
    near_misses = _handle_near_misses(records, claims, owner, anchored_keys, rejected, weights, thresholds)
    return near_misses + _resolve_against_pages(records, claims, rejected, weights, thresholds, anchored_keys,
                                                owner, context, {d.record_key for d in near_misses})


def _rejections(decided: dict[tuple[str, str], str], index_of: dict[str, int]) -> dict[str, frozenset[int]]:
    """surface key -> the records the user said it is not: read once, not once per name and record."""
    out: dict[str, set[int]] = {}
    for (surface, entity_key), outcome in decided.items():
        if outcome == "rejected" and entity_key in index_of:
            out.setdefault(surface, set()).add(index_of[entity_key])
    return {surface: frozenset(ids) for surface, ids in out.items()}


def _resolve_against_pages(records, claims, rejected, weights, thresholds, anchored_keys, owner, context,
                           asked: set[str]) -> list[ReferenceDecision]:
    from .resolver import ResolverIndex

    profiles = []
    for i, record in enumerate(records):
        if record.key in anchored_keys:
            profile = _profile(i, record, context.get(i, frozenset()))
            if profile is not None:
                profiles.append(profile)
    if not profiles:
        return []
    resolver = ResolverIndex(profiles, weights=weights, thresholds=thresholds)
    docs: dict[int, list[str]] = {}
    for claim in sorted(claims, key=lambda c: c.doc_path):
        if claim.doc_path and claim.role != "page" and owner.get(claim) is not None:
            docs.setdefault(owner[claim], []).append(claim.doc_path)
    confirmed = _confirmed_names(records, anchored_keys)
    out = []
    for i, record in enumerate(records):
        if record.key in anchored_keys or record.key in asked:
            continue
        decision = _resolve_one(resolver, record, context.get(i, frozenset()), rejected, confirmed)
        if decision is not None:
            out.append(
                ReferenceDecision(
                    record.key,
                    record.name,
                    record.type,
                    decision.key,
                    decision.outcome,
                    _worth_logging(decision, records, thresholds),
                    next(iter(docs.get(i, [])), None),
                    tuple(dict.fromkeys(docs.get(i, []))),
                    decision.reason,
                )
            )
    return out


ESTABLISHED_HANDLE_DOCS = 3  # a handle this many notes use is someone
# A handle written without its @ (a kbgraph.toml with strip = "@"): one lower-case word, digits allowed.
_BARE_HANDLE = re.compile(r"[a-z0-9][a-z0-9_.-]*[a-z0-9]")
SLIP_RATIO = 5  # a handle one slip from one used this many times as often may be that one misspelt


def _handle_near_misses(records, claims, owner, anchored: set[str], rejected, weights, thresholds
                        ) -> list[ReferenceDecision]:
    """A rarely used @handle one slip away from a handle five times as many notes use (@liggit in 10
    KEPs, @ligitt in 1, beside @liggitt in 150) is asked about, never silently a new person nor silently
    merged: no page stands behind either, so the comparison with pages does not reach it. One question
    per handle, about the most used one it may mean."""
    from ..entities.values import LONE_HANDLE, is_group
    from .keys import surface_key
    from .resolver import ResolverIndex

    docs: dict[int, set[int]] = {}
    for claim in claims:
        if claim.role != "page" and owner.get(claim) is not None:
            docs.setdefault(owner[claim], set()).add(claim.doc_id)
    handles = [i for i, r in enumerate(records) if r.type == "person" and r.key not in anchored
               and (LONE_HANDLE.fullmatch(r.name) or _BARE_HANDLE.fullmatch(r.name)) and not is_group(r.name)]
    established = [i for i in handles if len(docs.get(i, ())) >= ESTABLISHED_HANDLE_DOCS]
    if not established:
        return []
    resolver = ResolverIndex([EntityProfile(i, "person", records[i].name) for i in established],
                             weights=weights, thresholds=thresholds)
    paths: dict[int, str] = {c.doc_id: c.doc_path for c in claims}
    out = []
    for i in handles:
        uses = len(docs.get(i, ()))
        key = surface_key(records[i].name)
        no = frozenset((key, j) for j in rejected.get(key, frozenset()) | {i})
        try:
            decision = resolver.resolve(MentionInfo(records[i].name, "person"), rejected=no)
        except InvalidInput:
            continue
        if decision.outcome not in ("ask", "auto-link"):
            continue
        candidates = tuple(c for c in decision.candidates if c.score >= thresholds.ask
                           and len(docs.get(c.entity_id, ())) >= SLIP_RATIO * uses)
        if not candidates:
            continue
        candidates = (max(candidates, key=lambda c: (len(docs.get(c.entity_id, ())), c.score)),)  # the one meant
        where = sorted(paths[d] for d in docs.get(i, ()) if paths.get(d))
        out.append(ReferenceDecision(records[i].key, records[i].name, "person", decision.key, "ask",
                                     tuple((records[c.entity_id].key, records[c.entity_id].name, c) for c in candidates),
                                     where[0] if where else None, tuple(where),
                                     f"{decision.reason}; a handle {uses} note(s) use, one slip from one"
                                     f" {len(docs.get(candidates[0].entity_id, ()))} notes use"))
    return out


def _resolve_one(resolver, record: EntityRecord, context: frozenset[int], rejected_of: dict[str, frozenset[int]],
                 confirmed: dict[str, int]):
    from ..entities.names import name_key
    from .keys import surface_key

    try:
        key = surface_key(record.name)
    except InvalidInput:
        return None  # a name with nothing to match ("???"): it stays what it is
    # A confirmed answer is applied already (a merge, or a link in the documents it was about); a name
    # still here comes from another note. It means the entity it was confirmed for, as a lookup of it
    # does, unless this note's context fits another (the resolver asks then); a name another entity
    # also goes by ("Sam", Sam Ortiz's first name) is asked about again, as a lookup lists both.
    rejected = rejected_of.get(key, frozenset())
    chosen = confirmed.get(name_key(record.name))
    yes = frozenset({(key, chosen)}) if chosen is not None and chosen not in rejected else frozenset()
    try:
        return resolver.resolve(MentionInfo(record.name, record.type, context),
                                rejected=frozenset((key, i) for i in rejected), confirmed=yes)
    except InvalidInput:
        return None


def _confirmed_names(records: list[EntityRecord], anchored: set[str]) -> dict[str, int]:
    """name key -> the index of the one entity with a page (or a user behind it) that goes by that
    confirmed name, where no other such entity has a form (name, alias, first name, confirmed name) so
    spelt: what `find` gives for the name (entities/lookup.py)."""
    from ..entities.names import name_key

    named: dict[str, set[int]] = {}
    for i, record in enumerate(records):
        if record.key in anchored and any(kind == "confirmed" for _, kind in record.forms):
            for surface, kind in record.forms:
                if kind == "confirmed":
                    named.setdefault(name_key(surface), set()).add(i)
    if not named:
        return {}
    for i, record in enumerate(records):
        if record.key in anchored:
            for surface, _ in record.forms:
                if name_key(surface) in named:
                    named[name_key(surface)].add(i)
    return {key: next(iter(ids)) for key, ids in named.items() if len(ids) == 1}


def _worth_logging(decision, records, thresholds: Thresholds) -> tuple:
    """auto-link: the chosen entity; ask: every candidate in the gray zone or above; new: the best one."""
    if decision.outcome == "auto-link":
        chosen = [decision.best]
    elif decision.outcome == "ask":
        chosen = [c for c in decision.candidates if c.score >= thresholds.ask] or [decision.best]
    else:
        chosen = list(decision.candidates[:1])
    return tuple((records[c.entity_id].key, records[c.entity_id].name, c) for c in chosen if c is not None)


def _anchored(records: list[EntityRecord], claims: list[EntityClaim]) -> set[str]:
    """Entities a page or a user stands behind (an asserted claim carries the entity's own name)."""
    from ..entities.assemble import entity_key

    asserted = {entity_key(c.type, c.name) for c in claims if c.role == "asserted"}
    return {r.key for r in records if r.page_doc_id is not None or r.key in asserted}


def _owner(records, claims, index_of: dict[str, int], resolved: dict) -> dict[EntityClaim, int]:
    """Each claim -> the index of the record it names (pages by their key, references as assembled)."""
    from ..entities.assemble import entity_key
    from ..entities.names import name_key

    by_name: dict[tuple[str, str], int] = {}
    for i, record in enumerate(records):
        for spelling in (record.name, *record.aliases):
            by_name.setdefault((record.type, name_key(spelling)), i)
    out = {}
    for claim in claims:
        key = resolved.get((claim.doc_id, claim.type, claim.name)) if claim.role != "page" else None
        i = index_of.get(key or entity_key(claim.type, claim.name))
        out[claim] = i if i is not None else by_name.get((claim.type, name_key(claim.name)))
    return out


def _context(claims, owner: dict[EntityClaim, int]) -> dict[int, frozenset[int]]:
    """Per entity: the other entities claimed by the documents that claim it (its team, its meetings)."""
    per_doc: dict[int, set[int]] = {}
    for claim in claims:
        if claim.doc_id == 0 or owner.get(claim) is None:
            continue  # asserted by a user, not said by a note
        per_doc.setdefault(claim.doc_id, set()).add(owner[claim])
    out: dict[int, set[int]] = {}
    for members in per_doc.values():
        if len(members) > MAX_CONTEXT:
            continue  # a roster of everyone says nothing about anyone
        for i in members:
            out.setdefault(i, set()).update(members - {i})
    return {i: frozenset(sorted(ids)[:MAX_CONTEXT]) for i, ids in out.items()}


def _profile(i: int, record: EntityRecord, context: frozenset[int]) -> EntityProfile | None:
    emails = record.attributes.get("email") or record.attributes.get("emails") or ()
    emails = (emails,) if isinstance(emails, str) else tuple(e for e in emails if isinstance(e, str))
    aliases = tuple(a for a in record.aliases if a.strip())
    from .keys import profile_keys

    profile = EntityProfile(i, record.type, record.name, aliases, emails, context)
    try:
        profile_keys(profile)
    except InvalidInput:
        return None
    return profile

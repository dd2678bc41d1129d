"""Names in running text put to the resolver: "Arjoon Mehta asked about the surgery".

entities/prose_names.py finds the person-like names a note writes that are no exact name or alias
of a known entity; here each goes through the same resolver as frontmatter references, against the
people the index knows:
- auto-link: a mention of that person (kind "prose"), and the decision logged once with its
  features, so `kbg resolve log` shows why the text was linked;
- ask: a pending question per candidate in the gray zone, answered with `kbg resolve confirm|reject`;
  a confirmed pair (name, person) links wherever the name is written, a rejected one is never
  proposed again (both read from the log on every scan);
- new: nothing. No entity is made of a capitalised pair in prose; `kbg entity candidates` lists it.

Pure but for the store reads in `ProseResolver.build`: the mentions stage builds one per run and
calls `resolve_document` for each document it scans (in worker processes for a large vault).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..entities.prose_names import LowerWords, ProseName, find_prose_names
from ..errors import InvalidInput
from ..model import Mention
from .model import EntityProfile, MentionInfo
from .scoring import Thresholds, Weights

if TYPE_CHECKING:
    from .resolver import ResolverIndex

PROSE = "prose"  # the mentions' kind, and the key marking a question about prose in its features
MAX_CONTEXT = 50  # entity ids of a document given as the mention's context, as for references
MAX_PER_DOCUMENT = 50  # distinct names put to the resolver per document: bounded cost for any note


@dataclass(frozen=True)
class ProseDecision:
    """A resolver decision worth logging, for one name in one document."""

    surface: str
    surface_key: str
    entity_key: str
    entity_name: str
    outcome: str  # "auto-linked" | "asked"
    score: float
    features: dict
    doc_path: str

    @property
    def pair(self) -> tuple[str, str]:
        return self.surface_key, self.entity_key


class ProseResolver:
    """The known people as resolver profiles, with the answers the log remembers."""

    def __init__(self, profiles: list[EntityProfile], keys: dict[int, str], decided: dict[tuple[str, str], str],
                 weights: Weights, thresholds: Thresholds):
        self.profiles, self.weights = profiles, weights  # profiles: each with something to match (profile_keys)
        self._index: ResolverIndex | None = None
        self.keys, self.thresholds = keys, thresholds
        ids = {key: entity_id for entity_id, key in keys.items()}
        self.rejected = frozenset((s, ids[k]) for (s, k), outcome in decided.items() if outcome == "rejected" and k in ids)
        self.confirmed = frozenset((s, ids[k]) for (s, k), outcome in decided.items()
                                   if outcome == "confirmed" and k in ids)

    @property
    def index(self) -> ResolverIndex:
        """Built when the first name is put to it: a one-page write whose names are all known (most are)
        never needs it, nor the fuzzy matcher it loads (~15 ms of start-up)."""
        if self._index is None:
            from .resolver import ResolverIndex

            self._index = ResolverIndex(self.profiles, weights=self.weights, thresholds=self.thresholds)
        return self._index

    @classmethod
    def build(cls, entities, ids_by_key: dict[str, int], docs_entities: dict[int, list[tuple[int, str, str]]],
              decided: dict[tuple[str, str], str], weights: Weights, thresholds: Thresholds) -> ProseResolver:
        """From the index's people, their keys, what each document claims (for the people's context,
        as references.py builds it) and the decision log."""
        from .model import profile_keys

        keys = {entity_id: key for key, entity_id in ids_by_key.items()}
        context = _context(docs_entities)
        profiles = []
        for e in entities:
            if e.type != "person" or e.status != "active" or e.id not in keys:
                continue
            emails = e.attributes.get("email") or e.attributes.get("emails") or ()
            emails = (emails,) if isinstance(emails, str) else tuple(x for x in emails if isinstance(x, str))
            profile = EntityProfile(e.id, "person", e.name, tuple(a for a in e.aliases if a.strip()), emails,
                                    context.get(e.id, frozenset()))
            try:
                profile_keys(profile)
            except InvalidInput:
                continue  # a name with nothing to match
            profiles.append(profile)
        return cls(profiles, keys, decided, weights, thresholds)

    def resolve_document(self, doc_path: str, chunks: list[tuple[int, int, str]],
                         found: list[tuple[int | None, Mention]], anchored: set[int], known: frozenset[str]
                         ) -> tuple[list[tuple[int | None, Mention]], list[ProseDecision]]:
        """found with the document's prose names resolved: linked ones added (replacing a first name
        matched inside a longer name they link), and the decisions to log. known: the name keys of
        every exact form (entities/mentions.py links those, or leaves a shared "Sam" unlinked)."""
        from ..entities.names import name_key

        if not self.profiles:
            return found, []
        context = frozenset(sorted(anchored | {m.entity_id for _, m in found})[:MAX_CONTEXT])
        spans = sorted((m.start, m.end, i) for i, (_, m) in enumerate(found) if m.start is not None and m.end is not None)
        decided: dict[str, tuple[int | None, list[ProseDecision]]] = {}
        dropped: set[int] = set()
        added, logged = [], []
        for (chunk_id, chunk_start, text), name in _names_by_chunk(chunks):
            start, end = chunk_start + name.start, chunk_start + name.end
            inside = _overlapping(spans, start, end)
            if (not _may_resolve(found, inside, start, end) or name_key(name.surface) in known
                    or _in_code(text, name.start)):
                continue
            if name.surface not in decided:
                if len(decided) >= MAX_PER_DOCUMENT:
                    continue
                decided[name.surface] = self._decide(name.surface, context, doc_path)
                logged.extend(decided[name.surface][1])
            linked = decided[name.surface][0]
            if linked is not None and all(found[i][1].entity_id == linked for i in inside):
                dropped.update(inside)
                added.append((chunk_id, Mention(linked, start, end, name.surface, PROSE)))
        kept = [pair for i, pair in enumerate(found) if i not in dropped]
        return sorted(kept + added, key=lambda pair: (pair[1].start is None, pair[1].start or 0)), logged

    def _decide(self, surface: str, context: frozenset[int], doc_path: str) -> tuple[int | None, list[ProseDecision]]:
        """(the entity id linked, or None; the decisions to log) for one name."""
        try:
            decision = self.index.resolve(MentionInfo(surface, "person", context),
                                          rejected=self.rejected, confirmed=self.confirmed)
        except InvalidInput:
            return None, []  # nothing in it to match, or too long
        if decision.outcome == "auto-link" and decision.best is not None:
            return decision.best.entity_id, [self._row(decision, decision.best, "auto-linked", doc_path)]
        if decision.outcome == "ask":
            asked = [c for c in decision.candidates if c.score >= self.thresholds.ask] or [decision.best]
            asked = [c for c in asked if c is not None and _worth_asking(surface, c, context)]
            return None, [self._row(decision, c, "asked", doc_path) for c in asked]
        return None, []

    def _row(self, decision, candidate, outcome: str, doc_path: str) -> ProseDecision:
        features = {**candidate.features.as_dict(), PROSE: 1.0}
        return ProseDecision(decision.surface, decision.key, self.keys[candidate.entity_id], candidate.name,
                             outcome, round(candidate.score, 6), features, doc_path)


def _worth_asking(surface: str, candidate, context: frozenset[int]) -> bool:
    """A one-word name ("Joan wants", "Bob's") is asked about only when the note is about that person
    already (names them exactly or in its frontmatter) or shares their company: technical prose is
    full of example people, and a bare first name with nothing around it would ask about a stranger
    every time (bench/RESULTS.md, names in prose)."""
    if len(surface.split()) > 1 and not candidate.features.low_info:
        return True
    return candidate.entity_id in context or candidate.features.context > 0


def _overlapping(spans: list[tuple[int, int, int]], start: int, end: int) -> list[int]:
    return [i for s, e, i in spans if s < end and start < e]


def _may_resolve(found, inside: list[int], start: int, end: int) -> bool:
    """A name no mention covers, or only a shorter text match inside it ("Arjun" of "Arjun Mehat")."""
    for i in inside:
        m = found[i][1]
        if m.kind != "text" or m.start < start or m.end > end or m.end - m.start >= end - start:
            return False
    return True


def _names_by_chunk(chunks: list[tuple[int, int, str]]):
    """(chunk, name at an offset of the chunk's text) for the person-like names of a document: found
    in its chunks joined by line breaks, one pass for the whole note (a name never spans a line), the
    lower-case words of the whole note telling terms from names."""
    from bisect import bisect_right

    texts = [text for _, _, text in chunks]
    joined = "\n".join(texts)
    offsets, at = [], 0
    for text in texts:
        offsets.append(at)
        at += len(text) + 1
    for name in find_prose_names(joined, LowerWords(joined)):
        i = bisect_right(offsets, name.start) - 1
        local = name.start - offsets[i]
        if name.end - offsets[i] <= len(texts[i]):
            yield chunks[i], ProseName(local, local + len(name.surface), name.surface, name.cue)


def _in_code(text: str, position: int) -> bool:
    """Whether a position of a chunk's text is inside fenced code (parsed only for a chunk that has a
    name and a fence: most have neither)."""
    if "```" not in text and "~~~" not in text:
        return False
    from ..base.markdown import parse_sections

    return any(s <= position < e for s, e in parse_sections(text)[1])


def _context(docs_entities: dict[int, list[tuple[int, str, str]]]) -> dict[int, frozenset[int]]:
    """Per entity: the others the documents that claim it claim too (its team, its meetings)."""
    out: dict[int, set[int]] = {}
    for claimed in docs_entities.values():
        members = {entity_id for entity_id, _, _ in claimed}
        if len(members) > MAX_CONTEXT:
            continue  # a roster of everyone says nothing about anyone
        for entity_id in members:
            out.setdefault(entity_id, set()).update(members - {entity_id})
    return {i: frozenset(sorted(ids)[:MAX_CONTEXT]) for i, ids in out.items()}


class ProseLog:
    """What a run logs of prose decisions: each pair once, and no question the log has answered."""

    def __init__(self, decided: dict[tuple[str, str], str]):
        self.decided = decided
        self.raised: set[tuple[str, str]] = set()  # questions the scanned documents still raise
        self.scanned: set[str] = set()  # the paths of those documents

    def write(self, store, decisions: list[ProseDecision], now: str, scanned=()) -> None:
        """Log the decisions of a batch of documents (scanned: their paths)."""
        self.scanned.update(scanned)
        for d in decisions:
            before = self.decided.get(d.pair)
            if d.outcome == "asked":
                self.raised.add(d.pair)
                if before in ("asked", "rejected"):
                    continue
            elif before in ("auto-linked", "confirmed"):
                continue
            self.decided[d.pair] = d.outcome
            store.add_decision({
                "surface": d.surface, "surface_key": d.surface_key, "surface_type": "person",
                "candidate_key": d.entity_key, "candidate_name": d.entity_name, "score": d.score,
                "features": d.features, "outcome": d.outcome, "decided_by": "kbgraph", "doc_path": d.doc_path,
                "created_at": now, "decided_at": None if d.outcome == "asked" else now,
            })

    def withdraw_unraised(self, store, everything: bool) -> None:
        """Withdraw the prose questions no note raises any more: after a scan of every document, any
        not raised again; after a scan of some, those asked in one of them (its name edited away). A
        question is asked once, in the first note that raises it: another note with the same name
        raises it again when it is scanned next. The other questions are the entity stage's."""
        from ..access import LOCAL

        keep = {(q["surface_key"], q["candidate_key"]) for q in store.decisions(LOCAL, "asked")
                if not is_prose_question(q) or (not everything and q["doc_path"] not in self.scanned)}
        store.drop_open_questions(keep | self.raised)


def is_prose_question(question: dict) -> bool:
    """Whether a logged decision is about a name in running text (no entity stands behind its surface)."""
    return bool((question.get("features") or {}).get(PROSE))


def open_prose_questions(store) -> set[tuple[str, str]]:
    """(surface key, entity key) of the open questions about prose: the entity stage keeps them."""
    from ..access import LOCAL

    return {(q["surface_key"], q["candidate_key"]) for q in store.decisions(LOCAL, "asked") if is_prose_question(q)}

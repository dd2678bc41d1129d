"""Governed relationship recall: "what does my manager's project depend on?", "ideas for my sister's
birthday". A question that names nobody is read from the vault owner's side ([me] in kbgraph.toml):
a relationship word in it ("my manager", "our mentor", "my sister's") is resolved through the owner's
own relations, and that one person's facts and passages answer the question.

The rules, each because a wrong person is worse than no answer:
- only when the query names no entity and no ambiguous name: a name is searched as a name, and an
  ambiguous one ("Sam") never falls back to this path;
- a relationship word counts only as a whole term after "my" or "our" (one or two words between:
  "my direct report", "my older sister"); words of a relation's type name never match in part
  ("reports-to" is not "my reports");
- only direct relations between the owner and a person, stored (not inferred), current today (begun,
  not expired) and readable by the asker, in the store's query: no traversal, no person created,
  no identity merged;
- more than one person fits a singular word ("my report"): abstain and return the candidates, never
  blend them; a plural word ("my reports") means every person it fits: each answered apart, grouped by
  person, each with the relations that tie them in.
An answer is cached with the revisions it read (relations, facts and loops, documents) and recomputed
when any of them moves.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass, field
from datetime import date

from ..access import Access
from ..config import Config
from ..errors import NotFound
from ..model import Fact, SearchHit
from ..vocabulary import SEED_TYPES
from ..store.base import DocFilter, Store

# The relation types as read from the owner's side, and what the owner calls the person at the other end.
ROLE_WORDS: dict[str, tuple[str, ...]] = {
    "reports-to": ("manager", "boss", "line manager", "supervisor"),
    "manages": ("report", "direct report", "reportee"),
    "skip-level-reports-to": ("skip-level manager", "skip level manager", "skip-level"),
    "skip-level-manages": ("skip-level report", "skip level report"),
    "mentored-by": ("mentor",),
    "mentors": ("mentee", "protege", "protégé"),
    "collaborates-with": ("collaborator", "colleague", "coworker", "co-worker", "teammate", "peer"),
    "delegates-to": ("delegate",),
}
OWNER_WORDS = ("my", "our")
GAP = 2  # words allowed between "my" and the relationship word ("my older sister")
_LINKING = {"of", "to", "with", "by", "has", "is", "for"}
_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*", re.UNICODE)
_SEED_NAMES = {name for t in SEED_TYPES for name in (t.name, t.inverse) if name}
_CACHE: "weakref.WeakKeyDictionary[Store, dict]" = weakref.WeakKeyDictionary()  # gone with its store
_CACHE_SIZE = 128
PASSAGE_POOL = 200  # sections read to find the person's own among the best


@dataclass(frozen=True)
class RoleTie:
    """A direct relation of the owner's that a relationship word in the query names."""

    term: str  # the words of the query it matched ("manager")
    person_id: int
    person: str
    relation: str  # "Ana Lima --reports-to--> Ben Okafor", read from the owner's side
    relation_id: int


@dataclass(frozen=True)
class PersonAnswer:
    """One person's part of an answer: the relations of the owner's that name them, their facts and
    their own passages."""

    person_id: int
    person: str
    ties: tuple[RoleTie, ...]
    facts: tuple[Fact, ...] = ()
    passages: tuple[SearchHit, ...] = ()


@dataclass(frozen=True)
class Recall:
    """The answer: `status` is "answered" (`people`: one person, or each person a plural word fits, apart;
    with one person, `tie`, `facts` and `passages` are theirs), "abstained" (several people fit a singular
    word: `candidates`), "unresolved" (a relationship word no current relation of the owner's reads as) or
    "not-applicable" (why: the query names someone, or has no relationship word, or there is no [me])."""

    query: str
    status: str
    why: str
    owner: str | None = None
    terms: tuple[str, ...] = ()
    tie: RoleTie | None = None
    candidates: tuple[RoleTie, ...] = ()
    facts: tuple[Fact, ...] = ()
    passages: tuple[SearchHit, ...] = ()
    people: tuple[PersonAnswer, ...] = ()
    revisions: tuple = field(default=(), compare=False)


def recall(store: Store, config: Config, query: str, flt: DocFilter | None = None, limit: int = 10, *,
           access: Access, today: str | None = None) -> Recall:
    """The owner's relationship named in query, resolved to one person, and that person's facts and
    passages for the query (see the module's rules). Cached until a revision it read moves."""
    from ..errors import InvalidInput

    if not query or not query.strip():
        raise InvalidInput("empty query: give a question such as \"ideas for my sister's birthday\"", param="query")
    if limit < 1:
        raise InvalidInput(f"`limit` must be at least 1, got {limit}", param="limit")
    day = today or date.today().isoformat()
    flt = flt or DocFilter()
    revisions = _revisions(store)
    key = (query, flt, limit, access, config.me, day, config.search, config.fingerprint)  # fingerprint: the types
    cache = _CACHE.setdefault(store, {})
    held = cache.get(key)
    if held is not None and held.revisions == revisions:
        return held
    answer = _recall(store, config, query, flt, limit, access, day, revisions)
    if len(cache) >= _CACHE_SIZE:
        cache.pop(next(iter(cache)))
    cache[key] = answer
    return answer


def _recall(store: Store, config: Config, query: str, flt: DocFilter, limit: int, access: Access, day: str,
            revisions: tuple) -> Recall:
    from ..entities.lookup import find_entity
    from ..search.graph import recognise

    if config.me is None:
        return Recall(query, "not-applicable", "no owner: set [me] name in kbgraph.toml to your own page's name",
                      revisions=revisions)
    try:
        owner = find_entity(store, config.me, "person", access=access)
    except NotFound as exc:
        raise NotFound(f"[me] names {config.me!r}, which is no person in this vault: give your own page's name",
                       param="me") from exc
    named = recognise(store, query, access)
    if named.entities or named.ambiguous:
        surfaces = [e[3] for e in named.entities] + [a["surface"] for a in named.ambiguous]
        return Recall(query, "not-applicable", f"the query names {', '.join(repr(s) for s in surfaces)}: search it"
                      " by name", owner.name, revisions=revisions)
    words = query_words(query)
    every = owner_ties(store, config, owner.id, owner.name, access, day)
    said = _said_terms(query, {tie.term for tie in every} | {t for terms in ROLE_WORDS.values() for t in terms})
    ties = [tie for tie in every if tie.term in said]
    terms = tuple(dict.fromkeys(tie.term for tie in ties))
    asked = [term for term in said if term not in terms]
    if not ties:
        if asked:
            return Recall(query, "unresolved", f"no current relation of {owner.name}'s reads as"
                          f" {' or '.join(repr(t) for t in asked)}", owner.name, tuple(asked), revisions=revisions)
        return Recall(query, "not-applicable", "the query names no one and no relationship of yours", owner.name,
                      revisions=revisions)
    unsure = _ambiguous(ties, said)
    if unsure:
        names = " and ".join(t.person for t in unsure)
        told = ", ".join(dict.fromkeys(t.term for t in unsure))
        return Recall(query, "abstained", f"{told} fits {names}: name the one you mean", owner.name,
                      terms, candidates=unsure, revisions=revisions)
    rest = _rest(query, terms)
    people = tuple(PersonAnswer(tied[0].person_id, tied[0].person, tied,
                                _facts(store, access, tied[0].person_id, words),
                                _passages(store, config, rest, flt, limit, access, tied[0].person_id))
                   for tied in _by_person(ties))
    why = "; ".join(f"{tie.term}: {tie.relation}" for tie in ties)
    if len(people) > 1:
        return Recall(query, "answered", why, owner.name, terms, people=people, revisions=revisions)
    one = people[0]
    return Recall(query, "answered", why, owner.name, terms, one.ties[0], facts=one.facts, passages=one.passages,
                  people=people, revisions=revisions)


def _ambiguous(ties: list[RoleTie], said: dict[str, bool]) -> tuple[RoleTie, ...]:
    """The ties to abstain on, one per person (none: answer). With no plural word, more than one person
    in all; with one, a singular word that fits more than one person ("my reports and my manager" when
    two people are the owner's manager): a plural word speaks for everyone, a singular one for one."""
    if not any(said[tie.term] for tie in ties):
        people = {tie.person_id: tie for tie in ties}
        return tuple(people.values()) if len(people) > 1 else ()
    for term in dict.fromkeys(tie.term for tie in ties if not said[tie.term]):
        people = {tie.person_id: tie for tie in ties if tie.term == term}
        if len(people) > 1:
            return tuple(people.values())
    return ()


def _by_person(ties: list[RoleTie]) -> list[tuple[RoleTie, ...]]:
    """The ties grouped by person (each relation once), people in name order."""
    groups: dict[int, dict[int, RoleTie]] = {}
    for tie in ties:
        groups.setdefault(tie.person_id, {}).setdefault(tie.relation_id, tie)
    return sorted((tuple(g.values()) for g in groups.values()), key=lambda g: (g[0].person.lower(), g[0].person_id))


def owner_ties(store: Store, config: Config, owner_id: int, owner_name: str, access: Access,
               day: str) -> list[RoleTie]:
    """Every relationship word of the owner's direct relations to people: stored, current on day,
    readable by access (the store filters), each with the words the owner would call the other end."""
    out = []
    for direction in ("out", "in"):
        for rel in store.relations_from(access, owner_id, direction, None, day, None):
            if rel.get("inferred") or (rel.get("valid_from") or "") > day:
                continue
            other_id, other, other_type = (rel["target_id"], rel["target"], rel["target_type"]) \
                if direction == "out" else (rel["source_id"], rel["source"], rel["source_type"])
            if other_type != "person" or other_id == owner_id:
                continue
            read = config.vocabulary.label(rel["type"], outgoing=direction == "out")
            shown = f"{owner_name} --{read}--> {other}"
            for term in relation_terms(read, rel.get("reason"), rel.get("context")):
                out.append(RoleTie(term, other_id, other, shown, rel["id"]))
    return out


def relation_terms(read_type: str, reason: str | None, context: str | None) -> tuple[str, ...]:
    """What the owner calls the other end of a relation read as read_type: the built-in words for a
    seed type; for a type of the user's own, its name's words without linking words ("sister-of":
    "sister"); for `custom`, whose reason is its type (`- custom [[Priya]] — sister`), the whole reason
    when it is one to three words. Other reasons and contexts are free text ("SRE on Platform"), never
    a role: a wrong person is worse than no answer."""
    terms = list(ROLE_WORDS.get(read_type, ()))
    if read_type not in _SEED_NAMES:  # a type of the user's own: its name is what they call the person
        words = [w for w in re.split(r"[-_\s]+", read_type.lower()) if w and w not in _LINKING]
        if words:
            terms.append(" ".join(words))
    if read_type == "custom":
        for text in (reason, context):
            words = query_words(text or "")
            if 0 < len(words) <= 3:
                terms.append(" ".join(words))
    return tuple(dict.fromkeys(terms))


def query_words(text: str) -> list[str]:
    """Lower-cased words, a possessive or a plural 's' dropped ("sister's", "reports" -> "report")."""
    return [word for word, _ in _marked_words(text)]


def _marked_words(text: str) -> list[tuple[str, bool]]:
    """query_words, each with whether a plural ending was dropped ("reports", "bosses"; not "sister's")."""
    out = []
    for word in _WORD.findall(text.lower()):
        word = re.sub(r"['’]s?$", "", word)
        plural = False
        if len(word) > 4 and word.endswith("sses"):  # "bosses" -> "boss"
            word, plural = word[:-2], True
        elif len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word, plural = word[:-1], True
        if word:
            out.append((word, plural))
    return out


def _said_terms(query: str, known: set[str]) -> dict[str, bool]:
    """The known relationship terms the query says whole, after "my"/"our" (GAP words between), the
    longest reading first: in "my skip-level manager", "manager" is part of a longer term, not said.
    Each with whether it was said in the plural anywhere ("my direct reports": its last word)."""
    marked = _marked_words(query)
    words = [w for w, _ in marked]
    spans = [(i, i + len(wanted), term) for term in known if (wanted := query_words(term))
             for i in range(len(words) - len(wanted) + 1)
             if words[i:i + len(wanted)] == wanted and any(w in OWNER_WORDS for w in words[max(0, i - GAP - 1):i])]
    kept = [(start, end, term) for start, end, term in spans
            if not any(s <= start and end <= e and (e - s) > (end - start) for s, e, _ in spans)]
    said: dict[str, bool] = {}
    for _, end, term in sorted(kept):
        said[term] = said.get(term, False) or marked[end - 1][1]
    return said


def _facts(store: Store, access: Access, person_id: int, words: list[str]) -> tuple[Fact, ...]:
    """The person's current facts (a merged-away name's too), those sharing the query's words first, then
    the newest."""
    from .facts import entity_facts

    key = store.entity_keys([person_id]).get(person_id)
    if key is None:
        return ()
    asked = set(words)
    newest_first = sorted(entity_facts(store, access, key), key=lambda f: (f.date or f.recorded_at[:10], f.id), reverse=True)
    return tuple(sorted(newest_first, key=lambda f: -len(asked & set(query_words(f.text)))))  # stable: newest next


def _passages(store: Store, config: Config, query: str, flt: DocFilter, limit: int, access: Access,
              person_id: int) -> tuple[SearchHit, ...]:
    """The person's own passages for the query: sections that name them or belong to their page (not
    any section of a note that names them somewhere), best first, filters applied in the store."""
    from ..search import search

    theirs = {row[3] for row in store.chunks_mentioning(access, [person_id], flt, limit=PASSAGE_POOL)}
    if not theirs:
        return ()
    result = search(store, query, flt, min(PASSAGE_POOL, limit * 10), config=config, entity=person_id, access=access,
                    unit="passage")
    return tuple(hit for hit in result.hits if hit.chunk_id in theirs)[:limit]


def _rest(query: str, terms: tuple[str, ...]) -> str:
    """The query without "my"/"our" and the relationship words, which the person's notes need not
    say ("what does my manager's project depend on" -> "what does project depend on"); the query
    itself when nothing else is left."""
    dropped = set(OWNER_WORDS) | {w for term in terms for w in query_words(term)}
    kept = [w for w in _WORD.findall(query) if not set(query_words(w)) <= dropped]
    return " ".join(kept) if any(ch.isalnum() for ch in "".join(kept)) else query


def _revisions(store: Store) -> tuple:
    return (store.relation_generation(), store.memory_revision(), store.documents_revision())


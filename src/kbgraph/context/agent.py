"""Token-lean context for an agent: a compact entity index and the best passages for a topic, with
citations, never over a token budget or an item limit.

With a topic, the candidates in order of value are: the entities the topic names (pass 1 of search:
an ambiguous name is reported, never used), then the best passages (search's hits, each the section
that answers, as full text trimmed at a sentence or line end to fit) with, after every two passages,
one related entity (the named entities' neighbours, most relations first, then the entities the
passages mention, by how many of them do). Without a topic: the most central entities (tier, then
relations, then mentions), and no passages. See packing.py for how the budget is kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

from ..access import Access
from ..config import Config
from ..errors import InvalidInput
from ..model import Entity, SearchHit
from ..relations.records import today_iso
from ..store.base import DocFilter, GraphScope, Store
from .cards import entity_cards
from .packing import Candidate, pack
from .tokens import TokenCounter, token_counter

MAX_BUDGET = 1_000_000
MAX_ITEMS = 1000
MAX_TOPIC_SHOWN = 80  # characters of the topic repeated in the header line
PASSAGES_PER_ENTITY = 2  # with a topic, one related entity after every this many passages
MAX_PASSAGES = 20  # hits asked of search at most


@dataclass(frozen=True)
class ContextEntity:
    id: int
    name: str
    type: str
    why: str  # "named" (in the topic) | "related" (a neighbour of one) | "in-passage" | "central"
    line: str


@dataclass(frozen=True)
class ContextPassage:
    chunk_id: int
    path: str
    line: int
    heading: str
    title: str
    date: str | None
    text: str  # the passage as rendered (after its citation line), cut at a sentence or line end if trimmed
    trimmed: bool

    @property
    def citation(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class AgentContext:
    """What build_context packed: `text` is the whole output, `tokens` its count by `tokenizer`
    (exact: the embedding model's tokenizer; else an estimate that errs high), never over `budget`."""

    topic: str | None
    budget: int
    items: int
    text: str
    tokens: int
    tokenizer: str
    exact: bool
    entities: tuple[ContextEntity, ...]
    passages: tuple[ContextPassage, ...]
    left_out: int  # candidates read but not packed (budget or item limit)
    ambiguous: tuple[dict, ...] = ()
    notes: tuple[str, ...] = ()


def check_limits(budget: int, items: int | None = None) -> None:
    if isinstance(budget, bool) or not isinstance(budget, int) or not 1 <= budget <= MAX_BUDGET:
        raise InvalidInput(f"`budget` must be a whole number of tokens from 1 to {MAX_BUDGET}, not {budget!r}",
                           param="budget", hint="an agent's context is usually 500-4000 tokens")
    if items is not None and (isinstance(items, bool) or not isinstance(items, int) or not 1 <= items <= MAX_ITEMS):
        raise InvalidInput(f"`items` must be from 1 to {MAX_ITEMS}, not {items!r}", param="items")


def build_context(store: Store, config: Config, topic: str | None = None, budget: int = 2000, items: int = 20,
                  *, access: Access, today: str | None = None,
                  counter: TokenCounter | None = None) -> AgentContext:
    """The context for topic (None: the vault's most central entities) within budget tokens and items
    lines of entities or passages. Every read goes through access."""
    check_limits(budget, items)
    if topic is not None and not topic.strip():
        raise InvalidInput("empty topic: give words to build the context for, or no topic for the central entities",
                           param="topic")
    counter = counter or token_counter()
    today = today or today_iso()
    notes = [counter.note] if counter.note else []
    if not store.list_documents(access, DocFilter(), 1) and not store.list_entities(access, limit=1):
        notes.append("the index has nothing this reader may read: index the vault first")
        return AgentContext(topic, budget, items, "", 0, counter.name, counter.exact, (), (), 0, (), tuple(notes))
    hits: tuple[SearchHit, ...] = ()
    ambiguous: tuple[dict, ...] = ()
    if topic is None:
        ranked = [(entity, "central") for entity in _central(store, access, today, items)]
        header = "# Context: the vault's central entities"
    else:
        from ..search import search

        result = search(store, topic, limit=min(items, MAX_PASSAGES), config=config, access=access, unit="passage")
        hits, ambiguous = result.hits, result.ambiguous
        notes += list(result.notes)
        notes += [f"{a['surface']!r} could be {' or '.join(c['name'] for c in a['candidates'])}: not used "
                  "(give the full name)" for a in ambiguous]
        ranked = _related(store, access, [e["id"] for e in result.entities], hits, today, items)
        header = f"# Context: {_shorten(topic)}"
    texts = store.chunk_texts([h.chunk_id for h in hits])
    candidates = list(_candidates(store, config, access, today, ranked, hits, texts))
    if counter.count(header) >= budget:
        header = ""
    text, packed, tokens = pack(header, (c for c, _ in candidates), budget, items, counter)
    kept = {id(p.candidate): p for p in packed}
    entities, passages = [], []
    for candidate, value in candidates:
        p = kept.get(id(candidate))
        if p is None:
            continue
        if isinstance(value, ContextEntity):
            entities.append(value)
        elif isinstance(value, SearchHit):
            body = p.text.split("\n", 1)[1] if "\n" in p.text else ""
            passages.append(ContextPassage(value.chunk_id, value.path, value.line, value.heading, value.title,
                                           value.date, body, p.trimmed))
    if not packed and candidates:
        notes.append(f"a budget of {budget} tokens holds none of the {len(candidates)} items found: raise the budget")
    return AgentContext(topic, budget, items, text, tokens, counter.name, counter.exact,
                        tuple(entities), tuple(passages), len(candidates) - len(packed), ambiguous, tuple(notes))


def _candidates(store: Store, config: Config, access: Access, today: str, ranked: list[tuple[Entity, str]],
                hits: tuple[SearchHit, ...], texts: dict[int, str]) -> Iterator[tuple[Candidate, ContextEntity | SearchHit]]:
    """(candidate, what it shows) in order of value: named entities, then passages with a related
    entity after every PASSAGES_PER_ENTITY of them (the rest of either list when the other runs out)."""
    cards = entity_cards(store, config.vocabulary, [e for e, _ in ranked], access, today)
    entities = [(Candidate("entities", cards[e.id].line(), key=e.id),
                 ContextEntity(e.id, e.name, e.type, why, cards[e.id].line())) for e, why in ranked]
    first = [item for item, (_, why) in zip(entities, ranked) if why == "named"]
    rest = [item for item, (_, why) in zip(entities, ranked) if why != "named"]
    yield from first
    passages = [(Candidate("passages", f"[{h.path}:{h.line}] {h.heading or h.title}",
                           passage_text(texts.get(h.chunk_id, h.snippet)), key=h.chunk_id), h) for h in hits]
    while passages or rest:
        for _ in range(PASSAGES_PER_ENTITY):
            if passages:
                yield passages.pop(0)
        if rest:
            yield rest.pop(0)


_HEADING_LINE = re.compile(r"^\s{0,3}#{1,6}\s.*$", re.MULTILINE)
_BLANKS = re.compile(r"\n\s*\n+")


def passage_text(text: str) -> str:
    """A chunk's text as a passage: its heading lines dropped (the citation line names the section),
    blank lines squeezed, ends stripped."""
    return _BLANKS.sub("\n", _HEADING_LINE.sub("", text)).strip()


def _shorten(topic: str) -> str:
    flat = " ".join(topic.split())
    return flat if len(flat) <= MAX_TOPIC_SHOWN else flat[:MAX_TOPIC_SHOWN - 1].rstrip() + "…"


def _central(store: Store, access: Access, today: str, limit: int) -> list[Entity]:
    """The entities a reader should know first: highest tier, then most relations, then most mentions."""
    degrees = dict(store.relation_degrees(access, GraphScope(active_on=today), None))
    every = store.list_entities(access)
    every.sort(key=lambda e: (-e.tier, -degrees.get(e.id, 0), -e.mention_count, e.name.lower(), e.id))
    return every[:limit]


def _related(store: Store, access: Access, named: list[int], hits: tuple[SearchHit, ...], today: str,
             limit: int) -> list[tuple[Entity, str]]:
    """The named entities, then their neighbours (most relations to them first), then the entities the
    passages mention (by how many passages do, then by the first passage's rank); limit in all."""
    order: dict[int, str] = {entity_id: "named" for entity_id in dict.fromkeys(named)}
    if named:
        counts: dict[int, int] = {}
        for step in store.relation_steps(access, list(order), "both", GraphScope(active_on=today)):
            if step.to_id not in order:
                counts[step.to_id] = counts.get(step.to_id, 0) + 1
        for entity_id in sorted(counts, key=lambda i: (-counts[i], i)):
            order.setdefault(entity_id, "related")
    mentioned: dict[int, tuple[int, int]] = {}
    for rank, hit in enumerate(hits[:5]):
        _, mentions = store.chunk_mentions(hit.doc_id)
        for entity_id in dict.fromkeys(m[0] for m in mentions if m[1] == hit.chunk_id):
            n, first = mentioned.get(entity_id, (0, rank))
            mentioned[entity_id] = (n + 1, first)
    for entity_id in sorted(mentioned, key=lambda i: (-mentioned[i][0], mentioned[i][1], i)):
        order.setdefault(entity_id, "in-passage")
    chosen = list(order)[:limit]
    found = store.entities_by_ids(access, chosen)  # the reader's own: an entity it may not read is left out
    return [(found[i], order[i]) for i in chosen if i in found]

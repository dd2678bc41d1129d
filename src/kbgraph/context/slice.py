"""A slice: what an agent needs to know about one to three entities, in short lines (~15 tokens each).

Per entity: who it is (type, role, team, how often mentioned), then one line per relation type as read
from it (names, or the count and a few names), current relations only unless expired or inferred ones
are asked for; pending suggestions and low-confidence extractions shown `(unconfirmed)`.

Then its current facts (superseded ones never) and open loops (resolved ones never), a line each.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..access import Access
from ..config import Config
from ..entities.lookup import find_entity
from ..errors import InvalidInput
from ..model import Entity, Loop
from ..relations.records import today_iso
from ..store.base import Store
from .cards import entity_cards
from .facts import entity_facts
from .loops import entity_loops, is_overdue
from .tokens import TokenCounter, token_counter

MAX_ENTITIES = 3
MAX_FACTS = 5  # current facts listed per entity, newest first
MAX_LOOPS = 3  # open loops listed per entity, soonest due first
MAX_LINE_TOKENS = 24  # a fact or loop line: its text is cut to fit (ending "…"), its date kept
MAX_CARD_TOKENS = 32  # a who or relation line: cut only when names are very long


@dataclass(frozen=True)
class EntitySlice:
    id: int
    name: str
    type: str
    lines: tuple[str, ...]  # the who line first, then relations, then facts and loops


@dataclass(frozen=True)
class AgentSlice:
    entities: tuple[EntitySlice, ...]
    text: str
    tokens: int
    tokenizer: str
    exact: bool
    notes: tuple[str, ...] = ()


def slice_entities(store: Store, config: Config, names: list[str] | tuple[str, ...], *, access: Access,
                   include_expired: bool = False, include_inferred: bool = False, today: str | None = None,
                   counter: TokenCounter | None = None) -> AgentSlice:
    """The slice of up to three entities by name. A name that matches several entities raises Ambiguous
    with the candidates (never a blend); one that matches none raises NotFound with close spellings."""
    names = [n for n in names]
    if not names:
        raise InvalidInput("no entity: give one to three names", param="names")
    if len(names) > MAX_ENTITIES:
        raise InvalidInput(f"{len(names)} entities given: a slice takes at most {MAX_ENTITIES}", param="names",
                           hint="ask for the others in a second slice")
    counter = counter or token_counter()
    today = today or today_iso()
    entities = list({e.id: e for e in (find_entity(store, name, access=access) for name in names)}.values())
    cards = entity_cards(store, config.vocabulary, entities, access, today, include_expired=include_expired,
                         include_inferred=include_inferred, include_suggestions=True)
    slices = tuple(EntitySlice(e.id, e.name, e.type, (
        *(cut_line("", line, "", MAX_CARD_TOKENS, counter) for line in cards[e.id].lines()),
        *extra_lines(store, e, access, today, counter))) for e in entities)
    text = "\n".join(line for s in slices for line in s.lines)
    notes = (counter.note,) if counter.note else ()
    return AgentSlice(slices, text, counter.count(text), counter.name, counter.exact, notes)


def extra_lines(store: Store, entity: Entity, access: Access, today: str,
                counter: TokenCounter | None = None) -> tuple[str, ...]:
    """What else is known of the entity, one short line each: its current facts, newest first
    (`- interest: fountain pens (2026-03-01)`), then its open loops, soonest due first
    (`- open loop: ask about the surgery (due 2026-08-15)`, `overdue` once the day has passed). At most
    MAX_FACTS and MAX_LOOPS lines; a last line counts the rest. Each line is at most MAX_LINE_TOKENS: a long
    text is cut, ending "…", and its date kept."""
    counter = counter or token_counter()
    key = store.entity_keys([entity.id]).get(entity.id)
    if key is None:
        return ()
    facts = entity_facts(store, access, key)[::-1]
    loops = entity_loops(store, access, key)
    lines = [cut_line(f"- {f.kind}: ", f.text, f" ({f.date})" if f.date else "", MAX_LINE_TOKENS, counter)
             for f in facts[:MAX_FACTS]]
    if len(facts) > MAX_FACTS:
        lines.append(f"- {len(facts) - MAX_FACTS} more facts")
    lines += [cut_line("- open loop: ", loop.text, _due(loop, today), MAX_LINE_TOKENS, counter)
              for loop in loops[:MAX_LOOPS]]
    if len(loops) > MAX_LOOPS:
        lines.append(f"- {len(loops) - MAX_LOOPS} more open loops")
    return tuple(lines)


def _due(loop: Loop, today: str) -> str:
    return f" ({'overdue' if is_overdue(loop, today) else 'due'} {loop.due})" if loop.due else ""


def cut_line(head: str, text: str, tail: str, limit: int, counter: TokenCounter) -> str:
    """head + text + tail, the text cut at a word end (ending "…") until the line counts at most limit
    tokens; head and tail are kept whole."""
    line = head + text + tail
    if counter.count(line) <= limit:
        return line
    cut = text[:counter.prefix_within(text, max(1, limit - counter.count(f"{head}…{tail}")))]
    if " " in cut and not text[len(cut)].isspace():  # not in the middle of a word
        cut = cut.rsplit(" ", 1)[0]
    while True:
        cut = cut.rstrip()
        line = f"{head}{cut}…{tail}"
        if not cut or counter.count(line) <= limit:
            return line
        cut = cut.rsplit(" ", 1)[0] if " " in cut else cut[:-1]

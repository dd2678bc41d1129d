"""Greedy packing under a token budget: pure functions over rendered lines, no store.

Candidates come in order of value. Each is rendered, counted, and kept when it fits what is left
of the budget (its section's heading line counted with the first item under it); a passage that
does not fit whole is cut at the last sentence or line end that fits, and dropped when not even its
citation and one sentence fit. Packing stops at the item limit. The text is then counted whole once
more and, should the whole ever count more than its parts, the last items are dropped until it fits:
the rendered text never counts more than the budget.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .tokens import TokenCounter

MIN_PASSAGE_TOKENS = 12  # a passage cut shorter than this (citation included) is not worth its line
MIN_LINE_TOKENS = 3  # with less room than this left, no entity line could fit: packing stops
ELLIPSIS = " …"
_BOUNDARY = re.compile(r"(?<=[.!?:;])[\"')\]]*\s+|\n+")


@dataclass(frozen=True)
class Candidate:
    """Something that may go into the text: its section ("entities" or "passages"), its head line
    (an entity's line, or a passage's citation) and, for a passage, its body (cut to fit)."""

    section: str
    head: str
    body: str = ""
    key: object = None  # what the caller knows it by (an entity id, a chunk id)


@dataclass(frozen=True)
class Packed:
    candidate: Candidate
    text: str  # as rendered: head, and the body or the part of it that fitted
    tokens: int
    trimmed: bool


SECTION_TITLES = {"entities": "## Entities", "passages": "## Passages"}


def render(header: str, packed: list[Packed]) -> str:
    """The text: the header line, then each section's title and its items, entities first."""
    lines = [header] if header else []
    for section, title in SECTION_TITLES.items():
        items = [p.text for p in packed if p.candidate.section == section]
        if items:
            lines += [title, *items]
    return "\n".join(lines)


def pack(header: str, candidates, budget: int, max_items: int,
         counter: TokenCounter) -> tuple[str, list[Packed], int]:
    """(the rendered text, the items kept in order of value, the text's tokens). candidates: an iterable,
    read lazily in order of value; reading stops at max_items kept, or when no line could fit any more."""
    used = counter.count(header) if header else 0
    if used > budget:
        return "", [], 0
    kept: list[Packed] = []
    opened: set[str] = set()
    for candidate in candidates:
        if len(kept) >= max_items or budget - used < MIN_LINE_TOKENS:
            break
        title_cost = 0 if candidate.section in opened else counter.count(SECTION_TITLES[candidate.section])
        item = _fit(candidate, budget - used - title_cost, counter)
        if item is None:
            continue
        kept.append(item)
        opened.add(candidate.section)
        used += title_cost + item.tokens
    text = render(header, kept)
    tokens = counter.count(text)
    while kept and tokens > budget:  # lines joined count as their sum; this is the proof
        kept.pop()
        text = render(header, kept)
        tokens = counter.count(text)
    return text, kept, tokens


def _fit(candidate: Candidate, room: int, counter: TokenCounter) -> Packed | None:
    if room <= 0 or (candidate.body and room < MIN_PASSAGE_TOKENS):
        return None
    whole = f"{candidate.head}\n{candidate.body}" if candidate.body else candidate.head
    tokens = counter.count(whole)
    if tokens <= room:
        return Packed(candidate, whole, tokens, False)
    if not candidate.body:
        return None
    head_tokens = counter.count(candidate.head)
    body_room = room - head_tokens - counter.count(ELLIPSIS)
    if head_tokens + 1 > room or body_room < 1:
        return None
    cut = trim(candidate.body, body_room, counter)
    if not cut:
        return None
    text = f"{candidate.head}\n{cut}{ELLIPSIS}"
    tokens = counter.count(text)
    while tokens > room and cut:  # a cut that reads differently from the whole text's tokens
        cut = trim(cut, max(0, body_room - (tokens - room)), counter, strict=True)
        text = f"{candidate.head}\n{cut}{ELLIPSIS}"
        tokens = counter.count(text)
    return Packed(candidate, text, tokens, True) if cut and tokens <= room else None


def trim(text: str, budget: int, counter: TokenCounter, strict: bool = False) -> str:
    """The longest start of text, cut at a sentence or line end, within budget tokens ("" if no
    sentence fits). strict: cut before the last boundary even if the text fits."""
    limit = counter.prefix_within(text, budget)
    if limit >= len(text) and not strict:
        return text.rstrip()
    window = text[:limit if limit < len(text) else max(0, len(text) - 1)]
    ends = [m.start() for m in _BOUNDARY.finditer(window)]
    if limit < len(text) and _ends_at_boundary(text, limit):
        ends.append(limit)
    return window[:ends[-1]].rstrip() if ends else ""


def _ends_at_boundary(text: str, at: int) -> bool:
    return at > 0 and text[at - 1] in ".!?:;" and (at == len(text) or text[at].isspace())

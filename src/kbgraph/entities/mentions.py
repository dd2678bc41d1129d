"""Finding entity mentions in text: explicit links and whole-word name matches.

Matching is token-based (a dictionary of name token sequences), so it costs one
lookup per word whatever the number of entities. Rules, in the order they apply:
- accent-folded, whole words only, longest form first;
- a form written with capitals matches only that capitalisation; an all-lower-case
  form (``authsvc``, ``k8s``) matches any case;
- a common English word ("Data", "Growth") must be capitalised and not open a sentence;
- a form that names two entities (a shared first name "Sam", a shared alias) is linked
  only when the document corroborates exactly one of them (its full name, a link,
  a frontmatter reference, or being that entity's page); otherwise it is left unlinked.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from .common_words import COMMON_WORDS
from ..model import Link, Mention
from .names import fold

MAX_WORD_CHARS = 100
# Forms that never outrank another entity's name or alias for the same words: a derived first name, and a
# name the user confirmed for the entity in some notes ("Sam" confirmed as Sam Li is no alias of his).
IMPLICIT_KINDS = frozenset({"first-name", "confirmed"})
# A word; an apostrophe joins words (O'Brien, rock'n'roll) but a possessive 's stays out of it, so
# "Sam Li's" and "Dana's" name Sam Li and Dana.
_TOKEN = re.compile(r"[\w@]+(?:['’&+](?![sS]\b)[\w]+)*")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n\s*(?:[-*+>#]+\s*|\d+[.)]\s*)?)$")


@dataclass(frozen=True)
class Form:
    """A surface form of an entity: its name, an alias, or a person's first name."""

    entity_id: int
    surface: str
    kind: str  # "name" | "alias" | "first-name" | "confirmed"


@dataclass(frozen=True)
class _Entry:
    tokens: tuple[str, ...]
    gaps: tuple[str, ...]
    words: tuple[str, ...]  # folded words as written, for case checks
    case_sensitive: bool
    common_word: bool
    entity_id: int
    explicit: bool


def derived_first_name(name: str) -> str | None:
    """A person's first name, usable as an implicit alias when it is distinctive enough."""
    parts = name.split()
    if len(parts) < 2:
        return None
    first = parts[0].strip(".,")
    if len(first) < 3 or not first[0].isupper() or first.lower() in COMMON_WORDS or "." in first:
        return None
    return first


class MentionMatcher:
    """Finds forms of known entities in text."""

    def __init__(self, forms: list[Form]):
        # first word -> second word (None for one-word forms) -> entries, longest first
        self._by_first: dict[str, dict[str | None, list[_Entry]]] = {}
        longest = 1
        for form in forms:
            entry = _entry(form)
            if entry is not None:
                second = entry.tokens[1] if len(entry.tokens) > 1 else None
                self._by_first.setdefault(entry.tokens[0], {}).setdefault(second, []).append(entry)
                longest = max(longest, len(entry.tokens))
        for by_second in self._by_first.values():
            for entries in by_second.values():
                entries.sort(key=lambda e: (-len(e.tokens), not e.explicit))
        self._longest = longest
        # One regex finds every whole word that starts a name; a trie keeps it fast for many names.
        self._first_words = re.compile(
            r"(?<![\w@])(?<!\w['’&+])" + trie_pattern(self._by_first) + r"(?![\w@])(?!['’&+](?![sS]\b)\w)"
        )

    def scan(self, text: str) -> list[tuple[int, int, str, frozenset[int]]]:
        """(start, end, surface, candidate entity ids) for each non-overlapping match, in order."""
        if not self._by_first:
            return []
        folded = fold(text)
        lowered = _lower(folded)
        out = []
        resume = 0
        for m in self._first_words.finditer(lowered):
            start = m.start()
            if start < resume:
                continue
            by_second = self._by_first[m.group()]
            # Only the words a name could span are tokenised: the rest of the text never is.
            window = [(start, m.end(), m.group())]
            if len(by_second) > 1 or None not in by_second:
                for following in _TOKEN.finditer(lowered, m.end()):
                    window.append((following.start(), following.end(), following.group()))
                    if len(window) >= self._longest:
                        break
            longer = by_second.get(window[1][2]) if len(window) > 1 else None
            entries = (longer or []) + by_second.get(None, [])
            matched = self._match_at(folded, window, 0, entries)
            if matched is None:
                continue
            length, candidates = matched
            end = window[length - 1][1]
            out.append((start, end, text[start:end], candidates))
            resume = end
        return out

    def _match_at(self, folded, tokens, i, entries):
        best_len, explicit, implicit = 0, set(), set()
        for entry in entries:
            n = len(entry.tokens)
            if n < best_len:
                break
            if i + n > len(tokens) or not _tokens_match(folded, tokens, i, entry):
                continue
            start, end = tokens[i][0], tokens[i + n - 1][1]
            if entry.case_sensitive and any(
                folded[tokens[i + k][0]:tokens[i + k][1]] != entry.words[k] for k in range(n)
            ):
                continue
            if entry.common_word and _SENTENCE_START.search(folded, max(0, start - 40), start) is not None:
                continue
            if _hyphen_joined(folded, start, end):
                continue  # "Data-Intensive" is not the team "Data"
            best_len = n
            (explicit if entry.explicit else implicit).add(entry.entity_id)
        if not best_len:
            return None
        # An explicit name or alias outranks a derived first name for the same words.
        return best_len, frozenset(explicit or implicit)


def _lower(text: str) -> str:
    """Case-folded text of the same length (ß stays ß), so offsets found in it fit the original."""
    lowered = text.casefold()
    if len(lowered) == len(text):
        return lowered
    return "".join(c if len(c.casefold()) != 1 else c.casefold() for c in text)


def trie_pattern(words) -> str:
    """A regex matching exactly the given words, factored by common prefixes, longest first: Python's
    re tries an alternation of many literals one by one at every position, a trie one character."""
    trie: dict = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def build(node: dict) -> str:
        branches = [re.escape(char) + build(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return "(?:" + (build(trie) or "(?!)") + ")"


def _hyphen_joined(text: str, start: int, end: int) -> bool:
    before = start >= 2 and text[start - 1] in "-/" and text[start - 2].isalnum()
    after = end + 1 < len(text) and text[end] in "-/" and text[end + 1].isalnum()
    return before or after


def _entry(form: Form) -> _Entry | None:
    folded = fold(form.surface.strip())
    spans = [(m.start(), m.end()) for m in _TOKEN.finditer(folded)]
    if not spans:
        return None
    tokens = tuple(_lower(folded[s:e]) for s, e in spans)
    if any(len(token) > MAX_WORD_CHARS for token in tokens):
        return None  # no word of a name is that long; the trie over it would recurse per character
    gaps = tuple(folded[spans[k][1] : spans[k + 1][0]].strip() for k in range(len(spans) - 1))
    words = tuple(folded[s:e] for s, e in spans)
    case_sensitive = any(w != w.lower() for w in words)
    common = len(tokens) == 1 and tokens[0] in COMMON_WORDS
    if common and not case_sensitive:
        return None  # an all-lower-case common word ("data") would match everywhere
    return _Entry(tokens, gaps, words, case_sensitive, common, form.entity_id, form.kind not in IMPLICIT_KINDS)


def _tokens_match(folded: str, tokens, i: int, entry: _Entry) -> bool:
    for k in range(1, len(entry.tokens)):
        if tokens[i + k][2] != entry.tokens[k]:
            return False
        gap = folded[tokens[i + k - 1][1] : tokens[i + k][0]]
        if "\n\n" in gap:
            return False
        if gap.strip() != entry.gaps[k - 1] and not _numbered_gap(gap.strip(), entry.gaps[k - 1], entry.tokens[k]):
            return False
    return True


def _numbered_gap(written: str, expected: str, next_token: str) -> bool:
    """"KEP 2433" names KEP-2433 (and "RFC-7231" RFC 7231): before a number, a hyphen and a space agree."""
    return next_token.isdigit() and {written, expected} <= {"", "-"}


def find_document_mentions(
    chunks: list[tuple[int, int, str]],
    links: list[Link],
    body_offset: int,
    matcher: MentionMatcher,
    resolve_link,
    anchored: set[int],
) -> tuple[list[tuple[int | None, Mention]], int]:
    """Mentions in one document, each with its chunk id, and the number of ambiguous forms left unlinked.

    chunks: (chunk id, absolute start, text); links: the document's links (body offsets);
    resolve_link(link) -> entity id or None; anchored: entities the document already
    names unambiguously outside its text (its page entity, frontmatter references).
    """
    link_spans = []
    found: list[tuple[int | None, Mention]] = []
    chunk_at = _ChunkFinder(chunks)
    for link in links:
        entity_id = resolve_link(link)
        start, end = body_offset + link.start, body_offset + link.end
        link_spans.append((start, end))
        if entity_id is not None:
            chunk_id = chunk_at(start)
            kind = "wikilink" if link.kind == "wikilink" else "link"
            found.append((chunk_id, Mention(entity_id, start, end, link.alias or link.target, kind)))
    corroborated = set(anchored) | {m.entity_id for _, m in found}
    in_link = _Spans(link_spans)
    pending = []
    for chunk_id, chunk_start, text in chunks:
        in_code = _Spans(_fenced_code(text))
        for start, end, surface, candidates in matcher.scan(text):
            abs_start, abs_end = chunk_start + start, chunk_start + end
            if in_link.covers(abs_start) or in_code.covers(start):
                continue  # a link was counted already; code is not prose about an entity
            if len(candidates) == 1:
                (entity_id,) = candidates
                corroborated.add(entity_id)
                found.append((chunk_id, Mention(entity_id, abs_start, abs_end, surface, "text")))
            else:
                pending.append((chunk_id, abs_start, abs_end, surface, candidates))
    ambiguous = 0
    for chunk_id, start, end, surface, candidates in pending:
        chosen = candidates & corroborated
        if len(chosen) == 1:
            found.append((chunk_id, Mention(next(iter(chosen)), start, end, surface, "text")))
        else:
            ambiguous += 1
    found.sort(key=lambda pair: pair[1].start)
    return found, ambiguous


def _fenced_code(text: str) -> list[tuple[int, int]]:
    if "```" not in text and "~~~" not in text:
        return []
    from ..base.markdown import parse_sections

    return parse_sections(text)[1]


class _Spans:
    """Whether a position falls in any of some (start, end) spans, by bisection over the spans merged
    and sorted: a note of 100k links asks this once per name found, which a scan of every span made
    quadratic (106 s to index one such note)."""

    def __init__(self, spans: list[tuple[int, int]]):
        merged: list[list[int]] = []
        for start, end in sorted(spans):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            elif start < end:
                merged.append([start, end])
        self._starts = [start for start, _ in merged]
        self._ends = [end for _, end in merged]

    def covers(self, position: int) -> bool:
        at = bisect_right(self._starts, position) - 1
        return at >= 0 and position < self._ends[at]


class _ChunkFinder:
    """The id of the chunk holding a position (None: none does), by bisection over the chunks' starts,
    for the same reason as _Spans: once per link. Chunks are sections of the text, so they do not
    overlap; of chunks starting at one place, the longest is the one that can hold the position."""

    def __init__(self, chunks: list[tuple[int, int, str]]):
        self._chunks = sorted(chunks, key=lambda chunk: (chunk[1], len(chunk[2])))
        self._starts = [start for _, start, _ in self._chunks]

    def __call__(self, position: int) -> int | None:
        at = bisect_right(self._starts, position) - 1
        if at < 0:
            return None
        chunk_id, start, text = self._chunks[at]
        return chunk_id if position < start + len(text) else None

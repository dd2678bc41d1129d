"""Sections into chunks: the unit of search.

A section that fits in the size budget is one chunk; a longer one is split at
paragraph boundaries (then sentences, then words) so that no chunk is cut
mid-word where whitespace allows. Chunk keys are stable: they depend only on the
heading path, the text, and a counter for identical sections.
"""

from __future__ import annotations

import hashlib
import re

from ..model import Chunk, Section

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_WHITESPACE = re.compile(r"\s")
_NON_SPACE = re.compile(r"\S")  # \s is what str.isspace (and so str.strip) counts as whitespace
_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # str.splitlines' line ends (\r\n is one)
_FIRST_LINE = re.compile(f"[^{_LINE_BREAKS}]*(?:\r\n|[{_LINE_BREAKS}])?")


def chunk_sections(
    sections: list[Section], body_offset: int, full_text: str, max_chars: int = 1500
) -> list[Chunk]:
    """Chunks of a document's sections; offsets and lines refer to the whole file."""
    chunks: list[Chunk] = []
    seen_keys: dict[str, int] = {}
    line, counted_to = 1, 0  # line numbers counted forward once, not from the top per chunk
    for section in sections:
        if not _NON_SPACE.search(section.text) or _heading_only(section):
            continue  # a heading with no body adds nothing its children don't carry
        for start, end in _split(section.text, max_chars):
            text = section.text[start:end]
            abs_start = body_offset + section.start + start
            raw_key = "\x1f".join(section.heading_path) + "\x00" + text
            occurrence = seen_keys.get(raw_key, 0)
            seen_keys[raw_key] = occurrence + 1
            key = hashlib.blake2b(f"{raw_key}\x00{occurrence}".encode(), digest_size=8).hexdigest()
            line += full_text.count("\n", counted_to, abs_start)
            counted_to = abs_start
            chunks.append(
                Chunk(
                    key=key,
                    ordinal=len(chunks),
                    heading_path=section.heading_path,
                    start=abs_start,
                    end=abs_start + len(text),
                    line=line,
                    text=text,
                )
            )
    return chunks


def _heading_only(section: Section) -> bool:
    if section.level == 0:
        return False
    # The first line as splitlines cuts it, like parse_sections (\u2028 or \f also end the heading line),
    # found without splitting (or copying) the rest of a section that may be megabytes long.
    first_line = _FIRST_LINE.match(section.text)
    return _NON_SPACE.search(section.text, first_line.end() if first_line else 0) is None


def _split(text: str, max_chars: int) -> list[tuple[int, int]]:
    """(start, end) pieces of text, each ≤ max_chars where a boundary allows, trimmed of blank edges."""
    if len(text) <= max_chars:
        return [_trim(text, 0, len(text))]
    pieces: list[tuple[int, int]] = []
    for para_start, para_end in _units(text, 0, len(text), _PARAGRAPH_BREAK):
        if para_end - para_start > max_chars:
            sentences = _units(text, para_start, para_end, _SENTENCE_END)
            units = [u for s in sentences for u in _hard_split(text, s, max_chars)]
        else:
            units = [(para_start, para_end)]
        for start, end in units:
            if pieces and end - pieces[-1][0] <= max_chars:
                pieces[-1] = (pieces[-1][0], end)
            else:
                pieces.append((start, end))
    return [_trim(text, s, e) for s, e in pieces if text[s:e].strip()]


def _units(text: str, start: int, end: int, separator: re.Pattern) -> list[tuple[int, int]]:
    units, cursor = [], start
    for match in separator.finditer(text, start, end):
        units.append((cursor, match.start()))
        cursor = match.end()
    units.append((cursor, end))
    return [(s, e) for s, e in units if e > s]


def _hard_split(text: str, span: tuple[int, int], max_chars: int) -> list[tuple[int, int]]:
    start, end = span
    out = []
    while end - start > max_chars:
        spaces = [m.start() for m in _WHITESPACE.finditer(text, start + max_chars // 2, start + max_chars)]
        cut = spaces[-1] if spaces else start + max_chars
        out.append((start, cut))
        start = cut
    out.append((start, end))
    return out


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in " \t\n":
        start += 1
    while end > start and text[end - 1] in " \t\n":
        end -= 1
    return start, end

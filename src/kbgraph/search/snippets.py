"""A snippet made fit to show: whitespace runs (newlines, indents) read as one space, with the
highlights moved along, so every interface renders the same excerpt its own way."""

from __future__ import annotations

from ..model import Snippet

FALLBACK_CHARS = 200  # a section with no keyword snippet shows its opening


def tidy(snippet: Snippet) -> Snippet:
    """The snippet's text with each whitespace run one space and none at either end; each highlight
    still on the same characters."""
    text, moved, at = [], {}, 0  # moved: an offset in the original -> the same place in the tidy text
    pending = False  # whitespace seen since the last kept character
    for i, char in enumerate(snippet.text):
        if char.isspace():
            pending = True
            continue
        if pending and text:
            text.append(" ")
            at += 1
        pending = False
        moved[i] = at
        text.append(char)
        at += 1
    spans = []
    for start, end in snippet.highlights:
        kept = [moved[i] for i in range(start, end) if i in moved]
        if kept:
            spans.append((kept[0], kept[-1] + 1))
    return Snippet("".join(text), tuple(spans))


def opening(text: str) -> Snippet:
    """The first FALLBACK_CHARS of a section's text, whitespace tidied, nothing highlighted."""
    return Snippet(" ".join(text.split())[:FALLBACK_CHARS])

"""The values the document graph is made of: relation types, their scores, and a computed edge."""

from __future__ import annotations

from dataclasses import dataclass

# Every type a reader knows; a stored row of any other type is skipped, never an error.
RELATION_TYPES = ("references", "continues", "duplicate-of", "parent", "sibling")
STORED_TYPES = ("references", "continues", "duplicate-of")  # the rest are derived from paths when read

# Scores: 1.0 is certain (an explicit link, a section split in two, identical text); lower is weaker.
LINK_SCORE = 1.0
MENTION_SCORE = 0.6  # a document's title or file name written out in another document's text
EMBEDDING_SCORE_CAP = 0.99  # similarity by meaning never counts as certain
SPLIT_SCORE = 1.0  # the next chunk of a section split across chunks
SERIES_SCORE = 0.9  # the next note of a dated series
NEAR_DUPLICATE_CAP = 0.99  # texts that differ are never scored as identical
PARENT_SCORE = 0.5  # the nearest folder (or its index note); halved for each level up
SIBLING_SCORE = 0.3


@dataclass(frozen=True)
class Edge:
    """A relation computed at index time, from source to target (documents, optionally chunks)."""

    source: int
    target: int
    type: str
    score: float
    evidence: str
    source_chunk: int | None = None
    target_chunk: int | None = None

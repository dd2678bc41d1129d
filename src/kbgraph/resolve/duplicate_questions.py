"""Which questions in the decision log are about duplicate pages (`kbg resolve duplicates`), apart from
resolve/duplicate_pages.py so that the index's decision logging can keep them without importing
the code that answers them (which re-indexes)."""

from __future__ import annotations

from ..access import LOCAL
from ..store.base import Store

DUPLICATE_KIND = "duplicate-pages"


def is_duplicate_question(question: dict) -> bool:
    return isinstance(question.get("features"), dict) and question["features"].get("kind") == DUPLICATE_KIND


def open_duplicate_pairs(store: Store) -> set[tuple[str, str]]:
    """The (surface key, candidate key) of every open duplicate question: an index run keeps them (it
    withdraws only the name questions no name raises any more)."""
    return {(q["surface_key"], q["candidate_key"]) for q in store.decisions(LOCAL, "asked")
            if is_duplicate_question(q)}

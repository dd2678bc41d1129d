"""The extraction stage of `kbg index`: pattern rules over the sentences of changed documents.

What the rules find becomes a suggestion with its evidence sentence, never a relation: the user
accepts or rejects it (`kbg entity suggest-relations`). A rejected suggestion stays rejected however
often the text repeats it; a pending one that no sentence states any more is dropped.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

from .rules import _NEGATION as NEGATED
from .rules import Span, extract, sentences


def extract_from_chunks(chunks, mentions, types: dict[int, str], vocab) -> list[dict]:
    """Relations stated in chunks (id, start, text) given mentions (entity id, chunk id, start, end)."""
    by_chunk: dict[int, list[tuple[int, int, int]]] = {}
    for entity_id, chunk_id, start, end in mentions:
        by_chunk.setdefault(chunk_id, []).append((entity_id, start, end))
    found = []
    for chunk_id, chunk_start, text in chunks:
        in_chunk = by_chunk.get(chunk_id)
        if not in_chunk or len(in_chunk) < 2:
            continue
        if _ACTION_HEADING.match(text):
            found += _action_items(text, chunk_start, in_chunk, types, vocab)
        for s, e in sentences(text):
            spans = [Span(a - chunk_start - s, b - chunk_start - s, eid, types.get(eid, ""))
                     for eid, a, b in in_chunk if s <= a - chunk_start and b - chunk_start <= e]
            if len(spans) < 2:
                continue
            for rel in extract(text[s:e], spans):
                rtype = vocab.types.get(rel.type)
                if rtype is None or not rtype.allows(types.get(rel.source, ""), types.get(rel.target, "")):
                    continue
                source, target = rel.source, rel.target
                if rtype.symmetric and source > target:
                    source, target = target, source
                found.append({"source_id": source, "target_id": target, "type": rel.type,
                              "confidence": rel.confidence, "rule": rel.rule, "start": chunk_start + s + rel.start,
                              "end": chunk_start + s + rel.end, "sentence": " ".join(text[s:e].split())})
    return found


_ACTION_HEADING = re.compile(r"\s*#{1,6}\s*(?:action\s+items?|todos?|to-dos?|next\s+steps|follow[- ]ups?)\b",
                             re.IGNORECASE)
_ASSIGNED = re.compile(r"\s*(?:to|will|should|owns|takes)\s", re.IGNORECASE)


def _action_items(text: str, chunk_start: int, in_chunk, types: dict[int, str], vocab) -> list[dict]:
    """"- Arjun to finish the Auth Service rotation": a person taking an action on a project
    contributes to it (auto-low: an action item is weaker evidence than a stated relation)."""
    found, offset = [], 0
    for line in text.split("\n"):
        start, end = chunk_start + offset, chunk_start + offset + len(line)
        offset += len(line) + 1
        if not re.match(r"\s*(?:[-*+]|\d+[.)])\s", line):
            continue
        spans = sorted((a, b, eid) for eid, a, b in in_chunk if start <= a and b <= end)
        if len(spans) < 2 or types.get(spans[0][2]) != "person":
            continue
        person_end = spans[0][1] - start
        if not _ASSIGNED.match(line[person_end:]) or NEGATED.search(line):
            continue
        for a, b, eid in spans[1:]:
            if types.get(eid) == "project" and vocab.types["contributes-to"].allows("person", "project"):
                found.append({"source_id": spans[0][2], "target_id": eid, "type": "contributes-to",
                              "confidence": "auto-low", "rule": "action-item", "start": spans[0][0], "end": b,
                              "sentence": " ".join(line.split())})
                break
    return found


def extract_stage(run) -> None:
    """Ask the configured LLM about the documents this run re-read (pattern suggestions were stored
    with their mentions). Each document's LLM evidence is replaced only when the model answered for it."""
    from ..model import Problem
    from .llm import LlmUnavailable, extract_document

    store = run.store
    names = {e.id: (e.name, e.type) for e in store.list_entities()}
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    for doc_id, (path, _) in sorted(run.extracted.items()):
        try:
            suggested, problems = extract_document(run.config.llm, store, run.config.vocabulary, doc_id, path,
                                                   names)
        except LlmUnavailable as exc:
            run.problems.append(Problem("kbgraph.toml", f"LLM extractor skipped: {exc}", "warning"))
            return  # what the model said before stays
        with store.transaction():
            store.replace_suggestion_evidence(doc_id, path, suggested, now, kind="llm")
            store.drop_unstated_suggestions()
        run.problems.extend(Problem(f"{path}:{line}", f"LLM extractor: {message}", "warning")
                            for line, message in problems)


def cooccurrence_stage(run) -> None:
    """People seen together in at least N meetings (kbgraph.toml [extract] cooccurrence, default 3)
    may collaborate: a low-confidence suggestion whose evidence is the list of meetings."""
    store = run.store
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    minimum = run.config.cooccurrence
    with store.transaction():  # turned off (0): the pending ones go too
        store.replace_cooccurrence(store.cooccurring_people(minimum) if minimum else [], now)

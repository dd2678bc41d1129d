"""The extraction stage of `kbg index`: pattern rules over the sentences of changed documents.

What the rules find becomes a suggestion with its evidence sentence, never a relation: the user
accepts or rejects it (`kbg entity suggest-relations`). A rejected suggestion stays rejected however
often the text repeats it; a pending one that no sentence states any more is dropped.
"""

from __future__ import annotations

import re

from .. import clock
from ..access import LOCAL
from .rules import _NEGATION as NEGATED
from .rules import Span, extract, sentences


def extract_from_chunks(chunks, mentions, types: dict[int, str], vocab, page_entity: int | None = None,
                        known_names: frozenset[str] | None = None) -> list[dict]:
    """Relations stated in chunks (id, start, text) given mentions (entity id, chunk id, start, end).

    page_entity: the entity whose page this document is. On its own page, "this proposal" / "this
    project" names it, and a "See also" line relates it to what the line names.
    known_names: name keys of every known entity; given, a technology of the bundled list or an
    @handle that names no entity may be an end too ("new": created when the suggestion is accepted)."""
    by_chunk: dict[int, list[tuple[int, int, int]]] = {}
    for entity_id, chunk_id, start, end in mentions:
        by_chunk.setdefault(chunk_id, []).append((entity_id, start, end))
    types = dict(types)
    found = []
    for chunk_id, chunk_start, text in chunks:
        in_chunk = by_chunk.get(chunk_id, [])
        if page_entity is not None and in_chunk:
            in_chunk = in_chunk + [(page_entity, chunk_start + m.start(), chunk_start + m.end())
                                   for m in _SELF_REFERENCE.finditer(text)]
        if known_names is not None and in_chunk:
            in_chunk = in_chunk + _new_ends(text, chunk_start, in_chunk, known_names, types)
        if len(in_chunk) < 2 and not (page_entity is not None and in_chunk):
            continue
        if _ACTION_HEADING.match(text):
            found += _action_items(text, chunk_start, in_chunk, types, vocab)
        for s, e in sentences(text):
            spans = [Span(a - chunk_start - s, b - chunk_start - s, eid, types.get(eid, ""))
                     for eid, a, b in in_chunk if s <= a - chunk_start and b - chunk_start <= e]
            if page_entity is not None and _SEE_ALSO.match(text, s, e):
                found += _see_also(text[s:e], chunk_start + s, spans, page_entity, types, vocab)
                continue
            if len(spans) < 2:
                continue
            for rel in extract(text[s:e], spans):
                rtype = vocab.types.get(rel.type)
                if rtype is None or not rtype.allows(types.get(rel.source, ""), types.get(rel.target, "")):
                    continue
                source, target = rel.source, rel.target
                if rtype.symmetric and _order(source) > _order(target):
                    source, target = target, source
                found.append({**_end("source", source), **_end("target", target), "type": rel.type,
                              "confidence": rel.confidence, "rule": rel.rule, "start": chunk_start + s + rel.start,
                              "end": chunk_start + s + rel.end, "sentence": " ".join(text[s:e].split())})
    return found


def _new_ends(text: str, chunk_start: int, in_chunk, known_names: frozenset[str], types: dict) -> list:
    """Spans of clear-kind names no entity has yet, keyed "type:name" (types gets their type)."""
    from ..entities.names import name_key
    from .candidates import clear_kind_candidates

    taken = [(a - chunk_start, b - chunk_start) for _, a, b in in_chunk]
    out = []
    for cand in clear_kind_candidates(text):
        if name_key(cand.surface) in known_names or any(a < cand.end and cand.start < b for a, b in taken):
            continue
        key = f"{cand.type}:{cand.surface}"
        types[key] = cand.type
        out.append((key, chunk_start + cand.start, chunk_start + cand.end))
    return out


def _order(entity) -> tuple:
    """Symmetric relations are stored smaller id first; a new end ("type:name") sorts after every id."""
    return (1, entity) if isinstance(entity, str) else (0, entity)


def _end(role: str, entity) -> dict:
    return {f"{role}_new": entity} if isinstance(entity, str) else {f"{role}_id": entity}


# "This KEP", "this proposal": on an entity's own page, the entity itself (no other coreference).
_SELF_REFERENCE = re.compile(
    r"\b[Tt]his\s+(?:KEP|PEP|RFC|ADR|proposal|project|document|design|enhancement|feature|spec|service|team"
    r"|initiative|effort)\b")
# A line that opens with "See also" (or "Related:") on a page relates the page's entity to what it names.
_SEE_ALSO = re.compile(r"\s*(?:[-*+]\s+)?(?:\*\*|__)?(?:see\s+also|related(?:\s+\w+)?\s*:)", re.IGNORECASE)


def _see_also(sentence: str, offset: int, spans: list[Span], page_entity: int, types, vocab) -> list[dict]:
    rtype = vocab.types.get("related-to")
    if rtype is None or NEGATED.search(sentence):
        return []
    found, seen = [], set()
    for span in spans:
        other = span.entity
        if other == page_entity or other in seen or not rtype.allows(types.get(page_entity, ""), span.type):
            continue
        if _inside_label_after_words(sentence, span.start):
            continue  # "[Pruning for Custom Resources KEP]" is not about "Custom Resources"
        seen.add(other)
        source, target = sorted((page_entity, other), key=_order) if rtype.symmetric else (page_entity, other)
        found.append({**_end("source", source), **_end("target", target), "type": "related-to",
                      "confidence": "auto-high",
                      "rule": "see-also", "start": offset + span.start, "end": offset + span.end,
                      "sentence": " ".join(sentence.split())})
    return found


def _inside_label_after_words(sentence: str, position: int) -> bool:
    """Whether position is inside a [link label] with words before it."""
    opened = sentence.rfind("[", 0, position)
    return opened > sentence.rfind("]", 0, position) and sentence[opened + 1:position].strip("[ ") != ""


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
        spans = sorted(((a, b, eid) for eid, a, b in in_chunk if start <= a and b <= end), key=lambda t: t[:2])
        if len(spans) < 2 or types.get(spans[0][2]) != "person":
            continue
        person_end = spans[0][1] - start
        if not _ASSIGNED.match(line[person_end:]) or NEGATED.search(line):
            continue
        for a, b, eid in spans[1:]:
            if types.get(eid) == "project" and vocab.types["contributes-to"].allows("person", "project"):
                found.append({**_end("source", spans[0][2]), **_end("target", eid), "type": "contributes-to",
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
    names = {e.id: (e.name, e.type) for e in store.list_entities(LOCAL)}
    now = clock.now_iso()
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
    now = clock.now_iso()
    minimum = run.config.cooccurrence
    with store.transaction():  # turned off (0): the pending ones go too
        store.replace_cooccurrence(store.cooccurring_people(minimum) if minimum else [], now, minimum)

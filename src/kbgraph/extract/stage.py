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
from .self_reference import PageSelf  # noqa: F401  (callers build the page they pass from here)
from .self_reference import PRONOUN_CONFIDENCE, opening_subject, page_of, pronoun, pronoun_reason, self_spans


def extract_from_chunks(chunks, mentions, types: dict[int, str], vocab, page_entity=None,
                        known_names: frozenset[str] | None = None) -> list[dict]:
    """Relations stated in chunks (id, start, text) given mentions (entity id, chunk id, start, end).

    page_entity: the page this document is (a PageSelf, or its entity id). On its own page, "this
    proposal", "this <kind or name word>", its identifier and (for a team or project) "we" name it,
    and a "See also" line or phrase relates it to what follows. A pronoun opening a sentence ("It
    requires ...") names the subject of the sentence before, at lower confidence.
    known_names: name keys of every known entity; given, a technology of the bundled list or an
    @handle that names no entity may be an end too ("new": created when the suggestion is accepted)."""
    page = page_of(page_entity)
    by_chunk: dict[int, list[tuple[int, int, int]]] = {}
    for entity_id, chunk_id, start, end in mentions:
        by_chunk.setdefault(chunk_id, []).append((entity_id, start, end))
    types = dict(types)
    found = []
    for chunk_id, chunk_start, text in chunks:
        in_chunk = by_chunk.get(chunk_id, [])
        if page is not None and in_chunk:
            in_chunk = _with_page(in_chunk, [(chunk_start + a, chunk_start + b) for a, b in self_spans(text, page)],
                                  page.entity)
        if known_names is not None and in_chunk:
            in_chunk = in_chunk + _new_ends(text, chunk_start, in_chunk, known_names, types)
        if len(in_chunk) < 2 and not (page is not None and in_chunk):
            continue
        if _ACTION_HEADING.match(text):
            found += _action_items(text, chunk_start, in_chunk, types, vocab)
        before: tuple[int, object] | None = None  # (end, subject) of the sentence before, in this paragraph
        for s, e in sentences(text):
            sentence = text[s:e]
            spans = [Span(a - chunk_start - s, b - chunk_start - s, eid, types.get(eid, ""))
                     for eid, a, b in in_chunk if s <= a - chunk_start and b - chunk_start <= e]
            referred = _pronoun_span(sentence, spans, text[before[0]:s] if before else None,
                                     before[1] if before else None, page)
            if referred is not None:
                spans.append(referred[0])
            before = (e, opening_subject(sentence, spans))
            if page is not None and _SEE_ALSO.match(text, s, e):
                found += _see_also(sentence, chunk_start + s, spans, page.entity, types, vocab)
            elif page is not None:
                found += _see_also_inline(sentence, chunk_start + s, spans, page.entity, types, vocab)
            if len(spans) < 2:
                continue
            for rel in extract(sentence, spans):
                rtype = vocab.types.get(rel.type)
                if rtype is None or not rtype.allows(types.get(rel.source, ""), types.get(rel.target, "")):
                    continue
                source, target = rel.source, rel.target
                if rtype.symmetric and _order(source) > _order(target):
                    source, target = target, source
                confidence, rule = rel.confidence, rel.rule
                if referred is not None and rel.start == referred[0].start:  # its subject is the pronoun
                    confidence, rule = PRONOUN_CONFIDENCE, f"{rule}; {referred[1]}"
                found.append({**_end("source", source), **_end("target", target), "type": rel.type,
                              "confidence": confidence, "rule": rule, "start": chunk_start + s + rel.start,
                              "end": chunk_start + s + rel.end, "sentence": " ".join(sentence.split())})
    return _unique(found)


def _with_page(in_chunk: list, own: list[tuple[int, int]], page: object) -> list:
    """The chunk's mentions with the page's self-references added: one inside a mention is dropped
    (the mention says more), a mention inside one gives way ("RFC 2119" on RFC 2119's page is the page)."""
    own = [(a, b) for a, b in own
           if not any(m_a <= a and b <= m_b and (m_a, m_b) != (a, b) for _, m_a, m_b in in_chunk)]
    kept = [m for m in in_chunk if not any(a <= m[1] and m[2] <= b for a, b in own)]
    return kept + [(page, a, b) for a, b in own if not any(m_a < b and a < m_b for _, m_a, m_b in kept)]


def _pronoun_span(sentence: str, spans: list[Span], gap: str | None, subject, page):
    """(span, reason) for a pronoun opening the sentence, standing for the subject of the sentence
    before in the same paragraph, or, for "This" opening a paragraph, for the page; else None."""
    at = pronoun(sentence)
    if at is None or any(s.start < at[1] and at[0] < s.end for s in spans):
        return None
    word = sentence[at[0]:at[1]]
    paragraph_start = (gap is None or re.search(r"\n\s*\n", gap) is not None
                       or re.match(r"\s*(?:[-*+]|\d+[.)])\s", sentence) is not None)
    if paragraph_start:
        if page is None or word.lower() != "this":
            return None
        subject = page.entity
    if subject is None:
        return None
    return Span(at[0], at[1], subject, ""), pronoun_reason(word, paragraph_start)


def _unique(found: list[dict]) -> list[dict]:
    """One row per relation and place: a see-also phrase and a rule may both state one."""
    seen, out = set(), []
    for row in found:
        key = (row.get("source_id"), row.get("source_new"), row["type"], row.get("target_id"), row.get("target_new"),
               row["start"])
        if key not in seen:
            seen.add(key)
            out.append(row)
    return out


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


# A line that opens with "See also" (or "Related:") on a page relates the page's entity to what it names.
_SEE_ALSO = re.compile(r"\s*(?:[-*+]\s+)?(?:\*\*|__)?(?:see\s+also|related(?:\s+\w+)?\s*:|related\s*,)", re.IGNORECASE)
# "... (see also [RFC 546])", "(but see issue 22729)", "- see the [Stenciling] proposal": a pointer inside
# a sentence relates the page to the one name right after it.
_SEE_INLINE = re.compile(r"(?:\bsee\s+also|\bbut\s+see|(?<=[(\-–—]\s)see\s+the)\s+(?:the\s+)?(?:related\s+)?"
                         r"(?:discussion\s+(?:on|in|at)\s+)?(?:issue\s+|RFC\s+|CL\s+)?[\[*_`]*", re.IGNORECASE)


def _see_also(sentence: str, offset: int, spans: list[Span], page_entity, types, vocab,
              said: str | None = None) -> list[dict]:
    """related-to from the page to each span; said: the words that must not be negated (the sentence)."""
    rtype = vocab.types.get("related-to")
    if rtype is None or NEGATED.search(sentence if said is None else said):
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


def _see_also_inline(sentence: str, offset: int, spans: list[Span], page_entity, types, vocab) -> list[dict]:
    if "see" not in sentence.lower():
        return []
    out = []
    starts = {span.start: span for span in spans}
    for pointer in _SEE_INLINE.finditer(sentence):
        span = starts.get(pointer.end())
        if span is not None:
            out += _see_also(sentence, offset, [span], page_entity, types, vocab, sentence[pointer.start():span.end])
    return out


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

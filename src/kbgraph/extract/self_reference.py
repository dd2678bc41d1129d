"""The page talks about itself: the words of a page that name the page's own entity, and a pronoun
opening a sentence that names the subject of the sentence before.

Pure functions over text. On the page of "RFC 2119" (kind rfc, named "Key words"), "this RFC",
"this document", "the present proposal", "RFC 2119" / "RFC-2119" / "#2119" and the page's own name
are the page; "we" is the page when the page is a team's, a project's or an organisation's. "It
requires PostgreSQL." after "The Billing Service sends invoices." names the Billing Service, which is a
guess, so what the rules read from it is suggested at lower confidence, saying why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Hashable

# Words a page uses for itself whatever its kind: "this proposal", "this document".
_DOCUMENT_WORDS = ("KEP", "PEP", "RFC", "ADR", "proposal", "project", "document", "doc", "design", "draft",
                   "enhancement", "feature", "spec", "specification", "service", "team", "initiative", "effort",
                   "note", "page", "overview", "section", "change")
# Entity types whose page speaks as "we", unless the page is a document of a kind whose "we" is its
# authors ("we propose" in an RFC is its writers, not the RFC).
_WE_TYPES = ("team", "project", "organization")
_AUTHORED_KINDS = frozenset(("rfc", "proposal", "kep", "pep", "adr", "design", "decision", "spec", "doc", "document",
                             "meeting", "daily", "note"))
_NOT_NAME_WORDS = frozenset(("the", "and", "for", "with", "from", "into", "of", "to", "in", "on", "a", "an", "go",
                             "new", "support", "proposal", "design", "draft", "add", "use", "n/a", "none"))
_IDENTIFIER = re.compile(r"^\s*([A-Za-z][A-Za-z.]*)?[\s#-]*0*(\d{1,6})\s*$")


@dataclass(frozen=True)
class PageSelf:
    """The page a document is: its entity, and what the page may call itself."""

    entity: Hashable
    name: str = ""
    kind: str = ""  # the document's kind (rfc, proposal, service, team, ...)
    identifiers: tuple[str, ...] = ()  # "RFC 2119", "KEP-1287", "proposal 24301"
    entity_type: str = ""

    def words(self) -> tuple[str, ...]:
        """The page's own words that may follow "this": its kind and entity type, the capitalised words
        of its name ("this Atlas"; "this type" on "Type Parameters" is no self-reference) and the prefix
        of its identifiers ("this KEP")."""
        own = [self.kind, self.entity_type] + [w for w in re.findall(r"[^\W\d_][\w-]*", self.name) if w[0].isupper()]
        own += [m.group(1) for m in map(_IDENTIFIER.match, self.identifiers) if m and m.group(1)]
        return tuple(dict.fromkeys(w for w in own if w and len(w) > 2 and w.lower() not in _NOT_NAME_WORDS
                                   and w not in _DOCUMENT_WORDS))


def page_of(page) -> PageSelf | None:
    """A PageSelf from what callers pass: one already, an entity id (no name or kind known), or None."""
    if page is None or isinstance(page, PageSelf):
        return page
    return PageSelf(page)


_IDENTIFIER_NAME = re.compile(r"^[A-Za-z][A-Za-z.]{0,9}[\s#-]*\d{1,6}$")


def page_self(entity: Hashable, known: tuple[str, tuple[str, ...], str], kind: str = "") -> PageSelf:
    """The PageSelf of an entity's page from its (name, aliases, type) and the document's kind; a name
    or alias shaped like an identifier ("KEP-2291", "RFC 2119") is one."""
    name, aliases, entity_type = known
    identifiers = tuple(n for n in (name, *aliases) if _IDENTIFIER_NAME.match(n.strip()))
    return PageSelf(entity, name, kind or "", identifiers, entity_type)


def self_spans(text: str, page: PageSelf) -> list[tuple[int, int]]:
    """(start, end) of each place in text that names the page itself, in order."""
    out: list[tuple[int, int]] = []
    folded = None
    for needle, pattern in _patterns(replace(page, entity=None)):
        if needle:  # most chunks name neither the page's number nor its name: skip the scan
            folded = text.lower() if folded is None else folded
            if needle not in folded:
                continue
        for m in pattern.finditer(text):
            start = m.start()
            if m.group().lower().startswith(("issue", "pull")):  # a URL to the issue: the whole URL
                start = max(text.rfind(c, 0, start) for c in " \t\n([<\"'") + 1
            if not any(a < m.end() and start < b for a, b in out):
                out.append((start, m.end()))
    return sorted(out)


@lru_cache(maxsize=256)
def _patterns(page: PageSelf) -> tuple[tuple[str, re.Pattern], ...]:
    """(a word the text must hold for it to match, or "", pattern) of what names the page; compiled
    once for a page's chunks."""
    documents = "|".join(re.escape(w) for w in _DOCUMENT_WORDS)
    own = "|".join(sorted((re.escape(w) for w in page.words()), key=len, reverse=True))
    # The document words in any case ("This Proposal"), the page's own words as the page spells them.
    word = rf"(?:(?i:{documents}){'|' + own if own else ''})"
    patterns = [("", rf"\b(?:[Tt]his|[Tt]he\s+present)\s+(?:{word}\s+)*{word}(?![-\w])")]
    if page.entity_type in _WE_TYPES and page.kind.lower() not in _AUTHORED_KINDS:
        patterns.append(("", r"\b(?:[Ww]e|[Oo]ur\s+team)\b(?!['’]\w)"))
    for identifier in page.identifiers:
        m = _IDENTIFIER.match(identifier)
        if m is None:
            continue
        prefix, number = m.group(1), m.group(2)
        forms = [r"(?<![\w/])#", r"\b(?:issues?|pull)/"] + ([rf"\b(?i:{re.escape(prefix)})[\s#-]*"] if prefix else [])
        patterns.append((number, rf"(?:{'|'.join(forms)})0*{number}(?!\d)"))
    if len(page.name) > 3 and page.name.lower() not in _NOT_NAME_WORDS:
        patterns.append((page.name.lower(), rf"(?<!\w)(?i:{re.escape(page.name)})(?!\w)"))
    return tuple((needle, re.compile(p)) for needle, p in patterns)


# "It requires ...", "They use ...", "This replaces ...": a pronoun opening a sentence, before a verb.
_VERB = (r"(?:is|are|was|were|has|have|had|will|also|now|still|then|depends|depend|requires|require|uses|use"
         r"|builds|build|relies|rely|supersedes|replaces|replace|extends|updates|leverages|needs|blocks|runs"
         r"|belongs|informs|evaluates|works|leads|reports|joined)\b")
_PRONOUN = re.compile(rf"^[\s*_>-]*(?:(?:Note|NB)\s*:\s*)?((?:It|They)\b(?=\s+\w)|[Tt]his\b(?=\s+{_VERB}))")
# A sentence whose subject opens it: "The Billing Service sends ...", "**Atlas** uses ..."
_OPENING = re.compile(r"^[\s*_>\[-]*(?:(?:the|our|its)\s+)?$", re.IGNORECASE)


def pronoun(sentence: str) -> tuple[int, int] | None:
    """The span of a pronoun that opens sentence and stands for an earlier subject, if one does."""
    m = _PRONOUN.match(sentence)
    return m.span(1) if m else None


def opening_subject(sentence: str, spans) -> Hashable | None:
    """The entity a sentence opens with (its subject, as far as a rule can tell), given its mentions."""
    for span in sorted(spans, key=lambda s: s.start):
        return span.entity if _OPENING.match(sentence[:span.start]) else None
    return None


PRONOUN_CONFIDENCE = "auto-low"


def pronoun_reason(word: str, paragraph_start: bool) -> str:
    """What a suggestion read through a pronoun says about it (appended to its rule)."""
    if paragraph_start:
        return f"'{word}' opens the paragraph: read as this page"
    return f"'{word}' read as the subject of the sentence before"

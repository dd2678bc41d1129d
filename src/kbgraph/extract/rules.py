"""Pattern rules: typed relations stated between two entity mentions in one sentence.

Pure and precision-first. A rule matches only the words *between* two adjacent
mentions ("Ana Lima reports to Ben Okafor"), or a fixed frame around them ("we
switched from MySQL to PostgreSQL"). A sentence that negates ("does not", "no
longer", "never") or hedges ("might", "could", "if", "considering", a question)
around the pair yields nothing: a wrong edge misleads more than a missing one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Hashable

CONFIDENCE = "auto-high"


@dataclass(frozen=True)
class Span:
    """An entity mention in a sentence: character offsets, the entity, and its type."""

    start: int
    end: int
    entity: Hashable
    type: str


@dataclass(frozen=True)
class Found:
    source: Hashable
    type: str
    target: Hashable
    rule: str
    confidence: str
    evidence: str  # the sentence
    start: int  # the span of the sentence that states it (first mention start .. second mention end)
    end: int


def _rule(name: str, between: str, rel_type: str, swap: bool = False, before: str | None = None):
    return (name, re.compile(rf"\s*(?:{between})\s*", re.IGNORECASE), rel_type, swap,
            re.compile(rf"(?:{before})\s*$", re.IGNORECASE) if before else None)


_ADV = (r"(?:(?:now|also|still|currently|directly|officially|recently|just|already|partially|partly|largely|mostly"
        r"|fully|effectively|later|since|formally|explicitly|heavily|essentially|in\s+turn)\s+)?")
_THE = r"(?:(?:the|a|an)\s+)?"
# "depends on the discussion in #123", "supersedes the behaviour specified in RFC 2071": the named
# thing's work, text or copy stands for it.
_ITS = (r"(?:(?:the|a|an)\s+(?:\w+\s+){0,2}?(?:discussion|work|design|ideas?|copy|version|release|fork|behaviou?r"
        r"|rules?|text|sections?|parts?)\s+(?:(?:specified|described|defined|proposed|given)\s+)?"
        r"(?:in|of|from|on|at|by)\s+)?")
_PERFECT = r"(?:has\s+been|have\s+been|had\s+been)"
RULES = [
    _rule("reports-to", rf"{_ADV}(?:reports|reported|has\s+reported)\s+{_ADV}to"
                        rf"|{_ADV}(?:is|{_PERFECT})\s+reporting\s+to", "reports-to"),
    _rule("leads", rf"{_ADV}(?:is|{_PERFECT}|was)?\s*(?:leading|driving|heading|running)\s+{_THE}"
                   rf"|{_ADV}(?:leads|led|has\s+led|heads|drives|took\s+over|has\s+taken\s+over|owns"
                   rf"|takes\s+over|(?:is|are|will\s+be)\s+{_ADV}taking\s+over|will\s+take\s+over)\s+{_THE}"
                   rf"|(?:is|was)\s+{_ADV}the\s+(?:lead|owner|tech\s+lead)\s+(?:of|on|for)\s+{_THE}", "leads"),
    _rule("led-by", rf"(?:is|was|has\s+been)\s+{_ADV}(?:led|run|driven|owned)\s+by", "leads", swap=True),
    _rule("member-of", rf"{_ADV}(?:joined|has\s+joined|moved\s+to|transferred\s+to)\s+{_THE}"
                       rf"|(?:is|was|{_PERFECT})\s+{_ADV}(?:a\s+)?member\s+of\s+{_THE}", "member-of"),
    _rule("depends-on", rf"{_ADV}(?:depends|depend|depended|relies|rely|relied)\s+{_ADV}(?:up)?on\s+{_ITS}{_THE}"
                        rf"|{_ADV}(?:requires|require|required|will\s+require)\s+{_THE}"
                        rf"|(?:is|are|was|were)\s+{_ADV}(?:dependent|built|based)\s+(?:up)?on\s+{_ITS}{_THE}"
                        rf"|{_ADV}(?:builds|built|build)\s+(?:up)?on\s+(?:top\s+of\s+)?{_ITS}{_THE}"
                        rf"|(?:has|have)\s+(?:a\s+)?(?:hard\s+|strong\s+|direct\s+)?dependency\s+on\s+{_THE}",
          "depends-on"),
    _rule("blocked-by", rf"(?:is|are|was|were|remains|stays|{_PERFECT})\s+{_ADV}blocked\s+(?:on|by)\s+{_THE}",
          "blocks", swap=True),
    _rule("blocks", rf"{_ADV}(?:blocks|blocked|is\s+blocking|{_PERFECT}\s+blocking)\s+{_THE}", "blocks"),
    _rule("switched", r"to|with", "replaces", swap=True,
          before=r"\b(?:switched|migrated|moved|changed|went)\s+(?:over\s+)?from(?:\s+the)?"),
    _rule("replace-with", r"\)?\s*with", "replaces", swap=True, before=r"\breplac(?:e|es|ed|ing)(?:\s+the)?"),
    _rule("replaces", rf"{_ADV}(?:replaces|replaced|has\s+replaced|is\s+replacing|will\s+replace)\s+{_THE}"
                      rf"|(?:is|was)\s+{_ADV}(?:a|the)\s+(?:direct\s+)?replacement\s+(?:for|of)\s+{_THE}"
                      rf"|(?:is\s+)?(?:a|an)\s+(?:revised|updated|new)\s+(?:and\s+\w+(?:\s+down)?\s+)?version"
                      rf"\s+of\s+{_THE}",
          "replaces"),
    _rule("replaced-by", rf"(?:is|was|has\s+been|have\s+been|got)\s+{_ADV}replaced\s+(?:by|with)\s+{_THE}", "replaces",
          swap=True),
    _rule("supersedes", rf"{_ADV}(?:updates\s+and\s+)?(?:supersedes|superseded|has\s+superseded|obsoletes)"
                        rf"\s+{_ITS}{_THE}",
          "superseded-by", swap=True),
    _rule("superseded-by", rf"(?:is|was|has\s+been|have\s+been)\s+{_ADV}(?:superseded|obsoleted)\s+by\s+{_THE}",
          "superseded-by"),
    _rule("uses", rf"{_ADV}(?:uses|use|used|is\s+using|are\s+using|{_PERFECT}\s+using|runs\s+on|is\s+built\s+with"
                  rf"|makes\s+use\s+of|relies\s+heavily\s+on)\s+{_THE}", "uses"),
    _rule("used-by", rf"(?:,?\s*(?:which|that)\s+)?(?:is|are|was|were)\s+{_ADV}used\s+by\s+{_THE}", "uses", swap=True),
    _rule("works-with", rf"{_ADV}(?:works|worked|is\s+working|{_PERFECT}\s+working|collaborates|collaborated"
                        rf"|is\s+collaborating)\s+{_ADV}(?:closely\s+)?(?:with|alongside)\s+{_THE}", "works-with"),
    _rule("part-of", rf"(?:is|are|was|were|will\s+(?:move\s+to\s+)?be|becomes?|became)\s+{_ADV}(?:(?:a|an|the)\s+)?"
                     rf"(?:part|component|module|subproject|subteam)\s+of\s+"
                     rf"(?:(?:a|the)\s+(?:collection|set|series|family|group)\s+of\s+)?{_THE}"
                     rf"|{_ADV}belongs\s+to\s+{_THE}", "part-of"),
    _rule("follows-up", rf"{_ADV}follows?\s+up\s+on\s+{_THE}"
                        rf"|(?:is|was)\s+{_ADV}(?:a|the)\s+follow[- ]up\s+(?:to|of|on)\s+{_THE}"
                        rf"|(?:is|was|has\s+been|were)\s+{_ADV}amended\s+(?:by|in)\s+{_THE}|{_ADV}amends\s+{_THE}"
                        rf"|(?:is|was)\s+{_ADV}(?:an\s+)?amendment\s+(?:to|of)\s+{_THE}"
                        rf"|(?:is|are)\s+{_ADV}(?:closely\s+)?related\s+to\s+{_THE}", "related-to"),
    _rule("informs", rf"{_ADV}(?:informs|informed|inform|has\s+informed|feeds\s+into)"
                     rf"(?:\s+(?:the|our|its)\s+(?:\w+\s+){{0,2}}?(?:of|in|for|behind))?\s+{_THE}", "informs"),
    _rule("evaluates", rf"{_ADV}(?:evaluates|evaluated|is\s+evaluating|are\s+evaluating|{_PERFECT}\s+evaluating)"
                       rf"\s+{_THE}", "evaluates"),
]

# "A leads X and reports to B": the second clause keeps A as its subject;
# "A, which is blocked by B": a relative clause is about the mention before it.
_AND_CLAUSE = re.compile(r"^\s*,?\s*and\s+(?=\S)", re.IGNORECASE)
_RELATIVE = re.compile(r"^\s*,\s*(?:which|who|that)\s+(?=\S)", re.IGNORECASE)

# "X depends on A and on B", "X uses A, B and C": each object of a coordinated list gets the relation
# the first one got. Only "and" coordinates (a comma alone may be an apposition: "Ana reports to Ben,
# Chen's manager"), so a comma counts only inside a list that an "and" closes.
_AND_SUBJECT = re.compile(r"\s*and\s+(?:the\s+)?(?:\w+\s+)?", re.IGNORECASE)
_AND_OBJECT = re.compile(r"\s*,?\s*and\s+(?:also\s+)?(?:(?:on|upon|to|with|by|from|of)\s+)?(?:the\s+)?",
                         re.IGNORECASE)
_LIST_COMMA = re.compile(r"\s*,\s*(?:the\s+)?", re.IGNORECASE)
# "Ana reports to Ben and Chen leads Atlas": Chen begins a clause of its own, it is no second object.
_CLAUSE_AFTER = re.compile(
    r"\s*(?:is|are|was|were|has|have|had|will|would|can|could|does|did|do|reports|reported|leads|led|joined|"
    r"owns|runs|ran|manages|managed|uses|used|depends|depended|works|worked|said|says|thinks|wants|took|takes|"
    r"moved|left|replaced|replaces|blocks|blocked|mentors|sponsors)\b", re.IGNORECASE)

# Link and emphasis markup between two mentions is not words: "replaced by [KEP 2433](…)".
_MARKUP = re.compile(r"\]\([^)\s]*\)|[\[\]*`]|(?<!\w)_|_(?!\w)")

_NEGATION = re.compile(r"\b(?:not|no\s+longer|never|neither|nor|without|no)\b|n['’]t\b", re.IGNORECASE)
_HEDGE = re.compile(
    r"\b(?:might|may|could|would|should|if|whether|unless|consider|considering|considered|plan|plans|planning|"
    r"propose|proposed|proposes|maybe|perhaps|possibly|want|wants|wanted|hope|hopes|expect|expects|"
    r"going\s+to|thinking\s+about|talk(?:ed|ing)?\s+about|discuss(?:ed|ing)?|evaluate\s+whether|"
    r"suggest(?:ed|s)?|idea|option|possible|likely|unlikely|unclear|unsure|assume|assuming|supposedly)\b",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r"[;:—–(]|,\s|\bbut\b|\bwhile\b|\bwhereas\b", re.IGNORECASE)


def extract(sentence: str, spans: list[Span]) -> list[Found]:
    """Relations the sentence states between adjacent mentions (spans sorted or not)."""
    if sentence.rstrip().endswith("?"):
        return []  # a question asserts nothing
    spans = sorted(spans, key=lambda s: s.start)
    found: list[Found] = []
    subject_of: dict[int, Span] = {}  # mention index -> the subject of the clause it ends
    carried: dict[int, Found] = {}  # mention index -> the relation whose object it is
    conjoined: dict[int, Span] = {}  # mention index -> the subject "and" joins it to
    betweens = [_MARKUP.sub("", sentence[a.end:b.start]) for a, b in zip(spans, spans[1:])]
    for index, (left, right) in enumerate(zip(spans, spans[1:])):
        if left.entity == right.entity or right.start < left.end:
            continue
        between = betweens[index]
        after = betweens[index + 1] if index + 1 < len(betweens) else sentence[right.end:]
        if index in carried and _coordinated(betweens, index) and not _CLAUSE_AFTER.match(after):
            before = carried[index]  # left is its object: right is one more, of the same subject
            source, target = ((right.entity, before.target) if before.source == left.entity
                              else (before.source, right.entity))
            found.append(Found(source, before.type, target, before.rule, CONFIDENCE, sentence, before.start,
                               right.end))
            carried[index + 1] = found[-1]
            continue
        if index not in subject_of and _AND_SUBJECT.fullmatch(between):
            conjoined[index + 1] = left  # "A and the accompanying B are part of C": A is a subject too
        subject = left
        joined = _AND_CLAUSE.match(between) or _RELATIVE.match(between)
        if joined and _RELATIVE.match(between) is None:
            if index not in subject_of:
                continue  # "A and B ..." with no clause before: a list, not a statement
            subject = subject_of[index]
        if joined:
            between = between[joined.end():]
            between = " " + between
        context = _clause_before(sentence, left.start) if not joined else ""
        if _NEGATION.search(between) or _NEGATION.search(context):
            continue
        if _HEDGE.search(between) or _HEDGE.search(context):
            continue
        for name, pattern, rel_type, swap, before in RULES:
            if not pattern.fullmatch(between):
                continue
            if before is not None and not before.search(context):
                continue
            if before is None and name == "switched":
                continue
            source, target = (right, subject) if swap else (subject, right)
            found.append(Found(source.entity, rel_type, target.entity, name, CONFIDENCE, sentence,
                               subject.start, right.end))
            if subject is left and index in conjoined and conjoined[index].entity != right.entity:
                other = conjoined[index]
                source, target = (right, other) if swap else (other, right)
                found.append(Found(source.entity, rel_type, target.entity, name, CONFIDENCE, sentence,
                                   other.start, right.end))
            subject_of[index + 1] = subject
            carried[index + 1] = found[-1]
            break
    return found + [f for f in _framed(sentence, spans)
                    if not any((f.source, f.type, f.target) == (g.source, g.type, g.target) for g in found)]


# "Based on X, this proposal ...": the clause after the comma builds on X; "S does ..., building on X": S does.
_BASED_OPENING = re.compile(rf"^[\s*_>\[-]*(?:based|building|built)\s+(?:up)?on\s+{_ITS}{_THE}[\[*_`]*$", re.IGNORECASE)
_AFTER_COMMA = re.compile(r"[)\]*_`]*,\s*(?:the\s+)?[\[*_`]*$", re.IGNORECASE)
_BASED_TRAILING = re.compile(rf",\s*(?:building|built|based)\s+(?:up)?on\s+{_ITS}{_THE}[\[*_`]*$", re.IGNORECASE)
_BASED_WORDS = re.compile(r",\s*(?:building|built|based)\s+(?:up)?on\b", re.IGNORECASE)
_OPENS = re.compile(r"^[\s*_>\[-]*(?:(?:the|our|its|both)\s+)?$", re.IGNORECASE)


def _framed(sentence: str, spans: list[Span]) -> list[Found]:
    """depends-on stated by a participle frame around the clause rather than between two mentions."""
    if len(spans) < 2:
        return []
    out = []
    first = spans[0]
    opening = sentence[:first.start]
    if (sentence.lstrip(" *_>[-")[:5].lower() in ("based", "build") and _BASED_OPENING.match(opening)
            and not _NEGATION.search(opening)):
        subject = next((s for s in spans[1:] if s.entity != first.entity and _AFTER_COMMA.search(sentence[:s.start])),
                       None)
        if subject is not None:
            out.append(Found(subject.entity, "depends-on", first.entity, "based-on", CONFIDENCE, sentence,
                             first.start, subject.end))
    elif _OPENS.match(opening) and _BASED_WORDS.search(sentence):
        for span in spans[1:]:
            head = sentence[:span.start]
            frame = _BASED_TRAILING.search(head)
            if frame is None or span.entity == first.entity:
                continue
            if not (_NEGATION.search(head) or _HEDGE.search(head[:frame.start()])):
                out.append(Found(first.entity, "depends-on", span.entity, "building-on", CONFIDENCE, sentence,
                                 first.start, span.end))
                break
    return out


def _coordinated(betweens: list[str], index: int) -> bool:
    """Whether the words after mention index join it to the next as one more object of a list."""
    if _AND_OBJECT.fullmatch(betweens[index]):
        return True
    if not _LIST_COMMA.fullmatch(betweens[index]):
        return False
    for later in betweens[index + 1:]:  # a comma list counts only when an "and" closes it
        if _AND_OBJECT.fullmatch(later):
            return True
        if not _LIST_COMMA.fullmatch(later):
            return False
    return False


def _clause_before(sentence: str, position: int) -> str:
    """The words before a mention back to the start of its clause."""
    head = sentence[:position]
    boundaries = [m.end() for m in _CLAUSE.finditer(head)]
    return head[boundaries[-1]:] if boundaries else head


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])|\n\s*\n|\n(?=\s*(?:[-*+]|\d+[.)])\s)")


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence or list item of a text; table rows are left out."""
    out, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        out.append((start, match.start()))
        start = match.end()
    out.append((start, len(text)))
    return [(s, e) for s, e in out if text[s:e].strip() and not text[s:e].lstrip().startswith("|")]

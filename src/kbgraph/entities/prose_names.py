"""Person-like names in running text: "Arjoon Mehta asked", "thanks Priya Raman", "Dana's runbook".

Exact names and aliases of known entities are found by entities/mentions.py; this finds the other
names a note writes about people, so they can be put to the resolver (resolve/prose.py) and be
linked, asked about, or listed as candidates. It never decides who someone is.

Precision first: technical prose is full of capitalised phrases ("Pod Security", "Kubernetes
Enhancement Proposal"), so a run of capitalised words counts only when
- every word looks like a name (capital then lower case letters, O'Brien and Jean-Luc allowed: no
  acronyms, digits or camelCase), is not a common English word and not a month or weekday;
- and the text around it says a person: a verb of speech or action after it ("said", "asked",
  "joined", "to follow up"), a word before it that takes a person ("with", "thanks", "cc", "asked"),
  a possessive ("Arjoon's"), or a place in a list with a name that has one ("Ana and Ravi Shah
  joined").
The cost is one regex pass over the text plus a few string checks per capitalised run; the number
of names returned per text is capped (MAX_NAMES).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common_words import COMMON_WORDS

MAX_NAMES = 100  # per text: a note is not a roster; the resolver is asked about at most this many
MAX_WORDS = 3  # "Maria de la Cruz" is missed; "Kubernetes Enhancement Proposal Template" is not a name

_UPPER = "A-ZÀ-ÖØ-ÞĀ-Ž"
_LOWER = "a-zß-öø-ÿā-ž"
_WORD = rf"(?:[{_UPPER}]['’])?[{_UPPER}][{_LOWER}]+(?:-[{_UPPER}][{_LOWER}]+)?"
# A run of capitalised words (spaces or tabs between, never a line break), then an optional possessive.
_RUN = re.compile(
    rf"(?<![\w@#$/.\\'’\[|-])({_WORD}(?:[ \t]{_WORD})*)(['’]s)?(?![\w@/'’-])"
)
_BEFORE = frozenset(
    """with thanks thank thanked cc asked ask told tell met ping pinged emailed called invited introduced
    interviewed hired hi hey hello dear""".split()
)
_AFTER = frozenset(
    """said says asked asks agreed agrees suggested suggests mentioned mentions proposed noted joined
    thinks thought wants wanted raised confirmed pointed walked explained replied shared presented
    argued recommended offered volunteered promised patched reported insisted warned admitted""".split()
)
_ACTIONS = frozenset(
    """follow check send write own ask review draft schedule update add remove move tell email call
    reply share prepare book set fix""".split()
)
_NOT_NAMES = frozenset(
    """january february march april may june july august september october november december monday
    tuesday wednesday thursday friday saturday sunday today tomorrow yesterday""".split()
)
_ONE_WORD = re.compile(_WORD)
_LOWER_WORD = re.compile(rf"(?<![\w'’-])[{_LOWER}]+(?![\w'’-])")
# Words of this length with these endings are verbs, adverbs or abstract nouns ("Failed", "Having",
# "Explicitly", "Federation"), hardly ever names; a shorter one may be (Ahmed, Ming).
_NOT_NAME_ENDINGS = ("ing", "ed", "ly", "tion", "ment", "ness", "ity", "able", "ible")
# A name with only these cues is a name only when it has two words or more: "with Docker", "the
# Kubelet's" are technical prose; "with Priya Raman" is not.
WEAK_CUES = frozenset({"before: with", "possessive"})
# Capitalised words of technical and meeting prose that are roles, sections or imperatives, not names.
_GENERIC = frozenset(
    """alpha beta gamma stable version versions docs doc dashboard developer developers user users admin
    administrator operator operators maintainer maintainers reviewer reviewers approver approvers owner
    owners author authors contributor contributors customer customers client clients vendor vendors
    engineer engineers manager managers lead leads remember continue promote multiple reference instead
    however therefore meanwhile please example examples story scenario proposal summary motivation goals
    alternatives criteria feature features everyone someone nobody anyone""".split()
)
# Speech verbs that are also adjectives ("Fixed reported bugs", "Multiple shared namespaces"): a cue
# only when what follows is not a noun they describe.
_ADJECTIVAL = frozenset("shared proposed reported confirmed mentioned raised noted suggested".split())
_AFTER_SPEECH = re.compile(r"(?:[ \t]+(?:that|the|a|an|to|we|it|this|they|he|she|his|her|their|our|in|on|at|with|"
                           r"for|about|during|earlier|yesterday|today|again|and|how|what|why|if|some|no)\b|[ \t]*(?:[.,;:!?)]|$))")
_TECHNICAL_NEIGHBOUR_BEFORE = re.compile(r"(?:[A-Z]{2,}|[A-Z]+[a-z]+[A-Z]\w*)[ \t]$")
_TECHNICAL_NEIGHBOUR_AFTER = re.compile(r"[ \t](?:[A-Z]{2,}|v?\d)")
_SENTENCE_OPENING = re.compile(r"(?:^|[.!?]\s+|\n\s*(?:[-*+>#]+\s*|\d+[.)]\s*)?)$")
_WORD_BEFORE = re.compile(r"([A-Za-z]+):?[ \t]+$")
_WORD_AFTER = re.compile(r"[ \t]+([a-z]+)(?:[ \t]+([a-z]+))?")
_LIST_GAP = re.compile(r"(?:,[ \t]*(?:and[ \t]+)?|[ \t]+(?:and|&)[ \t]+)")


@dataclass(frozen=True)
class ProseName:
    """A person-like name in a text: its span (the possessive 's left out) and what says it is a person."""

    start: int
    end: int
    surface: str
    cue: str  # "before: with" | "after: said" | "possessive" | "list"


def find_prose_names(text: str, vocabulary: frozenset[str] | None = None) -> list[ProseName]:
    """The person-like names in text, in order, non-overlapping, at most MAX_NAMES. vocabulary: the
    words written in lower case around it (its document's; default the text's own, lower_words)."""
    runs = []
    lower = lower_words(text) if vocabulary is None else vocabulary
    for match in _RUN.finditer(text):
        if _technical_neighbours(text, match):
            continue
        for start, end in _name_parts(match, lower):
            possessive = end == match.end(1) and match.group(2) is not None
            runs.append((start, end, "possessive" if possessive else _cue(text, start, end)))
    runs = _cued_by_list(text, runs)
    out = [ProseName(start, end, text[start:end], cue) for start, end, cue in runs
           if cue and (cue not in WEAK_CUES or " " in text[start:end].strip())]
    return out[:MAX_NAMES]


def _technical_neighbours(text: str, match: re.Match) -> bool:
    """"SIG Docs", "Windows Server 2019", "Kubernetes v1.24": an acronym or a number next to a
    capitalised run makes it a product or a group, not a person."""
    before = _TECHNICAL_NEIGHBOUR_BEFORE.search(text, max(0, match.start() - 30), match.start())
    return before is not None or _TECHNICAL_NEIGHBOUR_AFTER.match(text, match.end(1)) is not None


def lower_words(text: str) -> frozenset[str]:
    """The words a text writes in lower case: a capitalised word also written so ("the pod", "a
    manager") is a term of the text, not a name."""
    return frozenset(_LOWER_WORD.findall(text))


def _name_parts(match: re.Match, lower: frozenset[str]) -> list[tuple[int, int]]:
    """The name in a capitalised run: its name-like words at the end of the run, after at most one
    other word ("Then Arjoon Mehta", "Thanks Priya Raman"), at most MAX_WORDS of them. A run with
    other words inside ("The Pod Security Admission") holds no name: names are not fragments of titles."""
    base = match.start(1)
    words = [(base + w.start(), base + w.end(), _name_like(w.group(), lower))
             for w in _ONE_WORD.finditer(match.group(1))]
    first = 1 if not words[0][2] else 0
    if first and not _opens(match.group(1)[: words[0][1] - base], match.string, match.start(1)):
        return []  # "Rootless Docker": the run is a title, its last word no name
    if len(words) - first > MAX_WORDS or not all(like for _, _, like in words[first:]):
        return []
    return [(words[first][0], words[-1][1])] if first < len(words) else []


def _opens(word: str, text: str, start: int) -> bool:
    """Whether a word before a name may be dropped: a cue or a function word ("Thanks", "Then"), or
    any word opening a sentence, where everything is capitalised."""
    folded = word.casefold()
    if folded in COMMON_WORDS or folded in _BEFORE or folded in _NOT_NAMES or folded in _GENERIC:
        return True
    return _SENTENCE_OPENING.search(text, max(0, start - 4), start) is not None


def _name_like(word: str, lower: frozenset[str]) -> bool:
    if not word[0].isupper() or len(word) < 2:
        return False
    folded = word.casefold()
    if folded in COMMON_WORDS or folded in _NOT_NAMES or folded in _BEFORE or folded in lower or folded in _GENERIC:
        return False
    if folded.endswith("s") and folded[:-1] in lower:
        return False  # "Deployments" where the text writes "deployment"
    return not (len(folded) >= 6 and folded.endswith(_NOT_NAME_ENDINGS))


def _cue(text: str, start: int, end: int) -> str | None:
    before = _WORD_BEFORE.search(text, max(0, start - 20), start)
    if before and before.group(1).casefold() in _BEFORE:
        return f"before: {before.group(1).casefold()}"
    after = _WORD_AFTER.match(text, end)
    if after:
        verb, then = after.group(1), after.group(2)
        if verb in _AFTER and (verb not in _ADJECTIVAL or _AFTER_SPEECH.match(text, after.end(1))):
            return f"after: {verb}"
        if verb == "to" and then in _ACTIONS:
            return f"after: to {then}"
    return None


def _cued_by_list(text: str, runs: list[tuple[int, int, str | None]]) -> list[tuple[int, int, str | None]]:
    """Names joined by commas or "and" share a cue: "with Ana and Ravi Shah", "Ana, Ravi and Lena joined"."""
    groups: list[list[int]] = []
    for i, (start, _, _) in enumerate(runs):
        if i and _LIST_GAP.fullmatch(text, runs[i - 1][1], start):
            groups[-1].append(i)
        else:
            groups.append([i])
    out = list(runs)
    for group in groups:
        # Only a strong cue is shared: "Project Atlas, and Lena's team" says nothing of Project Atlas.
        if len(group) > 1 and any(runs[i][2] and runs[i][2] not in WEAK_CUES for i in group):
            for i in group:
                if not runs[i][2] or runs[i][2] in WEAK_CUES:
                    out[i] = (runs[i][0], runs[i][1], "list")
    return out

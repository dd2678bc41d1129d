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
from .mentions import trie_pattern

MAX_NAMES = 100  # per text: a note is not a roster; the resolver is asked about at most this many
MAX_WORDS = 3  # "Maria de la Cruz" is missed; "Kubernetes Enhancement Proposal Template" is not a name

_UPPER = "A-ZÀ-ÖØ-ÞĀ-Ž"
_LOWER = "a-zß-öø-ÿā-ž"
_WORD = rf"(?:[{_UPPER}]['’])?[{_UPPER}][{_LOWER}]+(?:-[{_UPPER}][{_LOWER}]+)?"
# A run of capitalised words (spaces or tabs between, never a line break), then an optional possessive.
_RUN = re.compile(
    rf"(?<![\w@#$/.\\'’\[|-])({_WORD}(?:[ \t]{_WORD})*)(['’]s)?(?![\w@/'’-])"
)  # for a run that starts after a cue; those that end before one are found by _RUN_AT_END
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
_WINDOW = 120  # characters before a cue searched for the run it follows: three long words and more
_RUN_START = rf"(?<![\w@#$/.\\'’\[|-])({_WORD}(?:[ \t]{_WORD})*)"
_RUN_AT_END = re.compile(_RUN_START + r"(['’]s)?\Z")
_RUN_AND_GAP_AT_END = re.compile(_RUN_START + _LIST_GAP.pattern + r"\Z")
# Every cue in one pass over the text: a possessive, a verb after a name, a word before one. Each
# alternative opens with one character of a small set, so the regex engine skips the text between
# those characters at C speed; the words are tries (as entities/mentions.py matches names), and "to"
# counts only with its verb ("to follow"): a bare " to" is everywhere.
_BEFORE_TRIE = trie_pattern([w for b in _BEFORE for w in (b, b.capitalize())])
_CUE = re.compile(
    r"[ \t\n(>*\"'’](?:(?<=['’])(?P<possessive>s)\b"
    r"|(?<=[ \t])(?=(?P<after>" + trie_pattern([*_AFTER, *(f"to {a}" for a in _ACTIONS)]) + r")\b)"
    r"|(?=(?P<before>" + _BEFORE_TRIE + rf":?[ \t]+)[{_UPPER}]))"
)
# Also a before cue where the same word ends an after one ("I asked Tristan").
_CUE_AT_START = re.compile(r"(?P<before>" + _BEFORE_TRIE + rf":?[ \t]+)(?=[{_UPPER}])")


@dataclass(frozen=True)
class ProseName:
    """A person-like name in a text: its span (the possessive 's left out) and what says it is a person."""

    start: int
    end: int
    surface: str
    cue: str  # "before: with" | "after: said" | "possessive" | "list"


def find_prose_names(text: str, vocabulary: LowerWords | None = None) -> list[ProseName]:
    """The person-like names in text, in order, non-overlapping, at most MAX_NAMES. vocabulary: the
    words written in lower case around it (its document's; default the text's own)."""
    runs = []
    lower = LowerWords(text) if vocabulary is None else vocabulary
    for run_start, run_end, possessive in _cued_runs(text):
        if _technical_neighbours(text, run_start, run_end):
            continue
        for start, end in _name_parts(text, run_start, run_end, lower):
            runs.append((start, end, "possessive" if possessive and end == run_end else _cue(text, start, end)))
    runs = _cued_by_list(text, runs)
    out = [ProseName(start, end, text[start:end], cue) for start, end, cue in runs
           if cue and (cue not in WEAK_CUES or " " in text[start:end].strip())]
    return out[:MAX_NAMES]


def _cued_runs(text: str) -> list[tuple[int, int, bool]]:
    """(start, end, possessive) of each capitalised run next to a cue, and of the runs listed with
    one ("Ana, Ravi and Lena joined"), in order. The cues are looked for first, and runs only next
    to them: most capitalised words of a note (sentence openings, headings, titles) are never read."""
    found: dict[int, tuple[int, bool]] = {}
    first = _CUE_AT_START.match(text)
    for cue in ([first] if first else []) + list(_CUE.finditer(text)):
        at = cue.start()
        if cue.lastgroup == "after" and (both := _CUE_AT_START.match(text, at + 1)):
            _add_run(found, _RUN.match(text, both.end("before")), False)  # "I asked Tristan": a cue both ways
        if cue.lastgroup == "before":
            run = _RUN.match(text, cue.end("before"))
        elif _after_capitalised_word(text, at):
            run = _RUN_AT_END.search(text, max(0, at - _WINDOW), at)
        else:
            continue
        _add_run(found, run, cue.lastgroup == "possessive")
    for start, (end, _) in list(found.items()):  # the runs a list joins to a cued one, either side
        _listed(text, start, end, found)
    return sorted((start, end, possessive) for start, (end, possessive) in found.items())


def _add_run(found: dict[int, tuple[int, bool]], run: re.Match | None, possessive: bool) -> None:
    if run:
        found[run.start(1)] = (run.end(1), possessive or run.group(2) is not None)


def _listed(text: str, start: int, end: int, found: dict[int, tuple[int, bool]]) -> None:
    left = start
    while (run := _RUN_AND_GAP_AT_END.search(text, max(0, left - _WINDOW), left)) and run.start(1) not in found:
        found[run.start(1)] = (run.end(1), False)
        left = run.start(1)
    right = end
    while (gap := _LIST_GAP.match(text, right)) and (run := _RUN.match(text, gap.end())) \
            and run.start(1) not in found:
        found[run.start(1)] = (run.end(1), run.group(2) is not None)
        right = run.end(1)


def _after_capitalised_word(text: str, at: int) -> bool:
    """Whether a capitalised word ends at `at` ("Mehta" before " asked"): checked by hand, since
    most cues ("to", "'s") follow lower-case words and a regex search per cue would cost more."""
    k = at - 1
    if k < 0 or not text[k].islower():
        return False
    while k > 0 and text[k - 1].isalpha() and text[k - 1].islower():
        k -= 1
    return k > 0 and text[k - 1].isupper()


def _technical_neighbours(text: str, start: int, end: int) -> bool:
    """"SIG Docs", "Windows Server 2019", "Kubernetes v1.24": an acronym or a number next to a
    capitalised run makes it a product or a group, not a person."""
    before = _TECHNICAL_NEIGHBOUR_BEFORE.search(text, max(0, start - 30), start)
    return before is not None or _TECHNICAL_NEIGHBOUR_AFTER.match(text, end) is not None


class LowerWords:
    """The words a text writes in lower case: a capitalised word also written so ("the pod", "a
    manager") is a term of the text, not a name. Looked up per word asked about (a few per note),
    never by reading every word of the text."""

    def __init__(self, text: str):
        self._text = text
        self._seen: dict[str, bool] = {}

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str) or not word:
            return False
        if word not in self._seen:
            self._seen[word] = _written_alone(self._text, word)
        return self._seen[word]


def _written_alone(text: str, word: str) -> bool:
    at = text.find(word)
    while at != -1:
        end = at + len(word)
        if (at == 0 or not _joins(text[at - 1])) and (end == len(text) or not _joins(text[end])):
            return True
        at = text.find(word, at + 1)
    return False


def _joins(char: str) -> bool:
    return char.isalnum() or char in "_'’-"


def _name_parts(text: str, run_start: int, run_end: int, lower: LowerWords) -> list[tuple[int, int]]:
    """The name in a capitalised run: its name-like words at the end of the run, after at most one
    other word ("Then Arjoon Mehta", "Thanks Priya Raman"), at most MAX_WORDS of them. A run with
    other words inside ("The Pod Security Admission") holds no name: names are not fragments of titles."""
    words = [(w.start(), w.end(), _name_like(w.group(), lower)) for w in _ONE_WORD.finditer(text, run_start, run_end)]
    if not words:
        return []
    first = 1 if not words[0][2] else 0
    if first and not _opens(text[words[0][0]:words[0][1]], text, run_start):
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


def _name_like(word: str, lower: LowerWords) -> bool:
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

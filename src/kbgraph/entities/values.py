"""What a frontmatter value is, by its shape alone: a person's handle or name, a group, a sentence, a
path or link to another note, an identifier (KEP-2291, RFC 2119), a URL, a date or number.

Pure and small: profile inference counts the shapes of a key's values to decide what the key holds,
and parsing reads a value of a person key by its shape (a sentence names no one, `sig-node` is a team,
`@deads2k - For the API server part` is @deads2k).
"""

from __future__ import annotations

import re

# Values a template leaves in a reference until someone is named: no one, never an entity (an entity
# "TBD" would also claim every "TBD" in the vault's text as a mention of it).
PLACEHOLDERS = frozenset({"tbd", "tba", "tbc", "to be determined", "n/a", "na", "none", "nobody", "no one",
                          "unknown", "unassigned", "todo", "null", "nil", "-", "--", "—", "?", "??", "xxx"})

HANDLE = re.compile(r"@?[^\W_][\w.-]*")
LONE_HANDLE = re.compile(r"@[^\W_][\w.-]*")
# A handle followed by a remark: "@bowei - for the proxy part", "@jpbetz (API review)".
_LEAD_HANDLE = re.compile(r"(@[^\W_][\w.-]*)(?:\s+[-–—:]\s*.+|:\s+.+|\s*\(.*\))")
# Groups: Kubernetes' sig-*/wg-*, a GitHub team (@org/team), *-team, *-leads and the like.
_GROUP = re.compile(
    r"(?:sig|wg|ug|team|committee|squad|guild|group|tribe)[-_][\w-]+"
    r"|[\w-]+[-_](?:team|teams|sig|wg|group|squad|guild|committee|leads|maintainers|approvers|reviewers|owners)"
    r"|@[\w.-]+/[\w.-]+"
    r"|(?:[A-Z][\w-]*\s+)*(?:WG|SIG|Working Group|Team|Committee|Squad|Guild)(?:\s+[A-Z][\w-]*)*",
    re.IGNORECASE,
)
_GROUP_WORDS = re.compile(r"\b(?:WG|SIG|team|working group|committee|squad|guild)\b", re.IGNORECASE)
# Words that make a run of words a sentence, not a name ("with input from @a, @b", "For the API part").
_FUNCTION_WORDS = frozenset({
    "with", "from", "and", "for", "the", "of", "to", "by", "in", "on", "at", "is", "are", "was", "were", "will",
    "would", "should", "has", "have", "had", "this", "that", "which", "who", "input", "portion", "part", "via",
    "see", "per", "as", "or", "not", "but", "also", "only", "all", "any", "some", "etc",
})
_IDENTIFIER = re.compile(r"([A-Za-z]{2,10})[-_ ]?0*(\d{1,6})")
_PATH = re.compile(r"(?:\.{0,2}/)?(?:[\w.-]+/)+[\w.-]+/?|[\w.-]+\.(?:md|markdown|txt)")
_URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_DATE = re.compile(r"\d{4}-\d{2}(?:-\d{2})?(?:[T ][\d:.]+Z?)?")
_NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?")
_NAME_WORD = re.compile(r"[A-Z\u00C0-\u024F][\w'’.\u00C0-\u024F-]*|[a-z]{1,3}|[A-Z]\.")

SHAPES = ("placeholder", "handle", "name", "group", "sentence", "identifier", "path", "link", "url", "date",
          "number", "word", "text")


def value_shape(value: str) -> str:
    """The shape of one value (already cleaned of quotes and brackets by as_name_list)."""
    text = value.strip()
    if not text:
        return "placeholder"
    if text.startswith("[[") or text.endswith("]]"):
        return "link"
    if _URL.fullmatch(text):
        return "url"
    if _DATE.fullmatch(text):
        return "date"
    if _NUMBER.fullmatch(text):
        return "number"
    if is_group(text):
        return "group"
    if identifier_of(text) is not None:
        return "identifier"
    if _PATH.fullmatch(text):
        return "path"
    if LONE_HANDLE.fullmatch(text) or lead_handle(text):
        return "handle"
    if is_sentence(text):
        return "sentence"
    words = text.split()
    if 2 <= len(words) <= 5 and all(_NAME_WORD.fullmatch(w) for w in words) and words[0][:1].isupper():
        return "name"
    if len(words) == 1 and HANDLE.fullmatch(text):
        return "word"  # a bare handle, a single name, or a status word: the key's other values decide
    return "text"


def is_group(text: str) -> bool:
    """sig-node, wg-batch, @kubernetes/wg-component-standard, platform-team, "Kubelet garbage collection WG"."""
    text = text.strip()
    if " " not in text:  # "@sig-node-leads" is a GitHub team's handle
        return bool(_GROUP.fullmatch(text) or (text.startswith("@") and _GROUP.fullmatch(text[1:])))
    return bool(_GROUP_WORDS.search(text)) and not text.startswith("@") and len(text.split()) <= 6


def is_sentence(text: str) -> bool:
    """Words no name is made of: three or more words with a function word among them, or a list of
    handles in one value ("with input from @bgrant0607, @dchen1107")."""
    words = re.findall(r"[\w@'’.-]+", text)
    if len(LONE_HANDLE.findall(text)) >= 2:
        return True
    if len(words) < 3:
        return False
    return any(w.casefold() in _FUNCTION_WORDS for w in words[1:]) or ("," in text and len(words) >= 4)


def lead_handle(text: str) -> str | None:
    """The handle a value starts with when a remark follows it: "@deads2k - For the API server" -> @deads2k."""
    found = _LEAD_HANDLE.fullmatch(text.strip())
    return found.group(1) if found else None


def identifier_of(text: str, prefixes: frozenset[str] | None = None) -> tuple[str, int] | None:
    """(PREFIX, number) of an identifier spelt any common way: KEP-2291, kep 2291, KEP2291, RFC 2119,
    PEP 8, ADR-0208, JIRA-123; with prefixes, only those (upper-case) count."""
    found = _IDENTIFIER.fullmatch(text.strip())
    if not found:
        return None
    prefix = found.group(1).upper()
    if prefixes is not None and prefix not in prefixes:
        return None
    if prefixes is None and not (found.group(0)[len(found.group(1)):][:1] in "-_ " or found.group(1).isupper()):
        return None  # "abc12" is a handle; "ABC12", "abc-12" and "abc 12" are identifiers
    return prefix, int(found.group(2))


def canonical_identifier(prefix: str, number: int) -> str:
    return f"{prefix.upper()}-{number}"


def names_nothing(text: str) -> bool:
    """Whether a value of a key that names teams, projects or other things is no name at all: a number
    (`owning-sig: 3`), a date, a URL, or a sentence longer than any name ("The node SIG, though storage
    folks were also heavily involved")."""
    shape = value_shape(text)
    return shape in ("number", "date", "url") or (shape == "sentence" and len(text.split()) > 6)


def person_value(text: str) -> tuple[str, str] | None:
    """How a value of a key that names people is read: ("person", name), ("team", name) for a group,
    None for a sentence or an identifier (no one is named "with input from @a, @b" or "KEP-12")."""
    text = text.strip()
    handle = lead_handle(text)
    if handle:
        return "person", handle
    shape = value_shape(text)
    if shape == "group":
        return "team", text
    if shape in ("sentence", "identifier", "url", "date", "number", "path"):
        return None
    return "person", text

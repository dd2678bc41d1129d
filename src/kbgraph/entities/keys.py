"""Parsing a name into tokens, and the blocking keys that find its candidates.

A mention and an entity go through the same two functions, so their keys meet in one
inverted index and a mention is scored only against the entities it shares a key with
(its *block*). Key families, by prefix:

- ``n:``  the compact name: folded, lower-cased, every separator removed ("arjunmehta"); an
  ``@handle`` keeps its '-', '_' and '.', because "d-nishi" and "dnishi" are two accounts;
- ``s:``  the tokens sorted, for "Mehta, Arjun";
- ``t:``  each word (first / middle / last name tokens);
- ``k:``  the given-name group of a diminutive ("bob" and "robert" both give ``k:robert``);
- ``p:`` / ``y:``  metaphone / NYSIIS of each word, for misspellings ("Arjoon");
- ``i:``  initials ("Arjun Mehta" and "AM" both give ``i:am``); an acronym ("API", entities/acronyms.py)
  is no one's initials and has its ``n:`` key only; so has an identifier (KEP-2291, "kep 2291", RFC 2119:
  ``n:kep2291``), which is matched exactly or not at all;
- ``u:``  user-name shapes (arjunmehta, amehta, arjunm, mehtaa...) and the local part of an
  email or an ``@handle``, so "@amehta" finds Arjun Mehta;
- ``e:``  a whole email address.

Bad input is decided here, once, for every caller: a name with no letter or digit
(empty, whitespace, punctuation, emoji) or longer than MAX_NAME_CHARS raises
``InvalidInput``. Both are caller mistakes (an extractor that produced a paragraph
or a bullet), not names to open a new entity for.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from ..errors import InvalidInput
from .names import fold
from .values import identifier_of
from ._optional import require
from .acronyms import ACRONYMS
from .nicknames import canonical_given_name


MAX_NAME_CHARS = 300
MAX_KEY_TOKENS = 6  # a name's first words carry its identity; more only inflates the index

_WRAPPERS = "\"'“”‘’«»`()[]<>{} \t"
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s.]+")
_WORD = re.compile(r"[^\W_]+")
_APOSTROPHE = re.compile(r"(?<=\w)['’ʼ`´](?=\w)")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_HANDLE_JUNK = re.compile(r"[^\w.-]")
_ACRONYM = re.compile(r"[A-Z]{2,4}")
# Titles and degrees say nothing about who a person is ("Dr. Ana Lima" is Ana Lima).
_HONORIFICS = frozenset("mr mrs ms miss mx dr prof sir dame phd md esq".split())
# A generation marks another person of the name ("Henry Ford II" is not Henry Ford, "Jr." not "Sr."):
# the token after the name, or "the Younger" / "the Elder", kept apart from the name's words.
GENERATIONS = {"jr": "jr", "junior": "jr", "sr": "sr", "senior": "sr", "ii": "ii", "2nd": "ii", "iii": "iii",
               "3rd": "iii", "iv": "iv", "4th": "iv", "vi": "vi", "5th": "v", "6th": "vi", "vii": "vii",
               "viii": "viii", "younger": "younger", "elder": "elder"}
# Letters NFKD does not decompose, spelled as ASCII for the phonetic codes.
_TRANSLIT = str.maketrans(
    {"ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i", "ħ": "h"}
)


@dataclass(frozen=True, slots=True)
class ParsedName:
    """A surface form reduced to what matching needs."""

    text: str  # the cleaned surface: no wrapping quotes, no '@', an email's local part
    kind: str  # "name" | "handle" | "email" | "initials" | "acronym" (entities/acronyms.py) | "identifier"
    tokens: tuple[str, ...]  # folded, lower-cased; apostrophes joined ("o'brien" -> "obrien")
    compact: str  # the exact-claim key: tokens joined; a handle keeps its '-', '_', '.'
    email: str | None = None  # the whole address when the surface is one
    generation: str | None = None  # "jr", "sr", "ii", "iii", "younger"... (GENERATIONS): another person's mark
    words: tuple[str, ...] = field(init=False, repr=False, compare=False)  # tokens of 2+ letters, not numbers

    def __post_init__(self):
        object.__setattr__(self, "words", tuple(t for t in self.tokens if len(t) > 1 and not t.isdigit()))


def check_name(text: object) -> str:
    """The name stripped, or InvalidInput with a one-line reason a caller can act on."""
    if not isinstance(text, str):
        raise InvalidInput(f"a name must be text, not {type(text).__name__}")
    stripped = text.strip()
    if len(stripped) > MAX_NAME_CHARS:
        raise InvalidInput(
            f"name is {len(stripped):,} characters; names over {MAX_NAME_CHARS} are not resolved"
            " (pass the name, not the text around it)"
        )
    if not any(c.isalnum() for c in stripped):
        shown = stripped[:20] or "(empty)"
        raise InvalidInput(f"name {shown!r} has no letter or digit to match on; pass a name such as 'Arjun Mehta'")
    return stripped


def normalize_email(value: str) -> str:
    """A lower-cased, accent-folded email address, or InvalidInput if it is not one."""
    email = fold(value.strip().strip(_WRAPPERS)).casefold()
    if not _EMAIL.fullmatch(email):
        raise InvalidInput(f"{value[:60]!r} is not an email address (expected name@domain.tld)")
    return email


@lru_cache(maxsize=65536)
def parse_name(text: str) -> ParsedName:
    """Tokens and kind of a name, an `@handle` or an email address (InvalidInput for no name at all)."""
    cleaned = unicodedata.normalize("NFKC", check_name(text)).strip(_WRAPPERS)
    if _EMAIL.fullmatch(cleaned):
        email = normalize_email(cleaned)
        local = email_local(email)
        return ParsedName(local, "email", _tokens(local) or (local,), local, email)
    if cleaned.startswith("@") and len(cleaned) > 1:
        handle = cleaned.lstrip("@")
        tokens = _tokens(_CAMEL.sub(" ", handle)) or _tokens(cleaned)
        # A handle is an identifier: "d-nishi" and "dnishi" are two accounts, "KnVerey" and "knverey" one.
        return ParsedName(handle, "handle", tokens, _HANDLE_JUNK.sub("", fold(handle).casefold()) or "".join(tokens))
    identifier = identifier_of(cleaned)
    if identifier is not None:  # KEP-2291, "kep 2291", RFC 2119: matched exactly, never as a person's name
        compact = f"{identifier[0].casefold()}{identifier[1]}"
        return ParsedName(cleaned, "identifier", (identifier[0].casefold(), str(identifier[1])), compact)
    tokens = _tokens(cleaned) or (fold(cleaned).casefold(),)
    tokens, generation = _generation(tokens)
    if generation:  # "Henry Ford II": the compact name keeps the mark, so it claims no other generation's name
        return ParsedName(cleaned, "name", tokens, "".join(tokens) + generation, None, generation)
    if _ACRONYM.fullmatch(cleaned) and tokens[0] in ACRONYMS:  # "API", "NASA": the word, not initials
        return ParsedName(cleaned, "acronym", tokens, tokens[0])
    if _ACRONYM.fullmatch(cleaned) or (len(tokens) > 1 and all(len(t) == 1 for t in tokens)):
        letters = "".join(tokens)
        return ParsedName(cleaned, "initials", tuple(letters), letters)
    return ParsedName(cleaned, "name", tokens, "".join(tokens))


def _generation(tokens: tuple[str, ...]) -> tuple[tuple[str, ...], str | None]:
    """The name's words without a generation mark at its end, and the mark (GENERATIONS)."""
    if len(tokens) >= 3 and tokens[-2] == "the" and tokens[-1] in ("younger", "elder"):
        return tokens[:-2], tokens[-1]
    last = tokens[-1] if tokens else ""
    if last in GENERATIONS and last not in ("younger", "elder") and (len(tokens) >= 3 or (
            len(tokens) == 2 and last not in ("jr", "sr", "junior", "senior") and len(tokens[0]) > 1)):
        return tokens[:-1], GENERATIONS[last]  # "Elizabeth II" too; "Smith Jr" may be a surname and a name
    return tokens, None


def _tokens(text: str) -> tuple[str, ...]:
    words = _WORD.findall(_APOSTROPHE.sub("", fold(text)).casefold())
    kept = [w for w in words if w not in _HONORIFICS] or words
    return tuple(sys.intern(w) for w in kept)  # "arjun" is stored once, however many Arjuns


def blocking_keys(name: str, emails: tuple[str, ...] | list[str] = ()) -> frozenset[str]:
    """Every blocking key of a name (an @handle or email allowed) and of the given email addresses."""
    parsed = parse_name(name)
    keys = set(name_keys(parsed))
    for email in emails:
        keys |= email_keys(normalize_email(email))
    return frozenset(keys)


def name_keys(parsed: ParsedName) -> frozenset[str]:
    keys = {"n:" + parsed.compact}
    if parsed.kind in ("acronym", "identifier"):
        return frozenset(keys)  # only an entity named or aliased so exactly
    if parsed.email:
        keys |= email_keys(parsed.email)
    if parsed.kind == "initials":
        keys.add("i:" + parsed.compact)
        return frozenset(keys)
    tokens = parsed.tokens[:MAX_KEY_TOKENS]
    if len(tokens) > 1:
        keys.add("s:" + " ".join(sorted(tokens)))
        keys.add("i:" + "".join(t[0] for t in tokens))
        keys.add("i:" + tokens[0][0] + tokens[-1][0])
    for word in parsed.words[:MAX_KEY_TOKENS]:
        keys.add("t:" + word)
        group = canonical_given_name(word)
        if group:
            keys.add("k:" + group)
        keys.update(f"{p}:{code}" for p, code in zip("py", phonetic_codes(word)) if code)
    keys.update("u:" + shape for shape in user_name_shapes(parsed))
    return frozenset(keys)


def email_keys(email: str) -> set[str]:
    return {"e:" + email, "u:" + email_local(email)}


def email_local(email: str) -> str:
    """The compact local part of a normalised address: "arjun.mehta+kb@x.io" -> "arjunmehta"."""
    local = email.split("@", 1)[0].split("+", 1)[0]
    return "".join(_tokens(local)) or local


def user_name_shapes(parsed: ParsedName) -> frozenset[str]:
    """The user names people build from a name: arjunmehta, amehta, arjunm, mehtaarjun, mehtaa."""
    if parsed.kind in ("initials", "acronym", "identifier"):
        return frozenset()
    words = parsed.words
    if len(words) < 2:
        return frozenset({parsed.compact})
    first, last = words[0], words[-1]
    return frozenset({first + last, first[0] + last, first + last[0], last + first, last + first[0]})


def latin_spelling(word: str) -> str:
    """A folded word with the letters NFKD leaves alone spelt in ASCII: "yılmaz" -> "yilmaz", "søren" -> "soren"."""
    return fold(word).translate(_TRANSLIT)


@lru_cache(maxsize=65536)
def phonetic_codes(word: str) -> tuple[str, str]:
    """(metaphone, NYSIIS) of a word, or ("", "") when it has letters these codes cannot read."""
    ascii_word = latin_spelling(word)
    if not ascii_word.isascii() or not ascii_word.isalpha() or len(ascii_word) < 2:
        return "", ""
    # Imported here: the index's reference reading needs surface_key from this module, not the phonetic
    # codes, and a one-page write should not load jellyfish for it (tests/test_startup.py).
    jellyfish = require("jellyfish")
    return jellyfish.metaphone(ascii_word), jellyfish.nysiis(ascii_word)


def surface_key(surface: str) -> str:
    """The key a remembered confirmation or rejection is stored under (an email stays whole)."""
    parsed = parse_name(surface)
    return parsed.email or parsed.compact

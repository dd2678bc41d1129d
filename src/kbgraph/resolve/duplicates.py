"""Duplicate records, the pure core: which two entity pages are likely one entity, and why.

    records = [DuplicateRecord("a", "person", "Jon Smith", attributes={"email": "JS@acme.io"}), ...]
    found = find_duplicates(records)     # blocked candidate pairs, scored, best first
    found.pairs[0].explain()             # "email agrees (js@acme.io); given name: nickname ..."

Three steps, each a plain function:

1. **Normalise** (`normalise`): a record's attributes, whatever frontmatter key they came under
   (ATTRIBUTE_KEYS), become comparable values: emails lower-cased and accent-folded, phones digits
   only and compared on their last PHONE_DIGITS digits (so "+44 20 7946 0958" and "020 7946 0958"
   agree), dates of birth parsed to ISO (day first when ambiguous), addresses tokenised with common
   abbreviations expanded ("St" -> street), handles without '@', role and team case-folded.
2. **Block** (`candidate_pairs`): a pair is compared only when the two records share a key
   (`blocking_keys_of`: the name keys of entities.keys.blocking_keys that identify a whole name,
   compact, sorted tokens, user-name shapes such as "jsmith" where one side is one word or an
   initial; a phonetic key of given + surname in either order; each name part with each of its
   letters deleted beside the other part's first two letters, so one slip anywhere, the first letter too,
   still meets; each identifier: email, phone, handle, id number, date of birth; a part's
   phonetic key with the birth year; the address's numbers), or when they sit within NEIGHBOURS of
   each other in one of three name orders (sorted neighbourhood: the name, surname first, the name
   read backwards). A block larger than MAX_BLOCK (a key thousands share) is not skipped: it is split
   by a finer key (the birth year) and its members compared with their sorted neighbours, so the work
   grows with the number of records, never with its square (counted in skipped_blocks).
3. **Score** (`score_pair`): a Fellegi–Sunter model. Each attribute comparison lands on a level
   (exact, close, disagree; missing counts 0) whose weight is log2(m / u): m, the chance of that
   level when the two records are one entity, u, when they are two (LEVELS). The weights add up;
   a pair is proposed when the total reaches PROPOSE_WEIGHT (a likelihood ratio of 2^9 = 512:1).
   The m of "disagree" on an identifier (email, date of birth) is set low on purpose: two pages
   with one name but different birth dates or addresses are namesakes, never proposed. An exact
   given name or surname weighs less when many records carry it (NameFrequencies: u becomes the
   share of other records with that value, once there are TF_MIN_RECORDS records to count).

Nothing here merges: every proposed pair is a question for the user.
"""

from __future__ import annotations

import math
import re
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Iterable, Mapping

from ..entities.identifiers import id_number, normalise_phone, parse_dob
from ..entities.names import fold
from ..errors import InvalidInput
from ..entities._optional import require
from ..entities.keys import GENERATIONS, blocking_keys, normalize_email, parse_name, phonetic_codes
from ..entities.nicknames import canonical_given_name
from .roster import GIVEN_NAMES

jellyfish = require("jellyfish")

MODEL_VERSION = "dup-fs-1"
PROPOSE_WEIGHT = 9.0
MAX_BLOCK = 100
TF_MIN_RECORDS = 1000  # below this many records, name frequencies are not trusted (see NameFrequencies)
MAX_ALIASES = 3  # a page's first aliases are compared as names too ("Jon Smith" on Jonathan Smith's page)

# Frontmatter keys (case-folded, '-' and ' ' read as '_') and the attribute each one carries.
ATTRIBUTE_KEYS = {
    "email": "email", "emails": "email", "mail": "email", "e_mail": "email", "work_email": "email",
    "phone": "phone", "phones": "phone", "mobile": "phone", "tel": "phone", "telephone": "phone",
    "cell": "phone", "phone_number": "phone",
    "handle": "handle", "handles": "handle", "github": "handle", "slack": "handle", "twitter": "handle",
    "username": "handle", "user": "handle", "login": "handle",
    "id_number": "id", "idnumber": "id", "national_id": "id", "ssn": "id", "soc_sec_id": "id", "passport": "id",
    "personal_id": "id", "tax_id": "id", "employee_id": "id", "staff_id": "id", "person_id": "id",
    "dob": "dob", "birthday": "dob", "born": "dob", "birth_date": "dob", "date_of_birth": "dob",
    "birthdate": "dob",
    "address": "address", "street": "address", "suburb": "address", "city": "address", "postcode": "address",
    "zip": "address", "state": "address",
    "role": "role", "job_title": "role", "position": "role",
    "team": "team", "department": "team", "teams": "team",
}

# (m, u) per comparison level; weight = log2(m / u). Estimated by hand for an organisation's notes
# and checked on bench/duplicates_eval.py (RESULTS.md); "disagree" of an identifier is set precision-first.
LEVELS: dict[str, dict[str, tuple[float, float]]] = {
    "given": {"exact": (0.80, 0.01), "nickname": (0.07, 0.002), "typo": (0.08, 0.01),
              "initial": (0.03, 0.04), "disagree": (0.02, 0.94)},
    "surname": {"exact": (0.86, 0.005), "typo": (0.11, 0.01), "disagree": (0.03, 0.985)},
    "name": {"exact": (0.85, 0.002), "typo": (0.10, 0.01), "disagree": (0.05, 0.988)},
    "email": {"exact": (0.985, 0.00001), "disagree": (0.015, 0.99999)},
    "phone": {"exact": (0.90, 0.00001), "disagree": (0.10, 0.99999)},
    "handle": {"exact": (0.90, 0.00001), "disagree": (0.10, 0.99999)},
    "id": {"exact": (0.95, 0.000001), "disagree": (0.01, 0.999999)},
    # A name part that disagrees while no personal identifier (email, id number, handle) agrees: another
    # person of one household (parents, children, twins share a surname, an address, a phone, even a
    # birth date), whatever else agrees (issue 29). A veto, like the marks below.
    "household": {"disagree": (0.000001, 0.90)},
    "identity": {"disagree": (0.000001, 0.90)},
    "dob": {"exact": (0.90, 0.0005), "typo": (0.09, 0.005), "disagree": (0.01, 0.9945)},
    "address": {"exact": (0.70, 0.0005), "close": (0.22, 0.01), "disagree": (0.02, 0.9895)},
    # A generation mark (II / III, Jr. / Sr., one name marked and one not) or another middle initial
    # says another person of the name: never a typo pair (issue 29), whatever else agrees (~ -20).
    "generation": {"disagree": (0.000001, 0.90)},
    "middle": {"disagree": (0.000001, 0.90)},
    "role": {"exact": (0.60, 0.05), "disagree": (0.40, 0.95)},
    "team": {"exact": (0.60, 0.10), "disagree": (0.40, 0.90)},
}
WEIGHTS = {attr: {level: math.log2(m / u) for level, (m, u) in levels.items()} for attr, levels in LEVELS.items()}
_SHOWN = {attr: {level: round(w, 3) for level, w in levels.items()} for attr, levels in WEIGHTS.items()}

_ADDRESS_WORDS = {
    "st": "street", "str": "street", "rd": "road", "ave": "avenue", "av": "avenue", "dr": "drive",
    "ln": "lane", "ct": "court", "pl": "place", "cres": "crescent", "cr": "crescent", "hwy": "highway",
    "blvd": "boulevard", "tce": "terrace", "pde": "parade", "cl": "close", "sq": "square", "apt": "apartment",
    "u": "unit", "fl": "floor", "mt": "mount", "n": "north", "s": "south", "e": "east", "w": "west",
}
_ADDRESS_STOP = {"the", "of", "and"}
_WORDS = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class DuplicateRecord:
    """One entity page as the duplicate finder sees it: an id, its names, its frontmatter attributes."""

    id: str
    type: str
    name: str
    aliases: tuple[str, ...] = ()
    attributes: Mapping[str, object] = field(default_factory=dict, compare=False, hash=False)
    path: str | None = None


@dataclass(frozen=True)
class Normalised:
    """A record's comparable values (see the module docstring for each normalisation)."""

    record: DuplicateRecord
    given: str
    surname: str
    compact: str
    emails: frozenset[str] = frozenset()
    phones: frozenset[str] = frozenset()
    handles: frozenset[str] = frozenset()
    ids: frozenset[str] = frozenset()
    dob: str | None = None
    address: frozenset[str] = frozenset()
    role: str | None = None
    team: str | None = None
    aliases: tuple[tuple[str, str, str, str], ...] = ()  # (given, surname, compact, as written), MAX_ALIASES
    generation: str | None = None  # keys.GENERATIONS: "jr", "iii"...
    middle: str = ""  # the first letters of the middle names

    rotated: tuple[tuple[str, str, str, str], ...] = ()  # "Washington Liam Janet": surname first, then given

    def names(self) -> tuple[tuple[str, str, str, str], ...]:
        return ((self.given, self.surname, self.compact, self.record.name), *self.aliases, *self.rotated)


@dataclass(frozen=True)
class Comparison:
    """One attribute compared: the level it landed on, its weight and the values that decided it."""

    attribute: str
    level: str
    weight: float
    detail: str

    @property
    def agrees(self) -> bool:
        return self.weight > 0


@dataclass(frozen=True)
class DuplicatePair:
    """Two records that may be one entity, with every comparison that scored them."""

    left: DuplicateRecord
    right: DuplicateRecord
    weight: float
    comparisons: tuple[Comparison, ...]

    @property
    def probability(self) -> float:
        """The weight as a probability against even prior odds (a display value; the rule uses weight)."""
        return 1.0 / (1.0 + 2.0 ** -max(-60.0, min(60.0, self.weight)))

    def explain(self) -> str:
        agree = [f"{c.attribute} {c.level} ({c.detail})" for c in self.comparisons if c.agrees]
        differ = [f"{c.attribute} {c.level} ({c.detail})" for c in self.comparisons if not c.agrees]
        parts = [("agree: " + "; ".join(agree)) if agree else "nothing agrees",
                 ("differ: " + "; ".join(differ)) if differ else "nothing differs"]
        return " | ".join(parts)


@dataclass(frozen=True)
class DuplicateSearch:
    """The proposed pairs (best first) and what the search cost: the numbers a benchmark reports."""

    pairs: tuple[DuplicatePair, ...]
    records: int
    comparisons: int
    blocks: int
    skipped_blocks: int
    seconds: float


# --- 1. normalise -----------------------------------------------------------------


def attribute_values(attributes: Mapping[str, object]) -> dict[str, list[str]]:
    """The record's raw values per attribute kind, from whichever frontmatter keys carry them."""
    found: dict[str, list[str]] = defaultdict(list)
    for key, value in attributes.items():
        kind = ATTRIBUTE_KEYS.get(re.sub(r"[-\s]+", "_", str(key).strip().casefold()))
        if kind is None:
            continue
        values = value if isinstance(value, (list, tuple)) else [value]
        found[kind].extend(str(v) for v in values if isinstance(v, (str, int, float)) and str(v).strip())
    return found


def normalise(record: DuplicateRecord) -> Normalised:
    values = attribute_values(record.attributes)
    given, surname, compact = _name_parts(record.name)
    return Normalised(
        record, given, surname, compact,
        emails=frozenset(filter(None, map(_email, values["email"]))),
        phones=frozenset(filter(None, map(normalise_phone, values["phone"]))),
        handles=frozenset(h for h in (fold(v).strip().lstrip("@").casefold() for v in values["handle"]) if h),
        ids=frozenset(filter(None, map(id_number, values["id"]))),
        dob=next(filter(None, map(parse_dob, values["dob"])), None),
        address=frozenset(t for v in values["address"] for t in address_tokens(v)),
        role=_text(values["role"]), team=_text(values["team"]),
        aliases=tuple((*_name_parts(alias), alias) for alias in record.aliases[:MAX_ALIASES]
                      if alias != record.name),
        **_marks(record.name), rotated=_rotated(record.name),
    )


def _rotated(name: str) -> tuple[tuple[str, str, str, str], ...]:
    """A name of three or more words read surname first ("Washington Liam Janet" is Liam Janet
    Washington): the first word the surname, the second the given name."""
    if "," in name:
        return ()
    try:
        parsed = parse_name(name)
    except InvalidInput:
        return ()
    words = [t for t in parsed.tokens if not t.isdigit()]
    if parsed.kind != "name" or len(words) < 3:
        return ()
    return ((words[1], words[0], parsed.compact, name),)


def _marks(name: str) -> dict:
    try:
        parsed = parse_name(_given_first(name))
    except InvalidInput:
        return {}
    # The middle words as written ("Bolz-Tereick" is one surname of two tokens), without a generation mark.
    words = [w for w in _given_first(name).replace(".", ". ").split() if fold(w).strip(".,").casefold()
             not in GENERATIONS and w.strip(".,") != "the"]
    middle = "".join(fold(w)[0].casefold() for w in words[1:-1] if w[0].isalpha())
    return {"generation": parsed.generation, "middle": middle}


def _given_first(name: str) -> str:
    if name.count(",") == 1 and "@" not in name:  # "Hetland, Magnus Lie": the surname first
        surname, given = name.split(",")
        if surname.strip() and given.strip():
            return f"{given.strip()} {surname.strip()}"
    return name


def _name_parts(name: str) -> tuple[str, str, str]:
    name = _given_first(name)
    try:
        parsed = parse_name(name)
    except InvalidInput:
        return "", "", ""
    words = tuple(t for t in parsed.tokens if not t.isdigit())  # "J Smith": the initial is a given name
    if parsed.kind != "name" or len(words) < 2:
        return "", "", parsed.compact
    return words[0], words[-1], parsed.compact


def _email(value: str) -> str | None:
    try:
        return normalize_email(value)
    except InvalidInput:
        return None


def _text(values: list[str]) -> str | None:
    return " ".join(fold(values[0]).casefold().split()) if values else None


def address_tokens(value: str) -> list[str]:
    words = _WORDS.findall(fold(value).casefold())
    return [_ADDRESS_WORDS.get(w, w) for w in words if w not in _ADDRESS_STOP]


# --- 2. block ---------------------------------------------------------------------

_NAME_KEY_PREFIXES = ("n:", "s:", "u:")
NEIGHBOURS = 1  # sorted neighbourhood: each record is compared with the next NEIGHBOURS in each name order


def blocking_keys_of(n: Normalised) -> set[str]:
    """The keys a record is blocked under, coarse to fine within a family: whole-name keys, a phonetic
    key of both name parts (either order), each part one deletion away beside the other's first letters
    ("Kims" / "Sims", "Sencer" / "Spencer"), each identifier, the birth date and the address's numbers."""
    keys: set[str] = set()
    for given, surname, _, written in n.names():
        try:
            keys |= {k for k in blocking_keys(written) if k.startswith(_NAME_KEY_PREFIXES)}
        except InvalidInput:
            pass
        if given and surname:
            g, s = phonetic_codes(given)[0], phonetic_codes(surname)[0]
            if g and s:
                keys.add("pp:" + "|".join(sorted((g, s))))
        # One slip in a part (its first letter too) is one deletion away on both sides: each part with
        # each of its letters deleted, beside the other part's first two letters (either order: "Smith John").
        for part, other in ((surname, given), (given, surname)):
            if len(part) >= 3 and other:
                keys |= {f"dl:{other[:2]}|{v}" for v in _deletions(part)}
    keys |= {"e:" + e for e in n.emails} | {"ph:" + p for p in n.phones} | {"h:" + h for h in n.handles}
    keys |= {"id:" + i for i in n.ids}
    if n.dob:
        keys.add("d:" + n.dob)
        # A typo in both names still meets on one name and the birth year (or on the address's numbers).
        keys |= {f"{part}:{code}|{n.dob[:4]}" for part, name in (("gy", n.given), ("sy", n.surname))
                 if name and (code := phonetic_codes(name)[0])}
    numbers = sorted(t for t in n.address if t.isdigit())
    if len(numbers) >= 2:
        keys.add("a:" + "|".join(numbers))
    return {f"{n.record.type}/{k}" for k in keys}  # pages of two types are never one entity


@lru_cache(maxsize=1 << 16)
def _deletions(word: str) -> frozenset[str]:
    """The word and the word with each one letter deleted (symmetric deletion: two words one edit apart
    share one of these)."""
    return frozenset({word, *(word[:i] + word[i + 1:] for i in range(len(word)))})


# What splits a block too large to compare whole, coarse to fine: the birth year, then its month, then
# the date (a record without one: its given name's initial, then its compact name).
_FINER = (lambda n: n.dob[:4] if n.dob else n.given[:1] or n.compact[:1],
          lambda n: n.dob[:7] if n.dob else n.given[:1] or n.compact[:1],
          lambda n: n.dob or n.compact)


def _split(members: list[int], normalised: list[Normalised], max_block: int, pairs: set[tuple[int, int]]) -> None:
    """A capped block's pairs: each part of the first finer key that brings it under max_block, whole;
    what no key brings under it only with its sorted neighbours."""
    left = [members]
    for finer in _FINER:
        larger = []
        for block in left:
            parts: dict[str, list[int]] = defaultdict(list)
            for i in block:
                parts[finer(normalised[i])].append(i)
            for part in parts.values():
                (_all_pairs(part, pairs) if len(part) <= max_block else larger.append(part))
        left = larger
        if not left:
            break
    _neighbours(sorted(members, key=lambda i: (normalised[i].compact, normalised[i].dob or "")), pairs)


def candidate_pairs(normalised: list[Normalised], max_block: int = MAX_BLOCK) -> tuple[set[tuple[int, int]], int, int]:
    """Index pairs that share a blocking key or sit side by side in a name order; the number of blocks,
    and how many were larger than max_block. Such a block is not skipped: it is split by finer keys
    (_split: birth year, month, date), and its members, sorted by name, are also compared with their
    NEIGHBOURS next ones,
    so the work grows with the number of records, never with its square."""
    blocks: dict[str, list[int]] = defaultdict(list)
    for i, n in enumerate(normalised):
        for key in blocking_keys_of(n):
            blocks[key].append(i)
    pairs: set[tuple[int, int]] = set()
    capped = 0
    for key, members in blocks.items():
        if "/u:" in key:  # a user-name shape ("jsmith") meets a one-word name or an initial, not every John Smith
            words = [i for i in members if len(normalised[i].given) <= 1]  # one word, or an initial
            if not words:
                continue
            if len(words) == len(members) or len(members) <= max_block:
                _with_some(members, words, pairs)
                continue
        if len(members) <= max_block:
            _all_pairs(members, pairs)
            continue
        capped += 1
        _split(members, normalised, max_block, pairs)
    for order in (_by_name, _by_surname, _by_reversed):
        by_type: dict[str, list[int]] = defaultdict(list)
        for i in sorted(range(len(normalised)), key=lambda i: order(normalised[i])):
            by_type[normalised[i].record.type].append(i)
        for members in by_type.values():
            _neighbours(members, pairs)
    return pairs, len(blocks), capped


def _with_some(members: list[int], some: list[int], pairs: set[tuple[int, int]]) -> None:
    for x in some:
        for y in members:
            if x != y:
                pairs.add((min(x, y), max(x, y)))


def _all_pairs(members: list[int], pairs: set[tuple[int, int]]) -> None:
    for a in range(len(members)):
        for b in range(a + 1, len(members)):
            pairs.add((min(members[a], members[b]), max(members[a], members[b])))


def _neighbours(ordered: list[int], pairs: set[tuple[int, int]], window: int | None = None) -> None:
    window = NEIGHBOURS if window is None else window
    for a in range(len(ordered)):
        for b in range(a + 1, min(a + 1 + window, len(ordered))):
            x, y = ordered[a], ordered[b]
            if x != y:
                pairs.add((min(x, y), max(x, y)))


def _by_name(n: Normalised) -> str:
    return n.compact


def _by_surname(n: Normalised) -> tuple[str, str]:
    return n.surname or n.compact, n.given


def _by_reversed(n: Normalised) -> str:  # a slip in the first letters still sorts by the rest
    return n.compact[::-1]


# --- 3. score ---------------------------------------------------------------------


@dataclass(frozen=True)
class NameFrequencies:
    """How many records carry each given name and surname: an exact agreement on a common name
    ("John", "Smith") is weaker evidence than on a rare one (term-frequency adjustment of u)."""

    given: Mapping[str, int]
    surname: Mapping[str, int]
    records: int

    @classmethod
    def of(cls, normalised: list[Normalised]) -> NameFrequencies:
        return cls(Counter(n.given for n in normalised if n.given),
                   Counter(n.surname for n in normalised if n.surname), len(normalised))

    def u(self, attr: str, value: str) -> float:
        """The chance that another record has this value by chance, never below the table's u; a
        population under TF_MIN_RECORDS counts as TF_MIN_RECORDS (a small vault says little)."""
        table = self.given if attr == "given" else self.surname
        share = (table.get(value, 1) - 1) / max(self.records - 1, TF_MIN_RECORDS)
        return max(LEVELS[attr]["exact"][1], share)


def score_pair(a: Normalised, b: Normalised, frequencies: NameFrequencies | None = None) -> DuplicatePair:
    names = _compare_names(a, b, frequencies)
    comparisons = [*names, *_compare_identifiers(a, b)]
    personal = any(c.attribute in PERSONAL and c.level == "exact" for c in comparisons)
    if not personal:  # one email, id number or handle is one person, whatever the marks say
        comparisons[len(names):len(names)] = _compare_marks(a, b, names)
    born = any(c.attribute == "dob" and c.level == "exact" for c in comparisons)
    # A surname that differs on one birth date is a slip more often than a relative; a given name never.
    differs = [c for c in names if c.level == "disagree" and (c.attribute != "surname" or not born
                                                              or _given_names(c.detail))]
    if differs and not personal:
        comparisons.append(_level("household", "disagree", f"{differs[0].attribute} differs and no email, id number "
                                                           "or handle agrees: another person of one household"))
    elif not personal and any(c.attribute in ("dob", "id") and c.level == "disagree" for c in comparisons):
        comparisons.append(_level("identity", "disagree", "another birth date or id number, and no email, id number "
                                                          "or handle agrees: another person"))
    for attr, left, right in (("role", a.role, b.role), ("team", a.team, b.team)):
        if left and right:
            comparisons.append(_level(attr, "exact" if left == right else "disagree", f"{left} / {right}"))
    total = sum(c.weight for c in comparisons)
    if any(c.attribute in VETOES for c in comparisons):
        total = min(total, VETO_CAP)  # another person whatever else agrees: never proposed
    return DuplicatePair(a.record, b.record, round(total, 3), tuple(comparisons))


def _level(attr: str, level: str, detail: str) -> Comparison:
    return Comparison(attr, level, _SHOWN[attr][level], detail)


def _compare_names(a: Normalised, b: Normalised, freq: NameFrequencies | None = None) -> list[Comparison]:
    """The names compared, each page's aliases read as names too: the reading that agrees best."""
    if not (a.aliases or b.aliases or a.rotated or b.rotated):
        return _compare_name_parts(a.names()[0], b.names()[0], freq)
    readings = [_compare_name_parts(x, y, freq) for x in a.names() for y in b.names()]
    return max(readings, key=lambda cs: sum(c.weight for c in cs))


def _compare_name_parts(a: tuple[str, str, str, str], b: tuple[str, str, str, str],
                        freq: NameFrequencies | None) -> list[Comparison]:
    (a_given, a_surname, a_compact, a_text), (b_given, b_surname, b_compact, b_text) = a, b
    if not (a_given and b_given):
        if not (a_compact and b_compact):
            return []
        if a_compact == b_compact:
            return [_level("name", "exact", a_text)]
        similar = jellyfish.jaro_winkler_similarity(a_compact, b_compact) >= 0.92
        return [_level("name", "typo" if similar else "disagree", f"{a_text} / {b_text}")]
    straight = [_given(a_given, b_given, freq), _surname(a_surname, b_surname, freq)]
    if all(c.agrees for c in straight):
        return straight  # read the other way round, "john"/"smith" could not agree better
    # "Smith John" written for "John Smith", on either side: the same token pairs, read either way round.
    swapped_a = [_given(a_surname, b_given, freq), _surname(a_given, b_surname, freq)]
    swapped_b = [_given(a_given, b_surname, freq), _surname(a_surname, b_given, freq)]
    return max(straight, swapped_a, swapped_b, key=lambda cs: sum(c.weight for c in cs))


def _first_letter_slip(x: str, y: str) -> bool:
    """Another, dropped or added first letter in a name of 4+ letters: "Kims" / "Sims", "Ennett" / "Kenneth"
    (the string measures here forgive slips late in a name, and miss these)."""
    if min(len(x), len(y)) < 4 or x[0] == y[0]:
        return False
    near = jellyfish.damerau_levenshtein_distance
    return near(x[1:], y[1:]) <= 1 or near(x[1:], y) <= 1 or near(x, y[1:]) <= 1


def _given(x: str, y: str, freq: NameFrequencies | None = None) -> Comparison:
    if x == y:
        return _exact("given", x, freq)
    return _level("given", _given_level(x, y), f"{x} / {y}")


@lru_cache(maxsize=1 << 18)
def _given_level(x: str, y: str) -> str:
    """Two different given names: nickname, initial, typo or disagree (a pure function of the pair, cached:
    a search compares a few thousand names in every reading of tens of thousands of pairs)."""
    if _nickname(x, y):
        return "nickname"
    if min(len(x), len(y)) == 1 and x[0] == y[0]:
        return "initial"
    if (jellyfish.jaro_winkler_similarity(x, y) >= 0.88 or _first_letter_slip(x, y)
            or min(len(x), len(y)) >= 3 and jellyfish.damerau_levenshtein_distance(x, y) <= 1):  # "Gzry", "oJe"
        # Two real given names a letter apart (Anna / Hanna, Eric / Erin) are two names, as twins are given.
        return "disagree" if x in GIVEN_NAMES and y in GIVEN_NAMES else "typo"
    return "disagree"


def _exact(attr: str, value: str, freq: NameFrequencies | None) -> Comparison:
    if freq is None:
        return _level(attr, "exact", value)
    m = LEVELS[attr]["exact"][0]
    return Comparison(attr, "exact", round(math.log2(m / freq.u(attr, value)), 3), value)


def _nickname(x: str, y: str) -> bool:
    """Bob / Robert (the diminutive table), or Jon / Jonathan (a short form the name starts with)."""
    gx, gy = canonical_given_name(x), canonical_given_name(y)
    if gx and gx in (gy, y) or gy == x:
        return True
    short, long_ = sorted((x, y), key=len)
    return len(short) >= 3 and long_.startswith(short)


def _surname(x: str, y: str, freq: NameFrequencies | None = None) -> Comparison:
    if x == y:
        return _exact("surname", x, freq)
    return _level("surname", "typo" if _similar_surnames(x, y) else "disagree", f"{x} / {y}")


@lru_cache(maxsize=1 << 18)
def _similar_surnames(x: str, y: str) -> bool:
    return (jellyfish.jaro_winkler_similarity(x, y) >= 0.9 and jellyfish.damerau_levenshtein_distance(x, y) <= 2
            or _first_letter_slip(x, y))


def _given_names(detail: str) -> bool:
    """Both sides of a differing "surname" are real given names: the names were read the other way round
    ("Allen Anna" / "Robert Allen"), and it is the given names that differ."""
    left, _, right = detail.partition(" / ")
    return left in GIVEN_NAMES and right in GIVEN_NAMES


PERSONAL = ("email", "id", "handle")  # identifiers one person has, never a household
VETOES = ("household", "identity", "generation", "middle")  # comparisons that say another person outright
VETO_CAP = 0.0  # the most a vetoed pair weighs: even odds, far under PROPOSE_WEIGHT


def _compare_marks(a: Normalised, b: Normalised, names: list[Comparison]) -> list[Comparison]:
    """Another generation mark, or another middle initial where the names read straight agree."""
    out = []
    if a.generation != b.generation:
        out.append(_level("generation", "disagree", f"{a.generation or 'none'} / {b.generation or 'none'}"))
    straight = all(c.agrees for c in names) and a.given[:1] == b.given[:1]
    if straight and a.middle and b.middle and a.middle[0] != b.middle[0]:
        out.append(_level("middle", "disagree", f"{a.middle} / {b.middle}"))
    return out


def _compare_identifiers(a: Normalised, b: Normalised) -> list[Comparison]:
    out: list[Comparison] = []
    for attr, left, right in (("email", a.emails, b.emails), ("phone", a.phones, b.phones),
                              ("handle", a.handles, b.handles), ("id", a.ids, b.ids)):
        if left and right:
            shared = sorted(left & right)
            out.append(_level(attr, "exact", shared[0]) if shared else
                       _level(attr, "disagree", f"{min(left)} / {min(right)}"))
    if a.dob and b.dob:
        out.append(_level("dob", _dob_level(a.dob, b.dob), a.dob if a.dob == b.dob else f"{a.dob} / {b.dob}"))
    if a.address and b.address:
        overlap = len(a.address & b.address) / len(a.address | b.address)
        level = "exact" if overlap >= 0.8 else "close" if overlap >= 0.5 else "disagree"
        out.append(_level("address", level, f"{overlap:.0%} of words shared"))
    return out


def _dob_level(x: str, y: str) -> str:
    """exact; typo: one digit off, two digits transposed, or day and month swapped; else disagree."""
    if x == y:
        return "exact"
    dx, dy = x.replace("-", ""), y.replace("-", "")
    if x[:4] == y[:4] and x[5:7] == y[8:10] and x[8:10] == y[5:7]:
        return "typo"
    if jellyfish.damerau_levenshtein_distance(dx, dy) <= 1:
        return "typo"
    return "disagree"


# --- the whole search -------------------------------------------------------------


def find_duplicates(records: Iterable[DuplicateRecord], threshold: float = PROPOSE_WEIGHT,
                    max_block: int = MAX_BLOCK, skip: Callable[[str, str], bool] | None = None,
                    progress: Callable[[int, int], None] | None = None) -> DuplicateSearch:
    """Blocked, scored candidate pairs at or above threshold, best first.

    skip(left id, right id): a pair not to score (already answered, or already one entity)."""
    started = time.perf_counter()
    normalised = [normalise(r) for r in records]
    index_pairs, blocks, skipped = candidate_pairs(normalised, max_block)
    frequencies = NameFrequencies.of(normalised)
    found = []
    for done, (i, j) in enumerate(sorted(index_pairs), 1):
        a, b = sorted((normalised[i], normalised[j]), key=lambda n: n.record.id)
        if skip is None or not skip(a.record.id, b.record.id):
            pair = score_pair(a, b, frequencies)
            if pair.weight >= threshold:
                found.append(pair)
        if progress is not None and done % 1000 == 0:
            progress(done, len(index_pairs))
    found.sort(key=lambda p: (-p.weight, p.left.id, p.right.id))
    return DuplicateSearch(tuple(found), len(normalised), len(index_pairs), blocks, skipped,
                           time.perf_counter() - started)

"""The evidence that a mention names a candidate entity, as named numbers in [0, 1].

Each feature is a pure function of the parsed mention and the candidate's parsed forms
(its name and aliases), so a logged decision can be re-scored with new weights later.

- jw_name: Jaro-Winkler of the folded names, best over the candidate's forms; a one-word
  mention is also compared with each word of them.
- jw_sorted: the same with the tokens sorted ("Mehta Arjun").
- tokens: share of the mention's words matched by a word of the best form, weighted by how:
  exact 1, diminutive 0.9 (Bob/Robert), phonetic 0.85 (Arjoon/Arjun), one typo 0.7,
  clipped 0.6 (Sam/Samuel), initial 0.5. An unmatched middle initial does not count against
  it; an @handle or email that is a user-name shape of the candidate gets at least 0.75.
- theirs: the other way round: share of the candidate's tokens the mention accounts for.
- conflict: 1 when both sides keep a token the other has no match for ("Sam Li" / "Sam
  Ortiz"); never for an @handle or email, whose pieces are not words.
- partial: 1 when a two-word mention and the candidate do not pair up their first and last
  words ("Lee Fournier" / "Ana Lee Fournier").
- rival: 1 when a word matched only approximately is itself another known entity's word
  ("Andres" for Andrew while an Andres exists).
- namesake: 1 when a word matched by sound or by one typo looks like another person's name
  rather than a slip (see `namesake_kind`): "Shaw" for Shah, "Anna" for Ana, "Larry" for Barry.
- near: 1 when the whole names, spaces and hyphens ignored, are within one edit (two from
  12 letters): "deV ries", "Jean-uc".
- phonetic: share of the mention's words whose metaphone or NYSIIS code a candidate word shares.
- alias: 1 when the compact mention equals the compact name or an alias exactly.
- email: 1 when the mention's email address is one of the candidate's.
- handle: 1 when a one-token mention (@handle, email local part) is a user-name shape of the
  candidate (amehta, arjunm, arjun.mehta) or the local part of one of its addresses.
- same_type: 1 same type, 0.5 the mention has no type, 0 different types.
- context: shared context ids / the smaller set (team, projects, co-mentioned entities).
- context_n: shared context ids, saturating at 3, / 3.
- info: what the mention alone says: 0 initials, 0.3 one word, 0.5 a handle, an email or an
  initial and a surname, 0.9 two words, 1 three or more.
- label: share of the mention's words that are common English words ("Will", "Grant", "Data").

Why overlap rather than Jaccard for context: a mention's context is a handful of ids, while
a well-known entity's grows with every note; Jaccard would fall as an entity becomes better known.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from ..entities.common_words import COMMON_WORDS
from ..entities._optional import require
from .model import FEATURE_NAMES, LOW_INFO, EntityProfile, Features, MentionInfo
from ..entities.keys import (
    ParsedName,
    email_local,
    latin_spelling,
    normalize_email,
    parse_name,
    phonetic_codes,
    user_name_shapes,
)
from ..entities.nicknames import canonical_given_name
from .roster import is_real_name


_distance = require("rapidfuzz.distance")
JaroWinkler, OSA = _distance.JaroWinkler, _distance.OSA

EXACT, DIMINUTIVE, PHONETIC, TYPO, PREFIX, INITIAL = 1.0, 0.9, 0.85, 0.7, 0.6, 0.5
SHAPE = 0.75  # `tokens` of an @handle or email that is a user-name shape of the candidate
MAX_ALIGN = 8  # tokens compared per side; a longer "name" is not a person's name anyway




@dataclass(frozen=True, slots=True)
class Form:
    """One name or alias of an entity, parsed once when the entity is indexed."""

    parsed: ParsedName
    text: str  # tokens joined by spaces
    sorted_text: str

    @classmethod
    def of(cls, name: str) -> Form:
        parsed = parse_name(name)
        return cls(parsed, " ".join(parsed.tokens), " ".join(sorted(parsed.tokens)))


@dataclass(frozen=True, slots=True)
class Prepared:
    """What scoring needs of an entity, computed once: its forms, keys of exact claims, codes.

    Small tuples rather than frozensets: a 100k-entity index holds one of these per entity.
    """

    forms: tuple[Form, ...]
    compacts: tuple[str, ...]  # exact claims: compact name and aliases
    shapes: tuple[str, ...]  # user-name shapes and email local parts
    emails: tuple[str, ...]
    codes: tuple[str, ...]  # phonetic codes of every word of every form
    type: str
    context: frozenset[int]


@dataclass(frozen=True, slots=True)
class Alignment:
    """How the tokens of a mention pair up with the tokens of one form."""

    mine: float  # tokens feature
    theirs: float
    conflict: bool
    partial: bool
    approximate: tuple[str, ...]  # mention words matched only by sound, a typo or a clipping
    # (mention word, candidate word, candidate position) of the pairs matched by sound or one typo
    respelt: tuple[tuple[str, str, int], ...] = ()


def prepare(names: list[str], emails: tuple[str, ...], type_: str, context: frozenset[int]) -> Prepared:
    forms = tuple(Form.of(n) for n in names)
    shapes = {s for f in forms for s in user_name_shapes(f.parsed)}
    shapes |= {email_local(e) for e in emails}
    codes = {c for f in forms for w in f.parsed.words for c in phonetic_codes(w) if c}
    compacts = tuple(dict.fromkeys(f.parsed.compact for f in forms))
    return Prepared(forms, compacts, tuple(sorted(shapes)), emails, tuple(sorted(codes)), type_, context)


def prepare_profile(profile: EntityProfile) -> Prepared:
    emails = tuple(dict.fromkeys(normalize_email(e) for e in profile.emails))
    return prepare([profile.name, *profile.aliases], emails, profile.type, frozenset(profile.context))


@dataclass(frozen=True, slots=True)
class MentionView:
    """A mention's side of the features, worked out once per resolve, not once per candidate."""

    parsed: ParsedName
    text: str  # tokens joined by spaces
    sorted_text: str
    email: str | None
    type: str | None
    context: frozenset[int]
    info: float
    label: float

    @classmethod
    def of(cls, parsed: ParsedName, email: str | None, type_hint: str | None, context: frozenset[int]) -> MentionView:
        text, sorted_text = " ".join(parsed.tokens), " ".join(sorted(parsed.tokens))
        return cls(
            parsed,
            text,
            sorted_text,
            email or parsed.email,
            type_hint,
            context,
            information(parsed),
            _label_share(parsed),
        )


def features(
    mention: MentionInfo, candidate: EntityProfile, known_word: Callable[[str], bool] | None = None
) -> Features:
    """The features of a mention against an entity profile (InvalidInput for a name with nothing to match).

    known_word(word) says whether another entity uses the word; the index passes its own, and
    without one `rival` stays 0.
    """
    email = normalize_email(mention.email) if mention.email else None
    view = MentionView.of(parse_name(mention.surface), email, mention.type, frozenset(mention.context))
    return compute(view, prepare_profile(candidate), known_word)


def compute(m: MentionView, cand: Prepared, known_word: Callable[[str], bool] | None = None) -> Features:
    """The features of one mention against one prepared candidate."""
    mention = m.parsed
    best = max((align(mention.tokens, f.parsed.tokens) for f in cand.forms), key=lambda a: a.mine - a.conflict)
    shape = len(mention.words) <= 1 and mention.compact in cand.shapes
    if mention.kind in ("handle", "email"):
        best = _as_identifier(best, shape)
    rival = known_word is not None and any(known_word(w) for w in best.approximate)
    identifier = mention.kind in ("handle", "email")
    namesake = not identifier and (any(namesake_kind(a, b) for a, b, _ in best.respelt)
                                   or generation_differs(mention, cand))
    jw_name = max(JaroWinkler.similarity(m.text, f.text) for f in cand.forms)
    jw_sorted = max(JaroWinkler.similarity(m.sorted_text, f.sorted_text) for f in cand.forms)
    if len(mention.tokens) == 1:  # one word ("Arjoon") is a first name or a surname: compare it with each
        jw_name = jw_sorted = max(
            jw_name, max(JaroWinkler.similarity(m.text, t) for f in cand.forms for t in f.parsed.tokens)
        )
    return Features(
        jw_name=jw_name,
        jw_sorted=jw_sorted,
        tokens=best.mine,
        theirs=best.theirs,
        conflict=float(best.conflict),
        partial=float(best.partial),
        rival=float(rival),
        namesake=float(namesake),
        near=float(any(_near(mention.compact, f.parsed.compact) for f in cand.forms)),
        phonetic=_phonetic_share(mention, cand.codes),
        alias=1.0 if mention.compact in cand.compacts else 0.0,
        email=1.0 if m.email is not None and m.email in cand.emails else 0.0,
        handle=float(shape),
        same_type=0.5 if not m.type else float(m.type == cand.type),
        context=_overlap(m.context, cand.context),
        context_n=min(len(m.context & cand.context), 3) / 3,
        info=m.info,
        label=m.label,
    )


def _as_identifier(a: Alignment, shape: bool) -> Alignment:
    """An @handle's or email's pieces are not name words: "mlee" against Martín Lee is no conflict,
    and a user-name shape ("jlin" for Jonathan Lin) accounts for the first and the last name."""
    if not shape:
        return Alignment(a.mine, a.theirs, False, False, a.approximate, a.respelt)
    return Alignment(max(a.mine, SHAPE), 1.0, False, False, a.approximate, a.respelt)


def _near(a: str, b: str) -> bool:
    """The whole names, separators ignored, within one edit (two from 12 letters): "deV ries", "Jean-uc"."""
    shorter = min(len(a), len(b))
    limit = 2 if shorter >= 12 else 1 if shorter >= 6 else 0
    return OSA.distance(a, b, score_cutoff=limit) <= limit


def align(mine: tuple[str, ...], theirs: tuple[str, ...]) -> Alignment:
    """Pair tokens greedily, best agreement first; each token pairs at most once."""
    mine, theirs = mine[:MAX_ALIGN], theirs[:MAX_ALIGN]
    pairs = sorted(
        ((_agreement(a, b, j == 0), i, j) for i, a in enumerate(mine) for j, b in enumerate(theirs)),
        key=lambda t: (-t[0], t[1], t[2]),
    )
    got: dict[int, float] = {}
    used: set[int] = set()
    respelt: list[tuple[str, str, int]] = []
    for score, i, j in pairs:
        if score <= 0:
            break
        if i not in got and j not in used:
            got[i] = score
            used.add(j)
            # A clipping shortens a name ("Sam" for Samuel); a longer word that starts with the
            # candidate's ("Leah" for Lea, "Elif" for Eli) is a respelling like a typo.
            if score in (PHONETIC, TYPO) or (score == PREFIX and len(mine[i]) > len(theirs[j])):
                respelt.append((mine[i], theirs[j], j))
    # A middle initial the other side lacks is noise, not evidence against: count words and matched letters.
    counted = [i for i, t in enumerate(mine) if len(t) > 1 or i in got]
    words = [i for i, t in enumerate(mine) if len(t) > 1]
    # Both names' first and last words must pair up: "Lee Fournier" / "Ana Lee Fournier" and
    # "Wei Alexander ter Horst" / "Alexander ter Horst" may be two people; a middle name may differ.
    edges = {0, len(theirs) - 1} <= used and (not words or {words[0], words[-1]} <= got.keys())
    return Alignment(
        mine=sum(got.values()) / max(1, len(counted)),
        theirs=len(used) / max(1, len(theirs)),
        conflict=len(got) < len(mine) and len(used) < len(theirs),
        partial=len(words) >= 2 and len(theirs) >= 2 and not edges,
        approximate=tuple(mine[i] for i, s in got.items() if s in (PHONETIC, TYPO, PREFIX)),
        respelt=tuple(respelt),
    )


# Why a respelt word is read as another person's name rather than a slip, as `namesake_kind` says it.
NAMESAKE_WHY = {
    "real": "another person's name",
    "initial": "another first letter makes another name, not a slip",
    "script": "one letter in a script without written vowels often makes another name",
}


@lru_cache(maxsize=1 << 16)
def namesake_kind(mine: str, theirs: str) -> str | None:
    """Whether `mine`, matched to `theirs` by sound or by one typo, is likely another person's name.

    - "real": `mine` is itself a real given name or surname (resolve.roster): "Shaw" for Shah,
      "Anna" for Ana, "Smyth" for Smith, "Meier" for Meyer, "Chan" for Chen;
    - "initial": the first letter is replaced ("Larry" / "Barry", "Carl" / "Karl"): typists and OCR
      rarely replace a name's first letter, while namesakes often differ there. A dropped first
      letter ("antos" for Santos) is a slip.
    - "script": a word in a script the resolver cannot spell in Latin letters (Arabic, Hebrew,
      Cyrillic...): its roster cannot vouch for it, and where short vowels go unwritten one letter
      is often another name (محمد Muhammad / محمود Mahmoud); when unsure, ask.
    A slip in a longer Latin word ("Arjoon" / "Arjun", "Mehat" / "Mehta", "Kowalksi") is none. One letter
    changed in a short name not on the roster ("Bokr" / "Bakr") is left to the score: on the
    generated typos that rule asked about OCR slips far more often than it found a real name.
    """
    mine, theirs = latin_spelling(mine), latin_spelling(theirs)
    if mine == theirs:  # one name in two alphabets: "YILMAZ" for Yılmaz, "Soren" for Søren
        return None
    if is_real_name(mine):
        return "real"
    if mine[0] != theirs[0] and mine[1:] != theirs and theirs[1:] != mine:
        return "initial"
    if mine.isalpha() and not phonetic_codes(mine)[0]:
        return "script"
    return None


def generation_differs(mention: ParsedName, cand: Prepared) -> bool:
    """No form of the candidate carries the mention's generation mark ("Henry Ford II" / Henry Ford III,
    or Henry Ford): a mark says another person of the name, never a slip. A bare name against a marked
    one is read so too: which generation it means is the user's to say."""
    if mention.kind != "name":
        return False
    return all(f.parsed.generation != mention.generation for f in cand.forms if f.parsed.kind == "name")


_MARKS_SHOWN = {"jr": "Jr.", "sr": "Sr.", "younger": "the Younger", "elder": "the Elder"}


def _generation_shown(mark: str | None) -> str:
    return _MARKS_SHOWN.get(mark, mark.upper()) if mark else "none"


def namesake_detail(m: MentionView, cand: Prepared) -> str | None:
    """One line saying which word differs and why it reads as another person's name, e.g.
    "surname differs (Shaw / Shah): another person's name"; None when no word does."""
    if m.parsed.kind in ("handle", "email"):
        return None
    if generation_differs(m.parsed, cand):
        theirs = next((f.parsed.generation for f in cand.forms if f.parsed.generation), None)
        return (f"generation differs ({_generation_shown(m.parsed.generation)} / {_generation_shown(theirs)}): "
                "another person of the name, not a slip")
    aligned = [(align(m.parsed.tokens, f.parsed.tokens), len(f.parsed.tokens)) for f in cand.forms]
    best, size = max(aligned, key=lambda pair: pair[0].mine - pair[0].conflict)
    for mine, theirs, j in best.respelt:
        kind = namesake_kind(mine, theirs)
        if kind:
            role = "name" if size == 1 else "given name" if j == 0 else "surname" if j == size - 1 else "middle name"
            return f"{role} differs ({mine.title()} / {theirs.title()}): {NAMESAKE_WHY[kind]}"
    return None


def describe_namesake(surface: str, names: list[str]) -> str | None:
    """namesake_detail for a logged pair: the surface against the candidate's names (InvalidInput as
    parse_name raises it)."""
    return namesake_detail(MentionView.of(parse_name(surface), None, None, frozenset()),
                           prepare(names, (), "", frozenset()))


def _agreement(a: str, b: str, b_is_first: bool) -> float:
    score = token_agreement(a, b)
    # A clipping is how given names shorten ("Sam", "Chris"); "Lin" for "Lindqvist" is another surname.
    return 0.0 if score == PREFIX and not b_is_first else score


@lru_cache(maxsize=1 << 17)
def token_agreement(a: str, b: str) -> float:
    """How well two lower-case tokens agree, on the EXACT..INITIAL scale; 0 when they do not."""
    if a == b:
        return EXACT
    if len(a) == 1 or len(b) == 1:
        return INITIAL if a[0] == b[0] else 0.0
    group_a, group_b = canonical_given_name(a), canonical_given_name(b)
    if group_a is not None and group_a == group_b:
        return DIMINUTIVE
    shorter = min(len(a), len(b))
    if shorter >= 3 and _sound_alike(a, b):
        return PHONETIC
    # One edit (a transposition counts as one) is a typo only in a word long enough to survive it.
    limit = 2 if shorter >= 8 else 1 if shorter >= 4 else 0
    if limit and OSA.distance(a, b, score_cutoff=limit) <= limit:
        return TYPO
    if shorter >= 3 and (a.startswith(b) or b.startswith(a)):
        return PREFIX
    return 0.0


def _sound_alike(a: str, b: str) -> bool:
    """Same metaphone (2+ letters) or NYSIIS (4+), and spelt close: short codes alone match too much
    ("Liu" / "Lee" are both L; "James" / "John" both JAN)."""
    (meta_a, nys_a), (meta_b, nys_b) = phonetic_codes(a), phonetic_codes(b)
    same = (len(meta_a) >= 2 and meta_a == meta_b) or (len(nys_a) >= 4 and nys_a == nys_b)
    return same and JaroWinkler.similarity(a, b) >= 0.75


def information(mention: ParsedName) -> float:
    """How much a mention alone says about who it is (see the table in the module docstring)."""
    if mention.kind in ("initials", "acronym"):
        return 0.0
    if mention.kind in ("handle", "email"):
        return 0.5  # an identifier: exact hits decide, a near-miss ("@liggit") must be asked
    words = len(mention.words)
    if words >= 3:
        return 1.0
    if words == 2:
        return 0.9
    if len(mention.tokens) >= 2:
        return 0.5  # a word and initials: "A. Mehta"
    return 0.3  # one word: a first name, a surname, a nickname ("Sam" no less than "Samantha")


def _phonetic_share(mention: ParsedName, codes: tuple[str, ...]) -> float:
    words = mention.words
    if not words:
        return 0.0
    hits = sum(1 for w in words if any(c and c in codes for c in phonetic_codes(w)))
    return hits / len(words)


def _overlap(a: frozenset[int], b: frozenset[int]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def _label_share(mention: ParsedName) -> float:
    words = mention.words
    if not words or mention.kind in ("handle", "email"):
        return 0.0
    return sum(1 for w in words if w in COMMON_WORDS) / len(words)

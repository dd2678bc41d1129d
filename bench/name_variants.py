"""A deterministic generator of people and of the ways notes write their names, with the truth.

Everything comes from one random.Random(seed): the same arguments give the same people and
the same mentions. People are drawn from name lists of many cultures (diacritics, apostrophes,
hyphens, particles, middle names), with first names deliberately shared, and get a team,
projects, collaborators, usually an email and sometimes a nickname alias. Mentions are
variants of a known person (`truth` = their id) or of someone who is not in the knowledge base
(`truth` = None: the right outcome is "new"), including hard negatives that share a first
name or a surname with a known person.

The nickname table here is written separately from kbgraph.entities.nicknames and on purpose
holds forms that one lacks (Sasha, Dima, Pepe, Nastya), so the benchmark is not graded on the
resolver's own table.

Not generated, because no resolver can get them right: a one-letter misspelling of a known
name that is also the real name of an unknown person ("Jon Smyth" when only "John Smith" is known).
A random slip still spells another real name now and then (11 of the 662 typos of the default run:
"Thomson" for Thompson, "Fisher" for Fischer); the resolver asks about those like any namesake, and
resolution_eval.py counts them apart ("typos that spell a real name").
"""

from __future__ import annotations

import random
import unicodedata
from dataclasses import dataclass

FIRST = """
Robert William Katherine Elizabeth Michael James Jennifer Margaret Thomas Richard Susan Daniel Samuel
Samantha Alexander Christopher Patricia Anthony Joseph Matthew Andrew Rebecca Victoria Jonathan Nicholas
Stephen Sarah Emily Laura Rachel Olivia Grace Hannah Chloe Oliver George Charlotte Amelia Sophie
José María Lucía Álvaro Javier Sofía Andrés Inés João Gonçalo Raúl Martín Beatriz Ximena
François Jean-Luc Hélène Renée Zoë Chloé Aurélie Benoît Anaïs Jérôme
Jürgen Søren Björn Åsa Ingrid Lukas Mareike Annika Magnus Sigrún
Łukasz Małgorzata Dmitri Katarzyna Miloš Zdeněk Anastasia Tomasz
Çağla Gökhan Elif Ömer Şule
Arjun Priya Ananya Rahul Vikram Deepika Aditya Lakshmi Sanjay Kavya
Wei Xiaoming Jing Hui Zhiwei Mei Haoran Yuxin
Haruto Yuki Sakura Kenji Aiko Takeshi
Ji-woo Min-jun Seo-yeon Hyun-woo
Mohammed Fatima Omar Layla Youssef Aisha Khalid
Chinedu Ngozi Kwame Amara Oluwaseun Thandiwe
Thảo Minh Quang Lan
Siobhán Seán Niamh Pádraig Aoife
""".split()

LAST = (
    """
Smith Johnson Williams Brown Taylor Anderson Thompson O'Brien O'Connor McDonald MacLeod D'Angelo
Mehta Sharma Iyer Patel Reddy Krishnan Chatterjee Nguyễn Trần Lê Phạm
Wang Li Lin Zhang Chen Liu Huang Zhou Kim Park Lee Choi Tanaka Suzuki Yamamoto Watanabe
García Rodríguez Pérez Núñez Muñoz Fernández Gonçalves Araújo Müller Schäfer Groß Weiß Fischer
Nørgaard Åberg Lindqvist Kowalski Wójcik Dvořák Novák Yılmaz Öztürk Çelik Al-Hassan El-Amin Haddad
Okafor Adeyemi Mensah Dubois Lefèvre Fournier Smith-Jones Ortiz Rossi Esposito Ivanov Petrova Sokolova
""".split()
    + ["da Silva", "dos Santos", "van der Berg", "de Vries", "ter Horst", "Abu Bakr"]
)

MIDDLE = "Ann Marie Lee James Kumar Wei Luis Maria Grace Alexander Rose John".split()

# Written for this benchmark, independently of the resolver's table (see the module docstring).
NICKNAMES = {
    "Robert": ["Bob", "Rob", "Bobby"],
    "William": ["Bill", "Will", "Billy"],
    "Katherine": ["Kate", "Katie", "Kathy"],
    "Elizabeth": ["Liz", "Beth", "Lizzie"],
    "Michael": ["Mike", "Mikey"],
    "James": ["Jim", "Jimmy", "Jamie"],
    "Jennifer": ["Jen", "Jenny"],
    "Margaret": ["Maggie", "Peggy", "Meg"],
    "Thomas": ["Tom", "Tommy"],
    "Richard": ["Rick", "Rich", "Dick"],
    "Susan": ["Sue", "Susie"],
    "Daniel": ["Dan", "Danny"],
    "Samuel": ["Sam"],
    "Samantha": ["Sam"],
    "Alexander": ["Alex", "Sasha"],
    "Christopher": ["Chris"],
    "Patricia": ["Pat", "Trish"],
    "Anthony": ["Tony"],
    "Joseph": ["Joe", "Joey"],
    "Matthew": ["Matt"],
    "Andrew": ["Andy", "Drew"],
    "Rebecca": ["Becky"],
    "Victoria": ["Vicky", "Tori"],
    "Jonathan": ["Jon"],
    "Nicholas": ["Nick"],
    "Stephen": ["Steve"],
    "Dmitri": ["Dima"],
    "Anastasia": ["Nastya"],
    "José": ["Pepe"],
    "Javier": ["Javi"],
    "Małgorzata": ["Gosia"],
    "Katarzyna": ["Kasia"],
    "Oluwaseun": ["Seun"],
    "Mohammed": ["Mo"],
}

OCR = [("rn", "m"), ("m", "rn"), ("l", "1"), ("o", "0"), ("e", "c"), ("cl", "d"), ("h", "b"), ("i", "l"), ("a", "o")]
DOMAINS = ["acme.io", "example.com", "corp.example.org"]


@dataclass(frozen=True)
class Person:
    id: int
    first: str
    middle: str | None
    last: str
    aliases: tuple[str, ...]
    emails: tuple[str, ...]
    context: frozenset[int]  # team id, project ids, collaborator ids

    @property
    def name(self) -> str:
        return " ".join(p for p in (self.first, self.middle, self.last) if p)


@dataclass(frozen=True)
class MentionCase:
    surface: str
    kind: str  # the variant: "full", "nickname", "first-only", "typo-ocr", "unknown-same-first", ...
    truth: int | None  # the person meant, or None for someone not in the knowledge base
    context: frozenset[int]
    email: str | None = None


TEAM_BASE, PROJECT_BASE = 1_000_000, 2_000_000


def people(n: int, seed: int, first=FIRST, last=LAST) -> list[Person]:
    """n people; ids 1..n; first names drawn from a pool small enough that many are shared."""
    rng = random.Random(seed)
    out, seen, addresses = [], set(), set()
    while len(out) < n:
        first_name, last_name = rng.choice(first), rng.choice(last)
        middle = rng.choice(MIDDLE) if rng.random() < 0.15 else None
        if _key(f"{first_name} {last_name}") in seen:
            continue  # two people with one full name are a test of their own (see the unit tests)
        seen.add(_key(f"{first_name} {last_name}"))
        person = _person(rng, len(out) + 1, first_name, middle, last_name, n)
        if set(person.emails) & addresses:  # a mail server gives an address to one person
            person = Person(person.id, first_name, middle, last_name, person.aliases, (), person.context)
        addresses.update(person.emails)
        out.append(person)
    return out


def _person(rng, pid, first, middle, last, n) -> Person:
    aliases = ()
    if first in NICKNAMES and rng.random() < 0.3:
        aliases = (rng.choice(NICKNAMES[first]) + " " + last,)
    emails = ()
    if rng.random() < 0.7:
        local = rng.choice([f"{first}.{last}", f"{first[0]}{last}", f"{first}"])
        emails = (_ascii(local).lower().replace(" ", "").replace("'", "") + "@" + rng.choice(DOMAINS),)
    team = TEAM_BASE + rng.randrange(max(2, n // 12))
    projects = {PROJECT_BASE + rng.randrange(max(2, n // 6)) for _ in range(rng.randint(1, 3))}
    collaborators = {rng.randint(1, n) for _ in range(rng.randint(2, 5))} - {pid}
    return Person(pid, first, middle, last, aliases, emails, frozenset({team} | projects | collaborators))


def mentions(kb: list[Person], count: int, seed: int, unknown_share: float = 0.25) -> list[MentionCase]:
    """Mentions of known people (every variant kind) and of unknown ones, in a shuffled order."""
    rng = random.Random(seed)
    # A known person's name without its middle name is that person's "missing-middle" variant too.
    taken = {_key(p.name) for p in kb} | {_key(f"{p.first} {p.last}") for p in kb}
    out: list[MentionCase] = []
    while len(out) < count:
        if rng.random() < unknown_share:
            case = _unknown(rng, kb, taken)
        else:
            person = rng.choice(kb)
            case = _variant(rng, person, kb)
            if case is not None and case.kind not in EXACT_KINDS and _key(case.surface) in taken - {_key(person.name)}:
                case = None  # the variant spells another known person's exact name: nobody could tell
        if case is not None:
            out.append(case)
    return out


EXACT_KINDS = {"full", "case", "email", "alias"}
KINDS = [
    "full",
    "case",
    "no-diacritics",
    "nickname",
    "alias",
    "first-only",
    "first-only+context",
    "last-first",
    "initial-last",
    "initials",
    "typo-transpose",
    "typo-ocr",
    "typo-drop",
    "missing-middle",
    "extra-middle",
    "email",
    "handle",
]


def _variant(rng, p: Person, kb) -> MentionCase | None:
    kind = rng.choice(KINDS)
    surface = _surface(rng, kind, p)
    if not surface:
        return None
    context = _mention_context(rng, p.context, strong=kind == "first-only+context")
    email = surface if kind == "email" else None
    return MentionCase(surface, kind, p.id, context, email)


def _surface(rng, kind: str, p: Person) -> str | None:
    first, last = p.first, p.last
    if kind == "full":
        return p.name
    if kind == "case":
        return p.name.lower() if rng.random() < 0.6 else p.name.upper()
    if kind == "no-diacritics":
        return _ascii(p.name) if _ascii(p.name) != p.name else None
    if kind == "nickname":
        return f"{rng.choice(NICKNAMES[first])} {last}" if first in NICKNAMES else None
    if kind == "alias":
        return p.aliases[0] if p.aliases else None
    if kind in ("first-only", "first-only+context"):
        return first
    if kind == "last-first":
        return f"{last}, {first}"
    if kind == "initial-last":
        return f"{first[0]}. {last}"
    if kind == "initials":
        return "".join(w[0] for w in f"{first} {last}".replace("-", " ").split()).upper()
    if kind.startswith("typo-"):
        return _typo(rng, kind, p)
    if kind == "missing-middle":
        return f"{first} {last}" if p.middle else None
    if kind == "extra-middle":
        return f"{first} {rng.choice('ABCDEFGHJKLMNPRSTW')}. {last}" if not p.middle else None
    if kind == "email":
        return p.emails[0] if p.emails else None
    if kind == "handle":
        return "@" + p.emails[0].split("@")[0].replace(".", "") if p.emails else None
    raise ValueError(kind)


def _typo(rng, kind: str, p: Person) -> str | None:
    """One typo in the longer of first and last name (a short word does not survive one)."""
    first, last = p.first, p.last
    word = first if len(first) > len(last) else last
    if len(word) < 5:
        return None
    i = rng.randrange(1, len(word) - 2)
    changed = respell(rng, word, i, {"typo-transpose": "transpose", "typo-drop": "drop"}.get(kind, "ocr"))
    if changed is None or changed == word:
        return None
    return f"{changed} {last}" if word is first else f"{first} {changed}"


def respell(rng, word: str, i: int, how: str, ocr=None) -> str | None:
    """One slip at letter i: "transpose" (i and i+1), "drop", "double", or "ocr" (a look-alike
    letter group anywhere but the first letter); None when no OCR confusion fits the word."""
    if how == "transpose":
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if how == "drop":
        return word[:i] + word[i + 1 :]
    if how == "double":
        return word[: i + 1] + word[i] + word[i + 1 :]
    options = [(a, b) for a, b in (OCR if ocr is None else ocr) if a in word[1:]]
    if not options:
        return None
    a, b = rng.choice(options)
    at = word.index(a, 1)
    return word[:at] + b + word[at + len(a) :]


def _unknown(rng, kb, taken) -> MentionCase | None:
    """Someone not in the knowledge base; half share a first name or surname with someone who is."""
    anchor = rng.choice(kb)
    kind = rng.choices(["unknown", "unknown-same-first", "unknown-same-last", "unknown-first-only"], [3, 3, 3, 1])[0]
    first = anchor.first if kind in ("unknown-same-first", "unknown-first-only") else rng.choice(FIRST)
    last = anchor.last if kind == "unknown-same-last" else rng.choice(LAST + EXTRA_LAST)
    if kind == "unknown-first-only":
        # Only a first name no known person has can be truly unknown from the name alone.
        first = rng.choice(EXTRA_FIRST)
        surface = first
    else:
        surface = f"{first} {last}"
    if _key(surface) in taken:
        return None
    noise = frozenset(rng.sample(sorted({x for p in rng.sample(kb, 3) for x in p.context}), 1))
    return MentionCase(surface, kind, None, noise if rng.random() < 0.5 else frozenset())


EXTRA_FIRST = "Bartholomew Ottoline Perpetua Radomir Svanhild Tiberius Wilhelmina Yevgenia Zebulon Ignatius".split()
EXTRA_LAST = "Abernathy Bjornsdottir Castellanos Dragomir Eriksen Fairbanks Grimaldi Holloway Ivanisevic".split()


def _mention_context(rng, context: frozenset[int], strong: bool) -> frozenset[int]:
    """What a note says around a mention: often nothing, sometimes the person's team or colleagues."""
    ids = sorted(context)
    if strong:
        return frozenset(rng.sample(ids, min(len(ids), rng.randint(2, 3))))
    if rng.random() < 0.5:
        return frozenset()
    return frozenset(rng.sample(ids, min(len(ids), rng.randint(1, 2))))


def synthetic_last_names(count: int, seed: int) -> list[str]:
    """Plausible surnames from syllables, for knowledge bases larger than the real lists allow."""
    rng = random.Random(seed)
    heads = "Ka Bor Vel Mar Tan Lin Os Ru Fen Dal Har Ise Qu Zor Mel Ander Bel Cor Dra Eld".split()
    tails = "ski son berg ova ez ari man ton ida escu ović ami ford ström elli oglu ian sen dorf".split()
    mids = ["", "", "an", "el", "or", "is", "u"]
    names = {rng.choice(heads) + rng.choice(mids) + rng.choice(tails) for _ in range(count * 3)}
    return sorted(names)[:count]


def _ascii(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _key(text: str) -> str:
    return " ".join(_ascii(text).lower().replace(",", " ").split())

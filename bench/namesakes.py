"""A labelled set of near-identical names of one person (typos) and of different people (namesakes).

The question the set asks: when a name differs from a known person's name by a letter or two, is it
that person misspelt, or another person? Every mention carries its truth and its kind:

- "typo": a slip in a known person's name (a transposition, a dropped or doubled letter, an OCR
  confusion, a respelling by sound), never touching the first letter. Truth: that person.
- "namesake": the known person's name with the surname or the given name replaced by ANOTHER REAL
  name one or two letters away (Shah / Shaw, Chen / Chan, Anna / Ana, Barry / Larry), someone not in
  the knowledge base. Truth: nobody; an auto-link is a silent merge of two people.
- "namesake+evidence": the same respelt name, but written with the known person's email address or
  in a note that shares two of their context ids: the same person after all. Truth: that person.
- "unrelated": a name from the same pools that is not one or two letters from anybody known.

Two kinds of data:

1. "roster": the generated people of bench/name_variants.py plus one person per real name pair
   below (SURNAME_PAIRS, GIVEN_PAIRS: distinct real names, written for this benchmark from public
   name knowledge); namesakes swap in the pair's other name.
2. "pep": the real people's names of ../shared/data/names/pep-people.txt (373 PEP authors;
   absent in a user's clone, then skipped). Namesakes swap a word for a real name one or two edits
   away taken from the other PEP names and the pools of name_variants.py, so most of those names are
   NOT on the resolver's own roster (kbgraph.resolve.roster): that run measures how the namesake
   rules generalise rather than how well the roster was written for its own test.

Deterministic: one random.Random(seed) per set.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import name_variants as nv

PEP_PEOPLE = Path(__file__).resolve().parents[2] / "shared" / "data" / "names" / "pep-people.txt"

# Real surnames one or two letters apart that belong to different families.
SURNAME_PAIRS = [
    ("Shah", "Shaw"), ("Chen", "Chan"), ("Wong", "Wang"), ("Hall", "Hale"), ("Smith", "Smyth"),
    ("Jensen", "Jenson"), ("Peterson", "Petersen"), ("Meyer", "Meier"), ("Mayer", "Maier"), ("Clark", "Clarke"),
    ("Reid", "Reed"), ("Brown", "Braun"), ("Khan", "Kahn"), ("Cohen", "Cohn"), ("Gray", "Grey"),
    ("Price", "Pryce"), ("Thompson", "Thomson"), ("Johnson", "Jonson"), ("Hansen", "Hanson"), ("Olsen", "Olson"),
    ("Nielsen", "Nilsen"), ("Larsen", "Larson"), ("Andersen", "Anderson"), ("Carlson", "Carlsson"),
    ("Fischer", "Fisher"), ("Schmidt", "Schmitt"), ("Wagner", "Wegner"), ("Stein", "Stern"), ("Bell", "Ball"),
    ("Hill", "Hall"), ("Dunn", "Dunne"), ("Moore", "More"), ("Gupta", "Gupte"), ("Perez", "Peres"),
    ("Gomez", "Gomes"), ("Lopez", "Lopes"), ("Alvarez", "Alvares"), ("Rodriguez", "Rodrigues"),
    ("Fernandez", "Fernandes"), ("Martin", "Martins"), ("Pham", "Phan"), ("Huang", "Hwang"), ("Cheng", "Chang"),
    ("Park", "Pak"), ("Ito", "Itoh"), ("Sato", "Saito"), ("Ivanov", "Ivanova"), ("Petrov", "Petrova"),
    ("Novak", "Nowak"), ("Levi", "Levy"), ("Weiss", "Weis"), ("Kaplan", "Caplan"), ("Roth", "Rath"),
    ("Klein", "Kline"), ("Hahn", "Hann"), ("Frank", "Franke"), ("Young", "Yang"), ("Kang", "Kong"),
    ("Lim", "Lin"), ("Lee", "Li"), ("Kim", "Kin"), ("Mann", "Man"), ("Cole", "Cale"), ("Rossi", "Russo"),
]
# Real given names one or two letters apart that are different names (not a diminutive of each other).
GIVEN_PAIRS = [
    ("Ana", "Anna"), ("Ann", "Anne"), ("John", "Jon"), ("Mark", "Marc"), ("Erik", "Eric"), ("Karl", "Carl"),
    ("Sarah", "Sara"), ("Alan", "Allan"), ("Allen", "Alan"), ("Philip", "Phillip"), ("Stefan", "Stephan"),
    ("Ivan", "Ivana"), ("Daniel", "Daniela"), ("Maria", "Mario"), ("Luis", "Luisa"), ("Lucas", "Lukas"),
    ("Elena", "Elina"), ("Adrian", "Adriana"), ("Simon", "Simone"), ("Cara", "Kara"), ("Claire", "Clara"),
    ("Lena", "Lina"), ("Mia", "Maya"), ("Jana", "Jane"), ("Laura", "Lara"), ("Amit", "Amir"), ("Omar", "Omer"),
    ("Kevin", "Kelvin"), ("Brian", "Bryan"), ("Hanna", "Hannah"), ("Leah", "Lea"), ("Julia", "Julie"),
    ("Barry", "Larry"), ("Mathew", "Matthew"), ("Kristen", "Kirsten"), ("Catherine", "Katherine"),
    ("Marta", "Martha"), ("Nina", "Nino"), ("Paula", "Paola"), ("Marco", "Marko"), ("Christian", "Christina"),
]

# Slips people make in names, written out (truth: the first name of the pair).
HAND_TYPOS = [
    ("Arjun Mehta", "Arjoon Mehta"), ("Arjun Mehta", "Arjun Mehat"), ("Nguyen Van An", "Ngyuen Van An"),
    ("Katarzyna Kowalski", "Katarzyna Kowalksi"), ("Christopher Lindqvist", "Chirstopher Lindqvist"),
    ("Alexander Petrov", "Alexnader Petrov"), ("Michael Okafor", "Micheal Okafor"),
    ("Rodrigo Fernandez", "Rodrigo Fernadez"), ("Priya Krishnan", "Priya Krishanan"),
    ("Siobhan Gallagher", "Siobhan Gallager"), ("Deepika Chatterjee", "Deepika Chaterjee"),
    ("Mohammed Al-Hassan", "Mohammed Al-Hasan"), ("Jurgen Schafer", "Jurgen Schaefer"),
    ("Oluwaseun Adeyemi", "Oluwaseun Adeyami"), ("Yamamoto Haruto", "Yamamotto Haruto"),
]

OCR = [("rn", "m"), ("m", "rn"), ("e", "c"), ("cl", "d"), ("i", "l"), ("o", "0")]


@dataclass(frozen=True)
class Known:
    id: int
    name: str
    emails: tuple[str, ...] = ()
    context: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Case:
    surface: str
    kind: str  # "typo" | "namesake" | "namesake+evidence" | "unrelated"
    truth: int | None
    context: frozenset[int] = frozenset()
    email: str | None = None
    detail: str = ""  # the pair, for listing mistakes: "Shah -> Shaw"


def typo(rng: random.Random, word: str) -> str | None:
    """One slip in a word of 5+ letters, never at the first letter."""
    if len(word) < 5:
        return None
    i = rng.randrange(1, len(word) - 2)
    how = rng.choice(["transpose", "drop", "double", "ocr"])
    out = nv.respell(rng, word, i, how, OCR)  # this set's own look-alikes
    return out if out and out != word else None


def _swap(name: str, old: str, new: str) -> str:
    words = name.split()
    return " ".join(new if w == old else w for w in words)


def _key(text: str) -> str:
    return nv._key(text)


def roster_set(seed: int = 5, people: int = 1000) -> tuple[list[Known], list[Case]]:
    """The generated knowledge base plus two people per real name pair, and the labelled mentions."""
    rng = random.Random(seed)
    base = nv.people(people, seed)
    kb = [Known(p.id, p.name, p.emails, p.context) for p in base]
    taken = {_key(p.name) for p in base} | {_key(f"{p.first} {p.last}") for p in base}
    cases: list[Case] = []
    pairs = [("last", a, b) for a, b in SURNAME_PAIRS] + [("first", a, b) for a, b in GIVEN_PAIRS]
    for role, a, b in pairs:
        # One direction per pair (Shah known, Shaw said, or back): with both names known, the other
        # spelling is a known person's word and the resolver's `rival` rule, not the namesake rule, asks.
        known_word, other = (a, b) if rng.random() < 0.5 else (b, a)
        made = 0
        for _ in range(6):
            if made == 2:
                break
            first = known_word if role == "first" else rng.choice(nv.FIRST)
            last = known_word if role == "last" else rng.choice(nv.LAST)
            name, said = f"{first} {last}", _swap(f"{first} {last}", known_word, other)
            if _key(name) in taken or _key(said) in taken:
                continue
            pid = len(kb) + 1
            team = nv.TEAM_BASE + rng.randrange(people // 12)
            context = frozenset({team, nv.PROJECT_BASE + rng.randrange(people // 6), rng.randint(1, people)})
            email = nv._ascii(f"{first}.{last}").lower().replace(" ", "").replace("'", "") + "@acme.io"
            kb.append(Known(pid, name, (email,), context))
            taken.add(_key(name))
            detail = f"{known_word} -> {other}"
            # A namesake is often in the same team: one shared id must not make it a link.
            shared = frozenset({team}) if rng.random() < 0.4 else frozenset()
            cases.append(Case(said, "namesake", None, shared, None, detail))
            evidence = rng.choice(["email", "context"])
            cases.append(
                Case(said, "namesake+evidence", pid, context if evidence == "context" else frozenset(),
                     email if evidence == "email" else None, f"{detail} ({evidence})")
            )
            slip = _typo_of(rng, name)
            if slip:
                cases.append(Case(slip, "typo", pid, _some(rng, context), None, f"{name} -> {slip}"))
            made += 1
    hand: dict[str, int] = {}
    for truth_name, slip in HAND_TYPOS:
        if truth_name not in hand:
            hand[truth_name] = len(kb) + 1
            kb.append(Known(hand[truth_name], truth_name))
        pid = hand[truth_name]
        cases.append(Case(slip, "typo", pid, frozenset(), None, f"{truth_name} -> {slip}"))
    for p in rng.sample(base, 300):  # typos of the generated people too
        slip = _typo_of(rng, p.name)
        if slip and _key(slip) not in taken:
            cases.append(Case(slip, "typo", p.id, _some(rng, p.context), None, f"{p.name} -> {slip}"))
    cases += _unrelated(rng, [k.name for k in kb], nv.FIRST + nv.EXTRA_FIRST, nv.LAST + nv.EXTRA_LAST, 300)
    return kb, cases


def pep_set(seed: int = 5) -> tuple[list[Known], list[Case]] | None:
    """Real PEP authors as the knowledge base; namesakes from other real names one or two edits away."""
    if not PEP_PEOPLE.exists():
        return None
    rng = random.Random(seed)
    names = [n.strip() for n in PEP_PEOPLE.read_text(encoding="utf-8").splitlines()]
    names = [n for n in dict.fromkeys(names) if len(n.split()) >= 2 and all(w[0].isalpha() for w in n.split())]
    kb = [Known(i + 1, n) for i, n in enumerate(names)]
    taken = {_key(n) for n in names}
    firsts = sorted({n.split()[0] for n in names} | set(nv.FIRST) | {w for p in GIVEN_PAIRS for w in p})
    lasts = sorted({n.split()[-1] for n in names} | set(nv.LAST) | {w for p in SURNAME_PAIRS for w in p})
    cases: list[Case] = []
    for person in kb:
        words = person.name.split()
        for role, word, pool in (("first", words[0], firsts), ("last", words[-1], lasts)):
            for other in _neighbours(word, pool):
                said = " ".join([other, *words[1:]] if role == "first" else [*words[:-1], other])
                if _key(said) not in taken:
                    cases.append(Case(said, "namesake", None, frozenset(), None, f"{word} -> {other}"))
        slip = _typo_of(rng, person.name)
        if slip and _key(slip) not in taken:
            cases.append(Case(slip, "typo", person.id, frozenset(), None, f"{person.name} -> {slip}"))
    cases += _unrelated(rng, names, firsts, lasts, 200)
    return kb, cases


def _neighbours(word: str, pool: list[str]) -> list[str]:
    """Real names one edit from `word` (two from 8 letters), spelt differently once folded."""
    from rapidfuzz.distance import OSA

    folded = nv._ascii(word).lower()
    limit = 2 if len(folded) >= 8 else 1
    out = []
    for other in pool:
        o = nv._ascii(other).lower()
        if o != folded and len(o) >= 3 and OSA.distance(folded, o) <= limit and not _one_given_name(folded, o):
            out.append(other)
    return out


def _one_given_name(a: str, b: str) -> bool:
    """Steve / Steven, Ed / Ned: forms of one given name, as likely the same person as not; left out
    of the namesakes (the resolver's own diminutive table decides, the one place it is consulted)."""
    from kbgraph.entities.nicknames import canonical_given_name

    group = canonical_given_name(a)
    return group is not None and group == canonical_given_name(b)


def _typo_of(rng: random.Random, name: str) -> str | None:
    words = name.split()
    longest = max(range(len(words)), key=lambda i: len(words[i]))
    slip = typo(rng, words[longest])
    if slip is None:
        return None
    words[longest] = slip
    return " ".join(words)


def _some(rng: random.Random, context: frozenset[int]) -> frozenset[int]:
    """What a note says around a typo: often nothing, sometimes one id of the person's context."""
    ids = sorted(context)
    return frozenset(rng.sample(ids, 1)) if ids and rng.random() < 0.4 else frozenset()


def _unrelated(rng, known: list[str], firsts, lasts, count: int) -> list[Case]:
    """Names two or more edits from every known name, word by word."""
    from rapidfuzz.distance import OSA

    known_words = {w for n in known for w in nv._ascii(n).lower().split()}
    out: list[Case] = []
    for _ in range(count * 20):
        if len(out) >= count:
            break
        first, last = rng.choice(firsts), rng.choice(lasts)
        words = [nv._ascii(first).lower(), nv._ascii(last).lower()]
        if any(OSA.distance(w, k) <= 1 for w in words for k in known_words):
            continue
        out.append(Case(f"{first} {last}", "unrelated", None))
    return out


# --- marks of another person: ordinals, generational suffixes, middle initials (issue 29) -------------

# Public figures of one family name told apart only by a mark (written from public knowledge).
FAMILIES = [
    ["Henry Ford", "Henry Ford II"], ["Martin Luther King Sr.", "Martin Luther King Jr."],
    ["Cal Ripken Sr.", "Cal Ripken Jr."], ["Ken Griffey Sr.", "Ken Griffey Jr."],
    ["Pliny the Elder", "Pliny the Younger"], ["Robert Downey Sr.", "Robert Downey Jr."],
    ["Hank Williams", "Hank Williams Jr.", "Hank Williams III"], ["Davis Love Jr.", "Davis Love III"],
    ["John D. Rockefeller", "John D. Rockefeller Jr.", "John D. Rockefeller III", "John D. Rockefeller IV"],
    ["Harry Connick Sr.", "Harry Connick Jr."], ["Adlai Stevenson II", "Adlai Stevenson III"],
    ["Henry Cabot Lodge", "Henry Cabot Lodge Jr."], ["Joseph P. Kennedy", "Joseph P. Kennedy II", "Joseph P. Kennedy III"],
    ["Elizabeth I", "Elizabeth II"], ["George H. W. Bush", "George W. Bush"], ["John Paul I", "John Paul II"],
    ["Frank Sinatra", "Frank Sinatra Jr."], ["Lon Chaney", "Lon Chaney Jr."], ["Oliver Wendell Holmes Sr.", "Oliver Wendell Holmes Jr."],
]
_MARKS = ["II", "III", "IV", "Jr.", "Sr."]


def marks_set(seed: int = 5) -> tuple[list[Known], list[Case]]:
    """Known people whose names carry a mark, and mentions that differ from one only by it.

    The public figures of FAMILIES (each said by every other member's name: truth that member, known
    too), and for each real PEP name (or the generated roster without it) one known marked form and a
    mention with another mark, a bare name against a marked one, or another middle initial. Truth:
    nobody (kind "mark"); the exact marked name and a slip in it are the person (kinds "marked", "typo")."""
    rng = random.Random(seed)
    kb: list[Known] = []
    cases: list[Case] = []
    for family in FAMILIES:
        ids = []
        for name in family:
            kb.append(Known(len(kb) + 1, name))
            ids.append(len(kb))
        for name, truth in zip(family, ids):
            cases.append(Case(name, "marked", truth, detail=name))
    if PEP_PEOPLE.exists():
        names = [n.strip() for n in PEP_PEOPLE.read_text(encoding="utf-8").splitlines()]
    else:
        names = [p.name for p in nv.people(400, seed)]
    names = [n for n in dict.fromkeys(names) if len(n.split()) == 2 and all(w.isalpha() for w in n.split())]
    letters = "ABCDEFGHJKLMNPRSTW"
    for i, name in enumerate(names):
        first, last = name.split()
        role = i % 4
        if role == 0:  # a known ordinal or suffix, said with another
            mine, other = rng.sample(_MARKS, 2)
            known, said = f"{name} {mine}", f"{name} {other}"
        elif role == 1:  # a known marked name, said bare
            known, said = f"{name} {rng.choice(_MARKS)}", name
        elif role == 2:  # a known bare name, said with a mark
            known, said = name, f"{name} {rng.choice(_MARKS)}"
        else:  # another middle initial
            a, b = rng.sample(letters, 2)
            known, said = f"{first} {a}. {last}", f"{first} {b}. {last}"
        kb.append(Known(len(kb) + 1, known))
        cases.append(Case(said, "mark", None, detail=f"{known} -> {said}"))
        cases.append(Case(known, "marked", len(kb), detail=known))
        slip = _typo_of(rng, known)
        if slip and slip != known:
            cases.append(Case(slip, "typo", len(kb), detail=f"{known} -> {slip}"))
    return kb, cases

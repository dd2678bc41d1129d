"""A harder set of person records for the duplicate-page benchmark (issue 29), generated and seeded.

What makes it hard, each on purpose:

- clusters of up to MAX_DUPLICATES + 1 records of one person (most have none, some 5 or more);
- typos anywhere in a name, the first letter included (K/C, a dropped or doubled first letter);
- given name and surname swapped, or written "Surname, Given";
- missing values: any of birth date, address, phone, id number, email, and sometimes the given name
  reduced to an initial;
- nicknames (Bob for Robert) and dropped middle names;
- families: a household shares a surname, an address and often a phone, with different given names
  and birth dates (parents, children);
- twins: one household, one surname and birth date, different given names (sometimes close ones);
- common names: given names and surnames drawn with a skewed frequency, so distinct people share a
  name (different birth date and id number).

Truth: records made from one person. Records are DuplicateRecords with frontmatter-like attributes
(address, dob, phone, id_number, email), so the same set can be written as person pages.
"""

from __future__ import annotations

import random
from collections import defaultdict
from itertools import combinations

from duplicates_eval import GIVEN, NICK, STATES, STREET_KINDS, STREETS, SUBURBS, SURNAMES, corrupt_dob, zipf_choice

from kbgraph.resolve.duplicates import DuplicateRecord

MAX_DUPLICATES = 7
# How many duplicates a person gets (0..7), the share of people with each count.
CLUSTER_SIZES = [0.50, 0.20, 0.10, 0.07, 0.05, 0.04, 0.025, 0.015]
TWIN_NAMES = [("anna", "hanna"), ("mark", "mary"), ("john", "jane"), ("eric", "erin"), ("liam", "lily"),
              ("ella", "emma"), ("sam", "sara"), ("noah", "nora"), ("alex", "alan"), ("mia", "max")]
HANDS = {"c": "k", "k": "c", "s": "z", "j": "g", "g": "j", "f": "ph", "i": "y", "y": "i", "e": "a", "a": "e"}


def hard_set(people: int, seed: int) -> tuple[list[DuplicateRecord], set[tuple[str, str]], dict]:
    """Records, true pairs and what was made (households, twins, cluster sizes)."""
    rng = random.Random(seed)
    persons: list[dict] = []
    twins = households = 0
    while len(persons) < people:
        if rng.random() < 0.3:  # a household: 2-5 people of one surname at one address
            members, twin = _household(rng, len(persons))
            persons.extend(members)
            households += 1
            twins += twin
        else:
            persons.append(_person(rng, f"p{len(persons)}"))
    persons = persons[:people]
    rows: list[dict] = []
    clusters: dict[str, list[str]] = defaultdict(list)
    sizes: dict[int, int] = defaultdict(int)
    for person in persons:
        count = rng.choices(range(len(CLUSTER_SIZES)), CLUSTER_SIZES)[0]
        sizes[count + 1] += 1
        for k in range(count + 1):
            rec = dict(person, id=f"{person['pid']}-{k}") if k == 0 else _duplicate(rng, person, f"{person['pid']}-{k}")
            rows.append(rec)
            clusters[person["pid"]].append(rec["id"])
    rng.shuffle(rows)
    truth = {tuple(sorted(p)) for ids in clusters.values() for p in combinations(ids, 2)}
    records = [DuplicateRecord(r["id"], "person", _written(r), attributes={
        k: r[k] for k in ("address", "dob", "phone", "id_number", "email") if r.get(k)}) for r in rows]
    made = {"people": len(persons), "records": len(records), "households": households, "twin_pairs": twins,
            "cluster_sizes": dict(sorted(sizes.items()))}
    return records, truth, made  # type: ignore[return-value]


def _address(rng: random.Random) -> str:
    return (f"{rng.randint(1, 250)} {rng.choice(STREETS)} {rng.choice(STREET_KINDS)[0]}, "
            f"{rng.choice(SUBURBS)} {rng.randint(2000, 7999)} {rng.choice(STATES)}")


def _dob(rng: random.Random, low: int = 1930, high: int = 2008) -> str:
    return f"{rng.randint(low, high):04d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def _person(rng: random.Random, pid: str, surname: str | None = None, address: str | None = None,
            dob: str | None = None, given: str | None = None, phone: str | None = None) -> dict:
    given = given or zipf_choice(rng, GIVEN, 0.8)
    surname = surname or zipf_choice(rng, SURNAMES, 0.8)
    rec = {"pid": pid, "given": given, "middle": rng.choice(GIVEN) if rng.random() < 0.25 else None,
           "surname": surname, "address": address or _address(rng), "dob": dob or _dob(rng),
           "phone": phone or (f"0{rng.randint(2, 8)} {rng.randint(1000, 9999)} {rng.randint(1000, 9999)}"
                              if rng.random() < 0.6 else None),
           "id_number": f"{rng.randint(1000000, 9999999)}" if rng.random() < 0.6 else None,
           "email": None, "order": "given-first"}
    if rng.random() < 0.35:
        rec["email"] = f"{given}.{surname}{rng.randint(1, 99)}@{rng.choice(['mail.com', 'post.net', 'acme.io'])}"
    return rec


def _household(rng: random.Random, start: int) -> tuple[list[dict], int]:
    surname, address = zipf_choice(rng, SURNAMES, 0.8), _address(rng)
    phone = f"0{rng.randint(2, 8)} {rng.randint(1000, 9999)} {rng.randint(1000, 9999)}" if rng.random() < 0.5 else None
    size = rng.randint(2, 5)
    members: list[dict] = []
    used: set[str] = set()
    twin = 0
    while len(members) < size:
        pid = f"p{start + len(members)}"
        if len(members) >= 2 and rng.random() < 0.25 and len(members) + 2 <= size + 1:  # twins
            a, b = rng.choice(TWIN_NAMES) if rng.random() < 0.5 else (rng.choice(GIVEN), rng.choice(GIVEN))
            if a == b or a in used or b in used:
                continue
            dob = _dob(rng, 1990, 2015)
            members.append(_person(rng, pid, surname, address, dob, a, phone))
            members.append(_person(rng, f"p{start + len(members)}", surname, address, dob, b, phone))
            used |= {a, b}
            twin += 1
            continue
        given = rng.choice(GIVEN)
        if given in used:
            continue
        used.add(given)
        members.append(_person(rng, pid, surname, address, None, given, phone))
    return members, twin


CORRUPTIONS = ("given-typo", "surname-typo", "first-letter", "nickname", "swap", "comma", "missing", "missing",
               "dob", "dob-format", "abbreviate", "phone-format", "id-format", "initial", "drop-middle",
               "email-case")


def _duplicate(rng: random.Random, person: dict, rid: str) -> dict:
    dup = dict(person, id=rid)
    for how in sorted(rng.sample(CORRUPTIONS, rng.randint(1, 3)), key=lambda h: h == "dob-format"):
        _corrupt(rng, dup, how)
    return dup


def _corrupt(rng: random.Random, dup: dict, how: str) -> None:
    if how in ("given-typo", "surname-typo"):
        field = "given" if how == "given-typo" else "surname"
        dup[field] = _typo(rng, dup[field], rng.randrange(0, len(dup[field])))
    elif how == "first-letter":
        field = rng.choice(["given", "surname"])
        word = dup[field]
        dup[field] = HANDS.get(word[0], word[0]) + word[1:] if rng.random() < 0.7 else _typo(rng, word, 0)
    elif how == "nickname" and dup["given"] in NICK:
        dup["given"] = NICK[dup["given"]]
    elif how == "swap":
        dup["order"] = "surname-first"
    elif how == "comma":
        dup["order"] = "comma"
    elif how == "missing":
        dup[rng.choice(["dob", "address", "phone", "id_number", "email"])] = None
    elif how == "dob" and dup["dob"]:
        dup["dob"] = corrupt_dob(rng, dup["dob"])
    elif how == "dob-format" and dup["dob"]:
        y, m, d = dup["dob"].split("-")
        dup["dob"] = f"{d}/{m}/{y}"
    elif how == "abbreviate" and dup["address"]:
        for long_, short in STREET_KINDS:
            dup["address"] = dup["address"].replace(f" {long_},", f" {short},")
    elif how == "phone-format" and dup["phone"]:
        dup["phone"] = "+61 " + dup["phone"][1:]
    elif how == "id-format" and dup["id_number"]:
        dup["id_number"] = f"{dup['id_number'][:3]}-{dup['id_number'][3:]}"
    elif how == "initial" and len(dup["given"]) > 1:
        dup["given"] = dup["given"][0]
    elif how == "drop-middle":
        dup["middle"] = None
    elif how == "email-case" and dup["email"]:
        dup["email"] = dup["email"].upper()


def _typo(rng: random.Random, word: str, i: int) -> str:
    if len(word) < 3:
        return word
    kind = rng.choice("idst")
    letter = rng.choice("abcdefghijklmnopqrstuvwxyz")
    if kind == "i":
        return word[:i] + letter + word[i:]
    if kind == "d":
        return word[:i] + word[i + 1:]
    if kind == "s":
        return word[:i] + letter + word[i + 1:]
    i = max(i, 1)
    return word[:i - 1] + word[i] + word[i - 1] + word[i + 1:]


def _written(r: dict) -> str:
    given = r["given"].title() + (f" {r['middle'].title()}" if r.get("middle") else "")
    surname = r["surname"].title()
    if r["order"] == "surname-first":
        return f"{surname} {given}"
    if r["order"] == "comma":
        return f"{surname}, {given}"
    return f"{given} {surname}"

"""Duplicate entity pages found by kbgraph.resolve.duplicates, scored against known truth.

1. FEBRL-like person records (generated here, seeded; analogous to the public record-linkage
   benchmarks of originals plus corrupted duplicates, written independently): originals with a
   real given name and surname drawn with a skewed frequency (so distinct people share names),
   a street address, a date of birth and sometimes a phone; then duplicates of some originals
   (up to 3 each), each with 1-3 corruptions: a typo in a name (insert, delete, substitute,
   transpose), a nickname for the given name, given name and surname swapped, a missing field,
   date-of-birth digits transposed / one digit changed / day and month swapped, the address
   abbreviated (Street -> St), the phone written with its country code. Originals also miss
   fields now and then. Scored pairwise (a proposed pair is right when both records come from one
   original): precision, recall, F1, the comparisons blocking left against all pairs (reduction
   ratio) and the share of true pairs blocking kept (pair completeness).
2. Real names (../shared/data/names/pep-people.txt; skipped with a note when absent): each
   person a page with an email, sometimes a handle and a team; duplicate pages written as people
   write them (first name only with the surname, a nickname, the name reversed "Surname, Given",
   accents dropped, a typo) that keep the email or handle half the time; plus namesakes: a
   distinct person with the same name and another email, or a surname one letter off (Shah / Shaw).

3. End to end (--vault N): N FEBRL-like records written as person pages (frontmatter name, dob,
   address, phone) into a temporary vault, indexed, then `kbg resolve duplicates` (the library
   call behind it) timed, and its questions scored like 1.
4. The harder set (--hard N people, bench/hard_people.py; --hard-vault N end to end): clusters of up
   to 8 records, first-letter slips, swapped names, households, twins, id numbers. Every set reports
   pair completeness (the share of true pairs blocking ever compared) and compared_share (the share
   of all pairs compared).

Usage:
    .venv/bin/python bench/duplicates_eval.py                      # 5,000 records, ~1,500 duplicates
    .venv/bin/python bench/duplicates_eval.py --vault 2000         # + 2,000 person pages end to end
    .venv/bin/python bench/duplicates_eval.py --records 20000 --seed 5 --json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
import unicodedata
from collections import defaultdict
from itertools import combinations
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, os.environ.get("KBG_BENCH_SRC") or str(REPO / "src"))  # another checkout's src: a baseline
sys.path.insert(0, str(REPO / "bench"))

from kbgraph.resolve.duplicates import DuplicateRecord, find_duplicates  # noqa: E402

GIVEN = """
james john robert michael william david richard joseph thomas charles christopher daniel matthew anthony
mark donald steven paul andrew joshua kenneth kevin brian george timothy ronald edward jason jeffrey ryan
jacob gary nicholas eric jonathan stephen larry justin scott brandon benjamin samuel gregory alexander
frank patrick raymond jack dennis jerry tyler aaron jose adam nathan henry douglas zachary peter kyle
ethan walter noah jeremy christian keith roger terry gerald harold sean austin carl arthur lawrence dylan
jesse jordan bryan billy joe bruce gabriel logan albert willie alan juan wayne elijah randy roy vincent
ralph eugene russell bobby mason philip louis mary patricia jennifer linda elizabeth barbara susan
jessica sarah karen lisa nancy betty margaret sandra ashley kimberly emily donna michelle carol amanda
dorothy melissa deborah stephanie rebecca sharon laura cynthia kathleen amy angela shirley anna brenda
pamela emma nicole helen samantha katherine christine debra rachel carolyn janet catherine maria heather
diane ruth julie olivia joyce virginia victoria kelly lauren christina joan evelyn judith megan andrea
cheryl hannah jacqueline martha gloria teresa ann sara madison frances kathryn janice jean abigail alice
judy sophia grace denise amber doris marilyn danielle beverly isabella theresa diana natalie brittany
charlotte marie kayla alexis lori chloe jasmine mia zoe ruby lily ella harriet imogen freya isla ava
oliver harry jamie liam connor callum lachlan riley cooper hamish angus fergus declan kieran
""".split()

SURNAMES = """
smith johnson williams brown jones garcia miller davis rodriguez martinez hernandez lopez gonzalez wilson
anderson thomas taylor moore jackson martin lee perez thompson white harris sanchez clark ramirez lewis
robinson walker young allen king wright scott torres nguyen hill flores green adams nelson baker hall
rivera campbell mitchell carter roberts gomez phillips evans turner diaz parker cruz edwards collins reyes
stewart morris morales murphy cook rogers gutierrez ortiz morgan cooper peterson bailey reed kelly howard
ramos kim cox ward richardson watson brooks chavez wood james bennett gray mendoza ruiz hughes price
alvarez castillo sanders patel myers long ross foster jimenez powell jenkins perry russell sullivan bell
coleman butler henderson barnes gonzales fisher vasquez simmons romero jordan patterson alexander hamilton
graham reynolds griffin wallace moreno west cole hayes bryant herrera gibson ellis tran medina aguilar
stevens murray ford castro marshall owens harrison fernandez mcdonald woods washington kennedy wells
vargas henry chen freeman webb tucker guzman burns crawford olson simpson porter hunter gordon mendez
silva shaw snyder mason dixon munoz hunt hicks holmes palmer wagner black robertson boyd rose stone
salazar fox warren mills meyer rice schmidt garza daniels ferguson nichols stephens soto weaver ryan
gardner payne grant dunn kelley spencer hawkins arnold pierce vazquez hansen peters santos hart bradley
knight elliott cunningham duncan armstrong hudson carroll lane riley andrews alvarado ray delgado berry
perkins hoffman johnston matthews pena richards willis carpenter lawrence sandoval guerrero george
chapman rios estrada ortega watkins greene nunez wheeler valdez harper burke larson santiago maldonado
morrison franklin carlson austin dominguez carr lawson jacobs obrien lynch singh vega bishop montgomery
oliver jensen harvey williamson gilbert dean sims espinoza howell li wong reid hanson le mccoy garrett
burton fuller wang weber welch rojas lucas marquez fields park yang little banks padilla day walsh
""".split()

NICK = {"james": "jim", "john": "jack", "robert": "bob", "michael": "mike", "william": "bill", "richard": "rick",
        "joseph": "joe", "thomas": "tom", "charles": "charlie", "christopher": "chris", "daniel": "dan",
        "matthew": "matt", "anthony": "tony", "steven": "steve", "andrew": "andy", "kenneth": "ken",
        "timothy": "tim", "edward": "ed", "jonathan": "jon", "benjamin": "ben", "samuel": "sam",
        "alexander": "alex", "patrick": "pat", "nicholas": "nick", "elizabeth": "liz", "margaret": "maggie",
        "jennifer": "jen", "rebecca": "becky", "katherine": "kate", "catherine": "cathy", "deborah": "deb",
        "victoria": "vicky", "susan": "sue", "pamela": "pam", "samantha": "sam", "abigail": "abby",
        "jacqueline": "jackie", "christina": "tina", "gregory": "greg", "douglas": "doug", "zachary": "zach",
        "lawrence": "larry", "gerald": "gerry", "frances": "fran", "judith": "judy", "theresa": "tess"}

STREETS = """
main high church station park victoria george king queen elizabeth albert william mill bridge
market north south east west hill chapel school green oak pine maple cedar elm river lake forest
""".split()
STREET_KINDS = [("street", "st"), ("road", "rd"), ("avenue", "ave"), ("drive", "dr"), ("lane", "ln"),
                ("court", "ct"), ("place", "pl"), ("crescent", "cres"), ("terrace", "tce"), ("parade", "pde")]
SUBURBS = """
belconnen kingston braddon weston mawson dickson narrabundah griffith hackett ainslie turner lyneham
watson ngunnawal gungahlin kambah wanniassa tuggeranong fadden monash bonython conder calwell chisholm
richmond carlton fitzroy brunswick coburg preston northcote kew hawthorn camberwell glenroy
""".split()
STATES = ["act", "nsw", "vic", "qld", "sa", "wa", "tas", "nt"]


def zipf_choice(rng: random.Random, items: list[str], skew: float = 1.0) -> str:
    weights = [1.0 / (i + 1) ** skew for i in range(len(items))]
    return rng.choices(items, weights)[0]


def original(rng: random.Random, rid: str) -> dict:
    year, month, day = rng.randint(1930, 2005), rng.randint(1, 12), rng.randint(1, 28)
    rec = {"id": rid, "given": zipf_choice(rng, GIVEN, 0.6), "surname": zipf_choice(rng, SURNAMES, 0.6),
           "address": f"{rng.randint(1, 250)} {rng.choice(STREETS)} {rng.choice(STREET_KINDS)[0]}, "
                      f"{rng.choice(SUBURBS)} {rng.randint(2000, 7999)} {rng.choice(STATES)}",
           "dob": f"{year:04d}-{month:02d}-{day:02d}",
           "phone": f"0{rng.randint(2, 8)} {rng.randint(1000, 9999)} {rng.randint(1000, 9999)}"}
    for fld, p in (("dob", 0.05), ("address", 0.05), ("phone", 0.4)):
        if rng.random() < p:
            rec[fld] = None
    return rec


def typo(rng: random.Random, word: str) -> str:
    if len(word) < 3:
        return word
    i = rng.randrange(1, len(word) - 1)
    kind = rng.choice("idst")
    letter = rng.choice("abcdefghijklmnopqrstuvwxyz")
    if kind == "i":
        return word[:i] + letter + word[i:]
    if kind == "d":
        return word[:i] + word[i + 1:]
    if kind == "s":
        return word[:i] + letter + word[i + 1:]
    return word[:i - 1] + word[i] + word[i - 1] + word[i + 1:]


def corrupt_dob(rng: random.Random, dob: str) -> str:
    y, m, d = dob.split("-")
    how = rng.choice(["swap-day-month", "transpose", "digit"])
    if how == "swap-day-month" and int(d) <= 12:
        return f"{y}-{d}-{m}"
    digits = list(y + m + d)
    if how == "transpose":
        i = rng.randrange(len(digits) - 1)
        digits[i], digits[i + 1] = digits[i + 1], digits[i]
    else:
        i = rng.choice([3, 7])  # the year's or the day's last digit
        digits[i] = str((int(digits[i]) + rng.randint(1, 8)) % 10)
    text = "".join(digits)
    return f"{text[:4]}-{text[4:6]}-{text[6:]}"


CORRUPTIONS = ("given-typo", "surname-typo", "nickname", "swap-names", "missing", "dob", "abbreviate",
               "phone-format", "address-typo", "dob-format")


def duplicate(rng: random.Random, rec: dict, rid: str) -> dict:
    dup = dict(rec, id=rid)
    # The date's format last: the other corruptions read it as ISO.
    for how in sorted(rng.sample(CORRUPTIONS, rng.randint(1, 3)), key=lambda h: h == "dob-format"):
        if how == "given-typo":
            dup["given"] = typo(rng, dup["given"])
        elif how == "surname-typo":
            dup["surname"] = typo(rng, dup["surname"])
        elif how == "nickname" and dup["given"] in NICK:
            dup["given"] = NICK[dup["given"]]
        elif how == "swap-names":
            dup["given"], dup["surname"] = dup["surname"], dup["given"]
        elif how == "missing":
            dup[rng.choice(["dob", "address", "phone"])] = None
        elif how == "dob" and dup["dob"]:
            dup["dob"] = corrupt_dob(rng, dup["dob"])
        elif how == "dob-format" and dup["dob"]:
            y, m, d = dup["dob"].split("-")
            dup["dob"] = f"{d}/{m}/{y}"
        elif how == "abbreviate" and dup["address"]:
            for long_, short in STREET_KINDS:
                dup["address"] = dup["address"].replace(f" {long_},", f" {short},")
        elif how == "address-typo" and dup["address"]:
            words = dup["address"].split()
            i = rng.randrange(len(words))
            words[i] = typo(rng, words[i])
            dup["address"] = " ".join(words)
        elif how == "phone-format" and dup["phone"]:
            dup["phone"] = "+61 " + dup["phone"][1:]
    return dup


def febrl_like(records: int, duplicates: int, seed: int) -> tuple[list[DuplicateRecord], set[tuple[str, str]]]:
    rng = random.Random(seed)
    originals = [original(rng, f"rec-{i}-org") for i in range(records - duplicates)]
    rows, clusters = list(originals), defaultdict(list)
    for o in originals:
        clusters[o["id"]].append(o["id"])
    made = 0
    while made < duplicates:
        src = rng.choice(originals)
        if len(clusters[src["id"]]) >= 4:  # an original and at most three duplicates
            continue
        dup = duplicate(rng, src, f"{src['id'][:-4]}-dup-{len(clusters[src['id']])}")
        rows.append(dup)
        clusters[src["id"]].append(dup["id"])
        made += 1
    rng.shuffle(rows)
    truth = {tuple(sorted(p)) for ids in clusters.values() for p in combinations(ids, 2)}
    out = [DuplicateRecord(r["id"], "person", f"{r['given'].title()} {r['surname'].title()}",
                           attributes={k: r[k] for k in ("address", "dob", "phone") if r[k]}) for r in rows]
    return out, truth  # type: ignore[return-value]


def real_names(path: Path, seed: int) -> tuple[list[DuplicateRecord], set[tuple[str, str]], int] | None:
    if not path.exists():
        return None
    rng = random.Random(seed)
    names = [n.strip() for n in path.read_text(encoding="utf-8").splitlines() if len(n.split()) >= 2]
    records, truth, namesakes = [], set(), 0
    for i, name in enumerate(names):
        email = f"{_ascii(name).lower().replace(' ', '.')}@{rng.choice(['python.org', 'example.com', 'acme.io'])}"
        attrs: dict = {"email": email}
        if rng.random() < 0.5:
            attrs["handle"] = "@" + _ascii(name).lower().replace(" ", "")[:12]
        if rng.random() < 0.5:
            attrs["team"] = rng.choice(["core", "typing", "packaging", "docs"])
        records.append(DuplicateRecord(f"p{i}", "person", name, attributes=attrs))
        if rng.random() < 0.4:  # a second page for this person
            words = name.split()
            variant = rng.choice([f"{words[0]} {words[-1]}", f"{words[-1]}, {' '.join(words[:-1])}",
                                  _ascii(name), f"{typo(rng, words[0])} {words[-1]}",
                                  f"{words[0][0]}. {words[-1]}"])
            kept = {k: v for k, v in attrs.items() if rng.random() < 0.5}
            records.append(DuplicateRecord(f"p{i}-dup", "person", variant, attributes=kept))
            truth.add((f"p{i}", f"p{i}-dup"))
        elif rng.random() < 0.3:  # a distinct person: same name, other address; or a surname one letter off
            words = name.split()
            other = name if rng.random() < 0.5 else " ".join(words[:-1] + [_one_letter(rng, words[-1])])
            records.append(DuplicateRecord(f"q{i}", "person", other,
                                           attributes={"email": f"{rng.randrange(10**6)}@elsewhere.org"}))
            namesakes += 1
    return records, truth, namesakes


def _one_letter(rng: random.Random, word: str) -> str:
    i = rng.randrange(1, len(word))
    return word[:i] + rng.choice([c for c in "aeiouwy" if c != word[i]]) + word[i + 1:]


def _ascii(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if c.isascii())


def evaluate(records: list[DuplicateRecord], truth: set[tuple[str, str]]) -> dict:
    from kbgraph.resolve.duplicates import candidate_pairs, normalise

    search = find_duplicates(records)
    proposed = {tuple(sorted((p.left.id, p.right.id))) for p in search.pairs}
    normalised = [normalise(r) for r in records]
    blocked, _, _ = candidate_pairs(normalised)
    blocked_ids = {tuple(sorted((records[i].id, records[j].id))) for i, j in blocked}
    hits = len(proposed & truth)
    precision = hits / len(proposed) if proposed else 1.0
    recall = hits / len(truth) if truth else 1.0
    all_pairs = len(records) * (len(records) - 1) // 2
    return {"records": len(records), "true_pairs": len(truth), "proposed": len(proposed),
            "precision": round(precision, 4), "recall": round(recall, 4),
            "f1": round(2 * precision * recall / (precision + recall), 4) if hits else 0.0,
            "comparisons": search.comparisons, "all_pairs": all_pairs,
            "reduction_ratio": round(1 - search.comparisons / all_pairs, 6),
            "compared_share": round(search.comparisons / all_pairs, 6),
            "pair_completeness": round(len(blocked_ids & truth) / len(truth), 4) if truth else 1.0,
            "blocks": search.blocks, "skipped_blocks": search.skipped_blocks,
            "seconds": round(search.seconds, 2),
            "missed_examples": [list(p) for p in sorted(truth - proposed)[:5]],
            "wrong_examples": [list(p) for p in sorted(proposed - truth)[:5]]}


def run_vault(count: int, seed: int, hard: bool = False) -> dict:
    """Write count records (hard: the harder set of count people) as person pages, index them and ask
    `resolve duplicates`; score the linkage every question answered yes would make: pages one entity
    after assembly (one name, identifiers that agree), joined by every question (transitively: A = B and
    B = C make one entity of the three)."""
    import tempfile

    import yaml

    from kbgraph.ingest.pipeline import index_vault
    from kbgraph.resolve.duplicate_pages import find_duplicate_pages
    from kbgraph.workspace import Workspace

    if hard:
        from hard_people import hard_set

        records, truth, _ = hard_set(count, seed)
    else:
        records, truth = febrl_like(count, count * 3 // 10, seed)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        (root / "people").mkdir(parents=True)
        for r in records:
            front = {"type": "person", "name": r.name, **dict(r.attributes)}
            text = f"---\n{yaml.safe_dump(front, sort_keys=False)}---\n# {r.name}\n"
            (root / "people" / f"{r.id}.md").write_text(text)
        started = time.perf_counter()
        index_vault(root, embed="later")
        indexed = time.perf_counter() - started
        with Workspace.open(str(root)) as ws:
            started = time.perf_counter()
            result = find_duplicate_pages(ws.store, ws.access)
            asked_s = time.perf_counter() - started
            again = find_duplicate_pages(ws.store, ws.access)
            docs = {d: p for p, d in _doc_ids(ws.store).items()}
            owner = {docs[doc_id]: o[0] for doc_id, o in ws.store.page_entity_ids().items() if doc_id in docs}
    pages_of: dict[int, list[str]] = defaultdict(list)
    for path, entity_id in owner.items():
        pages_of[entity_id].append(path.removeprefix("people/").removesuffix(".md"))
    entity_of = {path.removeprefix("people/").removesuffix(".md"): e for path, e in owner.items()}
    assembled = {tuple(sorted(p)) for ids in pages_of.values() for p in combinations(ids, 2)}
    # Every question answered yes joins its two entities, and what those join is one entity too.
    parent = {e: e for e in pages_of}

    def root(e: int) -> int:
        while parent[e] != e:
            parent[e] = parent[parent[e]]
            e = parent[e]
        return e

    for q in result["asked"]:
        a, b = root(entity_of[_rid(q["page"])]), root(entity_of[_rid(q["same_as_page"])])
        parent[max(a, b)] = min(a, b)
    joined: dict[int, list[str]] = defaultdict(list)
    for entity_id, ids in pages_of.items():
        joined[root(entity_id)].extend(ids)
    linked = {tuple(sorted(p)) for ids in joined.values() for p in combinations(ids, 2)}
    asked = linked - assembled
    hits = len(linked & truth)
    precision = hits / len(linked) if linked else 1.0
    recall = hits / len(truth) if truth else 1.0
    return {"pages": len(records), "entities_compared": result["pages"], "index_seconds": round(indexed, 1),
            "duplicates_seconds": round(asked_s, 2), "comparisons": result["comparisons"],
            "compared_share": round(result["comparisons"] / max(1, result["all_pairs"]), 6),
            "questions": len(result["asked"]), "page_pairs_asked": len(asked),
            "precision": round(precision, 4), "recall": round(recall, 4),
            "f1": round(2 * precision * recall / (precision + recall), 4) if hits else 0.0,
            "same_entity_pairs_by_assembly": len(assembled),
            "of_which_distinct_people": len(assembled - truth),
            "second_run_questions": len(again["asked"])}


def _rid(path: str) -> str:
    return path.removeprefix("people/").removesuffix(".md")


def _doc_ids(store) -> dict[str, int]:
    from kbgraph.access import LOCAL
    from kbgraph.store.base import DocFilter

    return {row["path"]: row["id"] for row in store.list_documents(LOCAL, DocFilter())}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--records", type=int, default=5000)
    ap.add_argument("--duplicates", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--names", type=Path, default=REPO.parent / "shared" / "data" / "names" / "pep-people.txt")
    ap.add_argument("--vault", type=int, default=0, help="also run end to end on this many person pages")
    ap.add_argument("--hard", type=int, default=4000, help="people of the harder set (bench/hard_people.py; 0 skips)")
    ap.add_argument("--hard-vault", type=int, default=0, help="end to end on the harder set of this many people")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    started = time.perf_counter()
    records, truth = febrl_like(args.records, args.duplicates, args.seed)
    out = {"febrl_like": evaluate(records, truth)}
    real = real_names(args.names, args.seed)
    if real is None:
        out["real_names"] = {"skipped": f"{args.names} is absent"}
    else:
        rec2, truth2, namesakes = real
        out["real_names"] = {**evaluate(rec2, truth2), "namesakes": namesakes}
    if args.hard:
        from hard_people import hard_set

        rec3, truth3, made = hard_set(args.hard, args.seed)
        out["hard"] = {**made, **evaluate(rec3, truth3)}
    if args.vault:
        out["vault"] = run_vault(args.vault, args.seed)
    if args.hard_vault:
        out["hard_vault"] = run_vault(args.hard_vault, args.seed, hard=True)
    out["wall_seconds"] = round(time.perf_counter() - started, 2)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    for title, rep in out.items():
        if not isinstance(rep, dict):
            continue
        print(f"== {title}")
        for key, value in rep.items():
            print(f"  {key}: {value}")
    print(f"wall: {out['wall_seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Entity resolution scored against known truth: generated name variants, KEP @handles, 100k latency.

1. Generated (bench/name_variants.py, seeded): a knowledge base of people and mentions of them
   in every variant (nicknames, typos, initials, emails, ...) plus mentions of people who are
   not in it. Each mention is resolved against the fixed knowledge base. Scored as
   mention -> entity link pairs: precision and recall of the auto-links, and again after a
   simulated user answers every question (the user picks the true entity when it is among the
   candidates shown, else answers "none of these" -> new).
2. KEPs (../shared/data/keps/ground_truth.json; skipped with a note when absent): the people
   of every KEP (authors, reviewers, approvers, editors) as the vault's frontmatter writes them
   (the `raw` of each edge: "@Huang-Wei", "huang-wei", "“@sjenning”", "Derek Carr"), the true
   handle being the edge's `source`, and the KEP's SIGs (owned_by / participating_sig edges) as
   context. Resolved one by one into a growing index, as indexing would, and scored as pairwise
   precision / recall / F1 over mention pairs (same cluster vs same true handle). Placeholders
   (TBD, N/A), SIG names, team handles and sentences are skipped. The truth file's handle for a
   written-out name is its first word ("Connor Doyle" -> "connor"), so a link to @ConnorDoyle
   counts as wrong; such links are listed.
3. Latency: one resolve against 100,000 people, p50 / p95 over distinct mentions.
4. Namesakes (bench/namesakes.py): typos of one person against different people whose names differ
   by a letter or two (Shah / Shaw, Ana / Anna), on the generated roster and on the real names of
   ../shared/data/names/pep-people.txt (skipped with a note when absent). Per kind: auto-links
   right / wrong, questions, new; auto-link precision and recall; questions per 100 mentions.
   The goal is zero auto-links on "namesake" (a silent merge of two people).

KBG_BENCH_SRC=/path/to/other/src measures another checkout's resolver with the same sets (the
before / after of a change: `git archive HEAD src | tar -x -C /tmp/head`).

Needs rapidfuzz and jellyfish (pip install 'rapidfuzz==3.14.6' 'jellyfish==1.3.0').

Usage:
    env -u PYTHONDONTWRITEBYTECODE .venv/bin/python bench/resolution_eval.py         # ~30 s on 2 cores
    .venv/bin/python bench/resolution_eval.py --fit   # + weights fitted on seed 7, scored on the eval seed (~45 s)
    .venv/bin/python bench/resolution_eval.py --scale 0 --seed 23   # no latency run; another seed
    .venv/bin/python bench/resolution_eval.py --only-namesakes   # section 4 alone (~3 s)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, os.environ.get("KBG_BENCH_SRC") or str(REPO / "src"))
sys.path.insert(0, str(REPO / "bench"))

import name_variants as nv  # noqa: E402
import namesakes as ns  # noqa: E402

from kbgraph.resolve import (  # noqa: E402
    DEFAULT_WEIGHTS,
    EntityProfile,
    Example,
    MentionInfo,
    ResolverIndex,
    calibration_report,
    fit,
)

KEPS = REPO.parent / "shared" / "data" / "keps"
PEOPLE_FIELDS = {"authored", "reviews", "approves", "edits"}
PLACEHOLDERS = {"tbd", "n/a", "na", "none", "-", ""}


# --- 1. generated variants ---------------------------------------------------------


def profiles(kb: list[nv.Person]) -> list[EntityProfile]:
    return [EntityProfile(p.id, "person", p.name, p.aliases, p.emails, p.context) for p in kb]


def simulated_user(decision, truth: int | None) -> int | None:
    """The answer a careful user gives: the true entity if it is shown, else "none of these"."""
    shown = {c.entity_id for c in decision.candidates}
    return truth if truth in shown else None


_KB_NAMES: dict[int, str] = {}


def run_generated(people: int, count: int, seed: int, weights=DEFAULT_WEIGHTS):
    kb = nv.people(people, seed)
    _KB_NAMES.clear()
    _KB_NAMES.update((p.id, p.name) for p in kb)
    cases = nv.mentions(kb, count, seed + 1)
    index = ResolverIndex(profiles(kb), weights=weights)
    rows = []
    for case in cases:
        d = index.resolve(MentionInfo(case.surface, "person", case.context, case.email))
        auto = d.best.entity_id if d.outcome == "auto-link" else None
        answered = simulated_user(d, case.truth) if d.outcome == "ask" else auto
        rows.append((case, d, auto, answered))
    return rows


def link_scores(rows, pick) -> dict:
    """Precision / recall / F1 of (mention, entity) links; pick(row) is the entity linked or None."""
    linked = [(r[0].truth, pick(r)) for r in rows if pick(r) is not None]
    right = sum(1 for truth, got in linked if truth == got)
    relevant = sum(1 for r in rows if r[0].truth is not None)
    p = right / len(linked) if linked else 1.0
    rec = right / relevant if relevant else 1.0
    return {"links": len(linked), "wrong": len(linked) - right, "precision": p, "recall": rec, "f1": _f1(p, rec)}


def _roster():
    """This checkout's list of real names, loaded by path so a KBG_BENCH_SRC run classifies alike."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("roster", REPO / "src" / "kbgraph" / "resolve" / "roster.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _spells_real_name(case, kb_names: dict[int, str]) -> bool:
    """Whether a typo's changed word is itself a real name (Thomson for Thompson): a namesake by spelling."""
    roster = _roster()
    truth = {nv._key(w) for w in kb_names[case.truth].replace("-", " ").split()}
    said = [nv._key(w) for w in case.surface.replace("-", " ").split()]
    return any(w not in truth and roster.is_real_name(w) for w in said)


def generated_report(rows) -> dict:
    asks = sum(1 for r in rows if r[1].outcome == "ask")
    new_ok = sum(1 for r in rows if r[0].truth is None and r[1].outcome == "new")
    unknown = sum(1 for r in rows if r[0].truth is None)
    by_kind: dict[str, Counter] = defaultdict(Counter)
    for case, d, auto, _ in rows:
        if d.outcome == "auto-link":
            cell = "auto ok" if auto == case.truth else "auto WRONG"
        elif d.outcome == "ask":
            cell = "ask (truth shown)" if case.truth in {c.entity_id for c in d.candidates} else "ask (truth not shown)"
        else:
            cell = "new ok" if case.truth is None else "new (missed)"
        by_kind[case.kind][cell] += 1
        if case.kind.startswith("typo-") and _spells_real_name(case, _KB_NAMES):
            by_kind["(typos that spell a real name)"][cell] += 1
    return {
        "mentions": len(rows),
        "unknown_people": unknown,
        "new_correct": new_ok,
        "gray_zone": asks,
        "auto": link_scores(rows, lambda r: r[2]),
        "with_answers": link_scores(rows, lambda r: r[3]),
        "by_kind": {k: dict(v) for k, v in sorted(by_kind.items())},
    }


def training_examples(rows) -> list[Example]:
    """Every candidate shown, labelled by the truth: what confirmed / rejected answers give."""
    return [Example(c.features, c.entity_id == case.truth) for case, d, _, _ in rows for c in d.candidates]


# --- 2. KEP handles ----------------------------------------------------------------


def kep_mentions(root: Path) -> list[tuple[str, str, frozenset[int]]]:
    """(surface as written, true handle, context ids: the KEP's SIGs) in ground-truth order."""
    truth = json.loads((root / "ground_truth.json").read_text())
    sig_ids: dict[str, int] = {}
    sigs: dict[str, set[int]] = defaultdict(set)
    for rel in truth["relations"]:
        if rel["type"] in ("owned_by", "participating_sig"):
            sigs[rel["source"]].add(sig_ids.setdefault(rel["target"], 1_000_000 + len(sig_ids)))
    out = []
    for rel in truth["relations"]:
        raw = rel.get("raw")
        if rel["type"] not in PEOPLE_FIELDS or raw is None or _skip(raw, rel["source"]):
            continue
        out.append((raw, rel["source"], frozenset(sigs.get(rel["target"], ()))))
    return out


def _skip(raw: str, handle: str) -> bool:
    text = raw.strip().strip("“”\"'").lower()
    return text in PLACEHOLDERS or handle.startswith("sig-") or "/" in text or len(text.split()) > 3


def run_keps(mentions, answer: bool) -> dict:
    """Resolve into a growing index; asked mentions are answered by the user, or left unlinked."""
    index = ResolverIndex()
    confirmed: set[tuple[str, int]] = set()
    entity_truth: dict[int, str] = {}
    clusters, asks, autos, wrong = [], 0, 0, []
    for surface, handle, ctx in mentions:
        d = index.resolve(MentionInfo(surface, "person", ctx), confirmed=confirmed)
        chosen = None
        if d.outcome == "auto-link":
            chosen, autos = d.best.entity_id, autos + 1
            if entity_truth[chosen] != handle:
                wrong.append(f"{surface} ({handle}) -> {d.best.name} ({entity_truth[chosen]})")
        elif d.outcome == "ask":
            asks += 1
            if not answer:
                clusters.append((f"unlinked-{len(clusters)}", handle))
                continue
            chosen = next((c.entity_id for c in d.candidates if entity_truth[c.entity_id] == handle), None)
            if chosen is not None:
                confirmed.add((d.key, chosen))
        if chosen is None:
            chosen = len(entity_truth) + 1
            entity_truth[chosen] = handle
            index.add(EntityProfile(chosen, "person", surface, context=ctx))
        else:
            old = index.get(chosen)
            index.add(EntityProfile(chosen, "person", old.name, old.aliases, old.emails, old.context | ctx))
        clusters.append((chosen, handle))
    scores = pairwise(clusters)
    true_people = len({h for _, h, _ in mentions})
    return {
        "mentions": len(mentions),
        "people": true_people,
        "entities": len(entity_truth),
        "auto": autos,
        "asked": asks,
        **scores,
        "wrong_auto_links": sorted(set(wrong)),
    }


def pairwise(clusters: list[tuple[object, str]]) -> dict:
    pairs = lambda counts: sum(n * (n - 1) // 2 for n in counts.values())  # noqa: E731
    both = pairs(Counter(clusters))
    predicted = pairs(Counter(c for c, _ in clusters))
    actual = pairs(Counter(h for _, h in clusters))
    p = both / predicted if predicted else 1.0
    r = both / actual if actual else 1.0
    return {"precision": p, "recall": r, "f1": _f1(p, r)}


# --- 3. latency --------------------------------------------------------------------


def run_latency(size: int, queries: int, seed: int) -> dict:
    last = nv.LAST + nv.synthetic_last_names(2500, seed)
    kb = nv.people(size, seed, last=last)
    _KB_NAMES.clear()
    _KB_NAMES.update((p.id, p.name) for p in kb)
    rss0 = _rss_mb()
    t0 = time.perf_counter()
    index = ResolverIndex(profiles(kb))
    build = time.perf_counter() - t0
    cases = nv.mentions(kb, queries + 200, seed + 1)
    for case in cases[:200]:  # warm-up: imports, first allocations
        index.resolve(MentionInfo(case.surface, "person", case.context, case.email))
    times, rows = [], []
    for case in cases[200:]:
        mention = MentionInfo(case.surface, "person", case.context, case.email)
        t = time.perf_counter_ns()
        d = index.resolve(mention)
        times.append((time.perf_counter_ns() - t) / 1e6)
        auto = d.best.entity_id if d.outcome == "auto-link" else None
        rows.append((case, d, auto, simulated_user(d, case.truth) if d.outcome == "ask" else auto))
    times.sort()
    return {
        "entities": size,
        "queries": len(times),
        "build_s": build,
        "index_mb": _rss_mb() - rss0,
        "p50_ms": statistics.median(times),
        "p95_ms": times[int(0.95 * (len(times) - 1))],
        "max_ms": times[-1],
        "keys": len(index._postings),
        "quality": generated_report(rows),
    }


def _rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


# --- 4. namesakes ------------------------------------------------------------------


def run_namesakes(kb: list[ns.Known], cases: list[ns.Case]) -> dict:
    index = ResolverIndex(EntityProfile(k.id, "person", k.name, (), k.emails, k.context) for k in kb)
    names = {k.id: k.name for k in kb}
    by_kind: dict[str, Counter] = defaultdict(Counter)
    silent, missed, asks = [], [], 0
    for case in cases:
        d = index.resolve(MentionInfo(case.surface, "person", case.context, case.email))
        cell = d.outcome
        if d.outcome == "auto-link":
            cell = "auto ok" if d.best.entity_id == case.truth else "auto WRONG"
            if cell == "auto WRONG":
                silent.append(f"{case.kind}: {case.surface!r} -> {d.best.name} ({case.detail})")
        elif d.outcome == "ask":
            asks += 1
            shown = {c.entity_id for c in d.candidates}
            cell = "ask (truth shown)" if case.truth in shown else "ask"
        if case.truth is not None and cell != "auto ok":
            missed.append(f"{case.kind}: {case.surface!r} for {names[case.truth]} -> {d.outcome}: {d.reason}")
        by_kind[case.kind][cell] += 1
        if case.kind == "typo" and _spells_real_name(case, names):
            by_kind["typo (spells a real name)"][cell] += 1
    kinds = {}
    for kind, c in sorted(by_kind.items()):
        n = sum(c.values())
        autos = c["auto ok"] + c["auto WRONG"]
        has_truth = kind.startswith(("typo", "namesake+evidence"))
        kinds[kind] = {
            "mentions": n,
            **dict(c),
            "auto_precision": c["auto ok"] / autos if autos else 1.0,
            "auto_recall": c["auto ok"] / n if has_truth else None,
            "silent_links": c["auto WRONG"],
        }
    return {
        "known": len(kb),
        "mentions": len(cases),
        "questions_per_100": 100 * asks / len(cases) if cases else 0.0,
        "by_kind": kinds,
        "silent_links": silent,
        "missed": missed,
    }


def print_namesakes(title: str, rep: dict) -> None:
    print(f"\n### {title}\n")
    print(f"{rep['mentions']} mentions against {rep['known']} known people; "
          f"questions: **{rep['questions_per_100']:.1f} per 100 mentions**.\n")
    print("| kind | mentions | auto ok | auto WRONG | ask (truth shown) | ask | new | auto precision | auto recall |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for kind, k in rep["by_kind"].items():
        recall = "" if k["auto_recall"] is None else f"{k['auto_recall']:.4f}"
        print(f"| {kind} | {k['mentions']} | {k.get('auto ok', 0)} | {k.get('auto WRONG', 0)} | "
              f"{k.get('ask (truth shown)', 0)} | {k.get('ask', 0)} | {k.get('new', 0)} | "
              f"{k['auto_precision']:.4f} | {recall} |")
    silent = rep["silent_links"]
    print(f"\nsilent links between different people: {len(silent)}" + "".join(f"\n- {s}" for s in silent[:25]))


# --- report ------------------------------------------------------------------------


def print_generated(title: str, rep: dict) -> None:
    a, w = rep["auto"], rep["with_answers"]
    print(f"\n### {title}\n")
    print(
        f"{rep['mentions']} mentions, {rep['unknown_people']} of people not in the knowledge base "
        f"({rep['new_correct']} of those came out `new`); gray zone: **{rep['gray_zone']}** questions.\n"
    )
    print("| links | count | wrong | precision | recall | F1 |\n|---|---:|---:|---:|---:|---:|")
    print(
        f"| auto-links only | {a['links']} | {a['wrong']} | {a['precision']:.4f} | {a['recall']:.4f} | {a['f1']:.4f} |"
    )
    print(
        f"| + gray zone answered by the user | {w['links']} | {w['wrong']} | {w['precision']:.4f} "
        f"| {w['recall']:.4f} | {w['f1']:.4f} |"
    )
    cells = ["auto ok", "auto WRONG", "ask (truth shown)", "ask (truth not shown)", "new ok", "new (missed)"]
    print("\n| variant | " + " | ".join(cells) + " |\n|---|" + "---:|" * len(cells))
    for kind, counts in rep["by_kind"].items():
        print(f"| {kind} | " + " | ".join(str(counts.get(c, 0)) for c in cells) + " |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--people", type=int, default=1000)
    ap.add_argument("--mentions", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=11, help="evaluation seed (the --fit training set uses seed 7)")
    ap.add_argument("--scale", type=int, default=100_000, help="entities for the latency run (0 skips it)")
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--fit", action="store_true", help="also fit weights on seed 7 and score them on --seed")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--only-namesakes", action="store_true", help="run section 4 alone (seconds)")
    args = ap.parse_args()
    out: dict = {"weights": DEFAULT_WEIGHTS.version}
    out["namesakes"] = {"roster": run_namesakes(*ns.roster_set())}
    pep = ns.pep_set()
    out["namesakes"]["pep"] = run_namesakes(*pep) if pep else None
    out["namesakes"]["marks"] = run_namesakes(*ns.marks_set())
    if args.only_namesakes:
        _emit(out, args)
        return 0
    rows = run_generated(args.people, args.mentions, args.seed)
    out["generated"] = generated_report(rows)
    if args.fit:
        train = training_examples(run_generated(args.people, args.mentions, 7))
        fitted = fit(train)
        report = calibration_report(training_examples(rows), DEFAULT_WEIGHTS, fitted)
        out["fitted"] = {"weights": fitted.as_dict(), "version": fitted.version, "report_on_eval": _plain(report)}
        out["generated_fitted"] = generated_report(run_generated(args.people, args.mentions, args.seed, fitted))
    if KEPS.exists():
        mentions = kep_mentions(KEPS)
        out["keps"] = {"auto only": run_keps(mentions, answer=False), "with answers": run_keps(mentions, answer=True)}
    else:
        out["keps"] = None
    if args.scale:
        out["latency"] = run_latency(args.scale, args.queries, args.seed)
    import duplicates_eval as de  # duplicate pages: the same measure as bench/duplicates_eval.py's default run

    found = de.evaluate(*de.febrl_like(5000, 1500, 17))
    out["duplicate_pages"] = {k: v for k, v in found.items() if "examples" not in k}
    _emit(out, args)
    return 0


def _emit(out: dict, args) -> None:
    if args.json:
        print(json.dumps(out, indent=2, default=str))
    else:
        print_report(out, args)


def print_report(out: dict, args) -> None:
    print(f"## Entity resolution (weights `{out['weights']}`, thresholds auto 0.90 / ask 0.55)")
    print_namesakes("Namesakes and typos: generated roster + real surname / given-name pairs", out["namesakes"]["roster"])
    if out["namesakes"]["pep"] is None:
        print(f"\n### Namesakes and typos: PEP people\n\nskipped: {ns.PEP_PEOPLE} not present")
    else:
        print_namesakes("Namesakes and typos: real names of 373 PEP authors", out["namesakes"]["pep"])
    print_namesakes("Marks of another person: ordinals, Jr./Sr., the Younger, middle initials "
                    "(public figures + PEP names)", out["namesakes"]["marks"])
    if "generated" not in out:
        return
    print_generated(f"Generated variants: {args.people} people, seed {args.seed}", out["generated"])
    if "fitted" in out:
        print_generated(f"Same, with weights fitted on seed 7 (`{out['fitted']['version']}`)", out["generated_fitted"])
        print("\nfitted weights:", json.dumps({k: round(v, 2) for k, v in out["fitted"]["weights"].items()}))
        print("calibration on the eval set (before -> after):", json.dumps(out["fitted"]["report_on_eval"]))
    print("\n### KEP @handles\n")
    if out["keps"] is None:
        print(f"skipped: {KEPS} not present")
    else:
        print("| run | mentions | true people | entities made | auto-linked | asked | precision | recall | F1 |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name, k in out["keps"].items():
            print(
                f"| {name} | {k['mentions']} | {k['people']} | {k['entities']} | {k['auto']} | {k['asked']} | "
                f"{k['precision']:.4f} | {k['recall']:.4f} | {k['f1']:.4f} |"
            )
        wrong = out["keps"]["with answers"]["wrong_auto_links"]
        print(f"\nauto-links that disagree with ground_truth.json: {len(wrong)}" + "".join(f"\n- {w}" for w in wrong))
    if "latency" in out:
        lat = out["latency"]
        print(f"\n### Latency: one resolve against {lat['entities']:,} entities\n")
        print("| p50 | p95 | max | build | index RSS | keys |\n|---:|---:|---:|---:|---:|---:|")
        print(
            f"| {lat['p50_ms']:.2f} ms | {lat['p95_ms']:.2f} ms | {lat['max_ms']:.1f} ms | {lat['build_s']:.1f} s | "
            f"{lat['index_mb']:.0f} MB | {lat['keys']:,} |"
        )
        q = lat["quality"]
        a, w = q["auto"], q["with_answers"]
        print(
            f"\nThe same {lat['queries']} mentions scored (a bigger haystack, synthetic surnames added): auto-links "
            f"P {a['precision']:.4f} / R {a['recall']:.4f} ({a['wrong']} wrong); with answers F1 {w['f1']:.4f}; "
            f"gray zone {q['gray_zone']}."
        )
    if "duplicate_pages" in out:
        d = out["duplicate_pages"]
        print(f"\n### Duplicate pages (bench/duplicates_eval.py, {d['records']:,} FEBRL-like records)\n")
        print(f"pairwise P {d['precision']:.4f} / R {d['recall']:.4f} / F1 {d['f1']:.4f}; {d['comparisons']:,} pairs "
              f"compared of {d['all_pairs']:,} (reduction ratio {d['reduction_ratio']:.5f}); "
              f"pair completeness {d['pair_completeness']:.4f}; {d['seconds']:.2f} s")
    print(f"\n(python {sys.version.split()[0]}, {os.cpu_count()} cpus)")


def _plain(report) -> dict:
    from dataclasses import asdict

    return {
        k: ({kk: round(vv, 4) if isinstance(vv, float) else vv for kk, vv in v.items()} if isinstance(v, dict) else v)
        for k, v in asdict(report).items()
    }


if __name__ == "__main__":
    raise SystemExit(main())

"""Cue coverage on text kbgraph did not write: the body-text rules on the labelled sentences of
bench/data/cues/ (rust-lang/rfcs and golang/proposal), scored per relation type on the dev and test
halves, beside a plain cue-word regex on the same sentences.

Each sentence is read as kbgraph reads a page: the sentence before it and the sentence itself are one
chunk of the page's document, every labelled name is a mention of its entity (all occurrences), and
the page is its own entity (type project) with its name, kind and identifier. Only what the rules
suggest with the labelled sentence as evidence is scored (the sentence before is context). A
relation is right when its subject, type and object are the labelled ones (related-to either way).

Usage: .venv/bin/python bench/cue_coverage.py [--json] [--split dev|test] [--misses]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from kbgraph.entities.names import name_key  # noqa: E402
from kbgraph.extract import stage  # noqa: E402
from kbgraph.vocabulary import Vocabulary  # noqa: E402

DATA = REPO / "bench" / "data" / "cues" / "sentences.jsonl"
VOCAB = Vocabulary()
PAGE = 0  # the page's entity id


def cases() -> list[dict]:
    return [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]


def _mentions(text: str, ids: dict[str, int]) -> list[tuple[int, int, int, int]]:
    """(entity, chunk, start, end) for every occurrence of each surface, longest surfaces first."""
    taken: list[tuple[int, int]] = []
    out = []
    for surface in sorted(ids, key=len, reverse=True):
        for m in re.finditer(re.escape(surface), text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            taken.append(m.span())
            out.append((ids[surface], 1, m.start(), m.end()))
    return out


def _key(source: str, rel_type: str, target: str) -> tuple[str, str, str]:
    if VOCAB.types[rel_type].symmetric:
        source, target = sorted((source, target))
    return (source, rel_type, target)


def expected(case: dict) -> set[tuple[str, str, str]]:
    return {_key(s, t, o) for s, t, o in case["expected"]}


def page_context(case: dict):
    """The page as the index knows it (extract.stage.PageSelf when this kbgraph has it)."""
    page = case["page"]
    if hasattr(stage, "PageSelf"):
        return stage.PageSelf(PAGE, page["name"], page["kind"],
                              (page["identifier"],) if page["identifier"] else (), "project")
    return PAGE


def kbgraph_predict(case: dict) -> set[tuple[str, str, str]]:
    """The relations kbgraph's rules suggest with this sentence as evidence."""
    prev = case["prev"]
    text = (prev + " " if prev else "") + case["sentence"]
    begins = len(prev) + 1 if prev else 0
    ids = {surface: index for index, surface in enumerate(case["entities"], 1)}
    names = {index: surface for surface, index in ids.items()} | {PAGE: "@"}
    types = {index: case["entities"][surface] for surface, index in ids.items()} | {PAGE: "project"}
    known = frozenset(name_key(s) for s in ids) | {name_key(case["page"]["name"])}
    found = stage.extract_from_chunks([(1, 0, text)], _mentions(text, ids), types, VOCAB, page_context(case), known)
    out = set()
    for row in found:
        if row["start"] < begins and row["end"] <= begins:
            continue  # stated in the sentence before
        ends = []
        for role in ("source", "target"):
            ends.append(names[row[f"{role}_id"]] if f"{role}_id" in row else row[f"{role}_new"].split(":", 1)[1])
        out.add(_key(ends[0], row["type"], ends[1]))
    return out


# The plain baseline: a cue word of a type, the nearest named thing (or the page, when none) before
# it as subject and the nearest one after it as object; passive cues swap them.
_CUES = (
    ("depends-on", r"depends?\s+on|depended\s+on|requires?|required|builds?\s+(?:on|upon)|built\s+(?:on|upon)"
                   r"|rel(?:y|ies|ied)\s+on|based\s+on", False),
    ("superseded-by", r"superseded\s+by", False),
    ("superseded-by", r"supersedes?|obsoletes?", True),
    ("replaces", r"replaced\s+by", True),
    ("replaces", r"replaces?|replacement\s+for", False),
    ("part-of", r"part\s+of", False),
    ("uses", r"uses|using|used|leverages?", False),
    ("related-to", r"see\s+also|related\s+to|amend\w*|follow(?:s|ed)?[- ]up", False),
)
_SELF = re.compile(r"\b[Tt]his\s+(?:RFC|proposal|document|design|change)\b|\b[Ww]e\b")


def baseline_predict(case: dict) -> set[tuple[str, str, str]]:
    text = case["sentence"]
    ids = {surface: index for index, surface in enumerate(case["entities"], 1)}
    names = {index: surface for surface, index in ids.items()}
    ends = [(a, b, names[eid]) for eid, _, a, b in _mentions(text, ids)]
    ends += [(m.start(), m.end(), "@") for m in _SELF.finditer(text)]
    ends.sort()
    out = set()
    for rel_type, cue, swap in _CUES:
        for m in re.finditer(rf"\b(?:{cue})\b", text, re.IGNORECASE):
            before = [e for e in ends if e[1] <= m.start()]
            after = [e for e in ends if e[0] >= m.end()]
            if not after:
                continue
            subject, obj = (before[-1][2] if before else "@"), after[0][2]
            if swap:
                subject, obj = obj, subject
            if subject != obj:
                out.add(_key(subject, rel_type, obj))
    return out


def score(rows: list[dict], predict) -> dict:
    tp: Counter = Counter()
    fp: Counter = Counter()
    fn: Counter = Counter()
    misses = []
    for case in rows:
        gold, got = expected(case), predict(case)
        for rel in got & gold:
            tp[rel[1]] += 1
        for rel in got - gold:
            fp[rel[1]] += 1
        for rel in gold - got:
            fn[rel[1]] += 1
        if got != gold:
            misses.append({"id": case["id"], "sentence": case["sentence"], "missed": sorted(gold - got),
                           "wrong": sorted(got - gold)})
    per_type = {}
    for rel_type in sorted(set(tp) | set(fp) | set(fn)):
        per_type[rel_type] = _prf(tp[rel_type], fp[rel_type], fn[rel_type])
    return {"types": per_type, "all": _prf(sum(tp.values()), sum(fp.values()), sum(fn.values())), "misses": misses}


def _prf(tp: int, fp: int, fn: int) -> dict:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {"tp": tp, "fp": fp, "fn": fn, "support": tp + fn, "precision": round(p, 3), "recall": round(r, 3),
            "f1": round(2 * p * r / (p + r), 3) if p + r else 0.0}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--split", choices=("dev", "test"))
    parser.add_argument("--misses", action="store_true", help="list the sentences scored wrong (dev only)")
    args = parser.parse_args()
    rows = cases()
    report = {}
    for split in ([args.split] if args.split else ["dev", "test"]):
        part = [c for c in rows if c["split"] == split]
        report[split] = {"sentences": len(part), "kbgraph": score(part, kbgraph_predict),
                         "baseline": score(part, baseline_predict)}
    if args.json:
        print(json.dumps({s: {k: ({kk: vv for kk, vv in v.items() if kk != "misses"} if isinstance(v, dict) else v)
                              for k, v in r.items()} for s, r in report.items()}, indent=2))
        return
    for split, r in report.items():
        print(f"== {split}: {r['sentences']} sentences")
        print(f"{'type':15} {'support':>7}  {'kbgraph P/R/F1':>20}  {'regex P/R/F1':>20}")
        kinds = sorted(set(r["kbgraph"]["types"]) | set(r["baseline"]["types"]))
        for rel_type in kinds + ["all"]:
            k = r["kbgraph"]["types"].get(rel_type) if rel_type != "all" else r["kbgraph"]["all"]
            b = r["baseline"]["types"].get(rel_type) if rel_type != "all" else r["baseline"]["all"]
            k = k or _prf(0, 0, 0)
            b = b or _prf(0, 0, 0)
            support = max(k["support"], b["support"])
            print(f"{rel_type:15} {support:>7}  {k['precision']:6.2f} {k['recall']:6.2f} {k['f1']:6.2f}"
                  f"  {b['precision']:6.2f} {b['recall']:6.2f} {b['f1']:6.2f}")
        if args.misses and split == "dev":
            for miss in r["kbgraph"]["misses"]:
                print(f"  - {miss['sentence'][:160]}\n      missed {miss['missed']} wrong {miss['wrong']}")


if __name__ == "__main__":
    main()

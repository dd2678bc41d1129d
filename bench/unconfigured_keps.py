"""The KEPs as a new user meets them: indexed with no kbgraph.toml (issue 28).

A copy of ../shared/data/keps/vault (654 Kubernetes Enhancement Proposals, metadata as frontmatter) is
indexed twice, text only, each copy in a temporary folder (the original is never written):
- unconfigured: the vault as it is, no kbgraph.toml;
- hand-written: the kbgraph.toml bench/extraction_eval.py writes (~120 lines mapping each KEP key).

Reported for each: entities by type, relations by type, the person entities that are SIGs, teams or
sentences, the resolution questions (and those about an identifier such as KEP-1288, and whether the
handle typos @liggit / @ligitt for @liggitt are asked), and whether `kbg entity find KEP-2291` answers.
Then the metadata pairs of the unconfigured index (authored, reviews, approves, owning SIG, see-also,
replaces) against the hand-written index's: the share of its pairs recovered and the precision (pairs
compared as names folded, '@' dropped, KEP numbers without leading zeros, see-also in either direction).

Usage: .venv/bin/python bench/unconfigured_keps.py [--json] [--only unconfigured|hand-written]
Says so and stops when ../shared/data is absent (a user's clone has none).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

os.environ.setdefault("KBG_EMBEDDER", "none")

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "bench"))

from kbgraph.access import LOCAL  # noqa: E402
from kbgraph.ingest.pipeline import index_vault  # noqa: E402
from kbgraph.store import open_store  # noqa: E402

KEPS = REPO.parent / "shared" / "data" / "keps" / "vault"
# The hand-written profile's relation types, and what each is in the list of metadata pairs.
HAND_GROUPS = {"authored": "authored", "reviews": "reviews", "approves": "approves", "owned-by": "owning SIG",
               "related-to": "see-also", "replaces": "replaces"}
# A relation type of any index -> the group it counts in (an inferred profile names them so too).
GROUP_OF = dict(HAND_GROUPS)
GROUP_OF.update({"owned-by-sig": "owning SIG", "see-also": "see-also", "related": "see-also"})
SYMMETRIC_GROUPS = {"see-also"}
GROUP_WORDS = re.compile(r"^(sig|wg|ug|committee)-|-(team|sig|wg|group)$|^@[\w.-]+/[\w.-]+$", re.I)
SENTENCE = re.compile(r"[,;]|\b(with|from|and|for|the|of|portion|input)\b", re.I)
IDENTIFIER = re.compile(r"^(kep|rfc|pep|adr|jira)[- ]?\d+$", re.I)
TYPO_HANDLES = ("liggit", "ligitt")  # @liggitt misspelt in 11 KEPs, with or without the @


def _key(name: str) -> str:
    key = name.strip().lstrip("@").casefold()
    kep = re.fullmatch(r"kep[- ]0*(\d+)(?::.*)?", key)
    return f"kep-{int(kep.group(1))}" if kep else key


def _copy(dest: Path, toml: str | None) -> Path:
    shutil.copytree(KEPS, dest, ignore=shutil.ignore_patterns(".kbgraph", "kbgraph.toml"))
    if toml is not None:
        (dest / "kbgraph.toml").write_text(toml)
    return dest


def measure(vault: Path) -> dict:
    from kbgraph.entities.lookup import find_entity
    from kbgraph.errors import KbgError

    started = time.perf_counter()
    report = index_vault(vault)
    seconds = time.perf_counter() - started
    store = open_store(vault)
    try:
        entities = store.list_entities(LOCAL)
        relations = store.relations_of_type(LOCAL, None)
        asked = store.decisions(LOCAL, "asked")
        try:
            found = find_entity(store, "KEP-2291", access=LOCAL)
            find = f"{found.type} {found.name}"
        except KbgError as exc:
            find = f"not found: {str(exc).splitlines()[0][:120]}"
    finally:
        store.close()
    persons = [e.name for e in entities if e.type == "person"]
    pairs: dict[str, set[tuple[str, str]]] = defaultdict(set)
    by_type: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for row in relations:
        by_type[row["type"]].add((_key(row["source"]), _key(row["target"])))
        group = GROUP_OF.get(row["type"])
        if group:
            pair = (_key(row["source"]), _key(row["target"]))
            pairs[group].add(tuple(sorted(pair)) if group in SYMMETRIC_GROUPS else pair)
    surfaces = [q.get("surface") or "" for q in asked]
    candidates = [q.get("candidate_name") or q.get("candidate_key") or "" for q in asked]
    return {
        "index_seconds": round(seconds, 2), "errors": report.errors, "warnings": report.warnings,
        "entities": len(entities), "entities_by_type": dict(Counter(e.type for e in entities).most_common()),
        "relations": len(relations), "relations_by_type": dict(Counter(r["type"] for r in relations).most_common()),
        "persons_that_are_groups": sorted(n for n in persons if GROUP_WORDS.search(n)),
        "persons_that_are_sentences": sorted(n for n in persons if " " in n.strip() and SENTENCE.search(n)
                                             and n.count(" ") >= 2),
        "find_KEP-2291": find,
        "questions": len(asked),
        "questions_per_50_notes": round(len(asked) / max(1, report.indexed + report.skipped) * 50, 2),
        "questions_about_identifiers": sum(1 for s, c in zip(surfaces, candidates)
                                           if IDENTIFIER.match(s.strip()) or IDENTIFIER.match(str(c).split(":")[-1])),
        "handle_typos_asked": sorted({s for s in surfaces if s.casefold().lstrip("@") in TYPO_HANDLES}),
        "question_examples": [f"{s!r} == {c}" for s, c in zip(surfaces, candidates)][:30],
        "pairs": {g: sorted(p) for g, p in pairs.items()},
        "by_type": by_type,
    }


def compare(unconfigured: dict, hand: dict) -> dict:
    out = {}
    total_hand = total_found = hit_hand = hit_found = 0
    for group in HAND_GROUPS.values():
        truth = {tuple(p) for p in hand["pairs"].get(group, [])}
        found = {tuple(p) for p in unconfigured["pairs"].get(group, [])}
        hit = len(truth & found)
        out[group] = {"hand_written": len(truth), "unconfigured": len(found), "recovered": hit,
                      "share": round(hit / len(truth), 4) if truth else None,
                      "precision": round(hit / len(found), 4) if found else None,
                      "missed_examples": sorted(truth - found)[:4], "extra_examples": sorted(found - truth)[:4]}
        total_hand, total_found, hit_hand, hit_found = (total_hand + len(truth), total_found + len(found),
                                                        hit_hand + hit, hit_found + hit)
    out["all"] = {"hand_written": total_hand, "unconfigured": total_found, "recovered": hit_hand,
                  "share": round(hit_hand / total_hand, 4) if total_hand else None,
                  "precision": round(hit_found / total_found, 4) if total_found else None}
    return out


# ground-truth type -> (the unconfigured index's type, the hand-written one's, whether direction is ignored)
GT_TYPES = {"authored": ("authored", "authored", False), "reviews": ("reviews", "reviews", False),
            "approves": ("approves", "approves", False), "owned_by": ("owned-by", "owned-by", False),
            "participating_sig": ("participating-sigs", "participating-sig", False),
            "see_also": ("related-to", "related-to", True), "replaces": ("replaces", "replaces", False),
            "superseded_by": ("superseded-by", "superseded-by", False)}


def against_ground_truth(runs: dict) -> dict:
    """Each index's relations scored against ../shared/data/keps/ground_truth.json (bench/extraction_eval.py's
    reading of it: KEP targets only, names folded)."""
    from extraction_eval import ground_truth, score

    truth = ground_truth()
    out = {}
    for gt, (bare, hand, undirected) in GT_TYPES.items():
        out[gt] = {name: {k: v for k, v in score(truth[gt], runs[name]["by_type"].get(ours, set()), undirected).items()
                          if k in ("truth", "found", "precision", "recall")}
                   for name, ours in (("unconfigured", bare), ("hand-written", hand))}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The KEPs indexed with no kbgraph.toml, against a hand-written one.")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not KEPS.is_dir():
        print(f"skipped: {KEPS} is absent (../shared/data is not in this checkout's parent); nothing measured")
        return 0
    from extraction_eval import KEP_CONFIG

    with tempfile.TemporaryDirectory() as tmp:
        runs = {"unconfigured": measure(_copy(Path(tmp) / "bare", None)),
                "hand-written": measure(_copy(Path(tmp) / "hand", KEP_CONFIG))}
    summary = {"runs": {k: {kk: vv for kk, vv in v.items() if kk not in ("pairs", "by_type")}
                        for k, v in runs.items()},
               "metadata_pairs": compare(runs["unconfigured"], runs["hand-written"]),
               "ground_truth": against_ground_truth(runs)}
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    for name, run in summary["runs"].items():
        print(f"== {name}: {run['entities']} entities, {run['relations']} relations, "
              f"{run['index_seconds']} s ({run['errors']} errors, {run['warnings']} warnings)")
        print(f"   entities by type: {run['entities_by_type']}")
        print(f"   relations by type: {run['relations_by_type']}")
        print(f"   persons that are groups ({len(run['persons_that_are_groups'])}): {run['persons_that_are_groups'][:8]}")
        print(f"   persons that are sentences ({len(run['persons_that_are_sentences'])}): "
              f"{run['persons_that_are_sentences'][:4]}")
        print(f"   entity find KEP-2291: {run['find_KEP-2291']}")
        print(f"   resolution questions: {run['questions']} ({run['questions_per_50_notes']} per 50 notes), "
              f"{run['questions_about_identifiers']} about an identifier; handle typos asked: "
              f"{run['handle_typos_asked'] or 'none'}")
        for example in run["question_examples"][:30]:
            print(f"     {example}")
    print("== against the ground truth (precision / recall): unconfigured | hand-written")
    for gt, row in summary["ground_truth"].items():
        bare, hand = row["unconfigured"], row["hand-written"]
        print(f"   {gt:18} truth {bare['truth']:>5}  {bare['precision']:.4f} / {bare['recall']:.4f}  |  "
              f"{hand['precision']:.4f} / {hand['recall']:.4f}")
    print("== metadata pairs, unconfigured against hand-written")
    print(f"   {'group':12} {'hand':>6} {'found':>6} {'recovered':>9} {'share':>7} {'precision':>9}")
    for group, row in summary["metadata_pairs"].items():
        share = f"{row['share']:.4f}" if row["share"] is not None else "-"
        precision = f"{row['precision']:.4f}" if row["precision"] is not None else "-"
        print(f"   {group:12} {row['hand_written']:>6} {row['unconfigured']:>6} {row['recovered']:>9} "
              f"{share:>7} {precision:>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

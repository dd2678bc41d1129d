"""Contradiction classification on a labelled set (bench/data/contradictions.jsonl, 47 cases written
for issue 12): temporal, contextual, factual, and non-conflicts that must stay untouched.

Why this shape:
- Each case is a small graph of existing relations (with since, context and until where the case
  needs them) and one new relation. A fresh in-memory store holds it, written through the store
  contract; the new relation goes through relations.conflicts.find_conflicts, the function
  `kbg entity relate` and an accepted suggestion call before they write, so the kind it returns is
  what kbgraph would do (a temporal verdict retires the earlier relation; contextual and factual
  ones retire nothing).
- The cases mix an org chart (reports-to), project and team leads (leads, on the target's side),
  replacements of technologies, and relations that look alike but are not one-at-a-time
  (mentors, sponsors, contributes-to, depends-on, symmetric works-with): the non-conflicts are
  there to catch whole-graph matching, where a peer tool retired 41% of facts wrongly.
- The goal: zero non-conflicts retired (any verdict on a "none" case counts as a failure).

Usage:
    .venv/bin/python bench/contradictions_eval.py            # table
    .venv/bin/python bench/contradictions_eval.py --json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from kbgraph.access import LOCAL
from kbgraph.entities.assemble import entity_key
from kbgraph.entities.sync import sync_entities
from kbgraph.model import EntityRecord
from kbgraph.relations.conflicts import KINDS, find_conflicts
from kbgraph.relations.records import canonical
from kbgraph.vocabulary import Vocabulary
from kbgraph.store.sqlite.store import SqliteStore

CASES = Path(__file__).resolve().parent / "data" / "contradictions.jsonl"
TODAY = "2026-12-04"
NOW = "2026-11-01T09:00:00+00:00"


def run_case(case: dict, vocab: Vocabulary) -> str:
    store = SqliteStore.open(":memory:")
    try:
        ends = {}
        for rel in [*case["existing"], case["new"]]:
            ends[(rel[1], rel[0])] = None
            ends[(rel[4], rel[3])] = None
        records = [EntityRecord(entity_key(t, n), t, n, (), None, ((n, "name"),), {}) for t, n in ends]
        with store.transaction():
            ids = sync_entities(store, records, NOW)
        entity = {(t, n): store.get_entity(LOCAL, ids[entity_key(t, n)]) for t, n in ends}
        for source, stype, kind, target, ttype, extra in case["existing"]:
            rtype, src, tgt = canonical(vocab, entity[(stype, source)], kind, entity[(ttype, target)])
            with store.transaction():
                store.upsert_relation({"source_id": src.id, "target_id": tgt.id, "type": rtype.name,
                                       "valid_from": extra.get("since"), "context": extra.get("context"),
                                       "valid_until": extra.get("until")}, NOW, bump=False)
        source, stype, kind, target, ttype, extra = case["new"]
        rtype, src, tgt = canonical(vocab, entity[(stype, source)], kind, entity[(ttype, target)])
        found = find_conflicts(store, LOCAL, rtype, src, tgt, extra.get("since"), extra.get("context"), TODAY)
        return found[0].kind if found else "none"
    finally:
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    vocab = Vocabulary()
    cases = [json.loads(line) for line in CASES.read_text().splitlines() if line.strip()]
    rows = [(case, run_case(case, vocab)) for case in cases]
    labels = (*KINDS, "none")
    confusion = Counter((case["expected"], got) for case, got in rows)
    per_class = {}
    for label in labels:
        tp = confusion[(label, label)]
        predicted = sum(n for (_, got), n in confusion.items() if got == label)
        actual = sum(n for (exp, _), n in confusion.items() if exp == label)
        per_class[label] = {"n": actual, "precision": round(tp / predicted, 3) if predicted else None,
                            "recall": round(tp / actual, 3) if actual else None}
    retired = [case["id"] for case, got in rows if case["expected"] == "none" and got == "temporal"]
    touched = [case["id"] for case, got in rows if case["expected"] == "none" and got != "none"]
    # A temporal verdict retires a relation: wrong on any case that is not temporal, a true fact ended.
    wrongly_retired = [case["id"] for case, got in rows if got == "temporal" and case["expected"] != "temporal"]
    wrong = [{"id": case["id"], "label": case["label"], "expected": case["expected"], "got": got}
             for case, got in rows if got != case["expected"]]
    out = {"cases": len(cases), "accuracy": round(sum(c["expected"] == g for c, g in rows) / len(rows), 3),
           "per_class": per_class, "non_conflicts_retired": retired, "non_conflicts_flagged": touched,
           "wrongly_retired": wrongly_retired,
           "wrong": wrong}
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"{len(cases)} cases, accuracy {out['accuracy']}")
    for label, scores in per_class.items():
        print(f"  {label:11} n={scores['n']:>2}  precision {scores['precision']}  recall {scores['recall']}")
    print(f"non-conflicts retired: {len(retired)}; flagged at all: {len(touched)};"
          f" any relation wrongly retired: {len(wrongly_retired)} {wrongly_retired}")
    for item in wrong:
        print(f"  wrong: {item}")


if __name__ == "__main__":
    sys.exit(main())

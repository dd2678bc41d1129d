"""Build bench/data/cues/sentences.jsonl: the picked sentences (cue_corpus_pick.py) with the labels.

labels.txt holds one line per sentence that needs one, written by reading the sentence (and the one
before it) before any rule was run on it: `KEY|MENTION EDITS|RELATIONS`.
- KEY: the first 16 hex digits of sha256(path NUL sentence).
- MENTION EDITS: `+surface=t` (t: p project / document, t technology, m team) adds a named thing the
  pick did not propose, `-surface` drops a proposed one (a word that names no thing here).
- RELATIONS: `subject>type>object;...`, `@` for the page itself.
A sentence without a line states no relation and keeps the proposed mentions. A proposed mention
whose first occurrence is inside a link target `](...)` is dropped: the link's label names it.

The split is deterministic: sentences are grouped by the type of their first relation (or none),
sorted by key, and dealt dev, test, dev, test... within each group.

Usage: python bench/cue_corpus_build.py CANDIDATES.jsonl LABELS.txt > bench/data/cues/sentences.jsonl
"""

from __future__ import annotations

import hashlib
import json
import re
import sys

from cue_corpus_pick import proposed_mentions

TYPES = {"p": "project", "t": "technology", "m": "team"}


def key(row: dict) -> str:
    return hashlib.sha256((row["path"] + "\0" + row["sentence"]).encode()).hexdigest()[:16]


def _inside_link_target(text: str, surface: str) -> bool:
    at = text.find(surface)
    opened = text.rfind("](", 0, at)
    return opened != -1 and ")" not in text[opened:at]


def build(rows: list[dict], labels: dict[str, tuple[str, str]]) -> list[dict]:
    out = []
    for row in rows:
        k = key(row)
        edits, relations = labels.get(k, ("", ""))
        text = row["sentence"]
        entities = {s: t for s, t in row["mentions"].items() if not _inside_link_target(text, s)}
        if row["prev"]:
            entities.update({s: t for s, t in proposed_mentions(row["prev"]).items()
                             if not _inside_link_target(row["prev"], s) and s not in entities})
        for edit in filter(None, (e.strip() for e in edits.split(","))):
            if edit.startswith("-"):
                entities.pop(edit[1:], None)
            else:
                surface, kind = edit[1:].rsplit("=", 1)
                entities[surface] = TYPES[kind]
        expected = [r.split(">") for r in relations.split(";") if r.strip()]
        for subject, rel_type, target in expected:
            for end in (subject, target):
                assert end == "@" or end in entities, (k, end)
                assert end == "@" or end in text or end in row["prev"], (k, end)
        out.append({"id": k, "split": None, "repo": row["repo"], "path": row["path"], "commit": row["commit"],
                    "licence": row["licence"], "bucket": row["bucket"], "page": row["page"],
                    "prev": row["prev"], "sentence": text, "entities": entities, "expected": expected})
    groups: dict[str, list[dict]] = {}
    for case in out:
        groups.setdefault(case["expected"][0][1] if case["expected"] else "none", []).append(case)
    for cases in groups.values():
        for index, case in enumerate(sorted(cases, key=lambda c: c["id"])):
            case["split"] = "dev" if index % 2 == 0 else "test"
    return out


def main(argv: list[str]) -> None:
    rows = [json.loads(line) for line in open(argv[1], encoding="utf-8")]
    labels = {}
    for line in open(argv[2], encoding="utf-8"):
        if line.strip() and not line.startswith("#"):
            k, edits, relations = line.rstrip("\n").split("|", 2)
            labels[k] = (edits, relations)
    unknown = set(labels) - {key(r) for r in rows}
    assert not unknown, unknown
    for case in build(rows, labels):
        print(json.dumps(case, ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv)

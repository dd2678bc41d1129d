"""Structured extraction on the KEP corpus, scored against its ground truth.

Reads ../shared/data/keps (654 Kubernetes KEPs with their metadata as frontmatter, and
ground_truth.json). A copy of the vault gets a kbgraph.toml that maps the KEP frontmatter keys to
relation types (the configuration a KEP user would write), kbgraph indexes it, and every stored
relation is compared with the ground-truth edges, per type: precision, recall, and what was missed.

What is not scored, and why:
- prr_approves and leads: not in the notes' frontmatter (they come from other files of the
  KEP repository), so no extractor over this vault can find them.
- see-also / replaces / superseded-by edges whose target is not a KEP (a URL, a doc): kbgraph
  relates entities, and the issue asks for the edges between KEPs.
Placeholder values (TBD, n/a) are skipped by design; the ground truth keeps TBD editors as a person
"tbd", so edits are also reported without those.

Second part, from the bodies: every sentence of every indexed section (frontmatter is not text)
goes through the pattern rules (kbgraph.extract.rules) with the entity mentions found in it, and
the relations between KEPs are scored against the see-also / replaces / superseded-by edges; the
throughput of that pass is measured in sentences per second.

Usage: .venv/bin/python bench/extraction_eval.py [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

# Text and graph only: embedding every chunk is measured on its own (bench/embed_speed.py).
os.environ.setdefault("KBG_EMBEDDER", "none")

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from kbgraph.access import LOCAL
from kbgraph.ingest.pipeline import index_vault  # noqa: E402
from kbgraph.store import open_store  # noqa: E402

KEPS = REPO.parent / "shared" / "data" / "keps"
# A KEP number in "KEP-12", "KEP 0012", ".../keps/sig-x/0012-name.md" or ".../enhancements/issues/12".
KEP_REF = "(?:KEP[- ]|keps/[^/\\\\s]+/(?:[^/\\\\s]+/)?|enhancements/issues/)0*(\\\\d+)"
# A GitHub handle at the start of a value ("@bowei - for the proxy part" names bowei).
HANDLE = "^@?([A-Za-z0-9][\\\\w.-]*)"

KEP_CONFIG = f"""
[entities]
types = ["sig"]

[[entities.pages]]
when = "kep-number"
type = "project"
name = "KEP-{{kep-number:int}}"
aliases = ["{{title}}"]

[relations.types.authored]
inverse = "authored-by"
source = ["person"]
target = ["project"]

[relations.types.approves]
inverse = "approved-by"
source = ["person"]
target = ["project"]

[relations.types.edits]
inverse = "edited-by"
source = ["person"]
target = ["project"]

[relations.types.owned-by]
inverse = "owns"
source = ["project"]
target = ["sig"]

[relations.types.participating-sig]
inverse = "participates-in"
source = ["project"]
target = ["sig"]

[relations.frontmatter.authors]
pattern = "{HANDLE}"
type = "authored"
direction = "to-page"
entity = "person"
strip = "@"

[relations.frontmatter.reviewers]
pattern = "{HANDLE}"
type = "reviews"
direction = "to-page"
entity = "person"
strip = "@"

[relations.frontmatter.approvers]
pattern = "{HANDLE}"
type = "approves"
direction = "to-page"
entity = "person"
strip = "@"

[relations.frontmatter.editor]
type = "edits"
direction = "to-page"
entity = "person"
strip = "@"

[relations.frontmatter.owning-sig]
type = "owned-by"
entity = "sig"

[relations.frontmatter.participating-sigs]
type = "participating-sig"
entity = "sig"

[relations.frontmatter.see-also]
type = "related-to"
entity = "project"
pattern = "{KEP_REF}"
name = "KEP-{{int}}"

[relations.frontmatter.replaces]
type = "replaces"
entity = "project"
pattern = "{KEP_REF}"
name = "KEP-{{int}}"

[relations.frontmatter.superseded-by]
type = "superseded-by"
entity = "project"
pattern = "{KEP_REF}"
name = "KEP-{{int}}"
"""

# ground-truth type -> (kbgraph type, whether direction is ignored)
TYPES = {
    "authored": ("authored", False),
    "reviews": ("reviews", False),
    "approves": ("approves", False),
    "edits": ("edits", False),
    "owned_by": ("owned-by", False),
    "participating_sig": ("participating-sig", False),
    "see_also": ("related-to", True),  # related-to is symmetric: one row for both directions
    "replaces": ("replaces", False),
    "superseded_by": ("superseded-by", False),
}
NOT_IN_VAULT = ("prr_approves", "leads")
PLACEHOLDERS = {"tbd", "n/a", "na", "none", "-"}


def _key(name: str) -> str:
    """A comparable name: case-folded; a KEP id as kep-N (the ground truth writes "KEP-0:0000-kep-process"
    for numbers two KEPs share, which kbgraph identifies by number alone, and sometimes "KEP 0004")."""
    import re

    key = name.strip().lstrip("@").casefold()
    kep = re.fullmatch(r"kep[- ]0*(\d+)(?::.*)?", key)
    return f"kep-{int(kep.group(1))}" if kep else key


def ground_truth() -> dict[str, set[tuple[str, str]]]:
    data = json.loads((KEPS / "ground_truth.json").read_text())
    edges: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for rel in data["relations"]:
        if rel["type"] in TYPES and rel.get("target_is_kep", True):
            edges[rel["type"]].add((_key(rel["source"]), _key(rel["target"])))
    return edges


def extracted(store) -> dict[str, set[tuple[str, str]]]:
    by_type: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for row in store.relations_of_type(LOCAL, None):
        by_type[row["type"]].add((_key(row["source"]), _key(row["target"])))
    return by_type


def body_patterns(store, vault: Path) -> tuple[dict[str, set[tuple[str, str]]], tuple[int, int], float]:
    """Relations the library's extraction (kbgraph.extract.stage.extract_from_chunks, the same call
    `kbg index` makes) finds in the text of every document, the sentence count, and seconds."""
    from kbgraph.config import load_config
    from kbgraph.extract.rules import sentences
    from kbgraph.extract.stage import extract_from_chunks

    vocab = load_config(vault).vocabulary
    entities = store.list_entities(LOCAL)
    names = {e.id: (e.type, e.name) for e in entities}
    types = {e.id: e.type for e in entities}
    from kbgraph.extract.self_reference import page_self

    page_of = {e.page_path: e for e in entities if e.page_path}
    mentions: dict[int, list[tuple[int, int, int, int]]] = defaultdict(list)
    for doc_id, entity_id, chunk_id, start, end in store.db.execute(
            "SELECT c.doc_id, m.entity_id, m.chunk_id, m.start, m.end FROM mentions m JOIN chunks c"
            " ON c.id = m.chunk_id WHERE m.start IS NOT NULL"):
        mentions[doc_id].append((entity_id, chunk_id, start, end))
    chunks: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    for doc_id, chunk_id, start, text in store.db.execute("SELECT doc_id, id, start, text FROM chunks ORDER BY"
                                                          " doc_id, ordinal"):
        chunks[doc_id].append((chunk_id, start, text))
    paths = dict(store.db.execute("SELECT id, path FROM documents"))
    kinds = dict(store.db.execute("SELECT id, kind FROM documents"))
    found: dict[str, set[tuple[str, str]]] = defaultdict(set)
    count = sum(len(sentences(text)) for doc in chunks.values() for _, _, text in doc)
    started = time.perf_counter()
    for doc_id, doc_chunks in chunks.items():
        owner = page_of.get(paths[doc_id])  # the page as `kbg index` gives it (ingest/pipeline.py scan_document)
        page = page_self(owner.id, (owner.name, owner.aliases, owner.type), kinds[doc_id]) if owner else None
        for rel in extract_from_chunks(doc_chunks, mentions.get(doc_id, []), types, vocab, page):
            found[rel["type"]].add((_key(names[rel["source_id"]][1]), _key(names[rel["target_id"]][1])))
    with_pairs = sum(1 for doc in mentions.values() if len(doc) >= 2)
    return found, (count, with_pairs), time.perf_counter() - started


def score(truth: set, found: set, undirected: bool) -> dict:
    if undirected:
        truth_pairs = {frozenset(e) for e in truth}
        found_pairs = {frozenset(e) for e in found}
        hit_truth = sum(1 for e in truth if frozenset(e) in found_pairs)
        hit_found = sum(1 for e in found if frozenset(e) in truth_pairs)
    else:
        hit_truth = hit_found = len(truth & found)
    precision = hit_found / len(found) if found else 1.0
    recall = hit_truth / len(truth) if truth else 1.0
    missed = sorted(truth - found) if not undirected else sorted(e for e in truth if frozenset(e) not in found_pairs)
    wrong = sorted(found - truth) if not undirected else sorted(e for e in found if frozenset(e) not in truth_pairs)
    return {"truth": len(truth), "found": len(found), "precision": round(precision, 4), "recall": round(recall, 4),
            "missed_examples": missed[:5], "wrong_examples": wrong[:5]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Score structured extraction on the KEPs.")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not (KEPS / "vault").is_dir():
        print("skipped: ../shared/data/keps not present")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "keps"
        shutil.copytree(KEPS / "vault", vault)
        (vault / "kbgraph.toml").write_text(KEP_CONFIG)
        started = time.perf_counter()
        report = index_vault(vault)
        seconds = time.perf_counter() - started
        store = open_store(vault)
        try:
            found = extracted(store)
            stats = store.stats()
            from_bodies, sentence_count, body_seconds = body_patterns(store, vault)
        finally:
            store.close()
    truth = ground_truth()
    results = {gt: score(truth[gt], found.get(ours, set()), undirected) for gt, (ours, undirected) in TYPES.items()}
    edits_real = {e for e in truth["edits"] if e[0] not in PLACEHOLDERS}
    results["edits (without TBD editors)"] = score(edits_real, found.get("edits", set()), False)
    kep_edges = {"see_also": ("related-to", True), "replaces": ("replaces", False),
                 "superseded_by": ("superseded-by", False)}
    bodies = {gt: score(truth[gt], {e for e in from_bodies.get(ours, set()) if e[0].startswith("kep-")
                                    and e[1].startswith("kep-")}, undirected)
              for gt, (ours, undirected) in kep_edges.items()}
    summary = {
        "bodies": {"sentences": sentence_count[0], "documents_with_two_mentions": sentence_count[1],
                   "seconds": round(body_seconds, 2),
                   "sentences_per_second": round(sentence_count[0] / body_seconds) if body_seconds else None,
                   "by_type": bodies,
                   "all_found": {t: len(v) for t, v in sorted(from_bodies.items())},
                   # what no ground truth scores, listed so a reader can judge it
                   "unscored": {t: sorted(v)[:10] for t, v in sorted(from_bodies.items())
                                if t not in ("related-to", "replaces", "superseded-by")}},
        "documents": stats["documents"], "entities": stats["entities"], "relations": stats["relations"],
        "index_seconds": round(seconds, 2), "warnings": report.warnings, "errors": report.errors,
        "by_type": results, "not_scored": {t: "not in the vault's frontmatter" for t in NOT_IN_VAULT},
    }
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"KEP vault: {stats['documents']} documents indexed in {seconds:.1f} s -> {stats['entities']} entities, "
          f"{stats['relations']} relations ({report.warnings} warnings, {report.errors} errors)")
    print(f"{'type':32} {'truth':>6} {'found':>6} {'precision':>9} {'recall':>7}")
    for name, r in results.items():
        print(f"{name:32} {r['truth']:>6} {r['found']:>6} {r['precision']:>9.4f} {r['recall']:>7.4f}")
    for name, r in results.items():
        if r["missed_examples"] or r["wrong_examples"]:
            print(f"  {name}: missed {r['missed_examples'][:3]} wrong {r['wrong_examples'][:3]}")
    for name, why in summary["not_scored"].items():
        print(f"not scored: {name} ({why})")
    b = summary["bodies"]
    print(f"\nbodies: {b['sentences']} sentences ({b['documents_with_two_mentions']} documents with two or more mentions) "
          f"through the pattern rules in {b['seconds']} s = {b['sentences_per_second']} sentences/s; "
          f"relations found by type: {b['all_found']}")
    print(f"{'between KEPs, from text':32} {'truth':>6} {'found':>6} {'precision':>9} {'recall':>7}")
    for name, r in b["by_type"].items():
        print(f"{name:32} {r['truth']:>6} {r['found']:>6} {r['precision']:>9.4f} {r['recall']:>7.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

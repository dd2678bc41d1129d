"""Names in prose (issue 17): how many false mentions resolving them adds, and what it costs.

Two vaults, each copied to a temporary folder first (the originals are never written):
- the KEPs (../shared/data/keps/vault, 654 real design documents: technical prose full of capitalised
  phrases) with a roster of 373 real people's names (../shared/data/names/pep-people.txt) added as
  person pages, so the resolver has people to link names to. None of those people is named in the
  KEPs' prose, so every prose link or question there is counted as false (an upper bound: read the
  list the script prints to check);
- the sample vault (examples/vault), where the prose names that should link are listed in EXPECTED
  and any other prose link or question is false.

For each: the person-like names the detector finds (entities/prose_names.py) per 50 notes, the prose
mentions linked (kind "prose") and the prose questions asked, per 50 notes, each printed with its
context; and the index time of `index --full --embed later` with prose resolution on and off
(interleaved runs, median), on this machine.

Usage:
    .venv/bin/python bench/prose_names_eval.py [--runs 3] [--json]
The KEP part says so and is skipped when ../shared/data is absent (a user's clone has none).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from kbgraph.entities.prose_names import LowerWords, find_prose_names  # noqa: E402
from kbgraph.ingest.pipeline import index_vault  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
KEPS = SHARED / "keps" / "vault"
NAMES = SHARED / "names" / "pep-people.txt"
SAMPLE = ROOT / "examples" / "vault"
# (surface, entity) pairs the sample vault's prose should link: anything else linked or asked is false.
EXPECTED = {("Lena Fischr", "Lena Fischer")}


def _copy(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns(".kbgraph"))
    return dest


def _add_roster(vault: Path, names: list[str]) -> None:
    people = vault / "people"
    people.mkdir(exist_ok=True)
    for i, name in enumerate(names):
        slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or f"person-{i}"
        (people / f"{slug}-{i}.md").write_text(f"---\ntype: person\nname: {json.dumps(name)}\n---\n# {name}\n")


def _cpu() -> float:
    """CPU seconds of this process and its reaped children (the mention scan's worker processes)."""
    import resource

    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def _index(vault: Path, prose: bool) -> tuple[float, float]:
    """(wall, CPU) seconds of a full index; prose=False runs the same code without the prose resolver."""
    import kbgraph.ingest.pipeline as pipeline

    original = pipeline._prose_resolver
    if not prose:
        pipeline._prose_resolver = lambda *_args: None  # whatever the resolver takes
    try:
        started, cpu = time.perf_counter(), _cpu()
        index_vault(vault, full=True, embed="later")
        return time.perf_counter() - started, _cpu() - cpu
    finally:
        pipeline._prose_resolver = original


def _prose_work(vault: Path) -> dict:
    """Seconds the prose resolution adds, measured alone: building its resolver over the index's
    people, then resolving every document's text (as the mention stage does, here in one process)."""
    from kbgraph.access import LOCAL
    from kbgraph.entities.names import name_key
    from kbgraph.ingest.pipeline import _claim_entities_by_doc
    from kbgraph.resolve.decisions import current_weights
    from kbgraph.resolve.prose import ProseResolver
    from kbgraph.resolve.scoring import Thresholds
    from kbgraph.workspace import Workspace

    with Workspace.open(str(vault)) as ws:
        store = ws.store
        started = time.perf_counter()
        by_doc = _claim_entities_by_doc(store, None)
        resolver = ProseResolver.build(store.list_entities(LOCAL), store.entity_ids_by_key(), by_doc,
                                       store.decided_pairs(), current_weights(store), Thresholds())
        build = time.perf_counter() - started
        known = frozenset(name_key(surface) for _, surface, _ in store.entity_forms())
        docs = list(store.docs_for_mentions(True))
        spent = []
        for doc in docs:
            started = time.perf_counter()
            resolver.resolve_document(doc["path"], doc["chunks"], [], {e for e, _, _ in by_doc.get(doc["id"], [])},
                                      known)
            spent.append(time.perf_counter() - started)
    return {"build": round(build, 3), "documents": len(docs), "resolve": round(sum(spent), 2),
            "per_document_ms": round(1000 * sum(spent) / max(len(docs), 1), 2),
            "max_document_ms": round(1000 * max(spent, default=0.0), 1)}


def _detected(db: sqlite3.Connection) -> list[tuple[str, str, str, str]]:
    """(path, surface, cue, context) of every person-like name the detector finds in the chunks."""
    out = []
    by_doc: dict[str, list[str]] = {}
    for path, text in db.execute("SELECT d.path, c.text FROM chunks c JOIN documents d ON d.id = c.doc_id"
                                 " ORDER BY d.path, c.ordinal"):
        by_doc.setdefault(path, []).append(text)
    for path, texts in by_doc.items():
        vocabulary = LowerWords("\n".join(texts))
        for text in texts:
            for name in find_prose_names(text, vocabulary):
                out.append((path, name.surface, name.cue, _context(text, name.start, name.end)))
    return out


def _context(text: str, start: int, end: int) -> str:
    return " ".join(f"{text[max(0, start - 50):start]}[{text[start:end]}]{text[end:end + 50]}".split())


def _prose_results(db: sqlite3.Connection) -> tuple[list[dict], list[dict]]:
    linked = [{"path": path, "surface": surface, "entity": entity,
               "context": _context(text, start - chunk_start, end - chunk_start)}
              for path, surface, entity, start, end, chunk_start, text in db.execute(
                  "SELECT d.path, m.surface, e.name, m.start, m.\"end\", c.start, c.text FROM mentions m"
                  " JOIN entities e ON e.id = m.entity_id JOIN documents d ON d.id = m.doc_id"
                  " JOIN chunks c ON c.id = m.chunk_id WHERE m.kind = 'prose' ORDER BY d.path, m.start")]
    asked = [{"path": path, "surface": surface, "entity": entity, "score": score}
             for path, surface, entity, score, features in db.execute(
                 "SELECT doc_path, surface, candidate_name, score, features FROM resolution_decisions"
                 " WHERE outcome = 'asked' ORDER BY id") if json.loads(features).get("prose")]
    return linked, asked


def evaluate(name: str, vault: Path, expected: set[tuple[str, str]], runs: int, roster: bool = False) -> dict:
    """roster: the vault's people/ pages were added here, and are not counted as its notes."""
    times: dict[str, list[tuple[float, float]]] = {"on": [], "off": []}
    for _ in range(runs):  # interleaved, so load on a shared machine hits both alike
        times["off"].append(_index(vault, prose=False))
        times["on"].append(_index(vault, prose=True))
    work = _prose_work(vault)
    db = sqlite3.connect(vault / ".kbgraph" / "index.db")
    notes = db.execute("SELECT count(*) FROM documents WHERE path NOT LIKE 'people/%' OR ? = 0",
                       (int(roster),)).fetchone()[0]
    detected = _detected(db)
    linked, asked = _prose_results(db)
    false_links = [m for m in linked if (m["surface"], m["entity"]) not in expected]
    false_asks = [q for q in asked if (q["surface"], q["entity"]) not in expected]
    per50 = 50.0 / max(notes, 1)
    return {
        "vault": name, "notes": notes,
        "detected": len(detected), "detected_per_50_notes": round(len(detected) * per50, 2),
        "linked": len(linked), "asked": len(asked),
        "false_mentions": len(false_links) + len(false_asks),
        "false_mentions_per_50_notes": round((len(false_links) + len(false_asks)) * per50, 3),
        "index_s_prose_off": round(statistics.median(t for t, _ in times["off"]), 2),
        "index_s_prose_on": round(statistics.median(t for t, _ in times["on"]), 2),
        "index_cpu_s_prose_off": round(statistics.median(c for _, c in times["off"]), 2),
        "index_cpu_s_prose_on": round(statistics.median(c for _, c in times["on"]), 2),
        "prose_work_s": work,
        "detected_list": [{"path": p, "surface": s, "cue": c, "context": x} for p, s, c, x in detected],
        "linked_list": linked, "asked_list": asked,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="index runs per setting (interleaved)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        if KEPS.is_dir() and NAMES.is_file():
            vault = _copy(KEPS, Path(tmp) / "keps")
            _add_roster(vault, [n.strip() for n in NAMES.read_text().splitlines() if n.strip()])
            results.append(evaluate("KEPs + 373 person pages", vault, set(), args.runs, roster=True))
        else:
            print(f"{KEPS} or {NAMES} is absent: the KEP part is skipped", file=sys.stderr)
        results.append(evaluate("sample vault", _copy(SAMPLE, Path(tmp) / "sample"), EXPECTED, args.runs))
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
        return
    for r in results:
        print(f"\n== {r['vault']}: {r['notes']} notes")
        print(f"detected {r['detected']} person-like names ({r['detected_per_50_notes']} per 50 notes); "
              f"linked {r['linked']}, asked {r['asked']}; false mentions {r['false_mentions']} "
              f"({r['false_mentions_per_50_notes']} per 50 notes)")
        print(f"index --full --embed later, median of {args.runs}: prose off {r['index_s_prose_off']} s "
              f"({r['index_cpu_s_prose_off']} s CPU), on {r['index_s_prose_on']} s ({r['index_cpu_s_prose_on']} s CPU)")
        w = r["prose_work_s"]
        print(f"the prose work alone, in one process: resolver built in {w['build']} s, {w['documents']} documents "
              f"resolved in {w['resolve']} s ({w['per_document_ms']} ms each, at most {w['max_document_ms']} ms)")
        for m in r["linked_list"]:
            print(f"  linked  {m['surface']!r} -> {m['entity']}  {m['path']}: {m['context']}")
        for q in r["asked_list"]:
            print(f"  asked   {q['surface']!r} == {q['entity']}? (P={q['score']})  {q['path']}")
        for d in r["detected_list"]:
            print(f"  found   {d['surface']!r:28} {d['cue']:18} {d['path']}: {d['context']}")


if __name__ == "__main__":
    main()

"""Search quality: graph queries on the sample vault, and KEP link recovery.

A. Graph queries (bench/data/graph_queries.jsonl): questions that name an entity while the answer is about a
   related one, 1 or 2 relation hops away ("what did Ben's reports decide about the rollout"), plus 0-hop
   controls, on a copy of examples/vault; every run in RUNS (mode bm25/vector/hybrid, relation expansion or
   not, the query's entity pinned or not). Per hop count: MRR (first relevant hit, top 10), recall@5, @10.
   The vault's index holds only the 11 relations of its `## Relations` lines; `--graph stated` (default)
   first adds to the copy, as `## Relations` lines, 25 more that its notes state (STATED).
B. KEP link recovery (../shared/data/keps): each KEP whose see-also names other KEPs of the vault is a
   query (title + first 300 words of the body, frontmatter stripped; `--kep-query words` keeps only words,
   so `--flag`, quotes and `*` are not search syntax); recall@5/@10 of its linked KEPs, itself excluded.
   The copy's kbgraph.toml makes each KEP an entity (KEP-N) related to its authors, reviewers, approvers
   and SIGs, never to see-also/replaces targets (the answer). Whole-document BM25 (plain Python, not
   kbgraph) is a reference for the dataset README's 53.3.
A hit counts with the near-duplicates search folded into it. Latency p50/p95 per run, after a warm-up
query. A parameter or signal this kbgraph lacks makes its run "not run" (with why), never a crash.

Run:  env -u PYTHONDONTWRITEBYTECODE .venv/bin/python bench/search_eval.py [--json] [--part A|B]
      [--graph stated|as-is] [--kep-cache DIR] [--kep-embedder none] [--kep-max N] [--db URL]
--db postgresql://...: index into (and search) that PostgreSQL database instead of the copy's SQLite file; one part
per database (--part A or B), which must be empty or hold the same vault's index (kept, incrementally, as --kep-cache).
Embedding the 34k KEP chunks takes ~30 min on 2 cores: --kep-cache DIR keeps that index for next time.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import hashlib
import inspect
import json
import math
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from kbgraph.access import LOCAL  # noqa: E402
from kbgraph.config import load_config  # noqa: E402
from kbgraph.ingest.pipeline import index_vault  # noqa: E402
from kbgraph.search import search  # noqa: E402
from kbgraph.store import open_store  # noqa: E402

QUERIES = REPO / "bench" / "data" / "graph_queries.jsonl"
SAMPLE = REPO / "examples" / "vault"
KEPS = REPO.parent / "shared" / "data" / "keps"
PARAMS = inspect.signature(search).parameters
# name: (mode, expand_relations, pin the query's entity, pure signal: graph weight 0)
RUNS = {
    "bm25": ("bm25", False, False, True), "bm25+graph": ("bm25", True, False, False),
    "vector": ("vector", False, False, True), "hybrid": ("hybrid", False, False, False),
    "hybrid@entity": ("hybrid", False, True, False), "hybrid+graph": ("hybrid", True, False, False),
    "hybrid+graph@entity": ("hybrid", True, True, False),
}
KEP_RUNS = ("bm25", "vector", "hybrid", "hybrid+graph", "hybrid+graph@entity")
STATED = {  # relations the sample notes state (frontmatter, prose) that its index does not hold: page -> lines
    "people/ana-lima.md": ["reports-to [[Ben Okafor]]", "leads [[Project Atlas]]", "leads [[Platform]]"],
    "people/arjun-mehta.md": ["reports-to [[Ana Lima]]", "member-of [[Platform]]", "leads [[Auth Service]]",
                              "contributes-to [[Project Atlas]]", "mentors [[Sam Li]]"],
    "people/dana-kowalski.md": ["reports-to [[Ana Lima]]", "member-of [[Platform]]", "contributes-to [[Project Atlas]]",
                                "contributes-to [[Auth Service]]"],
    "people/lena-fischer.md": ["reports-to [[Ben Okafor]]", "leads [[Growth]]", "leads [[Checkout Revamp]]"],
    "people/maria-garcia.md": ["member-of [[Growth]]"],
    "people/sam-ortiz.md": ["reports-to [[Lena Fischer]]", "member-of [[Growth]]",
                            "contributes-to [[Checkout Revamp]]"],
    "projects/project-atlas.md": ["depends-on [[Auth Service]]", "blocks [[Checkout Revamp]]",
                                  "uses [[Kubernetes]]", "uses [[PostgreSQL]]"],
    "projects/auth-service.md": ["uses [[PostgreSQL]]"], "tech/kafka.md": ["depends-on [[Kubernetes]]"],
}
HANDLE = "^@?([A-Za-z0-9][\\\\w.-]*)"  # a GitHub handle, "@" optional (escaped for a TOML string)
KEP_TYPES = {"authored": ("authored-by", "person", "project"), "approves": ("approved-by", "person", "project"),
             "owned-by": ("owns", "project", "sig"), "participating-sig": ("participates-in", "project", "sig")}
# frontmatter key -> (relation type, entity type of the values). Not see-also / replaces: they are the answer.
KEP_KEYS = {"authors": ("authored", "person"), "reviewers": ("reviews", "person"), "approvers": ("approves", "person"),
            "owning-sig": ("owned-by", "sig"), "participating-sigs": ("participating-sig", "sig")}


def kep_toml(embedder: str | None) -> str:
    lines = ["[entities]", 'types = ["sig"]', "[[entities.pages]]", 'when = "kep-number"', 'type = "project"',
             'name = "KEP-{kep-number:int}"', 'aliases = ["{title}"]']
    for name, (inverse, source, target) in KEP_TYPES.items():
        lines += [f"[relations.types.{name}]", f'inverse = "{inverse}"', f'source = ["{source}"]',
                  f'target = ["{target}"]']
    for key, (rtype, entity) in KEP_KEYS.items():
        lines += [f"[relations.frontmatter.{key}]", f'type = "{rtype}"', f'entity = "{entity}"']
        lines += ['direction = "to-page"', f'pattern = "{HANDLE}"'] if entity == "person" else []
    lines += ["[search]", f'embedder = "{embedder}"'] if embedder else []
    return "\n".join(lines) + "\n"


def run_search(store, config, run: str, query: str, limit: int, entity: str | None):
    """(hits as path tuples: the hit's path, then near-duplicates folded into it; None), or (None, why not)."""
    mode, expand, pin, pure = RUNS[run]
    kwargs = {"limit": limit, **({"access": LOCAL} if "access" in PARAMS else {})}  # required since issue 27
    wanted = {"mode": mode, "expand_relations": expand or None, "entity": entity if pin else None}
    for key, value in wanted.items():
        if value is None or (key == "mode" and mode == "bm25" and "mode" not in PARAMS):
            continue  # an older kbgraph without mode= is BM25 only
        if key not in PARAMS:
            return None, f"this kbgraph has no {key}= yet"
        kwargs[key] = value
    if pin and entity is None:
        return None, "query has no entity"
    if "config" in PARAMS:
        search_config = getattr(config, "search", None)
        if pure and search_config is not None and hasattr(search_config, "weights"):  # no graph term, no boost
            weights = tuple((s, 0.0 if s == "graph" else w) for s, w in search_config.weights)
            extra = {"tier_boost": 0.0} if hasattr(search_config, "tier_boost") else {}
            config = dataclasses.replace(config, search=dataclasses.replace(search_config, weights=weights, **extra))
        kwargs["config"] = config
    result = search(store, query, **kwargs)
    notes = [n for n in getattr(result, "notes", ()) if "vector" in n]
    if mode != "bm25" and notes and "vector" not in getattr(result, "signals", ("vector",)):
        return None, notes[0]  # no vectors in this index (or no model): not what this run measures
    return [(h.path, *getattr(h, "duplicates", ())) for h in result.hits], None


def evaluate(store, config, run, cases, limit=10):
    """cases: (id, query, entity, relevant set, excluded path, group). Per group: MRR, R@5, R@10; latencies;
    per case the rank of its first relevant hit (None: not in the top `limit`)."""
    try:  # warm-up: model loads and first-touch caches stay out of the latencies
        why = run_search(store, config, run, cases[0][1], limit + 1, cases[0][2])[1] if cases else None
    except Exception:  # noqa: BLE001 (that query's own problem is counted below)
        why = None
    if why:
        return {"not_run": why}
    scores, times, errors, ranks = collections.defaultdict(list), [], 0, {}
    for case_id, query, entity, relevant, exclude, group in cases:
        start = time.perf_counter()
        try:
            paths = run_search(store, config, run, query, limit + 1, entity)[0] or []
        except Exception as exc:  # noqa: BLE001 (e.g. an ambiguous pinned entity: counted, never fatal)
            paths, errors = [], errors + 1
            print(f"  {run}: {query[:40]!r}: {type(exc).__name__}: {exc}", file=sys.stderr)
        times.append(time.perf_counter() - start)
        top = [set(hit) - {exclude} for hit in paths if hit[0] != exclude][:limit]
        rank = ranks[case_id] = next((i for i, hit in enumerate(top, 1) if hit & relevant), None)
        found = [len(relevant & set().union(*top[:k])) / len(relevant) for k in (5, limit)]
        row = (1 / rank if rank else 0.0, *found)
        for key in (group, "all"):
            scores[key].append(row)
    out = {g: {"n": len(r), "mrr": _mean(r, 0), "r@5": _mean(r, 1), "r@10": _mean(r, 2)} for g, r in scores.items()}
    return {"groups": out, "p50_ms": _pct(times, 50), "p95_ms": _pct(times, 95), "errors": errors,
            "first_rank": ranks}


def _mean(rows, i):
    return round(sum(r[i] for r in rows) / len(rows), 3) if rows else None


def _pct(values, p):
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, math.ceil(p / 100 * len(ordered)) - 1)], 1) if ordered else None


def copy_vault(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".kbgraph"), dirs_exist_ok=True)
    return dst


def part_a(args, tmp: Path) -> dict:
    vault = copy_vault(SAMPLE, tmp / "sample")  # never the bundled vault itself
    if args.graph == "stated":
        for page, lines in STATED.items():
            path = vault / page
            text = path.read_text(encoding="utf-8").rstrip("\n")
            head = "" if re.search(r"^## Relations\s*$", text, re.M) else "\n\n## Relations\n"
            path.write_text(text + head + "\n" + "".join(f"- {line}\n" for line in lines), encoding="utf-8")
    store = open_store(vault, db=args.db)
    report = index_vault(vault, full=True, store=store)
    problems = [f"{p.path}: {p.reason}" for p in report.problems]
    config = load_config(vault)
    queries = [json.loads(line) for line in QUERIES.read_text(encoding="utf-8").splitlines() if line.strip()]
    stats = query_stats(store, queries)
    cases = [(q["id"], q["query"], q["entity"], set(q["relevant"]), None, f"hop {q['hops']}") for q in queries]
    results = {run: evaluate(store, config, run, cases) for run in RUNS}
    store.close()
    return {"graph": args.graph, "index_seconds": report.seconds, "index_problems": problems, "stats": stats,
            "results": results}


def query_stats(store, queries) -> dict:
    """Counts per hop and per entity type, and how often a relevant doc mentions the query's entity."""
    from kbgraph.documents.views import timeline
    from kbgraph.entities.lookup import find_entity

    per_type, mentioned = collections.Counter(), collections.defaultdict(lambda: [0, 0])
    for q in queries:
        entity = find_entity(store, q["entity"], access=LOCAL) if q["entity"] else None
        per_type[entity.type if entity else "none"] += 1
        paths = {d["path"] for d in timeline(store, entity, access=LOCAL)} if entity else set()
        cell = mentioned[f"hop {q['hops']}"]
        cell[0] += sum(p in paths for p in q["relevant"])
        cell[1] += len(q["relevant"])
    per_hop = collections.Counter(f"hop {q['hops']}" for q in queries)
    return {"queries": len(queries), "per_hop": dict(sorted(per_hop.items())),
            "per_entity_type": dict(per_type.most_common()),
            "relevant_docs_naming_the_entity": {k: f"{a}/{b}" for k, (a, b) in sorted(mentioned.items())}}


def kep_file(kep: str) -> str:
    """'KEP-34' -> kep-0034.md; 'KEP-2133:2133-kubelet-credential-providers' -> kep-2133-kubelet-....md"""
    number, _, slug = kep.partition(":")
    return f"kep-{slug}.md" if slug else f"kep-{int(number[4:]):04d}.md"


def split_note(text: str) -> tuple[str, str]:
    """(frontmatter title, body)"""
    front, body = "", text
    if text.startswith("---"):
        end = text.find("\n---", 3)
        front, body = text[3:end], text[end + 4:]
    title = re.search(r"^title:\s*(.+)$", front, re.M)
    return (title.group(1).strip().strip("'\"") if title else ""), body


def part_b(args, tmp: Path) -> dict:
    if not (KEPS / "vault").is_dir() or not (KEPS / "ground_truth.json").is_file():
        return {"skipped": f"{KEPS} not present"}
    vault = Path(args.kep_cache) if args.kep_cache else tmp / "keps"
    copy_vault(KEPS / "vault", vault)
    toml = kep_toml(args.kep_embedder)
    changed = not (vault / "kbgraph.toml").is_file() or (vault / "kbgraph.toml").read_text() != toml
    if changed:
        (vault / "kbgraph.toml").write_text(toml, encoding="utf-8")
    store = open_store(vault, db=args.db)
    report = index_vault(vault, full=changed, store=store)
    files = {p.name for p in vault.glob("*.md")}
    links = collections.defaultdict(set)
    for r in json.loads((KEPS / "ground_truth.json").read_text())["relations"]:
        if r["type"] in ("see_also", "see-also") and r.get("target_is_kep", True):
            source, target = kep_file(r["source"]), kep_file(r["target"])
            if source != target and source in files and target in files:
                links[source].add(target)
    cases = []
    for name in sorted(links)[:args.kep_max]:
        text = (vault / name).read_text(encoding="utf-8")
        title, body = split_note(text)
        query = f"{title} {' '.join(body.split()[:300])}"
        if args.kep_query == "words":
            query = " ".join(re.findall(r"[^\W_]+", query))
        number = re.search(r"^kep-number:\s*'?0*(\d+)", text, re.M)
        cases.append((name, query, f"KEP-{number.group(1)}" if number else None, links[name], name, "keps"))
    config = load_config(vault)
    results = {run: evaluate(store, config, run, cases) for run in args.kep_runs.split(",")}
    store.close()
    results["reference: whole-document BM25"] = document_bm25(vault, cases)
    return {"index_seconds": report.seconds, "queries": len(cases), "links": sum(len(c[3]) for c in cases),
            "query_text": args.kep_query, "results": results}


def document_bm25(vault: Path, cases) -> dict:
    """Okapi BM25 (k1 1.2, b 0.75) over whole notes, lower-cased words, no stemming: a dataset-style baseline."""
    docs = {p.name: collections.Counter(w.lower() for w in re.findall(r"[^\W_]+", " ".join(split_note(
        p.read_text(encoding="utf-8"))))) for p in vault.glob("*.md")}
    lengths = {k: sum(c.values()) for k, c in docs.items()}
    avg, n = sum(lengths.values()) / len(docs), len(docs)
    df = collections.Counter(w for c in docs.values() for w in c)
    rows = []
    for _, query, _, relevant, exclude, _ in cases:
        terms = {w.lower() for w in re.findall(r"[^\W_]+", query)}
        idf = {w: math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5)) for w in terms if w in df}
        score = {k: sum(idf[w] * c[w] * 2.2 / (c[w] + 1.2 * (0.25 + 0.75 * lengths[k] / avg))
                        for w in idf if w in c) for k, c in docs.items()}
        top = [k for k in sorted(score, key=lambda k: -score[k]) if k != exclude][:10]
        rows.append((len(relevant & set(top[:5])) / len(relevant), len(relevant & set(top)) / len(relevant)))
    return {"groups": {"keps": {"n": len(rows), "mrr": None, "r@5": _mean(rows, 0), "r@10": _mean(rows, 1)}},
            "p50_ms": None, "p95_ms": None, "errors": 0}


def table(title: str, results: dict, groups: list[str]) -> str:
    head = f"\n### {title}\n\n| run | {' | '.join(groups)} | p50 ms | p95 ms |\n|---|" + "---|" * (len(groups) + 2)
    lines = [head, "cells: MRR / recall@5 / recall@10" if "all" in groups else "cells: recall@5 / recall@10"]
    for run, r in results.items():
        if "not_run" in r:
            lines.append(f"| {run} | not run: {r['not_run']} |" + " |" * (len(groups) + 1))
            continue
        cells = []
        for g in groups:
            m = r["groups"].get(g)
            values = [m["mrr"], m["r@5"], m["r@10"]] if "all" in groups else [m["r@5"], m["r@10"]]
            cells.append(" / ".join("-" if v is None else f"{v:.3f}" for v in values) + f" (n={m['n']})")
        errors = f" ({r['errors']} errors)" if r.get("errors") else ""
        lines.append(f"| {run}{errors} | " + " | ".join(cells) + f" | {r['p50_ms'] or '-'} | {r['p95_ms'] or '-'} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print a JSON summary instead of markdown")
    ap.add_argument("--part", choices=("A", "B", "both"), default="both")
    ap.add_argument("--graph", choices=("stated", "as-is"), default="stated", help="part A's relation graph")
    ap.add_argument("--kep-cache", help="keep the indexed KEP copy here (re-used, incrementally, next run)")
    ap.add_argument("--kep-embedder", help="[search] embedder for the KEP copy, e.g. none (no vectors)")
    ap.add_argument("--kep-query", choices=("words", "raw"), default="words")
    ap.add_argument("--kep-max", type=int, default=None, help="only the first N KEP queries")
    ap.add_argument("--kep-runs", default=",".join(KEP_RUNS), help=f"comma-separated, from: {', '.join(RUNS)}")
    ap.add_argument("--db", help="a PostgreSQL URL to index into and search (one part per database)")
    args = ap.parse_args()
    if args.db and args.part == "both":
        ap.error("--db takes one part (--part A or --part B): a database holds one vault's index")
    src = sorted((REPO / "src" / "kbgraph").rglob("*.py"))  # search is changing fast: say which code ran
    out = {"search_parameters": [p for p in PARAMS if p not in ("store", "query")],
           "store": "postgresql" if args.db else "sqlite",
           "kbgraph_src_sha256": hashlib.sha256(b"".join(p.read_bytes() for p in src)).hexdigest()[:12]}
    with tempfile.TemporaryDirectory(prefix="kbg-search-eval-") as tmp:
        if args.part in ("A", "both"):
            out["graph_queries"] = part_a(args, Path(tmp))
        if args.part in ("B", "both"):
            out["kep_links"] = part_b(args, Path(tmp))
    if args.json:
        return print(json.dumps(out, indent=2, ensure_ascii=False))
    print(f"search({', '.join(out['search_parameters'])}); src/kbgraph sha256 {out['kbgraph_src_sha256']};"
          f" store {out['store']}")
    if "graph_queries" in out:
        a = out["graph_queries"]
        print(f"\n## A. Graph queries on examples/vault (graph: {a['graph']}, index {a['index_seconds']} s)\n\n"
              + json.dumps(a["stats"], ensure_ascii=False) + "".join(f"\nindex: {p}" for p in a["index_problems"]))
        groups = sorted({g for r in a["results"].values() for g in r.get("groups", {})} - {"all"}) + ["all"]
        print(table("graph queries", a["results"], groups))
    b = out.get("kep_links", {})
    if "skipped" in b:
        print(f"\n## B. KEP link recovery: skipped, {b['skipped']}")
    elif b:
        print(f"\n## B. KEP link recovery ({b['queries']} KEPs, {b['links']} see-also links, query text: "
              f"{b['query_text']}, index {b['index_seconds']} s)")
        print(table("see-also links in the top 5 / 10 (the query KEP excluded)", b["results"], ["keps"]))

if __name__ == "__main__":
    main()

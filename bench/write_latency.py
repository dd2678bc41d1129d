"""Single-write latency: `relate`, `unrelate`, `accept` and `fact add` on a synthetic vault of 200, 2,000 and
10,000 notes, this tree against a baseline commit, in one run.

Why this shape:
- Every write edits one page and then re-reads it (ws.reread: kbgraph.workspace.DefaultIndex); what that re-read
  costs as the vault grows is what this measures, so the vault sizes span 50x and the writes are the
  ones users and agents make one at a time.
- The vault is bench/synth.py's (dated meeting notes plus people, project and team pages), seeded, so
  both trees get byte-identical files. Each tree indexes its own copy with KBG_EMBEDDER=none (no model:
  a write's cost here is kbgraph's own), then a worker process under that tree's src/ (PYTHONPATH, as
  bench/startup.py does; the baseline is `git archive REV src`) times the writes through the library,
  warm, one call each (time.perf_counter around the library call):
  relate (`mentors` between two people with pages, --writes distinct pairs), unrelate (the same pairs),
  accept (pending pattern suggestions, as many as --writes where the vault has them) and fact add (an
  interest on a person's page). One untimed warm-up write of each kind comes first.
- One CLI `kbg entity relate` is timed per tree and size too (process start included).
- --profile writes a cProfile of one relate (at the first size given) to a .pstats file and prints the
  top functions by cumulative time.
- --db URL runs the same on PostgreSQL (each tree's index in that database, emptied first: the URL must
  name a scratch database).

Usage:
    .venv/bin/python bench/write_latency.py --baseline 319fd0f                  # 200, 2k, 10k; both trees
    .venv/bin/python bench/write_latency.py --baseline e0e4eef --after f91744a  # two commits, not the work tree
    .venv/bin/python bench/write_latency.py --sizes 2000 --profile /tmp/w.pstats # this tree only, profiled
    .venv/bin/python bench/write_latency.py --sizes 2000 --baseline 319fd0f --db postgresql://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from startup import baseline_tree  # noqa: E402  (bench/ is not a package)

PAGES = {200: 40, 2000: 80, 10000: 200}  # entity pages per vault size


def environment(src: Path, db: str | None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(src), "COLUMNS": "120", "KBG_EMBEDDER": "none"}
    env.pop("KBG_VAULT", None)
    env.pop("KBG_DB", None)
    if db:
        env["KBG_DB"] = db
    return env


def reset_pg(db: str) -> None:
    import psycopg

    with psycopg.connect(db, autocommit=True) as conn:
        conn.execute("DROP SCHEMA IF EXISTS public CASCADE")
        conn.execute("CREATE SCHEMA public")
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")  # the store's migrations make what else they need


def prepared(template: Path, src: Path, into: Path, db: str | None) -> tuple[Path, float]:
    vault = into / "vault"
    shutil.copytree(template, vault)
    if db:
        reset_pg(db)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "kbgraph.cli.app", "index", "--quiet"], cwd=vault,
                          env=environment(src, db), capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"indexing with {src} failed: {done.stderr}")
    return vault, time.perf_counter() - start


def worker(vault: Path, writes: int, profile: str | None) -> dict:
    """Runs under the tree being measured: the writes, timed, as JSON on stdout."""
    from kbgraph.context.facts import add_fact
    from kbgraph.relations.edits import relate, unrelate
    from kbgraph.relations.suggestions import accept
    from kbgraph.workspace import Workspace

    ws = Workspace.open(str(vault))
    people = sorted(e.name for e in ws.store.list_entities(ws.access) if e.type == "person" and e.page_path)
    pairs = [(people[i], people[(i * 7 + 3) % len(people)]) for i in range(writes + 1)]
    pairs = [(a, b) for a, b in pairs if a != b][: writes + 1]
    out: dict[str, list[float]] = {"relate": [], "unrelate": [], "accept": [], "fact add": []}

    def timed(kind: str, call, warm: bool) -> None:
        start = time.perf_counter()
        call()
        if not warm:
            out[kind].append((time.perf_counter() - start) * 1000)

    for i, (a, b) in enumerate(pairs):
        timed("relate", lambda: relate(ws, a, "mentors", b), i == 0)
    if profile:
        import cProfile

        a, b = people[1], people[-2]
        profiler = cProfile.Profile()
        profiler.enable()
        relate(ws, a, "collaborates-with", b)
        profiler.disable()
        profiler.dump_stats(profile)
    for i, (a, b) in enumerate(pairs):
        timed("unrelate", lambda: unrelate(ws, a, "mentors", b), i == 0)
    pending = [s["id"] for s in ws.store.suggestions(ws.access, "pending")][: writes + 1]
    for i, sid in enumerate(pending):
        timed("accept", lambda: accept(ws, sid), i == 0)
    for i in range(writes + 1):
        timed("fact add", lambda: add_fact(ws, people[i % len(people)], "interest", f"sailing {i}"), i == 0)
    ws.close()
    return {**out, "_cli_pair": [people[2], people[5]]}


def cli_relate(vault: Path, src: Path, db: str | None, pair: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "kbgraph.cli.app", "entity", "relate", pair[0], "--type",
                           "collaborates-with", "--target", pair[1]], cwd=vault, env=environment(src, db),
                          capture_output=True, text=True)
    took = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"kbg entity relate under {src} failed: {done.stderr[-2000:]}")
    return took * 1000


def measure(template: Path, src: Path, writes: int, db: str | None, profile: str | None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        vault, index_s = prepared(template, src, Path(tmp), db)
        args = [sys.executable, __file__, "--worker", str(vault), "--writes", str(writes)]
        if profile:
            args += ["--profile", profile]
        done = subprocess.run(args, env=environment(src, db), capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"writes under {src} failed: {done.stderr[-3000:]}")
        times = json.loads(done.stdout.strip().splitlines()[-1])
        pair = times.pop("_cli_pair")
        result = {kind: summary(values) for kind, values in times.items()}
        result["cli relate"] = {"ms": round(cli_relate(vault, src, db, pair), 1)}
        result["index_s"] = round(index_s, 1)
        return result


def summary(values: list[float]) -> dict:
    if not values:
        return {"n": 0}
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"n": len(values), "p50": round(statistics.median(values), 1), "p95": round(p95, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="200,2000,10000", help="notes per vault, comma-separated")
    parser.add_argument("--writes", type=int, default=20, help="timed writes of each kind")
    parser.add_argument("--baseline", help="a commit whose src/ is measured too, in the same run")
    parser.add_argument("--after", help="measure this commit's src/ instead of the working tree's (which may hold "
                                        "others' unfinished edits)")
    parser.add_argument("--db", help="a scratch PostgreSQL database (emptied by the run)")
    parser.add_argument("--profile", help="write a cProfile of one relate at the first size here")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(Path(args.worker), args.writes, args.profile)))
        return
    from synth import generate_vault

    results: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        for part in ("after", "base"):
            (Path(tmp) / part).mkdir()
        trees = {f"after {args.after}": baseline_tree(args.after, Path(tmp) / "after")} if args.after else {
            "this tree": REPO / "src"}
        if args.baseline:
            trees = {f"baseline {args.baseline}": baseline_tree(args.baseline, Path(tmp) / "base"), **trees}
        for n, size in enumerate(int(s) for s in args.sizes.split(",")):
            template = Path(tmp) / f"vault{size}"
            generate_vault(template, notes=size, pages=PAGES.get(size, 80), seed=42)
            (template / "kbgraph.toml").write_text('[search]\nembedder = "none"\n')
            for name, src in trees.items():
                profile = args.profile if n == 0 and not name.startswith("baseline") else None
                results.setdefault(str(size), {})[name] = measure(template, src, args.writes, args.db, profile)
                if not args.json:
                    print(f"{size:>6} notes  {name:<20} {json.dumps(results[str(size)][name])}", flush=True)
    if args.json:
        print(json.dumps(results, indent=2))
    if args.profile:
        import pstats

        pstats.Stats(args.profile).sort_stats("cumulative").print_stats(35)


if __name__ == "__main__":
    main()

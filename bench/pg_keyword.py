"""Keyword search on PostgreSQL, one commit's src against another's, on one index (RESULTS.md §44).

Why this shape:
- The store's ranking SQL is what changes between the two, not the index, so both read one database:
  bench/synth.py's vault (--notes 25000: ~100k sections, as bench/pg_vs_sqlite.py) indexed once into
  --db (kept, so that a rerun skips the 4-minute index; drop it after).
- Each src runs in its own process (PYTHONPATH, as bench/startup.py), warm (10 queries first), over
  bench/search_latency.py's seeded queries: search(mode="bm25") by documents and by passages, limit 10.
  The processes take turns, --rounds times each, so that the machine's noise falls on both alike.
- Both must answer alike: the same hits (path, section) with the same scores, query by query.

    createdb -h 127.0.0.1 -U postgres kbg_bm25_bench
    .venv/bin/python bench/pg_keyword.py --db postgresql://postgres@127.0.0.1:5432/kbg_bm25_bench \\
        --vault /tmp/kbg-bm25-vault --base 620ca44 --json-out bench/data/pg_keyword.json
    dropdb -h 127.0.0.1 -U postgres kbg_bm25_bench
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from search_latency import make_queries, summary  # noqa: E402
from startup import REPO, baseline_tree  # noqa: E402
from synth import generate_vault  # noqa: E402

UNITS = ("document", "passage")


def build(vault: Path, db: str, notes: int, seed: int):
    """The vault (written once) and its index in db (made once: an empty db is indexed in full)."""
    import psycopg

    if (vault / "meetings").is_dir():  # the same seeded draws describe it: written again into a scratch folder
        with tempfile.TemporaryDirectory(prefix="kbg-kw-") as tmp:
            synth = generate_vault(Path(tmp), notes=notes, pages=50, seed=seed)
    else:
        synth = generate_vault(vault, notes=notes, pages=50, seed=seed)
    with psycopg.connect(db) as conn:
        indexed = conn.execute("SELECT to_regclass('documents') IS NOT NULL").fetchone()[0] and \
            conn.execute("SELECT count(*) FROM documents").fetchone()[0] > 0
    if not indexed:
        from kbgraph.ingest.pipeline import index_vault
        from kbgraph.store import open_store
        from kbgraph.workspace import init_vault

        init_vault(vault)
        store = open_store(vault, db=db)
        t0 = time.perf_counter()
        index_vault(vault, full=True, store=store)
        print(f"indexed in {time.perf_counter() - t0:.0f} s: {store.stats()['chunks']} chunks", file=sys.stderr)
        store.close()
    return synth


def child(vault: str, db: str, queries_file: str) -> None:
    """In the src under test: each unit's times and answers, as JSON on stdout."""
    from kbgraph.access import LOCAL
    from kbgraph.search import search
    from kbgraph.workspace import Workspace

    words = json.loads(Path(queries_file).read_text())
    out = {}
    with Workspace.open(vault, db=db) as ws:
        for unit in UNITS:
            def run(q):
                hits = search(ws.store, q, None, 10, config=ws.config, mode="bm25", unit=unit, access=LOCAL).hits
                return [[h.path, h.chunk_id, h.score] for h in hits]

            for q in words[:10]:
                run(q)
            times, answers = [], []
            for q in words:
                t0 = time.perf_counter()
                answers.append(run(q))
                times.append(time.perf_counter() - t0)
            out[unit] = {"times": times, "answers": answers}
    print(json.dumps(out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", required=True, help="a PostgreSQL database: empty (indexed here) or this vault's index")
    ap.add_argument("--vault", required=True, help="where the generated vault is (written if missing)")
    ap.add_argument("--base", default="HEAD", help="the commit to compare the working tree's src with")
    ap.add_argument("--notes", type=int, default=25000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--json-out")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.vault, args.db, args.child)
    synth = build(Path(args.vault), args.db, args.notes, args.seed)
    with tempfile.TemporaryDirectory(prefix="kbg-kw-") as tmp:
        queries = Path(tmp) / "queries.json"
        queries.write_text(json.dumps(make_queries(synth, args.queries, args.seed)))
        srcs = {f"base {args.base}": baseline_tree(args.base, Path(tmp)), "working tree": REPO / "src"}
        runs: dict = {name: [] for name in srcs}
        for _ in range(args.rounds):
            for name, src in srcs.items():
                env = {**os.environ, "PYTHONPATH": str(src), "KBG_EMBEDDER": "none"}
                done = subprocess.run([sys.executable, __file__, "--db", args.db, "--vault", args.vault,
                                       "--child", str(queries)], env=env, capture_output=True, text=True)
                if done.returncode:
                    raise SystemExit(f"{name} failed: {done.stderr}")
                runs[name].append(json.loads(done.stdout))
    result: dict = {"db": args.db.rsplit("/", 1)[-1], "queries": args.queries, "rounds": args.rounds}
    base, new = runs.values()
    for unit in UNITS:
        result[unit] = {name: summary([t for r in rs for t in r[unit]["times"]]) for name, rs in runs.items()}
        result[unit]["identical"] = all(r[unit]["answers"] == base[0][unit]["answers"] for r in (*base, *new))
    print(json.dumps(result, indent=2))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()

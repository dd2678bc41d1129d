"""Library latency of graph-aware hybrid search at 10k and 100k chunks, exact vectors.

What is measured, per size, on one warm open store (the cost of kbgraph's ranking and SQLite,
not of the model): BM25 alone, hybrid (BM25 + exact cosine over every chunk vector), hybrid with
the query's entities, and hybrid pinned to an entity with two-hop relation expansion.
How: a vault from bench/synth.py is indexed without embeddings, then every chunk gets a random
unit 384-d vector (the size all-MiniLM-L6-v2 writes) and the index records the fake embedder as
the model, so queries embed in microseconds and the timings hold only kbgraph's work. The cost of
embedding the query with the real model is measured apart (MiniLM, one short query, warm).

Usage:
    env -u PYTHONDONTWRITEBYTECODE .venv/bin/python bench/hybrid_latency.py            # 10k and 100k
    env -u PYTHONDONTWRITEBYTECODE .venv/bin/python bench/hybrid_latency.py --chunks 10000 --json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from search_latency import percentile  # noqa: E402
from synth import generate_vault, query_vocabulary  # noqa: E402

DIM = 384
QUERIES = 120
GOAL_P50_MS = 20.0
GOAL_EXPANSION_MS = 5.0


def build(root: Path, chunks_wanted: int, seed: int) -> dict:
    import numpy as np

    from kbgraph.ingest.pipeline import index_vault
    from kbgraph.store import open_store

    os.environ["KBG_EMBEDDER"] = "none"
    notes = max(200, chunks_wanted // 4)  # synth notes average 4.0 chunks (133,396 from 33,333)
    vault = generate_vault(root, notes=notes, pages=50, seed=seed)
    started = time.perf_counter()
    index_vault(root)
    seconds = time.perf_counter() - started
    store = open_store(root)
    rng = np.random.default_rng(seed)
    ids = [r[0] for r in store.db.execute("SELECT id FROM chunks ORDER BY id")]
    with store.transaction():
        store.reset_vectors("fake@1")
        for start in range(0, len(ids), 5000):
            part = ids[start:start + 5000]
            matrix = rng.standard_normal((len(part), DIM)).astype(np.float32)
            matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
            store.put_vectors([(cid, f"h{cid}", matrix[i].tobytes()) for i, cid in enumerate(part)])
        store.set_meta("embed_embedder", "fake")
    store.close()
    return {"vault": vault, "chunks": len(ids), "notes": notes, "index_seconds": round(seconds, 1)}


def measure(root: Path, vault, seed: int) -> dict:
    from dataclasses import replace

    from kbgraph.access import LOCAL
    from kbgraph.config import load_config
    from kbgraph.search import search
    from kbgraph.store import open_store

    os.environ["KBG_EMBEDDER"] = "fake"
    config = load_config(root)
    config = replace(config, search=replace(config.search, min_similarity=-1.0))  # random vectors: keep all
    rng = random.Random(seed)
    words, _ = query_vocabulary(vault)
    people = [p.name for p in vault.people]
    queries = [" ".join(rng.sample(words, rng.randint(1, 3))) for _ in range(QUERIES)]
    store = open_store(root)
    cases = {
        "bm25": lambda q, i: search(store, q, limit=10, config=config, mode="bm25", access=LOCAL),
        "hybrid": lambda q, i: search(store, q, limit=10, config=config, access=LOCAL),
        "hybrid, entity in query": lambda q, i: search(store, f"{people[i % len(people)]} {q}", limit=10,
                                                      config=config, access=LOCAL),
        "hybrid, --entity": lambda q, i: search(store, q, limit=10, config=config, entity=people[i % len(people)], access=LOCAL),
        "hybrid, --entity, 2 hops": lambda q, i: search(store, q, limit=10, config=config,
                                                        entity=people[i % len(people)], expand_relations=True, access=LOCAL),
    }
    out = {}
    for name, run in cases.items():
        for i, q in enumerate(queries[:10]):
            run(q, i)  # warm: the vector matrix is read once per process
        times = []
        for i, q in enumerate(queries):
            started = time.perf_counter()
            run(q, i)
            times.append(time.perf_counter() - started)
        out[name] = {"p50_ms": round(percentile(times, 0.5) * 1000, 2), "p95_ms": round(percentile(times, 0.95) * 1000, 2)}
    store.close()
    return out


def query_embedding_ms() -> dict | None:
    try:
        from kbgraph.embed import load_embedder

        embedder = load_embedder("minilm")
    except Exception as exc:  # the model is optional here: report, do not fail
        return {"error": str(exc)}
    embedder.embed(["warm up"])
    times = []
    for i in range(30):
        started = time.perf_counter()
        embedder.embed([f"who reviews the rollout plan {i}"])
        times.append(time.perf_counter() - started)
    return {"p50_ms": round(percentile(times, 0.5) * 1000, 2), "p95_ms": round(percentile(times, 0.95) * 1000, 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = {"sizes": [], "query_embedding_minilm": query_embedding_ms()}
    for size in args.chunks:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "vault"
            built = build(root, size, args.seed)
            timings = measure(root, built.pop("vault"), args.seed)
            results["sizes"].append({**built, "latency": timings})
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for entry in results["sizes"]:
        lat = entry["latency"]
        print(f"\n{entry['chunks']:,} chunks ({entry['notes']:,} notes, indexed in {entry['index_seconds']} s)")
        print("| case | p50 ms | p95 ms |\n|---|---:|---:|")
        for name, t in lat.items():
            print(f"| {name} | {t['p50_ms']} | {t['p95_ms']} |")
        extra = lat["hybrid, --entity, 2 hops"]["p50_ms"] - lat["hybrid, --entity"]["p50_ms"]
        print(f"goal p50 <= {GOAL_P50_MS} ms (hybrid): {'met' if lat['hybrid']['p50_ms'] <= GOAL_P50_MS else 'not met'}; "
              f"2-hop expansion adds {extra:.2f} ms p50 (goal <= {GOAL_EXPANSION_MS})")
    print(f"\nquery embedding with all-MiniLM-L6-v2 (not in the numbers above): {results['query_embedding_minilm']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

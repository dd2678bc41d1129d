"""Agent context on the KEP vault: how long `build_context` takes, and that the budget is a ceiling.

- Latency: one warm open store, `build_context(topic, budget=2000, items=20)` for 200 seeded topics
  (1-4 words of KEP titles, a KEP's name, a SIG, an author's handle, or a name plus words), and 50
  builds without a topic. Each is one library call: search (passage unit), entity cards, packing, the
  token counts. Goal: p50 <= 50 ms.
- Ceiling: 1,000 seeded random topics (the same mix plus random unicode text) with random budgets
  (1-4000 tokens, a fifth of them under 40) and item limits (1-30): the largest counted/budget, by
  the counter in use (the model's WordPiece tokenizer when installed; the script says which).

The KEP vault (../shared/data/keps/vault) is indexed once into a copy with bench/extraction_eval.py's
configuration (KEPs as projects, authors, reviewers, approvers and SIGs as relations), with the embedder
kbgraph would use (all-MiniLM-L6-v2 when installed: embedding ~34k sections takes ~20 minutes on two
cores), or pass --vault for a KEP vault already indexed.

Usage:
    .venv/bin/python bench/context_bench.py [--vault PATH] [--json]
    .venv/bin/python bench/context_bench.py --random-vectors   # minutes, not the ~20 of embedding every section
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
KEPS = REPO.parent / "shared" / "data" / "keps" / "vault"
sys.path.insert(0, str(Path(__file__).resolve().parent))

LATENCY_TOPICS = 200
CENTRAL_RUNS = 50
CEILING_TOPICS = 1000
GOAL_P50_MS = 50.0


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def timing(values: list[float]) -> dict:
    return {"p50_ms": round(percentile(values, 0.5) * 1000, 1), "p95_ms": round(percentile(values, 0.95) * 1000, 1),
            "max_ms": round(max(values) * 1000, 1), "mean_ms": round(statistics.fmean(values) * 1000, 1),
            "n": len(values)}


def indexed_keps(vault: str | None) -> Path:
    if vault:
        return Path(vault)
    if not KEPS.is_dir():
        raise SystemExit(f"the KEP vault is not at {KEPS}: pass --vault PATH to an indexed KEP vault")
    from extraction_eval import KEP_CONFIG

    from kbgraph.ingest.pipeline import index_vault

    root = Path(tempfile.mkdtemp(prefix="kbg-context-bench-")) / "vault"
    shutil.copytree(KEPS, root)
    (root / "kbgraph.toml").write_text(KEP_CONFIG, encoding="utf-8")
    started = time.perf_counter()
    index_vault(root)
    print(f"indexed {root} in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return root


def random_vectors(root: Path) -> int:
    """Every section gets a random unit 384-d vector recorded as all-MiniLM-L6-v2's (as bench/hybrid_latency.py
    does with the fake model): the real model embeds each query and the cosine runs over every section, so
    the timings hold all the work of a hybrid build, though not the vectors' quality. Returns the sections."""
    import numpy as np

    from kbgraph.embed.model_files import MODEL_DIM, MODEL_NAME, MODEL_VERSION
    from kbgraph.store import open_store

    store = open_store(root)
    rng = np.random.default_rng(13)
    ids = [r[0] for r in store.db.execute("SELECT id FROM chunks ORDER BY id")]  # type: ignore[attr-defined]
    with store.transaction():
        store.reset_vectors(f"{MODEL_NAME}@{MODEL_VERSION}")
        for start in range(0, len(ids), 5000):
            part = ids[start:start + 5000]
            matrix = rng.standard_normal((len(part), MODEL_DIM)).astype(np.float32)
            matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
            store.put_vectors([(cid, f"h{cid}", matrix[i].tobytes()) for i, cid in enumerate(part)])
        store.set_meta("embed_embedder", "minilm")
        store.set_meta("vectors_missing", "0")
    store.close()
    return len(ids)


def vocabulary(store) -> tuple[list[str], list[str]]:
    """(words of titles, entity names) of the indexed vault."""
    from kbgraph.access import LOCAL
    from kbgraph.store.base import DocFilter

    words = sorted({w for doc in store.list_documents(LOCAL, DocFilter()) for w in doc["title"].split()
                    if len(w) > 3 and w.isalpha()})
    names = sorted(e.name for e in store.list_entities(LOCAL))
    return words, names


def topic(rng: random.Random, words: list[str], names: list[str], wild: bool = False) -> str:
    roll = rng.random()
    if wild and roll < 0.15:
        return "".join(rng.choice("abcdefgh ijk—é日本?*\"-") for _ in range(rng.randint(1, 40))).strip() or "x"
    if roll < 0.55:
        return " ".join(rng.sample(words, rng.randint(1, 4)))
    if roll < 0.8:
        return rng.choice(names)
    return f"{rng.choice(names)} {' '.join(rng.sample(words, rng.randint(1, 2)))}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", default=None, help="a KEP vault already indexed")
    parser.add_argument("--random-vectors", action="store_true",
                        help="index text only, then give every section a random vector recorded as the real model's")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from kbgraph.access import LOCAL
    from kbgraph.config import load_config
    from kbgraph.context.agent import build_context
    from kbgraph.context.tokens import token_counter
    from kbgraph.store import open_store
    from kbgraph.store.base import DocFilter

    if args.random_vectors:
        import os

        os.environ["KBG_EMBEDDER"] = "none"
    root = indexed_keps(args.vault)
    if args.random_vectors:
        os.environ["KBG_EMBEDDER"] = "minilm"
        random_vectors(root)
    store, config = open_store(root), load_config(root)
    if args.random_vectors:  # random vectors: keep every match, the most work
        from dataclasses import replace

        config = replace(config, search=replace(config.search, min_similarity=-1.0))
    counter = token_counter()
    words, names = vocabulary(store)
    rng = random.Random(13)
    for _ in range(5):  # warm: the tokenizer, the embedder, SQLite's pages
        build_context(store, config, topic(rng, words, names), access=LOCAL)
    latency, sample = [], None
    for _ in range(LATENCY_TOPICS):
        text = topic(rng, words, names)
        started = time.perf_counter()
        result = build_context(store, config, text, 2000, 20, access=LOCAL)
        latency.append(time.perf_counter() - started)
        sample = sample or result
    central = []
    for _ in range(CENTRAL_RUNS):
        started = time.perf_counter()
        build_context(store, config, None, 2000, 20, access=LOCAL)
        central.append(time.perf_counter() - started)
    worst, over, used = 0.0, 0, []
    for _ in range(CEILING_TOPICS):
        budget = rng.randint(1, 40) if rng.random() < 0.2 else rng.randint(1, 4000)
        result = build_context(store, config, topic(rng, words, names, wild=True), budget, rng.randint(1, 30), access=LOCAL)
        counted = counter.count(result.text)
        worst = max(worst, counted / budget)
        over += counted > budget
        used.append(counted / budget)
    vectors = store.embedding_model()
    report = {
        "vault": str(root), "documents": len(store.list_documents(LOCAL, DocFilter())),
        "vectors": vectors, "counter": counter.name, "exact": counter.exact,
        "topic": timing(latency), "no_topic": timing(central),
        "ceiling": {"topics": CEILING_TOPICS, "max_counted_over_budget": round(worst, 4), "over_budget": over,
                    "mean_used": round(statistics.fmean(used), 3)},
        "goal_p50_ms": GOAL_P50_MS, "met": percentile(latency, 0.5) * 1000 <= GOAL_P50_MS,
        "sample": sample.text[:600] if sample else "",
    }
    store.close()
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{report['documents']} documents, vectors: {vectors or 'none'}; tokens by {counter.name}")
        for name in ("topic", "no_topic"):
            t = report[name]
            print(f"{name}: p50 {t['p50_ms']} ms, p95 {t['p95_ms']} ms, max {t['max_ms']} ms (n={t['n']})")
        c = report["ceiling"]
        print(f"ceiling over {c['topics']} random topics: max counted/budget {c['max_counted_over_budget']}, "
              f"{c['over_budget']} over, mean used {c['mean_used']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

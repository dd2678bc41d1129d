"""Graph operations at scale: neighbours (2 hops), shortest path, hubs and the answer cache on
100k entities and 1M relations, against networkx in the same run, load included.

Why this shape:
- The graph is bench/relations.py's (same generator and seed: 60% persons, 25% projects, 5% teams,
  10% technologies; every relation of an allowed type pair; one hub project with --hub relations,
  the rest uniform, so an ordinary entity has about 20). Entities go in through the library, the
  relations in one bulk INSERT (setup only; relations.py measures the library's insert rate).
- kbgraph is measured as a user meets it: the library calls behind `kbg graph neighbours|path|hubs`
  on an open store, each on a cold cache (distinct entities per call; the cache is emptied before
  each hubs call). A kbgraph process needs no load step: opening the store is timed and counted.
- networkx (pinned in the test extras) loads the same current relations from the same SQLite file
  (one SELECT, `add_edges_from` into a Graph: undirected, as `kbg graph` walks both ways), then runs
  single_source_shortest_path_length(cutoff=2), shortest_path and a degree sort on the same
  entities. "Including load" compares one process answering one question (the CLI) and one
  answering all the questions of a series (a server).
- The cache: a repeated question is answered from it; a relation change (one upsert, committed)
  moves the generation counter (m016's trigger), so the next ask recomputes. The cost of that check
  (one read of the counter) is what invalidation costs a reader; the goal is <= 1 ms.
- Goals (issue 12): path p50 <= 50 ms; faster than networkx including load; invalidation <= 1 ms.

Usage:
    .venv/bin/python bench/graph_ops.py                     # 100k entities, 1M relations (~4 min)
    .venv/bin/python bench/graph_ops.py --entities 10000 --relations 100000 --calls 50 --json
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from index_speed import environment  # noqa: E402
from relations import INSERT_SQL, NOW, build_relations, entity_records, group_ids_by_type  # noqa: E402
from search_latency import summary  # noqa: E402

from kbgraph.access import LOCAL  # noqa: E402
from kbgraph.entities.sync import sync_entities  # noqa: E402
from kbgraph.errors import NotFound  # noqa: E402
from kbgraph.graph.cache import cache_for  # noqa: E402
from kbgraph.graph.hubs import hubs  # noqa: E402
from kbgraph.graph.neighbours import neighbours  # noqa: E402
from kbgraph.graph.paths import path  # noqa: E402
from kbgraph.vocabulary import Vocabulary  # noqa: E402
from kbgraph.store.sqlite.store import SqliteStore  # noqa: E402

TODAY = "2026-12-04"


def timed(fn, args_list) -> tuple[list[float], list]:
    times, results = [], []
    for args in args_list:
        t0 = time.perf_counter()
        results.append(fn(*args))
        times.append(time.perf_counter() - t0)
    return times, results


def build(db_path: Path, entities: int, relations: int, hub: int, seed: int) -> dict:
    rng = random.Random(seed)
    store = SqliteStore.open(str(db_path))
    records = entity_records(entities, rng)
    with store.transaction():
        key_ids = sync_entities(store, records, NOW)
    ids_by_type = group_ids_by_type(records, key_ids)
    rows = build_relations(ids_by_type, Vocabulary(), relations, ids_by_type["project"][0], hub, rng)
    rng.shuffle(rows)
    with store.transaction():
        store.db.executemany(INSERT_SQL, rows)
    store.db.execute("ANALYZE")
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    return {"entities": len(records), "relations": len(rows), "ids": sorted(key_ids.values())}


def measure_kbgraph(db_path: Path, ids: list[int], calls: int, rng: random.Random) -> dict:
    vocab = Vocabulary()
    t0 = time.perf_counter()
    store = SqliteStore.open(str(db_path))
    open_s = time.perf_counter() - t0
    entities = store.entities_by_ids(LOCAL, ids)
    starts = [entities[i] for i in rng.sample(ids, calls)]
    pairs = [(entities[a], entities[b]) for a, b in zip(rng.sample(ids, calls), rng.sample(ids, calls)) if a != b]

    def one_path(a, b):
        try:
            return path(store, vocab, a, b, access=LOCAL)["hops"]
        except NotFound:
            return None

    n_times, n_results = timed(lambda e: neighbours(store, vocab, e, depth=2, limit=None, access=LOCAL)["count"],
                               [(e,) for e in starts])
    p_times, p_results = timed(one_path, pairs)

    def fresh_hubs(by):
        cache_for(store).answers.clear()
        return hubs(store, vocab, 10, by, access=LOCAL)["hubs"]

    d_times, d_results = timed(fresh_hubs, [("degree",)] * 5)
    r_times, _ = timed(fresh_hubs, [("pagerank",)] * 2)
    # the cache: ask again (hits), change a relation, ask again (recomputed)
    a, b = pairs[0]
    hit_times, _ = timed(one_path, [(a, b)] * 200)
    check_times, _ = timed(store.relation_generation, [()] * 1000)
    with store.transaction():
        made = store.upsert_relation({"source_id": a.id, "target_id": b.id, "type": "works-with"}, NOW, bump=False)
    after = one_path(a, b)
    with store.transaction():  # back as it was, for networkx to load the same graph
        store.end_relation(made["id"], NOW)
    store.close()
    return {
        "open_store_ms": round(open_s * 1000, 2),
        "neighbours_2": {**summary(n_times), "mean_reached": round(sum(n_results) / len(n_results))},
        "path": {**summary(p_times), "hops": {str(h): p_results.count(h) for h in sorted(set(p_results), key=str)}},
        "hubs_degree": summary(d_times),
        "hubs_pagerank": summary(r_times),
        "cache_hit": summary(hit_times),
        "invalidation_check": summary(check_times),
        "after_change_hops": after,
        "top_degree": [(h["name"], h["degree"]) for h in d_results[0][:3]],
        "_results": (n_results, p_results, [h["id"] for h in d_results[0]]),
    }


def measure_networkx(db_path: Path, ids: list[int], calls: int, rng: random.Random) -> dict:
    import networkx as nx
    import sqlite3

    t0 = time.perf_counter()
    db = sqlite3.connect(str(db_path))
    edges = db.execute("SELECT source_id, target_id FROM relations WHERE inferred = 0"
                       " AND (valid_until IS NULL OR valid_until >= ?)", (TODAY,)).fetchall()
    db.close()
    graph = nx.Graph()
    graph.add_edges_from(edges)
    load_s = time.perf_counter() - t0
    starts = rng.sample(ids, calls)
    pairs = [(a, b) for a, b in zip(rng.sample(ids, calls), rng.sample(ids, calls)) if a != b]

    def reach(n):
        if n not in graph:
            return 0
        return len(nx.single_source_shortest_path_length(graph, n, cutoff=2)) - 1

    def one_path(a, b):
        try:
            found = nx.shortest_path(graph, a, b)
            return len(found) - 1 if len(found) - 1 <= 6 else None
        except (nx.NetworkXNoPath, nx.NodeNotFound):
            return None

    n_times, n_results = timed(reach, [(n,) for n in starts])
    p_times, p_results = timed(one_path, pairs)
    d_times, d_results = timed(lambda: [n for n, _ in sorted(graph.degree, key=lambda x: (-x[1], x[0]))[:10]],
                               [()] * 5)
    return {
        "load_s": round(load_s, 2), "edges": len(edges),
        "neighbours_2": summary(n_times), "path": summary(p_times), "hubs_degree": summary(d_times),
        "_results": (n_results, p_results, d_results[0]),
    }


def run(entities: int, relations: int, hub: int, seed: int, calls: int) -> dict:
    out: dict = {"environment": environment(),
                 "params": {"entities": entities, "relations": relations, "hub": hub, "seed": seed, "calls": calls}}
    with tempfile.TemporaryDirectory(prefix="kbg-graph-") as tmp:
        db_path = Path(tmp) / "index.db"
        t0 = time.perf_counter()
        built = build(db_path, entities, relations, hub, seed)
        out["build_s"] = round(time.perf_counter() - t0, 1)
        print(f"built {built['entities']:,} entities, {built['relations']:,} relations in {out['build_s']} s",
              file=sys.stderr)
        kbg = measure_kbgraph(db_path, built["ids"], calls, random.Random(seed + 1))
        print("kbgraph measured", file=sys.stderr)
        nx_ = measure_networkx(db_path, built["ids"], calls, random.Random(seed + 1))
        print("networkx measured", file=sys.stderr)
    k_res, n_res = kbg.pop("_results"), nx_.pop("_results")
    out["agree"] = {"neighbours_2": k_res[0] == n_res[0], "path_hops": k_res[1] == n_res[1],
                    "hubs_degree": k_res[2] == n_res[2]}
    out["kbgraph"], out["networkx"] = kbg, nx_
    series = calls * 2  # neighbours + paths
    k_total = kbg["open_store_ms"] / 1000 + (kbg["neighbours_2"]["mean_ms"] + kbg["path"]["mean_ms"]) * calls / 1000
    n_total = nx_["load_s"] + (nx_["neighbours_2"]["mean_ms"] + nx_["path"]["mean_ms"]) * calls / 1000
    out["including_load"] = {
        "one_path_s": {"kbgraph": round(kbg["open_store_ms"] / 1000 + kbg["path"]["p50_ms"] / 1000, 3),
                       "networkx": round(nx_["load_s"] + nx_["path"]["p50_ms"] / 1000, 3)},
        f"series_of_{series}_s": {"kbgraph": round(k_total, 2), "networkx": round(n_total, 2)},
    }
    out["goals"] = {
        "path_p50_le_50ms": kbg["path"]["p50_ms"] <= 50,
        "faster_than_networkx_including_load": k_total < n_total,
        "invalidation_le_1ms": kbg["invalidation_check"]["p95_ms"] <= 1.0,
    }
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entities", type=int, default=100_000)
    parser.add_argument("--relations", type=int, default=1_000_000)
    parser.add_argument("--hub", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    out = run(args.entities, args.relations, args.hub, args.seed, args.calls)
    if args.json:
        print(json.dumps(out, indent=2))
        return
    k, n = out["kbgraph"], out["networkx"]
    print(f"graph: {args.entities:,} entities, {args.relations:,} relations (hub {args.hub:,})")
    print(f"{'':24}{'kbgraph p50/p95 ms':>22}{'networkx p50/p95 ms':>22}")
    for name in ("neighbours_2", "path", "hubs_degree"):
        print(f"{name:24}{k[name]['p50_ms']:>12}/{k[name]['p95_ms']:<9}{n[name]['p50_ms']:>12}/{n[name]['p95_ms']:<9}")
    print(f"hubs pagerank: {k['hubs_pagerank']['p50_ms']} ms; cache hit {k['cache_hit']['p50_ms']} ms;"
          f" invalidation check p95 {k['invalidation_check']['p95_ms']} ms")
    print(f"load: kbgraph opens the store in {k['open_store_ms']} ms; networkx loads in {n['load_s']} s")
    print("including load:", json.dumps(out["including_load"]))
    print("agree:", json.dumps(out["agree"]), " goals:", json.dumps(out["goals"]))


if __name__ == "__main__":
    main()

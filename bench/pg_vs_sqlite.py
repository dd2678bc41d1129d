"""PostgreSQL against SQLite in one run: index time, search and 2-hop expansion on one generated vault,
then graph reads (2-hop neighbours, shortest path) on one generated 1M-relation graph.

Why this shape:
- The vault is bench/synth.py's at --notes 25000 (~100k chunks, as bench/api_latency.py and
  RESULTS.md §18), indexed in full once into SQLite (<vault>/.kbgraph) and once into a fresh
  PostgreSQL database (kbg_bench_vs_<pid>, dropped at the end), with KBG_EMBEDDER=fake so that the
  vector signal runs at the cost of a table read, not of a model.
- Reads go through the library as a server makes them (one open Workspace per backend), the two
  backends alternating call by call so that the machine's noise falls on both alike: search in
  bm25 and hybrid mode (search_latency's seeded queries, limit 10), and 2-hop neighbours of the
  vault's entities with the graph's answer cache emptied before each call.
- The graph is bench/relations.py's generator (100k entities, 1M relations, one 10k hub), the same
  rows in both stores: entities through sync_entities (the library), relations by executemany in
  SQLite and by the PostgreSQL backend's COPY (store/postgres/bulk.py) there. Neighbours (depth 2,
  cache emptied) and paths on the same starts and pairs; the answers must agree.

    KBG_EMBEDDER=fake .venv/bin/python bench/pg_vs_sqlite.py --json-out bench/data/pg_vs_sqlite.json
    .venv/bin/python bench/pg_vs_sqlite.py --notes 1000 --entities 5000 --relations 50000 --hub 500   # a minute
    .venv/bin/python bench/pg_vs_sqlite.py --part graph --json-out bench/data/pg_vs_sqlite_graph.json   # one part alone
    .venv/bin/python bench/pg_vs_sqlite.py --part cte --calls 30   # PostgreSQL walks: one query per hop vs a recursive CTE

Part cte (PostgreSQL only, on the same generated graph): the reads of a bounded-depth walk (neighbours,
the search's expansion) made two ways on the same starts, call by call alternating: one query per hop
(relation_steps on the frontier, visited entities pruned, as graph/neighbours.py walks) against one
WITH RECURSIVE ... CYCLE query (access and scope filters inside the recursive term, each entity's
distance its shortest walk, the steps kept those out of entities at their own distance). Both must
reach the same entities at the same distances through the same relations.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from index_speed import environment  # noqa: E402
from relations import INSERT_SQL, NOW, build_relations, entity_records, group_ids_by_type  # noqa: E402
from search_latency import make_queries, summary  # noqa: E402
from synth import generate_vault  # noqa: E402

from kbgraph.access import LOCAL  # noqa: E402

ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class Scratch:
    """A fresh PostgreSQL database for one part of the bench, dropped on exit (even after a failure)."""

    def __init__(self, admin_url: str, name: str):
        import psycopg

        self.admin = psycopg.connect(admin_url, autocommit=True)
        self.name = name
        self.admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        self.admin.execute(f'CREATE DATABASE "{name}"')
        self.url = admin_url.rsplit("/", 1)[0] + "/" + name

    def __enter__(self) -> "Scratch":
        return self

    def __exit__(self, *exc) -> None:
        self.admin.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
        self.admin.close()


def alternate(calls: dict, args: list) -> dict:
    """Each backend's fn(*a) for every a, the backends taking turns per call: name -> (times, results)."""
    out: dict = {name: ([], []) for name in calls}
    for a in args:
        for name, fn in calls.items():
            t0 = time.perf_counter()
            result = fn(*a)
            out[name][0].append(time.perf_counter() - t0)
            out[name][1].append(result)
    return out


# --- part 1: the vault ------------------------------------------------------------------


def vault_part(notes: int, queries: int, seed: int, admin_url: str) -> dict:
    from kbgraph.graph.cache import cache_for
    from kbgraph.graph.neighbours import neighbours
    from kbgraph.ingest.pipeline import index_vault
    from kbgraph.search import search
    from kbgraph.store import open_store
    from kbgraph.workspace import Workspace, init_vault

    out: dict = {}
    with tempfile.TemporaryDirectory(prefix="kbg-vs-") as tmp, Scratch(admin_url, f"kbg_bench_vs_{os.getpid()}") as pg:
        root = Path(tmp) / "vault"
        vault = generate_vault(root, notes=notes, pages=50, seed=seed)
        init_vault(root)
        t0 = time.perf_counter()
        index_vault(root)
        out["index_s"] = {"sqlite": round(time.perf_counter() - t0, 1)}
        log(f"sqlite indexed in {out['index_s']['sqlite']} s")
        store = open_store(root, db=pg.url)
        t0 = time.perf_counter()
        index_vault(root, full=True, store=store)
        out["index_s"]["postgres"] = round(time.perf_counter() - t0, 1)
        out["stats"] = {k: store.stats()[k] for k in ("documents", "chunks", "entities", "mentions", "relations")}
        store.close()
        log(f"postgres indexed in {out['index_s']['postgres']} s; {out['stats']}")
        words = make_queries(vault, queries, seed)
        with Workspace.open(str(root)) as lite, Workspace.open(str(root), db=pg.url) as post:
            spaces = {"sqlite": lite, "postgres": post}
            for mode in ("bm25", "hybrid"):
                def run(ws, q, mode=mode):
                    return [h.path for h in search(ws.store, q, None, 10, config=ws.config, mode=mode, access=LOCAL).hits]

                for name, ws in spaces.items():  # warm-up: first statements, page cache
                    for q in words[:10]:
                        run(ws, q)
                series = alternate({n: (lambda q, ws=ws: run(ws, q)) for n, ws in spaces.items()}, [(q,) for q in words])
                out[f"search_{mode}"] = {n: summary(t) for n, (t, _) in series.items()}
                out[f"search_{mode}"]["top10_overlap"] = _overlap(series["sqlite"][1], series["postgres"][1])
                log(f"search {mode}: {out[f'search_{mode}']}")
            entities = lite.store.list_entities(lite.access, None, None)
            starts = [(e.name,) for e in entities] * max(1, queries // max(1, len(entities)))

            by_name = {n: {e.name: e for e in ws.store.list_entities(ws.access, None, None)} for n, ws in spaces.items()}

            def expand(ws, name):
                cache_for(ws.store).answers.clear()
                entity = by_name["sqlite" if ws is lite else "postgres"][name]
                return neighbours(ws.store, ws.config.vocabulary, entity, depth=2, access=LOCAL)["count"]

            series = alternate({n: (lambda name, ws=ws: expand(ws, name)) for n, ws in spaces.items()}, starts)
            out["neighbours_2"] = {n: summary(t) for n, (t, _) in series.items()}
            out["neighbours_2"]["agree"] = series["sqlite"][1] == series["postgres"][1]
            log(f"2-hop: {out['neighbours_2']}")
    return out


def _overlap(a: list[list[str]], b: list[list[str]]) -> float:
    """Mean share of one top 10 found in the other (the engines rank differently: bm25 vs ts_rank_cd)."""
    shares = [len(set(x) & set(y)) / max(1, len(x)) for x, y in zip(a, b) if x or y]
    return round(sum(shares) / max(1, len(shares)), 3)


# --- part 2: the 1M-relation graph --------------------------------------------------------


def graph_part(entities: int, relations: int, hub: int, calls: int, seed: int, admin_url: str) -> dict:
    from kbgraph.entities.sync import sync_entities
    from kbgraph.vocabulary import Vocabulary
    from kbgraph.store.postgres import open_store as open_pg
    from kbgraph.store.postgres.bulk import copy_relations
    from kbgraph.store.sqlite.store import SqliteStore

    rng = random.Random(seed)
    records = entity_records(entities, rng)
    out: dict = {"build_s": {}}
    with tempfile.TemporaryDirectory(prefix="kbg-vs-graph-") as tmp, \
            Scratch(admin_url, f"kbg_bench_graph_{os.getpid()}") as pg:
        lite, post = SqliteStore.open(str(Path(tmp) / "index.db")), open_pg(pg.url)
        rows: list[tuple] = []
        for name, store in (("sqlite", lite), ("postgres", post)):
            t0 = time.perf_counter()
            with store.transaction():
                key_ids = sync_entities(store, records, NOW)
            entities_s = time.perf_counter() - t0
            if not rows:  # ids are given in the same order in both stores; the rows are built once
                ids_by_type = group_ids_by_type(records, key_ids)
                rows = build_relations(ids_by_type, Vocabulary(), relations, ids_by_type["project"][0], hub, rng)
                rng.shuffle(rows)
                ids = sorted(key_ids.values())
            assert sorted(key_ids.values()) == ids
            t0 = time.perf_counter()
            if name == "sqlite":
                with store.transaction():
                    store.db.executemany(INSERT_SQL, rows)
                store.db.execute("ANALYZE")
            else:
                copy_relations(store, rows)
            out["build_s"][name] = {"entities": round(entities_s, 1), "relations": round(time.perf_counter() - t0, 1)}
            log(f"{name} graph built: {out['build_s'][name]}")
        out["graph"] = {"entities": len(records), "relations": len(rows), "hub": hub}
        out.update(_graph_reads({"sqlite": lite, "postgres": post}, ids, calls, random.Random(seed + 1)))
        lite.close()
        post.close()
    return out


def _graph_reads(stores: dict, ids: list[int], calls: int, rng: random.Random) -> dict:
    from kbgraph.access import LOCAL
    from kbgraph.errors import NotFound
    from kbgraph.graph.cache import cache_for
    from kbgraph.graph.neighbours import neighbours
    from kbgraph.graph.paths import path
    from kbgraph.vocabulary import Vocabulary

    vocab = Vocabulary()
    starts = rng.sample(ids, calls)
    pairs = [(a, b) for a, b in zip(rng.sample(ids, calls), rng.sample(ids, calls)) if a != b]
    found = {n: s.entities_by_ids(LOCAL, ids) for n, s in stores.items()}

    def reach(name, i):
        cache_for(stores[name]).answers.clear()
        return neighbours(stores[name], vocab, found[name][i], depth=2, limit=None, access=LOCAL)["count"]

    def hops(name, a, b):
        cache_for(stores[name]).answers.clear()
        try:
            return path(stores[name], vocab, found[name][a], found[name][b], access=LOCAL)["hops"]
        except NotFound:
            return None

    out = {}
    for label, fn, args in (("neighbours_2", reach, [(i,) for i in starts]), ("path", hops, pairs)):
        for name in stores:  # warm-up
            for a in args[:5]:
                fn(name, *a)
        series = alternate({n: (lambda *a, n=n: fn(n, *a)) for n in stores}, args)
        out[label] = {n: summary(t) for n, (t, _) in series.items()}
        out[label]["agree"] = series["sqlite"][1] == series["postgres"][1]
        if label == "neighbours_2":
            out[label]["mean_reached"] = round(sum(series["sqlite"][1]) / len(args))
        log(f"graph {label}: {out[label]}")
    return out


# --- part 3: per-hop walks against a recursive CTE (PostgreSQL) ---------------------------------------


def cte_part(entities: int, relations: int, hub: int, calls: int, seed: int, admin_url: str) -> dict:
    from kbgraph.entities.sync import sync_entities
    from kbgraph.vocabulary import Vocabulary
    from kbgraph.store.postgres import open_store as open_pg
    from kbgraph.store.postgres.bulk import copy_relations

    rng = random.Random(seed)
    records = entity_records(entities, rng)
    with Scratch(admin_url, f"kbg_bench_cte_{os.getpid()}") as pg:
        store = open_pg(pg.url)
        t0 = time.perf_counter()
        with store.transaction():
            key_ids = sync_entities(store, records, NOW)
        ids_by_type = group_ids_by_type(records, key_ids)
        rows = build_relations(ids_by_type, Vocabulary(), relations, ids_by_type["project"][0], hub, rng)
        rng.shuffle(rows)
        copy_relations(store, rows)
        out: dict = {"graph": {"entities": len(records), "relations": len(rows), "hub": hub},
                     "build_s": round(time.perf_counter() - t0, 1)}
        log(f"graph built: {out}")
        starts = random.Random(seed + 1).sample(sorted(key_ids.values()), calls)
        for depth in (1, 2, 3):
            series = alternate({"per_hop": lambda start: _per_hop(store, start, depth),
                                "cte": lambda start: _cte(store, start, depth)}, [(s,) for s in starts])
            out[f"depth_{depth}"] = {n: summary(t) for n, (t, _) in series.items()}
            out[f"depth_{depth}"]["agree"] = series["per_hop"][1] == series["cte"][1]
            out[f"depth_{depth}"]["mean_reached"] = round(sum(len(r) for r in series["per_hop"][1]) / calls)
            log(f"depth {depth}: {out[f'depth_{depth}']}")
        store.close()
    return out


def _scope():
    from kbgraph.store.base import GraphScope

    return GraphScope(active_on=NOW[:10])


def _useful(steps: set[tuple]) -> frozenset:
    """The steps that reach an entity at its distance: what a walk keeps (path, count of relations)."""
    dist: dict[int, int] = {}
    for level, _, to_id, _ in sorted(steps):
        dist.setdefault(to_id, level)
    return frozenset(s for s in steps if dist[s[2]] == s[0])


def _per_hop(store, start: int, depth: int) -> frozenset:
    """One relation_steps query per level on the frontier of entities not reached before (the library's walk)."""
    from kbgraph.access import LOCAL

    seen, frontier, steps = {start}, [start], set()
    for level in range(1, depth + 1):
        grown = []
        for step in store.relation_steps(LOCAL, frontier, "both", _scope()):
            steps.add((level, step.from_id, step.to_id, step.relation_id))
            if step.to_id not in seen:
                seen.add(step.to_id)
                grown.append(step.to_id)
        if not grown:
            break
        frontier = grown
    return _useful({s for s in steps if s[2] != start})


def _cte(store, start: int, depth: int) -> frozenset:
    """The same walk in one WITH RECURSIVE query: every walk without a repeated entity (CYCLE) up to depth,
    the filters inside the recursive term; each entity's distance is its shortest walk's length."""
    from kbgraph.access import LOCAL
    from kbgraph.store.sqlite.graph import _scope_sql

    where, params = _scope_sql(_scope(), LOCAL)

    def step(at: str) -> str:
        ends = "JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id"
        return (f"SELECT t.id AS to_id, r.id AS rel FROM relations r {ends} WHERE r.source_id = {at} AND {where}"
                f" UNION ALL SELECT s.id, r.id FROM relations r {ends} WHERE r.target_id = {at} AND {where}")

    sql = (f"WITH RECURSIVE walk (from_id, to_id, rel, depth) AS ("
           f" SELECT ?::bigint, e.to_id, e.rel, 1 FROM ({step('?')}) e WHERE e.to_id <> ?"
           f" UNION ALL SELECT w.to_id, e.to_id, e.rel, w.depth + 1 FROM walk w CROSS JOIN LATERAL ({step('w.to_id')}) e"
           " WHERE w.depth < ? AND e.to_id <> ?) CYCLE to_id SET is_cycle USING visited,"
           " dist AS (SELECT to_id AS id, min(depth) AS d FROM walk WHERE NOT is_cycle GROUP BY to_id)"
           " SELECT DISTINCT w.depth, w.from_id, w.to_id, w.rel, (SELECT e.name FROM entities e WHERE e.id = w.to_id),"
           " (SELECT e.type FROM entities e WHERE e.id = w.to_id) FROM walk w JOIN dist t ON t.id = w.to_id"
           " LEFT JOIN dist f ON f.id = w.from_id"
           " WHERE NOT w.is_cycle AND w.depth = t.d AND w.depth = coalesce(f.d, 0) + 1")
    args = [start, start, *params, start, *params, start, *params, *params, depth, start]
    # the names a walk shows come with the steps, as relation_steps gives them (a subquery per step: a join
    # let the planner, blind to the walk's size, hash all of entities, 70 ms at 100k entities); compared without
    return frozenset(tuple(r[:4]) for r in store.db.execute(sql, args))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=25000, help="synthetic notes (~4 chunks each)")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--entities", type=int, default=100_000)
    parser.add_argument("--relations", type=int, default=1_000_000)
    parser.add_argument("--hub", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=100, help="graph reads per series")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--pg", default=ADMIN_URL, help="a database on the server to create the scratch ones from")
    parser.add_argument("--part", choices=("both", "vault", "graph", "cte"), default="both",
                        help="run one part alone (the other is left out of the JSON)")
    parser.add_argument("--json-out", default=None)
    args = parser.parse_args(argv)
    os.environ.setdefault("KBG_EMBEDDER", "fake")
    started = time.perf_counter()
    result: dict = {"environment": environment(), "params": vars(args)}
    if args.part in ("both", "vault"):
        result["vault"] = vault_part(args.notes, args.queries, args.seed, args.pg)
    if args.part in ("both", "graph"):
        result["graph"] = graph_part(args.entities, args.relations, args.hub, args.calls, args.seed, args.pg)
    if args.part == "cte":
        result["cte"] = cte_part(args.entities, args.relations, args.hub, args.calls, args.seed, args.pg)
    result["wall_s"] = round(time.perf_counter() - started, 1)
    text = json.dumps(result, indent=2, default=str)
    if args.json_out:
        Path(args.json_out).write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()

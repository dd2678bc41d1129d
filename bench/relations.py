"""Relations at scale: 100k entities, 1M relations -- insert rate and `entity relations` latency.

Why this shape:
- One temporary SQLite store (SqliteStore.open, so the real migrations, pragmas and
  indexes) holds 100k entities (60% persons, 25% projects, 5% teams, 10% technologies)
  and 1M relations. Every relation has a type pair the vocabulary allows (checked with
  RelationType.allows), symmetric types are stored in canonical order (smaller id first,
  as relations.canonical does), there are no self-loops and no duplicate
  (source, target, type). All of it comes from random.Random(--seed), so a run is repeatable.
- One hub project has --hub relations (about half outgoing: it depends on projects and
  technologies, uses things; about half incoming: people contribute to, review and
  sponsor it, other projects depend on it). The other ~990k relations are spread
  uniformly, so an ordinary entity has about 20 (1M relations x 2 ends / 100k entities).
- Relations are inserted in shuffled order, so any one entity's rows (the hub's too) are
  spread over the table's pages, as after months of use.
- Entities go in through the library (entities.sync.sync_entities, the path `kbg index` uses).
- Relations: the last 20k (--library-sample) go in through store.upsert_relation, one
  call each, in one transaction: that is the library's insert rate, measured when the
  table already holds ~980k rows. The rest are setup: one executemany of a plain
  INSERT with the same columns upsert_relation writes, in one transaction. This
  BYPASSES the library (no duplicate check, no read-back) to build the graph quickly;
  its rate is reported as a bulk SQL rate, not as kbgraph's.
- Latency is measured warm, on the open store, per call (time.perf_counter):
  entity_relations() (what `kbg entity relations NAME` runs after find_entity) for
  the hub and for 200 random ordinary entities; store.relations_touching (the raw
  store call) and the bare SQL (cursor.fetchall, no dicts) for the same entities, so
  Python overhead and SQL are separated; an inverse lookup (an entity that is mostly
  the target of its relations, and entity_relations filtered by an inverse type name);
  relations_of_type for a rare type. Every series has >= 200 calls after a warm-up (--calls),
  except two labelled extras (20 and 50 calls).
- EXPLAIN QUERY PLAN is printed for the SQL of relations_touching (copied from
  SqliteStore._relation_rows) and checked for a full scan of `relations`. A UNION ALL
  form of the same query is timed next to it, as the obvious alternative.
- Extras (skip with --no-extras): the store reads that touch the whole relations table
  (all_claims, entity_activity, page_relations, relations_of_type(None)), timed once each
  with their plans, then suggested fixes timed on the same database (indexes added at the
  very end, to the temporary database only; nothing in src/ changes).
- The goal: `entity relations` (entity_relations) <= 5 ms p50 at 1M relations.
- A default run takes about 3 minutes on 2 cores (build ~40 s); peak RSS ~1.6 GB, from
  relations_of_type(None) building 1M dicts (about 430 MB with --no-extras).

Usage:
    .venv/bin/python bench/relations.py                    # 100k entities, 1M relations, hub 10k
    .venv/bin/python bench/relations.py --relations 200000 --json
    .venv/bin/python bench/relations.py --no-extras           # latency and insert rate only
    .venv/bin/python bench/relations.py --entities 100000 --relations 1000000 --hub 10000 --seed 42
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import sys
import tempfile
import time
from pathlib import Path

# Text and graph only: embedding every chunk is measured on its own (bench/embed_speed.py).
os.environ.setdefault("KBG_EMBEDDER", "none")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from index_speed import environment  # noqa: E402
from search_latency import percentile, summary  # noqa: E402
from synth import FIRST_NAMES, LAST_NAMES, PROJECT_WORDS, TEAM_NAMES, TOPIC_WORDS  # noqa: E402

from kbgraph.access import LOCAL  # noqa: E402
from kbgraph.entities.assemble import entity_key  # noqa: E402
from kbgraph.entities.lookup import find_entity  # noqa: E402
from kbgraph.entities.sync import sync_entities  # noqa: E402
from kbgraph.model import EntityRecord  # noqa: E402
from kbgraph.relations.records import entity_relations, relations_of_type  # noqa: E402

CLI_LIMIT = 100  # the default of `kbg entity relations --limit`
from kbgraph.store.sqlite.store import SqliteStore  # noqa: E402
from kbgraph.vocabulary import ANY, Vocabulary  # noqa: E402

GOAL_P50_MS = 5.0
QUERY_CALLS = 200
WARMUP_CALLS = 20
LIBRARY_SAMPLE = 20_000
TYPE_SHARES = (("person", 0.60), ("project", 0.25), ("team", 0.05), ("technology", 0.10))
TODAY = "2026-12-03"
NOW = "2026-12-03T12:00:00+00:00"

# Share of the non-hub relations per type (normalised). superseded-by is the rare type.
RELATION_MIX = {
    "reports-to": 55, "collaborates-with": 150, "mentors": 20, "delegates-to": 10, "leads": 20,
    "contributes-to": 250, "sponsors": 10, "reviews": 100, "member-of": 90, "depends-on": 120,
    "blocks": 10, "related-to": 30, "uses": 80, "replaces": 5, "works-with": 20, "part-of": 20,
    "informs": 5, "evaluates": 5, "superseded-by": 0.3, "custom": 1,
}
RARE_TYPE = "superseded-by"
# The hub (a project): (type, hub is the source?, the other end's entity type, weight).
HUB_MIX = (
    ("depends-on", True, "project", 15), ("depends-on", True, "technology", 15), ("uses", True, "technology", 10),
    ("related-to", True, "project", 5),  # symmetric: stored with the smaller id first
    ("contributes-to", False, "person", 25), ("reviews", False, "person", 10), ("sponsors", False, "person", 3),
    ("leads", False, "person", 2), ("depends-on", False, "project", 10), ("depends-on", False, "team", 5),
)

# The columns upsert_relation writes, in its order (the bulk setup writes the same ones).
INSERT_SQL = (
    "INSERT INTO relations (source_id, target_id, type, reason, source_doc_id, source_doc_path, confidence,"
    " origin, origin_doc_id, created_at, updated_at, valid_until, strength, inferred, owner, visibility)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)

# The SELECT of SqliteStore._relation_rows, copied; {where} is relations_touching's clause.
RELATION_ROWS_SQL = (
    "SELECT r.id, r.source_id, s.name, s.type, r.target_id, t.name, t.type, r.type, r.reason,"
    " coalesce(sd.path, r.source_doc_path), r.confidence, r.origin, r.origin_doc_id, od.path,"
    " r.created_at, r.updated_at, r.valid_until, r.strength, r.inferred, r.owner, r.visibility"
    " FROM relations r JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id"
    " LEFT JOIN documents sd ON sd.id = r.source_doc_id LEFT JOIN documents od ON od.id = r.origin_doc_id"
    " WHERE {where} ORDER BY r.type, s.name, t.name"
)
TOUCHING_WHERE = "(r.source_id = ? OR r.target_id = ?)"
TOUCHING_SQL = RELATION_ROWS_SQL.format(where=TOUCHING_WHERE)
# The alternative: each index read on its own, glued with UNION ALL (a row with source = target
# cannot exist, CHECK (source_id != target_id), so no row is counted twice).
_UNION_COLUMNS = RELATION_ROWS_SQL.split(" FROM ")[0].removeprefix("SELECT ")
_UNION_FROM = RELATION_ROWS_SQL.split(" FROM ", 1)[1].split(" WHERE ")[0]
UNION_SQL = (
    f"SELECT * FROM (SELECT {_UNION_COLUMNS}, s.name AS sn, t.name AS tn FROM {_UNION_FROM} WHERE r.source_id = ?"
    f" UNION ALL SELECT {_UNION_COLUMNS}, s.name, t.name FROM {_UNION_FROM} WHERE r.target_id = ?)"
    " ORDER BY 8, sn, tn"
)

# Other store queries that read relations, copied from src/kbgraph/store/sqlite.py:
# the relations part of SqliteStore.entity_activity (a correlated subquery per entity), for one entity.
ACTIVITY_RELATIONS_SQL = (
    "SELECT e.id, (SELECT max(substr(r.updated_at, 1, 10)) FROM relations r WHERE r.origin = 'user'"
    " AND e.id IN (r.source_id, r.target_id)) FROM entities e WHERE e.id = ?"
)
# ... and the same for every entity as one GROUP BY (a suggested replacement, not in src/)
ACTIVITY_RELATIONS_GROUPED_SQL = (
    "WITH touched AS (SELECT source_id AS id, updated_at FROM relations WHERE origin = 'user'"
    " UNION ALL SELECT target_id, updated_at FROM relations WHERE origin = 'user'),"
    " last AS (SELECT id, max(substr(updated_at, 1, 10)) AS day FROM touched GROUP BY id)"
    " SELECT e.id, last.day FROM entities e LEFT JOIN last ON last.id = e.id"
)
# the relations part of SqliteStore.all_claims, and an EXISTS form using the two indexes (suggested)
CLAIMS_RELATIONS_SQL = (
    "SELECT DISTINCT 0, '', e.type, e.name, '[]', 'asserted', NULL, '{}'"
    " FROM relations r JOIN entities e ON e.id IN (r.source_id, r.target_id) WHERE r.origin = 'user'"
)
CLAIMS_RELATIONS_EXISTS_SQL = (
    "SELECT 0, '', e.type, e.name, '[]', 'asserted', NULL, '{}' FROM entities e"
    " WHERE EXISTS (SELECT 1 FROM relations r WHERE r.source_id = e.id AND r.origin = 'user')"
    " OR EXISTS (SELECT 1 FROM relations r WHERE r.target_id = e.id AND r.origin = 'user')"
)
# A suggested shape for a hub (not in src/): per-type counts plus one page of active relations,
# read from covering indexes (source_id, type, valid_until) and (target_id, type, valid_until).
# The target one replaces relations_target (target_id, type), which it extends.
PAGE_INDEXES = (
    "CREATE INDEX bench_relations_source_type ON relations (source_id, type, valid_until)",
    "DROP INDEX relations_target",
    "CREATE INDEX bench_relations_target_type ON relations (target_id, type, valid_until)",
)
COUNTS_SQL = (
    "SELECT type, 1, count(*) FROM relations WHERE source_id = ? AND (valid_until IS NULL OR valid_until >= ?)"
    " GROUP BY type UNION ALL SELECT type, 0, count(*) FROM relations WHERE target_id = ?"
    " AND (valid_until IS NULL OR valid_until >= ?) GROUP BY type"
)
PAGE_SQL = RELATION_ROWS_SQL.format(where=(
    "r.id IN (SELECT id FROM (SELECT id, type FROM relations WHERE source_id = ?"
    " AND (valid_until IS NULL OR valid_until >= ?) UNION ALL SELECT id, type FROM relations WHERE target_id = ?"
    " AND (valid_until IS NULL OR valid_until >= ?) ORDER BY type, id LIMIT ?))"
))
PAGE_ROWS = 50
PAGE_RELATIONS_INDEX = "CREATE INDEX bench_relations_page ON relations (origin) WHERE origin = 'page'"


# --- the synthetic graph ----------------------------------------------------------------


def entity_records(count: int, rng: random.Random) -> list[EntityRecord]:
    """count entities with the TYPE_SHARES mix, shuffled so ids do not group by type; unique names."""
    types: list[str] = []
    for entity_type, share in TYPE_SHARES:
        types += [entity_type] * round(count * share)
    types = (types + ["person"] * count)[:count]
    rng.shuffle(types)
    records, seen = [], set()
    counters = {t: 0 for t, _ in TYPE_SHARES}
    for entity_type in types:
        counters[entity_type] += 1
        n = counters[entity_type]
        if entity_type == "person":
            name = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)} {n}"
        elif entity_type == "project":
            name = f"{rng.choice(PROJECT_WORDS)} {rng.choice(TOPIC_WORDS).title()} {n}"
        elif entity_type == "team":
            name = f"{rng.choice(TEAM_NAMES)} Team {n}"
        else:
            name = f"{rng.choice(TOPIC_WORDS)}-{rng.choice(TOPIC_WORDS)} {n}"
        key = entity_key(entity_type, name)
        assert key not in seen
        seen.add(key)
        records.append(EntityRecord(key, entity_type, name, (), None, ((name, "name"),), {}))
    return records


def relation_row(rng: random.Random, source: int, target: int, rtype: str) -> tuple:
    """One row in INSERT_SQL's column order, with a plausible spread of dates, expiry and confidence."""
    created = f"20{rng.randint(20, 26)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T09:00:00+00:00"
    roll = rng.random()
    valid_until = None if roll < 0.95 else ("2025-06-30" if roll < 0.975 else "2027-12-31")  # 2.5% expired
    confidence = "manual" if rng.random() < 0.8 else "auto-high"
    reason = "synthetic custom link" if rtype == "custom" else (
        "discussed in a meeting" if rng.random() < 0.1 else None)
    return (source, target, rtype, reason, None, None, confidence, "user", None, created, created, valid_until,
            1, 0, None, "private")


def group_ids_by_type(records: list[EntityRecord], key_ids: dict[str, int]) -> dict[str, list[int]]:
    """Each type's entity ids, in the records' order (what build_relations draws ends from)."""
    grouped: dict[str, list[int]] = {}
    for rec in records:
        grouped.setdefault(rec.type, []).append(key_ids[rec.key])
    return grouped


def build_relations(ids_by_type: dict[str, list[int]], vocab: Vocabulary, total: int, hub: int, hub_count: int,
                    rng: random.Random) -> list[tuple]:
    """total unique, valid relation rows; hub_count of them touch the hub entity. Deterministic for rng."""
    seen: set[tuple[int, int, str]] = set()
    rows: list[tuple] = []
    all_types = [t for t, _ in TYPE_SHARES]

    def add(source: int, target: int, rtype: str) -> bool:
        rel = vocab.types[rtype]
        if source == target:
            return False
        if rel.symmetric and source > target:
            source, target = target, source
        key = (source, target, rtype)
        if key in seen:
            return False
        seen.add(key)
        rows.append(relation_row(rng, source, target, rtype))
        return True

    # The hub: hub_count relations in both directions, all touching it.
    hub_weights = [w for *_, w in HUB_MIX]
    made = 0
    while made < hub_count:
        rtype, hub_is_source, other_type, _ = rng.choices(HUB_MIX, hub_weights)[0]
        other = rng.choice(ids_by_type[other_type])
        pair = ("project", other_type) if hub_is_source else (other_type, "project")
        assert vocab.types[rtype].allows(*pair), (rtype, pair)
        made += add(hub, other, rtype) if hub_is_source else add(other, hub, rtype)
    # Everything else: uniform over the entities of an allowed (source type, target type) pair.
    names = list(RELATION_MIX)
    weights = [RELATION_MIX[n] for n in names]
    pairs = {n: [(s, t) for s, t in vocab.types[n].pairs] for n in names}
    while len(rows) < total:
        rtype = rng.choices(names, weights)[0]
        source_type, target_type = rng.choice(pairs[rtype])
        source_type = rng.choice(all_types) if source_type == ANY else source_type
        target_type = rng.choice(all_types) if target_type == ANY else target_type
        source = rng.choice(ids_by_type[source_type])
        target = rng.choice(ids_by_type[target_type])
        if hub in (source, target):
            continue  # the hub keeps exactly hub_count relations
        add(source, target, rtype)
    return rows


# --- measuring --------------------------------------------------------------------------


def timed_calls(fn, args_list: list, warmup: int = WARMUP_CALLS, keep=len) -> tuple[dict, list]:
    """Call fn(*args) for each args after warm-up calls: per-call seconds summarised (ms), and keep(result)
    per call. Results are not retained (10k-row results x 200 calls would make the GC, not the query, the cost)."""
    for args in args_list[:warmup]:
        fn(*args)
    times, kept = [], []
    for args in args_list:
        start = time.perf_counter()
        result = fn(*args)
        times.append(time.perf_counter() - start)
        kept.append(keep(result))
        del result
    return summary(times), kept


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def repeat(items: list, n: int) -> list:
    return [items[i % len(items)] for i in range(n)]


def query_plan(db, sql: str, params: tuple) -> list[str]:
    """EXPLAIN QUERY PLAN as indented lines."""
    rows = db.execute("EXPLAIN QUERY PLAN " + sql, params).fetchall()
    depth: dict[int, int] = {0: -1}
    lines = []
    for node, parent, _, detail in rows:
        depth[node] = depth.get(parent, -1) + 1
        lines.append("  " * depth[node] + detail)
    return lines


def full_scan(plan: list[str]) -> bool:
    """True when the plan reads the whole relations table: SCAN r / SCAN relations (with or without an
    index), or a bare "SEARCH r" with no index (what `e.id IN (r.source_id, r.target_id)` gives)."""
    return any(re.match(r"SCAN (r|relations)\b", line.strip()) or line.strip() in ("SEARCH r", "SEARCH relations")
               for line in plan)


def run(entities: int, relations: int, hub_count: int, seed: int, sample: int, calls: int,
        extras: bool = True) -> dict:
    rng = random.Random(seed)
    vocab = Vocabulary()
    out: dict = {"environment": environment(), "params": {
        "entities": entities, "relations": relations, "hub": hub_count, "seed": seed,
        "library_sample": sample, "calls": calls, "extras": extras}}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="kbg-relations-") as tmp:
        db_path = Path(tmp) / "index.db"
        store = SqliteStore.open(str(db_path))
        try:
            # 1. entities, through the library
            records = entity_records(entities, rng)
            t0 = time.perf_counter()
            with store.transaction():
                key_ids = sync_entities(store, records, NOW)
            entity_s = time.perf_counter() - t0
            ids_by_type = group_ids_by_type(records, key_ids)
            hub_id = ids_by_type["project"][0]
            out["entities"] = {"count": len(records), "seconds": round(entity_s, 2),
                               "per_s": round(len(records) / entity_s),
                               "by_type": {t: len(v) for t, v in ids_by_type.items()}}
            progress(f"entities: {len(records):,} via sync_entities in {entity_s:.2f} s "
                  f"({len(records) / entity_s:,.0f}/s)")

            # 2. relations: generate, bulk setup, then the library sample
            t0 = time.perf_counter()
            rows = build_relations(ids_by_type, vocab, relations, hub_id, hub_count, rng)
            gen_s = time.perf_counter() - t0
            progress(f"generated {len(rows):,} relations in {gen_s:.1f} s")
            sample = min(sample, len(rows))
            # keep the hub's relations in the bulk part so its count is exact however the sample falls
            rest = rows[hub_count:]
            bulk_rows = rows[:hub_count] + rest[: len(rest) - sample]
            # insertion order = rowid order: shuffled, so the hub's rows are spread over the table as
            # they would be after months of use, not packed into its first pages
            rng.shuffle(bulk_rows)
            library_rows = rest[len(rest) - sample:]
            t0 = time.perf_counter()
            with store.transaction():
                store.db.executemany(INSERT_SQL, bulk_rows)
            bulk_s = time.perf_counter() - t0
            progress(f"bulk executemany (setup, bypasses the library): {len(bulk_rows):,} in {bulk_s:.1f} s "
                  f"({len(bulk_rows) / bulk_s:,.0f}/s)")
            keys = ("source_id", "target_id", "type", "reason", "source_doc_id", "source_doc_path", "confidence",
                    "origin", "origin_doc_id", "created_at", "updated_at", "valid_until")
            dicts = [dict(zip(keys, r[:12])) for r in library_rows]
            t0 = time.perf_counter()
            with store.transaction():
                for rel in dicts:
                    store.upsert_relation(rel, NOW, bump=False)
            lib_s = time.perf_counter() - t0
            progress(f"store.upsert_relation (library, one transaction): {len(dicts):,} in {lib_s:.1f} s "
                  f"({len(dicts) / lib_s:,.0f}/s)")
            # the same 20k again: each becomes an update of an existing relation (the re-assert path)
            t0 = time.perf_counter()
            with store.transaction():
                for rel in dicts[:5000]:
                    store.upsert_relation(rel, NOW, bump=True)
            upd_s = time.perf_counter() - t0
            total_rel = store.db.execute("SELECT count(*) FROM relations").fetchone()[0]
            store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            out["insert"] = {
                "generate_s": round(gen_s, 2),
                "bulk": {"count": len(bulk_rows), "seconds": round(bulk_s, 2), "per_s": round(len(bulk_rows) / bulk_s)},
                "library": {"count": len(dicts), "seconds": round(lib_s, 2), "per_s": round(len(dicts) / lib_s),
                            "table_rows_before": len(bulk_rows)},
                "library_update": {"count": min(5000, len(dicts)), "seconds": round(upd_s, 2),
                                   "per_s": round(min(5000, len(dicts)) / upd_s)},
                "relations_in_table": total_rel,
                "db_mib": round(db_path.stat().st_size / 2**20, 1),
            }
            progress(f"upsert_relation on existing (bump): {min(5000, len(dicts)):,} in {upd_s:.2f} s; "
                  f"table: {total_rel:,} relations, {out['insert']['db_mib']} MiB")
            build_s = time.perf_counter() - started
            out["build_s"] = round(build_s, 1)

            # 3. latency
            out["queries"], out["plans"], typical_ids = measure(store, vocab, ids_by_type, hub_id, records,
                                                                key_ids, rng, calls)
            if extras:
                out["other_reads"] = measure_other_reads(store, len(records))
                out["suggestions"] = measure_suggestions(store, vocab, hub_id, typical_ids, calls)
        finally:
            store.close()
    out["total_s"] = round(time.perf_counter() - started, 1)
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return out


def measure(store, vocab, ids_by_type, hub_id, records, key_ids, rng, calls) -> tuple[dict, dict, list[int]]:
    db = store.db
    degree = dict(db.execute(
        "SELECT id, count(*) FROM (SELECT source_id AS id FROM relations UNION ALL SELECT target_id FROM relations)"
        " GROUP BY id"))
    incoming = dict(db.execute("SELECT target_id, count(*) FROM relations GROUP BY target_id"))
    all_ids = [i for ids in ids_by_type.values() for i in ids]
    hub = store.get_entity(LOCAL, hub_id)
    typical_ids = repeat(rng.sample([i for i in all_ids if i != hub_id], min(calls, len(all_ids) - 1)), calls)
    typical = [store.get_entity(LOCAL, i) for i in typical_ids]
    typical_degrees = sorted(degree.get(i, 0) for i in typical_ids)
    # inverse: entities that are (almost) only targets -- teams and technologies -- with a typical degree
    mostly_target = [i for i in ids_by_type["team"] + ids_by_type["technology"]
                     if degree.get(i, 0) >= 10 and incoming.get(i, 0) >= 0.8 * degree[i]]
    inverse_ids = rng.sample(mostly_target, min(calls, len(mostly_target)))
    inverse = [store.get_entity(LOCAL, i) for i in inverse_ids]
    team_ids = rng.sample(ids_by_type["team"], min(calls, len(ids_by_type["team"])))
    teams = [store.get_entity(LOCAL, i) for i in repeat(team_ids, calls)]
    names = {key_ids[r.key]: r.name for r in records}
    q: dict = {}

    def sql_only(entity_id):
        return db.execute(TOUCHING_SQL, (entity_id, entity_id)).fetchall()

    def union_only(entity_id):
        return db.execute(UNION_SQL, (entity_id, entity_id)).fetchall()

    def relations_call(entity, type_name=None, limit=CLI_LIMIT):
        # What `kbg entity relations NAME` runs: at most CLI_LIMIT rows per direction, totals counted.
        return entity_relations(store, vocab, entity, type_name, today=TODAY, limit=limit, access=LOCAL)

    def sides(result) -> tuple[int, int]:
        return len(result["relations"]), len(result["inverse_relations"])

    def mean(values) -> float:
        return round(sum(values) / len(values), 1)

    stats, kept = timed_calls(relations_call, [(hub, None, None)] * max(calls // 4, 20), warmup=2, keep=sides)
    q["hub: entity_relations --limit 0 (every row)"] = {**stats, "rows": sum(kept[0])}
    stats, kept = timed_calls(relations_call, [(hub,)] * calls, warmup=5, keep=sides)
    q["hub: entity_relations"] = {**stats, "rows": sum(kept[0]), "out": kept[0][0], "in": kept[0][1],
                                  "stored": degree[hub_id]}
    stats, kept = timed_calls(store.relations_touching, [(hub_id,)] * calls, warmup=5)
    q["hub: store.relations_touching"] = {**stats, "rows": kept[0]}
    stats, kept = timed_calls(sql_only, [(hub_id,)] * calls, warmup=5)
    q["hub: SQL only (fetchall)"] = {**stats, "rows": kept[0]}
    stats, kept = timed_calls(union_only, [(hub_id,)] * calls, warmup=5)
    q["hub: SQL as UNION ALL (alternative)"] = {**stats, "rows": kept[0]}
    progress("hub done")

    stats, kept = timed_calls(relations_call, [(e,) for e in typical], keep=sides)
    q["typical: entity_relations"] = {**stats, "rows_mean": mean([a + b for a, b in kept]),
                                      "stored_p50": percentile(typical_degrees, 0.5),
                                      "stored_min": typical_degrees[0], "stored_max": typical_degrees[-1]}
    stats, kept = timed_calls(store.relations_touching, [(i,) for i in typical_ids])
    q["typical: store.relations_touching"] = {**stats, "rows_mean": mean(kept)}
    stats, kept = timed_calls(sql_only, [(i,) for i in typical_ids])
    q["typical: SQL only (fetchall)"] = {**stats, "rows_mean": mean(kept)}
    stats, kept = timed_calls(union_only, [(i,) for i in typical_ids])
    q["typical: SQL as UNION ALL (alternative)"] = {**stats, "rows_mean": mean(kept)}
    stats, _ = timed_calls(lambda name: find_entity(store, name, access=LOCAL), [(names[i],) for i in typical_ids],
                           keep=lambda e: None)
    q["typical: find_entity(name), the CLI's lookup first"] = stats
    progress("typical done")

    stats, kept = timed_calls(relations_call, repeat([(e,) for e in inverse], calls), keep=sides)
    q["inverse (mostly-target entity): entity_relations"] = {
        **stats, "rows_mean": mean([a + b for a, b in kept]),
        "inverse_share": round(sum(b for _, b in kept) / max(1, sum(a + b for a, b in kept)), 3),
        "entities": len(inverse)}
    stats, kept = timed_calls(store.relations_touching, repeat([(e.id,) for e in inverse], calls))
    q["inverse (mostly-target entity): store.relations_touching"] = {**stats, "rows_mean": mean(kept)}
    stats, kept = timed_calls(relations_call, [(e, "has-member") for e in teams], keep=sides)
    q["inverse type name: entity_relations(team, 'has-member')"] = {
        **stats, "rows_mean": mean([a + b for a, b in kept])}
    progress("inverse done")

    def of_type(type_name):
        return relations_of_type(store, vocab, type_name, today=TODAY, access=LOCAL)

    rare_n = db.execute("SELECT count(*) FROM relations WHERE type = ?", (RARE_TYPE,)).fetchone()[0]
    stats, kept = timed_calls(of_type, [(RARE_TYPE,)] * calls)
    q[f"rare type: relations_of_type({RARE_TYPE!r})"] = {**stats, "rows": kept[0], "stored": rare_n}
    stats, kept = timed_calls(of_type, [("supersedes",)] * calls)
    q["rare type, inverse name: relations_of_type('supersedes')"] = {**stats, "rows": kept[0]}
    mid_type = "blocks"
    stats, kept = timed_calls(of_type, [(mid_type,)] * 20, warmup=2)
    q[f"extra: relations_of_type({mid_type!r}), 20 calls"] = {**stats, "rows": kept[0]}
    progress("types done")

    typical_id = typical_ids[0]
    plans = {
        "relations_touching": query_plan(db, TOUCHING_SQL, (typical_id, typical_id)),
        "relations_touching (UNION ALL alternative)": query_plan(db, UNION_SQL, (typical_id, typical_id)),
        "relations_of_type": query_plan(db, RELATION_ROWS_SQL.format(where="r.type = ?"), (RARE_TYPE,)),
        "get_relation (upsert_relation's lookup)": query_plan(
            db, RELATION_ROWS_SQL.format(where="r.source_id = ? AND r.target_id = ? AND r.type = ?"), (1, 2, "uses")),
    }
    return q, plans, typical_ids


def measure_other_reads(store, entity_count: int) -> dict:
    """Other store reads that touch every relation: one timing each (they take seconds, not ms)."""
    db = store.db
    out: dict = {}

    def once(fn) -> tuple[float, object]:
        start = time.perf_counter()
        result = fn()
        return time.perf_counter() - start, result

    # all_claims: every index run that changed a document (entities_stage), and the mentions stage
    seconds, claims = once(store.all_claims)
    out["store.all_claims()"] = {"s": round(seconds, 3), "rows": len(claims)}
    del claims
    seconds, current = once(lambda: db.execute(CLAIMS_RELATIONS_SQL).fetchall())
    out["all_claims: its relations part"] = {"s": round(seconds, 3), "rows": len(current),
                                             "plan": query_plan(db, CLAIMS_RELATIONS_SQL, ())}
    seconds, exists = once(lambda: db.execute(CLAIMS_RELATIONS_EXISTS_SQL).fetchall())
    out["all_claims: relations part as EXISTS (suggested)"] = {
        "s": round(seconds, 3), "rows": len(exists), "same_rows": set(current) == set(exists),
        "plan": query_plan(db, CLAIMS_RELATIONS_EXISTS_SQL, ())}
    del current, exists
    progress("all_claims done")
    # entity_activity (`kbg entity stale`): a correlated subquery per entity; timed for a few entities
    probe_ids = [row[0] for row in db.execute("SELECT id FROM entities ORDER BY id LIMIT 5")]
    times = [once(lambda i=i: db.execute(ACTIVITY_RELATIONS_SQL, (i,)).fetchall())[0] for i in probe_ids]
    per_entity = sorted(times)[len(times) // 2]
    out["entity_activity: relations subquery, per entity"] = {
        "ms": round(per_entity * 1000, 1), "entities_timed": len(times),
        "extrapolated_s_all_entities": round(per_entity * entity_count),
        "plan": query_plan(db, ACTIVITY_RELATIONS_SQL, (probe_ids[0],))}
    seconds, grouped = once(lambda: db.execute(ACTIVITY_RELATIONS_GROUPED_SQL).fetchall())
    same = all(db.execute(ACTIVITY_RELATIONS_SQL, (i,)).fetchone()[1] == dict(grouped).get(i) for i in probe_ids)
    out["entity_activity: relations part as one GROUP BY (suggested)"] = {
        "s": round(seconds, 3), "rows": len(grouped), "same_for_timed": same}
    del grouped
    progress("entity_activity done")
    # page_relations: the relations stage of every `kbg index`, no-change runs included
    times = [once(store.page_relations)[0] for _ in range(3)]
    out["store.page_relations()"] = {"s": round(sorted(times)[1], 3),
                                     "plan": query_plan(db, RELATION_ROWS_SQL.format(where="r.origin = 'page'"), ())}
    # relations_of_type(None): `kbg export` and `kbg entity stale --include-relations`
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    seconds, rows = once(lambda: store.relations_of_type(LOCAL, None))
    out["store.relations_of_type(LOCAL, None), the whole graph"] = {
        "s": round(seconds, 2), "rows": len(rows),
        "peak_rss_growth_mb": round((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) / 1024)}
    del rows
    progress("whole-graph reads done")
    return out


def measure_suggestions(store, vocab, hub_id: int, typical_ids: list[int], calls: int) -> dict:
    """Suggested fixes, timed on this database (runs last: it adds indexes). Nothing here is in src/."""
    db = store.db
    out: dict = {}
    start = time.perf_counter()
    db.execute(PAGE_RELATIONS_INDEX)
    index_s = time.perf_counter() - start
    times = []
    for _ in range(3):
        start = time.perf_counter()
        store.page_relations()
        times.append(time.perf_counter() - start)
    out["store.page_relations() with a partial index on origin = 'page'"] = {
        "s": round(sorted(times)[1], 4), "index_build_s": round(index_s, 2)}
    start = time.perf_counter()
    for sql in PAGE_INDEXES:
        db.execute(sql)
    out["covering indexes (source_id|target_id, type, valid_until), replacing relations_target"] = {
        "build_s": round(time.perf_counter() - start, 2)}

    def counts_and_page(entity_id):
        counts = db.execute(COUNTS_SQL, (entity_id, TODAY, entity_id, TODAY)).fetchall()
        page = db.execute(PAGE_SQL, (entity_id, TODAY, entity_id, TODAY, PAGE_ROWS)).fetchall()
        return sum(c[2] for c in counts), len(page)

    stats, kept = timed_calls(counts_and_page, [(hub_id,)] * calls, warmup=5, keep=lambda x: x)
    out[f"hub: counts by type + first {PAGE_ROWS} active rows (SQL)"] = {
        **stats, "counted": kept[0][0], "page_rows": kept[0][1]}
    stats, kept = timed_calls(counts_and_page, [(i,) for i in typical_ids], keep=lambda x: x)
    out[f"typical: counts by type + first {PAGE_ROWS} active rows (SQL)"] = stats
    stats, _ = timed_calls(lambda e: entity_relations(store, vocab, e, today=TODAY, access=LOCAL), [(store.get_entity(LOCAL, hub_id),)] * 50,
                           warmup=3, keep=lambda r: None)
    out["hub: entity_relations, unchanged, with the extra indexes present (50 calls)"] = stats
    out["plans"] = {"counts": query_plan(db, COUNTS_SQL, (hub_id, TODAY, hub_id, TODAY)),
                    "page": query_plan(db, PAGE_SQL, (hub_id, TODAY, hub_id, TODAY, PAGE_ROWS))}
    progress("suggestions done")
    return out


# --- reporting ----------------------------------------------------------------------------


def goal_rows(results: dict) -> list[tuple[str, float, bool]]:
    q = results["queries"]
    return [(name, q[name]["p50_ms"], q[name]["p50_ms"] <= GOAL_P50_MS)
            for name in ("hub: entity_relations", "typical: entity_relations",
                         "inverse (mostly-target entity): entity_relations")]


def _print_plan(name: str, plan: list[str]) -> None:
    print(f"\nEXPLAIN QUERY PLAN {name}{'  <-- FULL SCAN of relations' if full_scan(plan) else ''}:")
    print("\n".join("  " + line for line in plan))


def _extra(s: dict) -> dict:
    return {k: v for k, v in s.items() if k not in ("p50_ms", "p95_ms", "max_ms", "mean_ms", "n", "plan")}


def print_report(results: dict) -> None:
    env, p, ins = results["environment"], results["params"], results["insert"]
    lib, bulk = ins["library"], ins["bulk"]
    print(f"\nPython {env['python']}, SQLite {env['sqlite']}, {env['cpus']} CPUs, git {env['git_head']} "
          f"(+{len(env['src_changes'])} uncommitted changes under src/)")
    print(f"{p['entities']:,} entities {results['entities']['by_type']} (sync_entities "
          f"{results['entities']['per_s']:,}/s), {ins['relations_in_table']:,} relations, hub {p['hub']:,}, "
          f"seed {p['seed']}; db {ins['db_mib']} MiB; build {results['build_s']} s, total {results['total_s']} s, "
          f"peak RSS {results['peak_rss_mb']} MB")
    print(f"insert: library upsert_relation {lib['per_s']:,}/s ({lib['count']:,} into a table of "
          f"{lib['table_rows_before']:,}); re-assert (update) {ins['library_update']['per_s']:,}/s; "
          f"bulk executemany (setup) {bulk['per_s']:,}/s ({bulk['count']:,} in {bulk['seconds']} s)")
    print(f"\n{'query':<72} {'p50 ms':>8} {'p95 ms':>8} {'n':>5}  rows")
    for name, s in results["queries"].items():
        print(f"{name:<72} {s['p50_ms']:8.2f} {s['p95_ms']:8.2f} {s['n']:5}  {_extra(s)}")
    for name, plan in results["plans"].items():
        _print_plan(name, plan)
    if "other_reads" in results:
        print("\nother reads of the whole relations table (one run each):")
        for name, s in results["other_reads"].items():
            print(f"  {name:<66} {_extra(s)}")
        for name, s in results["other_reads"].items():
            if "plan" in s:
                _print_plan(name, s["plan"])
        print("\nsuggested fixes, timed here (indexes added to this temporary database only):")
        for name, s in results["suggestions"].items():
            if name == "plans":
                continue
            timing = f"p50 {s['p50_ms']:.2f} ms, p95 {s['p95_ms']:.2f} ms, n {s['n']}  " if "p50_ms" in s else ""
            print(f"  {name:<72} {timing}{_extra(s)}")
        for name, plan in results["suggestions"]["plans"].items():
            _print_plan(f"suggested {name}", plan)
    print(f"\ngoal: entity_relations p50 <= {GOAL_P50_MS} ms at {ins['relations_in_table']:,} relations")
    for name, p50, met in goal_rows(results):
        print(f"  {name:<52} p50 {p50:8.2f} ms  {'met' if met else 'NOT met'}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entities", type=int, default=100_000)
    parser.add_argument("--relations", type=int, default=1_000_000)
    parser.add_argument("--hub", type=int, default=10_000, help="relations of the hub entity (both directions)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--library-sample", type=int, default=LIBRARY_SAMPLE,
                        help="relations inserted through store.upsert_relation (the rest: bulk setup)")
    parser.add_argument("--calls", type=int, default=QUERY_CALLS, help="measured calls per query series")
    parser.add_argument("--no-extras", action="store_true",
                        help="skip the whole-graph reads (all_claims, entity_activity, export) and the suggested fixes")
    parser.add_argument("--json", action="store_true", help="print the results as JSON only")
    args = parser.parse_args(argv)
    if args.hub + args.library_sample > args.relations:
        parser.error("--relations must be at least --hub plus --library-sample")
    results = run(args.entities, args.relations, args.hub, args.seed, args.library_sample, args.calls,
                  not args.no_extras)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print_report(results)


if __name__ == "__main__":
    main()

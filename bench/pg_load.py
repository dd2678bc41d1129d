"""A bounded load test of `kbg serve --workers 4` on PostgreSQL, with CLI writers at the same time, that
proves no write was lost or doubled and that no lock failure reached a caller.

Why this shape:
- The vault is bench/synth.py's (--notes 2000: 2,050 documents, 30 people, 14 projects), indexed into a
  fresh database (kbg_bench_load_<pid>, dropped at the end) and served by `kbg serve --workers 4 --db`.
- A fixed plan, drawn from one seed, run by --clients threads over HTTP (urllib, one request at a time
  each): search (search_latency's queries), profile and 2-hop neighbours of people and projects, and
  writes: `POST /relations` of `A mentors B` for distinct person pairs, every third one followed by its
  `POST /relations/remove` from the same thread (so the order of the two is known).
- Meanwhile --cli-writers threads each run `kbg entity relate P --type contributes-to --target X`
  (every fourth one then `kbg entity unrelate`) and `kbg fact add P TEXT` as separate processes on the
  same vault and database. API and CLI writes land on the same person pages, so page writes contend on
  the vault's file lock and store writes on the advisory lock.
- The proof, after the server stopped: every write that returned success is in the store exactly once
  (the export's current relations and current facts) and on its page exactly once (`- mentors [[B]]`,
  `- note: TEXT`); every relation whose remove succeeded is in neither; no write that failed left
  anything behind. Non-2xx answers are counted by code, and the server's log is searched for deadlock
  and serialization failures.

    .venv/bin/python bench/pg_load.py --json-out bench/data/pg_load.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from api_latency import _free_port  # noqa: E402
from index_speed import environment  # noqa: E402
from pg_vs_sqlite import ADMIN_URL, Scratch, log  # noqa: E402
from search_latency import make_queries, summary  # noqa: E402
from synth import generate_vault  # noqa: E402

KBG = [sys.executable, "-m", "kbgraph.cli.app"]
MIX = {"search": 0.4, "profile": 0.2, "neighbours": 0.2, "write": 0.2}  # shares of --requests
LOG_FAILURES = ("deadlock detected", "could not serialize", "Traceback", "database is locked")


class Recorder:
    """Each request's kind, status and seconds; thread-safe."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, int | str, float]] = []
        self.lock = threading.Lock()

    def call(self, base: str, kind: str, path: str, body: dict | None = None) -> bool:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(base + path, data=data, headers={"Content-Type": "application/json"})
        start = time.perf_counter()
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                response.read()
                status: int | str = response.status
        except urllib.error.HTTPError as exc:
            status = exc.code
        except OSError as exc:
            status = type(exc).__name__
        with self.lock:
            self.rows.append((kind, status, time.perf_counter() - start))
        return status == 200


def plan(rng: random.Random, requests: int, queries: list[str], people: list[str], projects: list[str],
         taken: set) -> tuple[list[tuple], list[tuple]]:
    """The API tasks, shuffled: ("get", kind, path) or ("write", source, target, then_remove); and the
    mentors triples they write (never one the vault already holds)."""
    names = people + projects
    tasks: list[tuple] = []
    for _ in range(round(requests * MIX["search"])):
        tasks.append(("get", "search", "/search?" + urllib.parse.urlencode({"q": rng.choice(queries), "limit": 10})))
    for _ in range(round(requests * MIX["profile"])):
        tasks.append(("get", "profile", "/entities/profile?" + urllib.parse.urlencode({"name": rng.choice(names)})))
    for _ in range(round(requests * MIX["neighbours"])):
        tasks.append(("get", "neighbours", "/graph/neighbours?" + urllib.parse.urlencode(
            {"entity": rng.choice(names), "depth": 2})))
    pairs = [(a, b) for a in people for b in people if a != b and (a, "mentors", b) not in taken]
    rng.shuffle(pairs)
    writes = round(requests * MIX["write"])
    chosen = pairs[: writes * 3 // 4]  # a third of them also removed: ~writes requests in all
    for i, (a, b) in enumerate(chosen):
        tasks.append(("write", a, b, i % 3 == 2))
    rng.shuffle(tasks)
    return tasks, chosen


def run_task(rec: Recorder, base: str, task: tuple, outcome: dict) -> None:
    if task[0] == "get":
        rec.call(base, task[1], task[2])
        return
    _, a, b, then_remove = task
    made = rec.call(base, "relate", "/relations", {"source": a, "type": "mentors", "target": b})
    removed = then_remove and made and rec.call(base, "unrelate", "/relations/remove",
                                                 {"source": a, "type": "mentors", "target": b})
    outcome[(a, "mentors", b)] = {"made": made, "removed": bool(removed), "tried_remove": then_remove and made}


def cli_writer(index: int, pairs: list[tuple[str, str]], root: Path, url: str, outcome: dict, facts: dict,
               times: list, failures: list) -> None:
    """For each (person, project): relate (every fourth then unrelate) and a fact, each a `kbg` process;
    each non-zero exit goes to failures with its arguments and the end of its stderr."""
    env = {**os.environ, "KBG_DB": url}
    env.pop("KBG_VAULT", None)

    def kbg(*args: str) -> bool:
        start = time.perf_counter()
        done = subprocess.run([*KBG, *args, "--vault", str(root)], env=env, capture_output=True, text=True)
        times.append((f"cli {args[0]} {args[1]}", done.returncode, time.perf_counter() - start))
        if done.returncode != 0:
            failures.append({"args": list(args), "exit": done.returncode, "stderr": done.stderr[-2000:]})
        return done.returncode == 0

    for i, (person, project) in enumerate(pairs):
        made = kbg("entity", "relate", person, "--type", "contributes-to", "--target", project)
        removed = i % 4 == 3 and made and kbg("entity", "unrelate", person, "--type", "contributes-to",
                                              "--target", project)
        outcome[(person, "contributes-to", project)] = {"made": made, "removed": bool(removed),
                                                         "tried_remove": i % 4 == 3 and made}
        text = f"load test fact {index}-{i}"
        facts[(person, text)] = kbg("fact", "add", person, text, "--kind", "note")


def verify(root: Path, url: str, outcome: dict, facts: dict) -> dict:
    """Every successful write once in the store and once on its page; removed ones and failed ones nowhere."""
    from kbgraph.portable import export_data
    from kbgraph.workspace import Workspace

    with Workspace.open(str(root), db=url) as ws:
        data = export_data(ws.store)
    current = Counter((r["source"]["name"], r["type"], r["target"]["name"]) for r in data["relations"]
                      if r["valid_until"] is None)
    live_facts = Counter((f["entity"], f["text"]) for f in data["facts"] if f["superseded_at"] is None)
    pages = {e["name"]: root / e["page_path"] for e in data["entities"] if e.get("page_path")}

    def on_page(name: str, line: str) -> int:
        return pages[name].read_text(encoding="utf-8").splitlines().count(line) if name in pages else 0

    problems: list[str] = []
    counts = Counter()
    for (a, rtype, b), o in outcome.items():
        want = 1 if o["made"] and not o["removed"] else 0
        kind = "kept" if want else ("removed" if o["removed"] else "failed")
        counts[kind] += 1
        stored, lines = current[(a, rtype, b)], on_page(a, f"- {rtype} [[{b}]]")
        if kind == "failed" and (stored or lines):
            counts["failed but landed"] += 1
        if (stored, lines) != (want, want):
            problems.append(f"{kind} {a} {rtype} {b}: stored {stored}, page lines {lines}")
        if o["tried_remove"] and not o["removed"]:
            problems.append(f"remove of {a} {rtype} {b} failed")
    for (person, text), ok in facts.items():
        want = 1 if ok else 0
        counts["facts" if ok else "facts failed"] += 1
        stored, lines = live_facts[(person, text)], on_page(person, f"- note: {text}")
        if not ok and (stored or lines):
            counts["facts failed but landed"] += 1
        if (stored, lines) != (want, want):
            problems.append(f"fact {person!r} {text!r}: stored {stored}, page lines {lines}")
    return {"writes": dict(counts), "problems": problems, "ok": not problems}


def serve(root: Path, url: str, port: int, workers: int, log_path: Path) -> subprocess.Popen:
    env = {**os.environ, "KBG_DB": url}
    env.pop("KBG_VAULT", None)
    server = subprocess.Popen([*KBG, "serve", "--workers", str(workers), "--port", str(port), "--vault", str(root)],
                              env=env, stderr=open(log_path, "w"))
    for _ in range(300):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/index/status", timeout=5):
                return server
        except OSError:
            assert server.poll() is None, log_path.read_text()
            time.sleep(0.1)
    raise RuntimeError("the server did not start")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--requests", type=int, default=1200, help="API requests (a remove counts as one)")
    parser.add_argument("--clients", type=int, default=8, help="HTTP client threads")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--cli-writers", type=int, default=2)
    parser.add_argument("--cli-ops", type=int, default=16, help="relate (+unrelate) and fact rounds per CLI writer")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--pg", default=ADMIN_URL)
    parser.add_argument("--json-out", default=None)
    args = parser.parse_args(argv)
    os.environ.setdefault("KBG_EMBEDDER", "fake")
    from kbgraph.ingest.pipeline import index_vault
    from kbgraph.portable import export_data
    from kbgraph.store import open_store
    from kbgraph.workspace import init_vault

    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="kbg-load-") as tmp, \
            Scratch(args.pg, f"kbg_bench_load_{os.getpid()}") as pg:
        root = Path(tmp) / "vault"
        vault = generate_vault(root, notes=args.notes, pages=50, seed=args.seed)
        init_vault(root)
        store = open_store(root, db=pg.url)
        t0 = time.perf_counter()
        index_vault(root, full=True, store=store)
        index_s = time.perf_counter() - t0
        stats = {k: store.stats()[k] for k in ("documents", "chunks", "entities", "relations")}
        taken = {(r["source"]["name"], r["type"], r["target"]["name"]) for r in export_data(store)["relations"]}
        store.close()
        log(f"indexed into PostgreSQL in {index_s:.1f} s: {stats}")
        people, projects = [p.name for p in vault.people], [p.name for p in vault.projects]
        tasks, _ = plan(rng, args.requests, make_queries(vault, 200, args.seed), people, projects, taken)
        cli_pairs = [(p, x) for p in people for x in projects if (p, "contributes-to", x) not in taken]
        rng.shuffle(cli_pairs)
        port, log_path = _free_port(), Path(tmp) / "serve.log"
        server = serve(root, pg.url, port, args.workers, log_path)
        base = f"http://127.0.0.1:{port}"
        rec, outcome, facts, cli_times, cli_failures = Recorder(), {}, {}, [], []
        for task in tasks[:20]:  # warm-up: reads only, not counted
            if task[0] == "get":
                Recorder().call(base, task[1], task[2])
        writers = [threading.Thread(target=cli_writer, args=(
            w, cli_pairs[w * args.cli_ops:(w + 1) * args.cli_ops], root, pg.url, outcome, facts, cli_times,
            cli_failures))
            for w in range(args.cli_writers)]
        start = time.perf_counter()
        for w in writers:
            w.start()
        with ThreadPoolExecutor(args.clients) as pool:
            for future in [pool.submit(run_task, rec, base, t, outcome) for t in tasks]:
                future.result()
        api_s = time.perf_counter() - start
        for w in writers:
            w.join()
        all_s = time.perf_counter() - start
        server.send_signal(signal.SIGINT)
        stopped = server.wait(30)
        server_log = log_path.read_text()
        result = {
            "environment": environment(), "params": vars(args), "vault": stats, "index_s": round(index_s, 1),
            "api": {"requests": len(rec.rows), "seconds": round(api_s, 1),
                    "per_s": round(len(rec.rows) / api_s, 1),
                    "by_kind": {k: {**summary([s for kk, _, s in rec.rows if kk == k]),
                                    "status": dict(Counter(str(c) for kk, c, _ in rec.rows if kk == k))}
                                for k in sorted({r[0] for r in rec.rows})},
                    "non_2xx": dict(Counter(str(c) for _, c, _ in rec.rows if c != 200))},
            "cli": {"commands": len(cli_times), "seconds": round(all_s, 1),
                    "by_kind": {k: {**summary([s for kk, _, s in cli_times if kk == k]),
                                    "exit": dict(Counter(str(c) for kk, c, _ in cli_times if kk == k))}
                                for k in sorted({r[0] for r in cli_times})},
                    "failures": cli_failures},
            "server": {"exit": stopped, "log_failures": {m: server_log.count(m) for m in LOG_FAILURES}},
            "verify": verify(root, pg.url, outcome, facts),
        }
    text = json.dumps(result, indent=2, default=str)
    if args.json_out:
        Path(args.json_out).write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()

"""MCP tool-call overhead: the `search` tool through an in-process client versus the library call.

Why this shape:
- The same queries, the same open workspace, in the same run: each round calls the library's
  `search()` directly, then the `search` tool through `mcp.Client(server)` (the 2026 protocol) and
  through `Client(server, mode="legacy")` (JSON-RPC with the 2025-11-25 handshake), interleaved so
  the machine's noise falls on all three alike. The difference is what the MCP door costs: argument
  validation, the worker thread a sync tool runs on, rendering the text and the JSON shape, and the
  protocol's (de)serialisation.
- The sample vault (examples/vault) is copied and indexed with the fake embedder by default (the
  overhead, not the model, is measured); --vault PATH measures an indexed vault of your own.
- A bounded count: --rounds (default 200) calls of each, after 10 warm-up rounds.

Usage:
    .venv/bin/python bench/mcp_overhead.py
    .venv/bin/python bench/mcp_overhead.py --vault ~/notes --rounds 100 --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("KBG_EMBEDDER", "fake")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from search_latency import percentile  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
QUERIES = ("key rotation", "Project Atlas migration", "who leads the platform team", "Kafka", "payments gateway",
           "Ana Lima", "auth service launch", "PostgreSQL decision", "retro action items", "mobile client shim")
WARMUP = 10


def summary(times: list[float]) -> dict:
    return {"p50_ms": round(percentile(times, 0.5) * 1000, 2), "p95_ms": round(percentile(times, 0.95) * 1000, 2)}


async def measure(vault: Path, rounds: int, limit: int) -> dict:
    from mcp import Client

    from kbgraph.mcp import build_server
    from kbgraph.search import search
    from kbgraph.workspace import Workspace

    times: dict[str, list[float]] = {"library": [], "mcp": [], "mcp legacy": []}
    with Workspace.open(str(vault)) as ws:
        server = build_server(workspace=ws)
        async with Client(server) as modern, Client(server, mode="legacy") as legacy:
            for n in range(WARMUP + rounds):
                query = QUERIES[n % len(QUERIES)]
                start = time.perf_counter()
                search(ws.store, query, None, limit, config=ws.config, access=ws.access)
                library = time.perf_counter() - start
                tools = {}
                for name, client in (("mcp", modern), ("mcp legacy", legacy)):
                    start = time.perf_counter()
                    res = await client.call_tool("search", {"query": query, "limit": limit})
                    tools[name] = time.perf_counter() - start
                    assert not res.is_error, res.content
                if n >= WARMUP:
                    times["library"].append(library)
                    for name, took in tools.items():
                        times[name].append(took)
    out = {name: summary(values) for name, values in times.items()}
    for name in ("mcp", "mcp legacy"):
        out[name]["overhead_p50_ms"] = round(out[name]["p50_ms"] - out["library"]["p50_ms"], 2)
    return {"rounds": rounds, "limit": limit, "embedder": os.environ["KBG_EMBEDDER"], "latency": out}


def indexed_sample(tmp: Path) -> Path:
    from kbgraph.ingest.pipeline import index_vault

    vault = tmp / "vault"
    shutil.copytree(REPO / "examples" / "vault", vault, ignore=shutil.ignore_patterns(".kbgraph"))
    index_vault(vault)
    return vault


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", default=None, help="An indexed vault (default: a copy of the sample vault).")
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(args.vault).expanduser() if args.vault else indexed_sample(Path(tmp))
        report = asyncio.run(measure(vault, args.rounds, args.limit))
    report["vault"] = args.vault or "examples/vault (copy)"
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{report['vault']}: {args.rounds} searches each, limit {args.limit}, embedder {report['embedder']}")
    for name, row in report["latency"].items():
        extra = f"  (+{row['overhead_p50_ms']} ms p50)" if "overhead_p50_ms" in row else ""
        print(f"  {name:<11} p50 {row['p50_ms']:7.2f} ms  p95 {row['p95_ms']:7.2f} ms{extra}")


if __name__ == "__main__":
    main()

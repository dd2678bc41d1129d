"""HTTP API latency: search and profile through `kbg serve` (uvicorn on loopback) vs the library call.

Same run, same vault, same queries: the library's search()/profile() on one open workspace in this
process, then the same requests to a `kbg serve` subprocess over HTTP (urllib, one keep-alive-less
request at a time), a bounded count of each after a warm-up. The vault is bench/synth.py's, indexed with
the embedder named by KBG_EMBEDDER (default fake, so the vector signal runs but costs little).

    KBG_EMBEDDER=fake .venv/bin/python bench/api_latency.py --notes 25000 --requests 200
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from search_latency import make_queries, summary  # noqa: E402
from synth import generate_vault  # noqa: E402

WARMUP = 10


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> float:
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=60) as response:
        response.read()
        assert response.status == 200
    return time.perf_counter() - start


def library(root: Path, queries: list[str], names: list[str]) -> dict:
    from kbgraph.documents.views import profile
    from kbgraph.entities.lookup import find_entity
    from kbgraph.search import search
    from kbgraph.workspace import Workspace

    with Workspace.open(str(root)) as ws:
        def run_search(q):
            search(ws.store, q, None, 10, config=ws.config, access=ws.access)

        def run_profile(n):
            profile(ws.store, find_entity(ws.store, n, access=ws.access), ws.config.vocabulary, access=ws.access)

        out = {}
        for label, fn, args in (("search", run_search, queries), ("profile", run_profile, names)):
            for a in args[:WARMUP]:
                fn(a)
            times = []
            for a in args:
                start = time.perf_counter()
                fn(a)
                times.append(time.perf_counter() - start)
            out[label] = summary(times)
        return out


def http(root: Path, queries: list[str], names: list[str]) -> dict:
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "kbgraph.cli.app", "serve", "--port", str(port),
                               "--vault", str(root)], stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                _get(base + "/index/status")
                break
            except OSError:
                time.sleep(0.1)
        out = {}
        for label, path, key, args in (("search", "/search", "q", queries),
                                       ("profile", "/entities/profile", "name", names)):
            urls = [f"{base}{path}?{urllib.parse.urlencode({key: a, **({'limit': 10} if key == 'q' else {})})}"
                    for a in args]
            for u in urls[:WARMUP]:
                _get(u)
            out[label] = summary([_get(u) for u in urls])
        return out
    finally:
        server.terminate()
        server.wait(timeout=10)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=25000, help="synthetic notes (~4 chunks each)")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args(argv)
    os.environ.setdefault("KBG_EMBEDDER", "fake")
    from kbgraph.access import LOCAL
    from kbgraph.ingest.pipeline import index_vault
    from kbgraph.store import open_store
    from kbgraph.workspace import init_vault

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        vault = generate_vault(root, notes=args.notes, pages=50, seed=args.seed)
        init_vault(root)
        start = time.perf_counter()
        index_vault(root)
        build_s = time.perf_counter() - start
        store = open_store(root)
        stats = store.stats()
        names = [e.name for e in store.list_entities(LOCAL, None, None)]
        store.close()
        rng = random.Random(args.seed)
        queries = make_queries(vault, args.requests, args.seed)
        people = [rng.choice(names) for _ in range(args.requests)]
        result = {"notes": args.notes, "documents": stats.get("documents"), "chunks": stats.get("chunks"),
                  "index_s": round(build_s, 1), "requests": args.requests,
                  "library": library(root, queries, people), "http": http(root, queries, people)}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

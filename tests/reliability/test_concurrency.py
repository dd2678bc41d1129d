"""Several kbgraph processes on one vault at once: writers queue, readers never fail, nothing is lost
or doubled, and the index stays sound. Real processes through the installed entry point, the way a
person's editor plug-in, an agent and a terminal would meet on one vault."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from ..conftest import copy_indexed, run_kbg

PAIRS = [("Ana Lima", "Chen Wei"), ("Ben Okafor", "Sam Li"), ("Dana Kowalski", "Lena Fischer"),
         ("María García", "Sam Ortiz"), ("Arjun Mehta", "Ana Lima"), ("Chen Wei", "Sam Ortiz")]
REMOVED = {PAIRS[1]}  # related, then unrelated by the same writer


def _kbg(vault, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "KBG_EMBEDDER": "fake"}
    env.pop("KBG_VAULT", None)
    return subprocess.run([sys.executable, "-m", "kbgraph.cli.app", *args, "--vault", str(vault)],
                          capture_output=True, text=True, env=env, timeout=120)


def _writer(vault, pairs) -> list[subprocess.CompletedProcess]:
    done = []
    for source, target in pairs:
        done.append(_kbg(vault, "entity", "relate", source, "--type", "works-with", "--target", target))
        if (source, target) in REMOVED:
            done.append(_kbg(vault, "entity", "unrelate", source, "--type", "works-with", "--target", target))
    return done


def _reader(vault) -> list[subprocess.CompletedProcess]:
    return [_kbg(vault, "search", query, "--json") for query in ("Atlas", "payments gateway", "Kafka")]


def test_writers_readers_and_an_index_run_at_once(tmp_path, indexed_sample):
    vault = copy_indexed(indexed_sample, tmp_path / "vault")
    before = _works_with(vault)
    with ThreadPoolExecutor(6) as pool:
        jobs = [pool.submit(_writer, vault, PAIRS[i::3]) for i in range(3)]
        jobs += [pool.submit(_reader, vault) for _ in range(2)]
        jobs.append(pool.submit(lambda: [_kbg(vault, "index", "--full", "-q")]))
        results = [run for job in jobs for run in job.result()]
    failed = [(r.args[3:], r.returncode, r.stderr[-300:]) for r in results if r.returncode != 0]
    assert not failed  # nobody was refused: writers waited their turn, readers read during writes

    after = _works_with(vault)
    assert len(after) == len(set(after))  # nothing doubled
    assert set(after) == set(before) | {frozenset(p) for p in PAIRS if p not in REMOVED}  # nothing lost
    with sqlite3.connect(vault / ".kbgraph" / "index.db") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def _works_with(vault) -> list[frozenset]:
    """works-with relations as unordered pairs (it is symmetric: the export names each pair one way). Read in
    process: only the writers, readers and index that meet need processes of their own."""
    result = run_kbg("export", "--vault", str(vault))
    assert result.returncode == 0, result.stderr
    return [frozenset((r["source"]["name"], r["target"]["name"])) for r in json.loads(result.stdout)["relations"]
            if r["type"] == "works-with"]

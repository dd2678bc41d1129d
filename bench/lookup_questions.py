"""Latency of a lookup that lists a name's open questions (issue 17, "find shows every candidate").

`kbg person find Sam` lists the unresolved "Sam" with every person it was asked about
(entities/lookup.py, find_entity(questions=True)). This times that lookup on a tiny vault (Sam Li, Sam
Ortiz, a meeting naming "Sam") whose question queue is padded with N open questions about other
names, as a large vault's queue would be: the lookup must read the questions of one name, not the queue.

Usage:
    .venv/bin/python bench/lookup_questions.py 1000 10000 50000
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from kbgraph.entities.lookup import find_entity
from kbgraph.errors import Ambiguous
from kbgraph.ingest.pipeline import index_vault
from kbgraph.workspace import Workspace

PEOPLE = ("Sam Li", "Sam Ortiz", "Tom Becker")
MEETING = "---\ntype: meeting\ndate: 2026-04-01\nattendees: [Sam, Tom Becker]\n---\n# Sync\n"


def _vault(root: Path) -> Path:
    (root / "people").mkdir(parents=True)
    for name in PEOPLE:
        (root / f"people/{name.lower().replace(' ', '-')}.md").write_text(
            f"---\ntype: person\nname: {name}\n---\n# {name}\n")
    (root / "sync.md").write_text(MEETING)
    index_vault(root)
    return root


def _pad(ws: Workspace, upto: int) -> None:
    have = len(ws.store.decisions(ws.access, "asked"))
    with ws.store.transaction():
        for i in range(have, upto):
            ws.store.add_decision({
                "surface": f"Person{i} X", "surface_key": f"person{i}x", "surface_type": "person",
                "candidate_key": "person:sam li", "candidate_name": "Sam Li", "score": 0.7, "features": {},
                "outcome": "asked", "decided_by": "kbgraph", "doc_path": "sync.md", "created_at": "2026-04-01",
                "decided_at": None})


def _p50_ms(ws: Workspace, name: str, questions: bool, runs: int = 30) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        try:
            find_entity(ws.store, name, "person", access=ws.access, questions=questions)
        except Ambiguous:
            pass
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main(sizes: list[int]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        vault = _vault(Path(tmp) / "vault")
        print("| open questions | find 'Sam' (plain) | find 'Sam' (with its questions) | find 'Tom Becker' |")
        print("| ---: | ---: | ---: | ---: |")
        for size in sizes:
            with Workspace.open(str(vault)) as ws:
                _pad(ws, size)
                print(f"| {size:,} | {_p50_ms(ws, 'Sam', False):.2f} ms | {_p50_ms(ws, 'Sam', True):.2f} ms"
                      f" | {_p50_ms(ws, 'Tom Becker', True):.2f} ms |")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1000, 10000, 50000])

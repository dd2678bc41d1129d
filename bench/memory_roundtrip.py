"""Capture -> brief round trip: `kbg note "person: ...; int: ...; loop: ..."` then `kbg brief`, in the library.

Copies examples/vault to a temporary folder, indexes it once, then N times: captures a line with a fact
and a loop about a person (page lines written, the page re-indexed) and briefs that person. Prints the
median and 95th percentile of the capture, the brief and the two together.

    .venv/bin/python bench/memory_roundtrip.py [N]
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("KBG_EMBEDDER", "fake")

from kbgraph.context.brief import brief_entity  # noqa: E402
from kbgraph.context.capture import capture  # noqa: E402
from kbgraph.ingest.pipeline import index_vault  # noqa: E402
from kbgraph.workspace import Workspace  # noqa: E402

PEOPLE = ("Arjun Mehta", "Ana Lima", "Ben Okafor", "Chen Wei", "Lena Fischer")


def main(n: int = 30) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        shutil.copytree(Path(__file__).resolve().parents[1] / "examples" / "vault", root,
                        ignore=shutil.ignore_patterns(".kbgraph"))
        index_vault(root)
        ws = Workspace.open(str(root))
        caps, briefs = [], []
        for i in range(n):
            person = PEOPLE[i % len(PEOPLE)]
            t0 = time.perf_counter()
            capture(ws, f"person: {person}; int: topic {i}; loop: follow up on {i} @2026-12-{1 + i % 28:02d}")
            t1 = time.perf_counter()
            result = brief_entity(ws.store, ws.access, ws.config.vocabulary, person)
            t2 = time.perf_counter()
            assert result.items
            caps.append(t1 - t0)
            briefs.append(t2 - t1)
        ws.close()
    both = [a + b for a, b in zip(caps, briefs)]
    for name, values in (("capture", caps), ("brief", briefs), ("capture+brief", both)):
        values = sorted(values)
        p95 = values[min(len(values) - 1, int(0.95 * len(values)))]
        print(f"{name:14} p50 {statistics.median(values) * 1000:7.1f} ms   p95 {p95 * 1000:7.1f} ms   (n={n})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 30)

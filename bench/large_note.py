"""A huge note: when the first progress event comes, when text and graph search are ready, and how
much of the index file is given back when the note is deleted (issue 16).

The note is built from the KEP vault's text (../shared/data/keps/vault, read-only: read, never
written) repeated to --mb megabytes, next to 20 small notes. Embedding is left out (KBG_EMBEDDER=none):
what is measured is what comes before it.

Usage:
    .venv/bin/python bench/large_note.py            # 50 MB
    .venv/bin/python bench/large_note.py --mb 10
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import tempfile
import time
from pathlib import Path

KEPS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "keps" / "vault"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=50)
    args = parser.parse_args()
    os.environ["KBG_EMBEDDER"] = "none"
    from kbgraph.ingest.pipeline import index_vault

    text = "".join(p.read_text(encoding="utf-8") for p in sorted(KEPS.glob("*.md"))[:200]).replace("\n# ", "\n## ")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "vault"
        root.mkdir()
        (root / "kbgraph.toml").write_text(f"[index]\nmax_file_mb = {args.mb + 10}\n")
        for i in range(20):
            (root / f"a-{i:02d}.md").write_text(f"# Small {i}\n\nA short note.\n")
        size = args.mb * 1024 * 1024
        (root / "z-huge.md").write_text("# Huge\n\n" + (text * (size // len(text) + 1))[:size])
        started = time.perf_counter()
        first: dict[str, float] = {}

        def progress(stage: str, done: int, total: int) -> None:
            first.setdefault(stage, time.perf_counter() - started)
            if "saved" not in first and (root / ".kbgraph" / "index.db").exists():
                reader = sqlite3.connect(f"file:{root / '.kbgraph' / 'index.db'}?mode=ro", uri=True)
                if reader.execute("SELECT count(*) FROM documents").fetchone()[0]:
                    first["saved"] = time.perf_counter() - started
                reader.close()

        report = index_vault(root, progress=progress)
        ready = getattr(report, "ready", None)  # None before text-and-graph-first (a baseline commit)
        index = root / ".kbgraph" / "index.db"
        full = index.stat().st_size
        print(f"{args.mb} MB note + 20 small: first progress event {first['documents']:.2f} s, first notes saved "
              f"{first.get('saved', float('nan')):.2f} s, "
              f"text and graph ready {ready.seconds if ready else float('nan'):.1f} s, run {report.seconds:.1f} s, "
              f"{report.chunks} sections, index.db {full / 1e6:.0f} MB")
        (root / "z-huge.md").unlink()
        again = index_vault(root)
        print(f"after deleting it: index.db {index.stat().st_size / 1e6:.1f} MB (was {full / 1e6:.0f} MB), "
              f"re-index {again.seconds:.2f} s")


if __name__ == "__main__":
    main()

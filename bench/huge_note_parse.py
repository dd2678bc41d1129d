"""Parsing one huge note (issue 16: a 50 MB note spent 6-8 s in parse): a baseline commit's src/ and
the working tree's, side by side in one run, on the same generated note.

The note is a deterministic mix of what long notes hold: headings of three levels, paragraphs that
name people and projects (in prose and as [[wikilinks]]), bullet lists, fenced code blocks, relative
markdown links, images and web links. Each tree parses it in its own process (`parse_document`,
best of --runs); the two must find the same chunks and links. With --index, each tree also runs a
whole text-only `index_vault` (KBG_EMBEDDER=none) once, and the time to "text and graph ready" is shown.

Usage:
    .venv/bin/python bench/huge_note_parse.py --baseline 7c337c1            # 50 MB
    .venv/bin/python bench/huge_note_parse.py --baseline 7c337c1 --mb 10 --index
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from startup import baseline_tree  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
NAMES = ["Ana Lima", "Ben Okafor", "Priya Raman", "Sam Li", "Dana Kowalski", "Arjun Mehta", "Project Atlas",
         "Auth Service"]
WORDS = ("the a gateway decision review budget latency index we agreed to move migrate plan risk owner next week "
         "team deploy rollout metrics cache queue").split()

# Runs in the tree's own interpreter: parse the note, best of N, and say what it found.
PARSE = """
import hashlib, json, sys, time
from pathlib import Path
from kbgraph.config import load_config
from kbgraph.ingest.parse import parse_document
from kbgraph.base.vault import RawFile
path, runs = Path(sys.argv[1]), int(sys.argv[2])
text = path.read_text(encoding="utf-8")
raw = RawFile(text=text, content_hash="x", size=len(text), mtime=0.0)
config = load_config(path.parent)
best = None
for _ in range(runs):
    started = time.perf_counter()
    doc = parse_document(path.name, raw, config)
    took = time.perf_counter() - started
    best = took if best is None else min(best, took)
found = json.dumps([[(c.key, c.start, c.end, c.line) for c in doc.chunks],
                    [(l.target, l.alias, l.start, l.end, l.kind) for l in doc.links]])
print(json.dumps({"seconds": best, "chunks": len(doc.chunks), "links": len(doc.links),
                  "digest": hashlib.sha256(found.encode()).hexdigest()}))
"""

INDEX = """
import json, sys
from kbgraph.ingest.pipeline import index_vault
report = index_vault(sys.argv[1])
print(json.dumps({"ready": report.ready.seconds, "run": report.seconds, "chunks": report.chunks}))
"""


def note(mb: int, seed: int = 16) -> str:
    rng = random.Random(seed)
    out, size, n = ["---\ntitle: Huge\n---\n"], 0, 0
    target = mb * 1024 * 1024
    while size < target:
        n += 1
        if n % 40 == 1:
            part = f"# Part {n}\n\n"
        elif n % 7 == 0:
            part = f"{'#' * rng.choice((2, 3))} Section {n}\n\n"
        elif n % 97 == 0:
            part = "```yaml\n" + "".join(f"key{i}: [value]({rng.choice(WORDS)}.md)\n" for i in range(3)) + "```\n\n"
        elif n % 5 == 0:
            part = "".join(f"- {rng.choice(NAMES)} to {' '.join(rng.choices(WORDS, k=6))} [[{rng.choice(NAMES)}]]\n"
                           for _ in range(4)) + "\n"
        else:
            part = _paragraph(rng) + "\n\n"
        out.append(part)
        size += len(part)
    return "".join(out)


def _paragraph(rng: random.Random) -> str:
    sentences = []
    for _ in range(rng.randint(2, 6)):
        words = rng.choices(WORDS, k=rng.randint(8, 20))
        if rng.random() < 0.5:
            words.insert(rng.randint(0, len(words)), rng.choice(NAMES))
        if rng.random() < 0.2:
            words.insert(rng.randint(0, len(words)), f"[[{rng.choice(NAMES)}]]")
        if rng.random() < 0.1:
            words.append(rng.choice(("[the plan](plans/q3.md)", "![chart](img/chart.png)",
                                     "[docs](https://example.org/docs)")))
        sentences.append(" ".join(words).capitalize() + ".")
    return " ".join(sentences)


def run(src: Path, code: str, *args: str, embedder: str | None = None) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src)}
    if embedder:
        env["KBG_EMBEDDER"] = embedder
    done = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{src}: {done.stderr}")
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", required=True, help="the commit to compare with")
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--index", action="store_true", help="also a whole text-only index per tree")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        base = baseline_tree(args.baseline, Path(folder))
        trees = {f"baseline {args.baseline}": base, "working tree": REPO / "src"}
        vault = Path(folder) / "vault"
        vault.mkdir()
        (vault / "kbgraph.toml").write_text(f"[index]\nmax_file_mb = {args.mb + 10}\n")
        (vault / "huge.md").write_text(note(args.mb), encoding="utf-8")
        results = {name: run(src, PARSE, str(vault / "huge.md"), str(args.runs)) for name, src in trees.items()}
        found = {(r["chunks"], r["links"], r["digest"]) for r in results.values()}
        if len(found) != 1:
            raise SystemExit(f"the trees parse the note differently: {results}")
        for name, result in results.items():
            print(f"{name:>24}: parse_document {result['seconds']:.2f} s (best of {args.runs}), "
                  f"{result['chunks']:,} chunks, {result['links']:,} links")
        if args.index:
            for name, src in trees.items():
                for leftover in (vault / ".kbgraph").glob("*"):
                    leftover.unlink()
                result = run(src, INDEX, str(vault), embedder="none")
                print(f"{name:>24}: index_vault text and graph ready {result['ready']:.1f} s, "
                      f"run {result['run']:.1f} s, {result['chunks']:,} chunks")


if __name__ == "__main__":
    main()

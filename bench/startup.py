"""CLI start-up: wall time of short `kbg` commands, this tree against a baseline commit, in one run.

Why this shape:
- A text-only `kbg search` or a listing command is mostly start-up: imports, opening SQLite,
  one query. What it imports is the cost, so each command is also run once under
  `python -X importtime` and the heavy modules it loaded (numpy, the embedder, ...) are listed.
- The baseline is another commit's src/ (`git archive REV src`), run by the same interpreter with
  PYTHONPATH pointing at it, so the two differ in kbgraph's code only. Runs alternate between the
  two trees, so the shared machine's load falls on both alike; the median is reported.
- Each tree indexes its own copy of examples/vault with KBG_EMBEDDER=none (an index without
  vectors: a text-only search in the default mode is then what a user without the model runs), so
  a schema change between the trees cannot matter.
- A one-shot write is timed as a pair, `entity relate` then `entity unrelate` of the same edge, so
  the vault is back where it was after each run. Both run with KBG_EMBEDDER=none, as the index was
  made: with the default model a write would embed every section of this text-only index, and the
  searches timed after it would no longer be text-only.

Usage:
    .venv/bin/python bench/startup.py --baseline 9b80e45          # before/after, 21 runs each
    .venv/bin/python bench/startup.py --runs 11 --json            # this tree only
    .venv/bin/python bench/startup.py --hybrid --baseline REV      # vectors made with the installed model:
                                                                  # a hybrid search loads it (needs `kbg model install`)
    .venv/bin/python bench/startup.py --baseline REV --vault DIR --pair "Beatriz Cohen" "Chen Iyer"
                                                                  # another vault (e.g. bench/synth.py's); the
                                                                  # write pair relates two of its people
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "examples" / "vault"
HEAVY = ("numpy", "numpy.ma", "onnxruntime", "tokenizers", "rapidfuzz", "jellyfish", "kbgraph.resolve.resolver", "yaml",
         "kbgraph.embed", "rich")
COMMANDS = {
    "search --mode bm25": ["search", "token rotation", "--mode", "bm25"],
    "search (no vectors)": ["search", "token rotation"],
    "search --json": ["search", "token rotation", "--mode", "bm25", "--json"],
    "entity list": ["entity", "list"],
    "index status": ["index", "status"],
    "--help": ["--help"],
    "entity relate": ["entity", "relate", "Ben Okafor", "--type", "mentors", "--target", "Chen Wei"],
    "entity unrelate": ["entity", "unrelate", "Ben Okafor", "--type", "mentors", "--target", "Chen Wei"],
}
TEXT_ONLY = {"entity relate", "entity unrelate"}  # writes: run as the index was made (see above)
HYBRID_COMMANDS = {
    "search (hybrid)": ["search", "token rotation"],
    "search --mode bm25": ["search", "token rotation", "--mode", "bm25"],
}


def baseline_tree(rev: str, into: Path) -> Path:
    """src/ of commit rev, unpacked under into."""
    archive = into / "src.tar"
    with open(archive, "wb") as handle:
        subprocess.run(["git", "archive", rev, "src"], cwd=REPO, stdout=handle, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def indexed_copy(src: Path, into: Path, embedder: str | None = "none", source: Path = SAMPLE) -> Path:
    vault = into / "vault"
    shutil.copytree(source, vault, ignore=shutil.ignore_patterns(".kbgraph"))
    done = subprocess.run(kbg(["index", "--quiet"]), cwd=vault, env=environment(src, embedder),
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"indexing with {src} failed: {done.stderr}")
    return vault


def kbg(args: list[str], *flags: str) -> list[str]:
    return [sys.executable, *flags, "-m", "kbgraph.cli.app", *args]


def environment(src: Path, embedder: str | None = None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(src), "COLUMNS": "120"}
    env.pop("KBG_VAULT", None)
    env.pop("KBG_EMBEDDER", None)
    if embedder:
        env["KBG_EMBEDDER"] = embedder
    return env


def wall(args: list[str], src: Path, vault: Path, embedder: str | None = None) -> float:
    start = time.perf_counter()
    done = subprocess.run(kbg(args), cwd=vault, env=environment(src, embedder), capture_output=True)
    took = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"kbg {' '.join(args)} failed: {done.stderr.decode()}")
    return took


def heavy_imports(args: list[str], src: Path, vault: Path, embedder: str | None = None) -> list[str]:
    """The heavy top-level packages the command imported (from -X importtime)."""
    done = subprocess.run(kbg(args, "-X", "importtime"), cwd=vault, env=environment(src, embedder),
                          capture_output=True, text=True)
    names = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    return [h for h in HEAVY if h in names]


def _embedder(command: str) -> str | None:
    return "none" if command in TEXT_ONLY else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", metavar="REV", help="a commit to compare with (its src/)")
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--hybrid", action="store_true", help="index with the installed model and time a hybrid search")
    parser.add_argument("--vault", type=Path, default=SAMPLE, help="the vault to copy (default: examples/vault)")
    parser.add_argument("--pair", nargs=2, metavar=("SOURCE", "TARGET"), help="the two people the write pair relates")
    options = parser.parse_args()
    commands = HYBRID_COMMANDS if options.hybrid else COMMANDS
    if options.pair:
        commands = {c: [*a[:2], options.pair[0], "--type", "mentors", "--target", options.pair[1]]
                    if c in TEXT_ONLY else a for c, a in commands.items()}
    with tempfile.TemporaryDirectory(prefix="kbg-startup-") as tmp:
        trees = {"this tree": REPO / "src"}
        if options.baseline:
            (Path(tmp) / "base").mkdir()
            trees = {f"baseline {options.baseline}": baseline_tree(options.baseline, Path(tmp) / "base"), **trees}
        vaults = {}
        for i, (name, src) in enumerate(trees.items()):
            (Path(tmp) / f"v{i}").mkdir()
            vaults[name] = indexed_copy(src, Path(tmp) / f"v{i}", None if options.hybrid else "none", options.vault)
        for name, src in trees.items():  # a first run of each writes its .pyc files
            wall(["--help"], src, vaults[name])
        times: dict[str, dict[str, list[float]]] = {n: {c: [] for c in commands} for n in trees}
        for _ in range(options.runs):
            for command, args in commands.items():
                for name, src in trees.items():
                    times[name][command].append(wall(args, src, vaults[name], _embedder(command)))
        report = {
            "runs": options.runs,
            "python": sys.version.split()[0],
            "trees": {name: {command: {"median_s": round(statistics.median(values), 4),
                                       "heavy": heavy_imports(commands[command], src, vaults[name],
                                                              _embedder(command))}
                             for command, values in times[name].items()}
                      for name, src in trees.items()},
        }
    if options.json:
        print(json.dumps(report, indent=2))
        return
    names = list(trees)
    print(f"median wall of {options.runs} runs each, interleaved ({report['python']})")
    print(f"{'command':22}" + "".join(f"{n:>24}" for n in names) + ("   ratio" if len(names) == 2 else ""))
    for command in commands:
        medians = [report["trees"][n][command]["median_s"] for n in names]
        ratio = f"   {medians[1] / medians[0]:.2f}" if len(names) == 2 else ""
        print(f"{command:22}" + "".join(f"{m:>23.3f}s" for m in medians) + ratio)
    for name in names:
        print(f"\nheavy modules imported, {name}:")
        for command in commands:
            print(f"  {command:22} {', '.join(report['trees'][name][command]['heavy']) or '-'}")


if __name__ == "__main__":
    main()

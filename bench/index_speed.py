"""Indexing speed and memory: full index, no-change re-index, re-index after a few edits.

Why this shape:
- Every index run happens in a fresh child process (this file re-run with
  --worker), so each case gets its own peak RSS (ru_maxrss of that process)
  and no case benefits from caches warmed by the one before -- the same
  situation as a user running `kbg index` repeatedly.
- Times are the library's own (index_vault's report.seconds, plus a per-stage
  breakdown), so Python start-up is not counted; the CLI case below measures
  start-up separately, because a user waits for both.
- The synthetic vault is seeded (bench/synth.py), so runs are comparable.
- The real KEP vault (../shared/data/keps/vault) is read-only shared data: it is
  copied into a temporary folder first and only the copy is indexed.

Usage:
    .venv/bin/python bench/index_speed.py                 # 1,000 notes + 50 pages, KEPs, CLI
    .venv/bin/python bench/index_speed.py --notes 5000 --json
    .venv/bin/python bench/index_speed.py --out /tmp/vault  # keep the generated vault
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import generate_vault  # noqa: E402

GOAL_FULL_DOCS_PER_S = 1000.0
GOAL_NOCHANGE_S = 1.0
EDITED_FILES = 10
CLI_REPEATS = 5
# Without embeddings (workers inherit it): the model's cost is bench/embed_speed.py's to measure.
os.environ.setdefault("KBG_EMBEDDER", "none")
KEPS_VAULT = Path(__file__).resolve().parents[2] / "shared/data/keps/vault"


# --- the child process: one index run, measured from inside ---------------------------


def worker(root: str, full: bool) -> None:
    """Index root once and print one JSON line: the report, stage times and this process's peak RSS."""
    import resource

    from kbgraph.ingest.pipeline import Pipeline, index_vault

    baseline_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    stage_seconds: dict[str, float] = {}
    pipeline = Pipeline.default()
    for name in pipeline.names():
        pipeline.replace(name, _timed(name, dict(pipeline.stages)[name], stage_seconds))
    wall = time.perf_counter()
    report = index_vault(Path(root), full=full, pipeline=pipeline)
    wall = time.perf_counter() - wall
    out = {k: getattr(report, k) for k in
           ("indexed", "skipped", "removed", "moved", "errors", "warnings", "seconds", "chunks", "entities", "mentions")}
    out.update(
        wall_seconds=round(wall, 4),
        stage_seconds={k: round(v, 4) for k, v in stage_seconds.items()},
        peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        baseline_rss_mb=round(baseline_kb / 1024, 1),
    )
    print(json.dumps(out))


def _timed(name, stage, sink):
    def run(index_run):
        start = time.perf_counter()
        stage(index_run)
        sink[name] = sink.get(name, 0.0) + time.perf_counter() - start

    return run


def index_in_child(root: Path, full: bool = False) -> dict:
    """Run one index of root in a fresh interpreter and return the worker's measurements."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", str(root)] + (["--full"] if full else [])
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"index worker failed ({proc.returncode}):\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# --- the cases ------------------------------------------------------------------------


def edit_files(paths: list[Path], count: int, seed: int) -> list[Path]:
    """Append one line to `count` deterministically chosen files (a real content change)."""
    chosen = random.Random(seed).sample(paths, count)
    for path in chosen:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write("\nFollow-up: the benchmark appended this line to check incremental indexing.\n")
    return chosen


def touch_files(paths: list[Path], count: int, seed: int) -> list[Path]:
    """Bump the mtime of `count` files without changing their content (an editor 'save' with no edit)."""
    chosen = random.Random(seed + 1).sample(paths, count)
    for path in chosen:
        st = path.stat()
        os.utime(path, (st.st_atime, st.st_mtime + 5))
    return chosen


def cli_nochange(root: Path, repeats: int = CLI_REPEATS) -> dict:
    """Wall time of `kbg index --vault ROOT --json` with nothing to do, start-up included."""
    kbg = Path(sys.executable).parent / "kbg"
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        proc = subprocess.run([str(kbg), "index", "--vault", str(root), "--json"], capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if proc.returncode != 0:
            raise SystemExit(f"kbg index failed ({proc.returncode}): {proc.stderr}")
        indexed = json.loads(proc.stdout)["indexed"]
        if indexed:
            raise SystemExit(f"expected a no-change run, but kbg index re-indexed {indexed} files")
    return {"median_s": round(statistics.median(times), 4), "min_s": round(min(times), 4), "runs": repeats}


def python_startup(repeats: int = CLI_REPEATS) -> float:
    """Median wall time of `python -c pass`: the floor under any CLI number on this machine."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.perf_counter() - start)
    return round(statistics.median(times), 4)


def bench_synthetic(root: Path, notes: int, pages: int, seed: int) -> dict:
    """Generate the synthetic vault at root and run every case on it."""
    start = time.perf_counter()
    vault = generate_vault(root, notes=notes, pages=pages, seed=seed)
    result = {
        "vault": {"files": vault.files, "notes": len(vault.notes), "pages": len(vault.pages),
                  "mib": round(vault.bytes_written / 2**20, 2),
                  "generate_s": round(time.perf_counter() - start, 2)},
    }
    # Text only (no relation suggestions), then the default (pattern rules on), each from scratch.
    # Both without embeddings: the model's cost is its own benchmark (bench/embed_speed.py), and at
    # ~30 chunks/s it would be all these numbers measured.
    (root / "kbgraph.toml").write_text('[extract]\npatterns = false\ncooccurrence = 0\n[search]\nembedder = "none"\n')
    result["full"] = index_in_child(root)
    shutil.rmtree(root / ".kbgraph")
    (root / "kbgraph.toml").write_text('[search]\nembedder = "none"\n')
    result["full+suggest"] = index_in_child(root)
    result["nochange"] = index_in_child(root)
    edit_files(vault.notes, EDITED_FILES, seed)
    result["edit10"] = index_in_child(root)
    touch_files(vault.notes, EDITED_FILES, seed)
    result["touch10"] = index_in_child(root)
    result["cli_nochange"] = cli_nochange(root)
    return result


def copy_tree(src: Path, dst: Path) -> int:
    """Copy src's files into dst (new, writable folders and files); returns the number of files."""
    count = 0
    for folder, dirs, files in os.walk(src):
        dirs[:] = [d for d in dirs if d != ".kbgraph"]
        target = dst / Path(folder).relative_to(src)
        target.mkdir(parents=True, exist_ok=True)
        for name in files:
            shutil.copyfile(Path(folder) / name, target / name)  # content only: no read-only modes
            count += 1
    return count


def bench_keps(tmp: Path, source: Path) -> dict:
    """Full and no-change index of a private copy of the real KEP vault ({"skipped": why} when absent)."""
    if not source.is_dir():
        return {"skipped": "skipped: ../shared/data/keps not present"}
    root = tmp / "keps"
    files = copy_tree(source, root)
    size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    return {
        "vault": {"files": files, "mib": round(size / 2**20, 2)},
        "full": index_in_child(root),
        "nochange": index_in_child(root),
        "cli_nochange": cli_nochange(root),
    }


def environment() -> dict:
    """What the numbers depend on: interpreter, SQLite, CPUs, and the exact source state measured."""
    import platform
    import sqlite3

    repo = Path(__file__).resolve().parents[1]

    def git(*args: str) -> str:
        proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
        return proc.stdout.strip() if proc.returncode == 0 else "?"

    return {
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "git_head": git("rev-parse", "--short", "HEAD"),
        "src_changes": git("status", "--short", "--", "src").splitlines(),
        "pythondontwritebytecode": os.environ.get("PYTHONDONTWRITEBYTECODE", ""),
    }


# --- reporting ------------------------------------------------------------------------


def rates(case: dict) -> tuple[float | None, float | None]:
    """(docs/s, chunks/s) of a full index; only meaningful when the run (re)built the whole index."""
    if not case["indexed"] or not case["seconds"]:
        return None, None
    return case["indexed"] / case["seconds"], case["chunks"] / case["seconds"]


def print_table(name: str, cases: dict) -> None:
    print(f"\n== {name}: {cases['vault']}")
    print(f"{'case':<10} {'indexed':>7} {'skipped':>7} {'seconds':>8} {'docs/s':>8} {'chunks/s':>9} "
          f"{'peak RSS':>9}  stages (s)")
    for label in ("full", "full+suggest", "nochange", "edit10", "touch10"):
        case = cases.get(label)
        if case is None:
            continue
        docs_s, chunks_s = rates(case) if label.startswith("full") else (None, None)
        stages = " ".join(f"{k}={v:.3f}" for k, v in case["stage_seconds"].items())
        print(f"{label:<12} {case['indexed']:>7} {case['skipped']:>7} {case['seconds']:>8.3f} "
              f"{_fmt(docs_s, 8, 0)} {_fmt(chunks_s, 9, 0)} {case['peak_rss_mb']:>7.1f}MB  {stages}")
    full = cases["full"]
    print(f"totals after full index: {full['chunks']} chunks, {full['entities']} entities, "
          f"{full['mentions']} mentions; interpreter+imports RSS {full['baseline_rss_mb']} MB")
    cli = cases["cli_nochange"]
    print(f"CLI `kbg index --json`, no change: median {cli['median_s']:.3f}s, min {cli['min_s']:.3f}s "
          f"over {cli['runs']} runs (start-up included)")


def _fmt(value: float | None, width: int, digits: int) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:>{width}.{digits}f}"


def goal_lines(results: dict) -> list[str]:
    synth = results["synthetic"]
    docs_s, _ = rates(synth["full"])
    nochange = synth["nochange"]["seconds"]
    cli = synth["cli_nochange"]["median_s"]
    ok = lambda met: "MET" if met else "NOT MET"  # noqa: E731
    return [
        f"goal: full text-only index >= {GOAL_FULL_DOCS_PER_S:,.0f} docs/s: {docs_s:,.0f} docs/s -> "
        f"{ok(docs_s >= GOAL_FULL_DOCS_PER_S)}",
        f"goal: no-change re-index <= {GOAL_NOCHANGE_S:g} s: library {nochange:.3f}s -> "
        f"{ok(nochange <= GOAL_NOCHANGE_S)}; CLI wall {cli:.3f}s -> {ok(cli <= GOAL_NOCHANGE_S)}",
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=1000, help="meeting notes to generate (default 1000)")
    parser.add_argument("--pages", type=int, default=50, help="entity pages to generate (default 50)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--out", type=Path, help="generate the vault here (a new or empty folder) and keep it")
    parser.add_argument("--no-keps", action="store_true", help="skip the real KEP vault")
    parser.add_argument("--keps", type=Path, default=KEPS_VAULT, help="the KEP vault to copy and index "
                        "(default: ../shared/data/keps/vault)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    parser.add_argument("--worker", metavar="ROOT", help=argparse.SUPPRESS)
    parser.add_argument("--full", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker, args.full)
        return
    if args.out and args.out.exists() and any(args.out.iterdir()):
        parser.error(f"--out {args.out} is not empty; give a new or empty folder")

    with tempfile.TemporaryDirectory(prefix="kbg-bench-") as tmp:
        tmp = Path(tmp)
        root = args.out or tmp / "synthetic"
        results = {
            "environment": environment(),
            "python_startup_s": python_startup(),
            "synthetic": bench_synthetic(root, args.notes, args.pages, args.seed),
            "keps": {"skipped": "skipped: --no-keps"} if args.no_keps else bench_keps(tmp, args.keps),
        }
    results["goals"] = goal_lines(results)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    env = results["environment"]
    print(f"Python {env['python']}, SQLite {env['sqlite']}, {env['cpus']} CPUs, git {env['git_head']} "
          f"(+{len(env['src_changes'])} uncommitted changes under src/)")
    print(f"python -c pass: {results['python_startup_s']:.3f}s (median of {CLI_REPEATS})")
    print_table(f"synthetic ({args.notes} notes + {args.pages} pages, seed {args.seed})", results["synthetic"])
    if "skipped" in results["keps"]:
        print(f"\n== KEPs: {results['keps']['skipped']}")
    else:
        print_table("KEPs (real, copied to a temp folder)", results["keps"])
    print()
    for line in results["goals"]:
        print(line)


if __name__ == "__main__":
    main()

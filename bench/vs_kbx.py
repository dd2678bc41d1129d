"""kbgraph against kbx 0.3.11, side by side on one corpus: whole-process index and CLI search wall time.

Why this shape:
- What a user waits for is the whole process (interpreter start-up, imports, worker spawn, the
  work), so every number is the wall time of one CLI process, started fresh.
- kbx is installed in a throw-away virtualenv under /tmp (created here when missing): it is never a
  kbgraph dependency. Its own CLI is measured as a user runs it: `kbx index run --no-embed --full`
  and `kbx search QUERY --fast --json`.
- Both tools read byte-identical copies of one corpus: bench/synth.py's 1,050 notes in the layout
  kbx 0.3.x reads (memory/people, memory/projects, memory/teams,
  memory/meetings/YYYY/MM/DD/<slug>.notes.md with `type:` and `date:` frontmatter). Each tool gets
  its own copy, so neither sees the other's index files.
- kbgraph's text-only runs use a vault whose kbgraph.toml says `[search] embedder = "none"` (what a
  user without the model has), and KBG_EMBEDDER is removed from the children's environment.
- The machine is shared and noisy: each round runs every tool once, in an order that rotates between
  rounds, and the tables report medians over rounds; the ratio is taken between medians of one run.
- kbgraph trees: the working tree, plus any commit given with --kbg-rev (its src/ from `git archive`,
  run with PYTHONPATH by the same interpreter), so a change can be measured before and after in the
  same interleaved rounds.
- Hybrid: kbgraph's default search over a vault indexed with vectors (when `kbg model status` says
  the model is ready). kbx's hybrid needs its `search` extra (lancedb, sentence-transformers) and
  the Qwen3-Embedding-0.6B weights from the Hugging Face hub; the script tries one hybrid kbx query
  and reports why it cannot run when it cannot.

Usage:
    .venv/bin/python bench/vs_kbx.py                          # 5 index rounds, 7 search rounds
    .venv/bin/python bench/vs_kbx.py --kbg-rev HEAD~1 --json  # also a baseline commit's kbgraph
    .venv/bin/python bench/vs_kbx.py --skip-hybrid --work /tmp/vs_kbx  # keep the corpora
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
sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import generate_vault, query_vocabulary  # noqa: E402

KBX_VERSION = "0.3.11"
KBX_VENV = Path("/tmp/kbx-venv")
GOAL_INDEX_SPEEDUP = 2.5  # kbx's text-only index time / kbgraph's
GOAL_SEARCH_RATIO = 0.6  # kbgraph's text-only CLI search wall / kbx's --fast
TEXT_ONLY_CONFIG = '[search]\nembedder = "none"\n'


# --- the tools -------------------------------------------------------------------------


def ensure_kbx(venv: Path) -> Path:
    """The kbx executable of a virtualenv holding kbx==KBX_VERSION, made when missing."""
    kbx = venv / "bin" / "kbx"
    python = venv / "bin" / "python"
    if not kbx.exists():
        subprocess.run(["python3", "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", f"kbx=={KBX_VERSION}"], check=True)
    version = subprocess.run([str(python), "-c", "import importlib.metadata as m; print(m.version('kbx'))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    if version != KBX_VERSION:
        raise SystemExit(f"{venv} holds kbx {version}, not {KBX_VERSION}: remove it or pass --kbx-venv")
    return kbx


def kbg_trees(revs: list[str], work: Path, worktree: bool = True) -> dict[str, Path]:
    """name -> the src/ folder a kbgraph tree runs from: the working tree, then each revision's."""
    trees = {"kbg": REPO / "src"} if worktree else {}
    for rev in revs:
        out = work / f"src-{rev.replace('/', '_').replace('~', '_')}"
        if not out.exists():
            archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "src"], capture_output=True,
                                     check=True).stdout
            out.mkdir(parents=True)
            with tarfile.open(fileobj=__import__("io").BytesIO(archive)) as tar:
                tar.extractall(out, filter="data")
        trees[f"kbg@{rev}"] = out / "src"
    return trees


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    # PYTHONDONTWRITEBYTECODE (set on this machine) would make every kbg run compile its sources again,
    # while kbx runs from the .pyc files pip wrote at install: each tool runs as on a user's machine.
    dropped = ("KBG_EMBEDDER", "KBG_VAULT", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env["COLUMNS"] = "120"
    return {**env, **(extra or {})}


def kbg_cmd(src: Path, args: list[str]) -> tuple[list[str], dict[str, str]]:
    return [sys.executable, "-m", "kbgraph.cli.app", *args], child_env({"PYTHONPATH": str(src)})


def timed(cmd: list[str], env: dict[str, str], cwd: Path | None = None) -> tuple[float, str]:
    """Wall seconds of one process and its stdout; a failure stops the benchmark with its stderr."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return wall, proc.stdout


# --- the corpora -----------------------------------------------------------------------


def make_corpora(work: Path, notes: int, pages: int, seed: int, trees: dict[str, Path]) -> dict:
    """One generated corpus, copied once per tool: kbx's project, one text-only vault per kbgraph tree
    (an index is a tree's own: schemas may differ) and one vault with vectors for hybrid search."""
    source = work / "corpus"
    if source.exists():
        shutil.rmtree(source)
    vault = generate_vault(source, notes=notes, pages=pages, seed=seed, layout="kbx")
    dirs: dict = {"source": source, "files": vault.files, "bytes": vault.bytes_written, "vault": vault}
    kbx_dir = work / "kbx"
    _fresh_copy(source, kbx_dir)
    (kbx_dir / "kbx.toml").write_text('[data]\ndir = ".kbx-data"\n')
    dirs["kbx"] = kbx_dir
    for name in trees:
        target = work / f"{name.replace('@', '-')}-text"
        _fresh_copy(source, target)
        (target / "kbgraph.toml").write_text(TEXT_ONLY_CONFIG)
        dirs[name] = target
    hybrid = work / "kbg-hybrid"
    _fresh_copy(source, hybrid)
    (hybrid / "kbgraph.toml").write_text("")
    dirs["hybrid"] = hybrid
    return dirs


def _fresh_copy(source: Path, target: Path) -> None:
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target)


def queries(vault, count: int) -> list[str]:
    """Deterministic queries of the kinds a user types: a topic word, two topic words, a person, a
    person with a topic. Every one has matches in the corpus."""
    topics, names = query_vocabulary(vault)
    people = [p.name for p in vault.people]
    out = []
    for i in range(count):
        kind = i % 4
        topic, other = topics[(i * 7) % len(topics)], topics[(i * 13 + 5) % len(topics)]
        person = people[(i * 3) % len(people)]
        out.append((topic, f"{topic} {other}", person, f"{person.split()[0]} {topic}")[kind])
    return out


# --- the measurements ------------------------------------------------------------------


def index_rounds(dirs: dict, trees: dict[str, Path], kbx: Path, rounds: int) -> dict[str, list[float]]:
    """Whole-process text-only full index, every tool once a round, in rotating order.

    kbgraph: `kbg index --full` over its existing index (kbx's --full also clears what it has) and, as
    a second case, a first index of a vault with no index yet; kbx: `index run --no-embed --full`."""
    cases = {}
    for name, src in trees.items():
        vault = dirs[name]
        cases[f"{name} index --full"] = (lambda s=src, v=vault: _kbg_index(s, v, fresh=False))
        cases[f"{name} first index"] = (lambda s=src, v=vault: _kbg_index(s, v, fresh=True))
    first = next(iter(trees))  # what the worker processes cost: the same run in one process
    cases[f"{first} index --full, 1 worker"] = (
        lambda s=trees[first], v=dirs[first]: _kbg_index(s, v, fresh=False, env={"KBG_INDEX_WORKERS": "1"}))
    cases["kbx index run --no-embed --full"] = lambda: timed(
        [str(kbx), "index", "run", "--no-embed", "--full"], child_env(), cwd=dirs["kbx"])[0]
    for name, src in trees.items():  # an index to re-index, and the right schema for the search rounds
        _kbg_index(src, dirs[name], fresh=True)
    times: dict[str, list[float]] = {name: [] for name in cases}
    names = list(cases)
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            times[name].append(cases[name]())
        print(f"  index round {r + 1}/{rounds}: " + ", ".join(f"{n} {t[-1]:.2f}s" for n, t in times.items()),
              file=sys.stderr)
    return times


def _kbg_index(src: Path, vault: Path, fresh: bool, env: dict[str, str] | None = None) -> float:
    if fresh and (vault / ".kbgraph").exists():
        shutil.rmtree(vault / ".kbgraph")
    args = ["index", "--vault", str(vault), "-q"] + ([] if fresh else ["--full"])
    cmd, child = kbg_cmd(src, args)
    return timed(cmd, {**child, **(env or {})})[0]


def search_rounds(dirs: dict, trees: dict[str, Path], kbx: Path, qs: list[str], rounds: int,
                  limit: int) -> tuple[dict[str, list[float]], dict[str, list[int]]]:
    """CLI text-only search: `kbg search Q --json -n LIMIT` (default mode over an index without
    vectors) against `kbx search Q --fast --json --limit LIMIT`; every query, every round, tools in
    rotating order. Returns times and hit counts per tool."""
    tools = {name: (lambda q, s=src, v=dirs[name]: kbg_cmd(s, ["search", q, "--vault", str(v), "--json", "-n",
                                                                str(limit)]) + (None,))
             for name, src in trees.items()}
    tools["kbx search --fast"] = lambda q: ([str(kbx), "search", q, "--fast", "--json", "--limit", str(limit)],
                                            child_env(), dirs["kbx"])
    times: dict[str, list[float]] = {name: [] for name in tools}
    hits: dict[str, list[int]] = {name: [] for name in tools}
    names = list(tools)
    for r in range(rounds):
        for i, q in enumerate(qs):
            shift = (r + i) % len(names)
            for name in names[shift:] + names[:shift]:
                cmd, env, cwd = tools[name](q)
                wall, out = timed(cmd, env, cwd)
                times[name].append(wall)
                if r == 0:
                    hits[name].append(_hit_count(out))
        print(f"  search round {r + 1}/{rounds}: " + ", ".join(
            f"{n} {statistics.median(t):.3f}s" for n, t in times.items()), file=sys.stderr)
    return times, hits


def _hit_count(stdout: str) -> int:
    data = json.loads(stdout)
    if isinstance(data, dict):
        data = data.get("results", data.get("hits", []))
    return len(data)


def hybrid(dirs: dict, src: Path, kbx: Path, qs: list[str], rounds: int, limit: int) -> dict:
    """kbgraph's default (hybrid) CLI search over a vault with vectors, and whether kbx's hybrid runs."""
    out: dict = {}
    cmd, env = kbg_cmd(src, ["model", "status", "--json"])
    status = subprocess.run(cmd, env=env, capture_output=True, text=True)
    model = json.loads(status.stdout or "{}") if status.returncode == 0 else {}
    ready = bool(model.get("present") and model.get("hash_ok"))
    out["kbx"] = _kbx_hybrid_state(kbx, dirs["kbx"], qs[0], limit)
    if not ready:
        out["kbg"] = "kbgraph's model is not installed (`kbg model install`)"
        return out
    cmd, env = kbg_cmd(src, ["index", "--vault", str(dirs["hybrid"]), "-q"])
    out["kbg_index_with_vectors_s"] = round(timed(cmd, env)[0], 2)
    times = []
    for _ in range(rounds):
        for q in qs:
            cmd, env = kbg_cmd(src, ["search", q, "--vault", str(dirs["hybrid"]), "--json", "-n",
                                              str(limit)])
            times.append(timed(cmd, env)[0])
    out["kbg_hybrid_search_s"] = _summary(times)
    return out


def _kbx_hybrid_state(kbx: Path, project: Path, query: str, limit: int) -> str:
    proc = subprocess.run([str(kbx), "search", query, "--json", "--limit", str(limit)], cwd=project,
                          env=child_env(), capture_output=True, text=True)
    if proc.returncode == 0:
        return "ran"  # would need timing here; it cannot run on a machine without the extra and the weights
    last = (proc.stderr.strip().splitlines() or ["(no message)"])[-1]
    missing = [m for m in ("lancedb", "sentence_transformers") if subprocess.run(
        [str(kbx.parent / "python"), "-c", f"import {m}"], capture_output=True).returncode != 0]
    return (f"cannot run: {last[:160]}; missing from the kbx venv: {', '.join(missing) or 'nothing'}; "
            "its model (Qwen/Qwen3-Embedding-0.6B) loads from the Hugging Face hub, which this machine cannot reach")


def _summary(times: list[float]) -> dict:
    return {"median_s": round(statistics.median(times), 4), "min_s": round(min(times), 4),
            "max_s": round(max(times), 4), "runs": len(times)}


# --- the report ------------------------------------------------------------------------


def report(index: dict[str, list[float]], search: dict[str, list[float]], hits: dict[str, list[int]],
           hybrid_out: dict | None) -> dict:
    kbx_index = statistics.median(index["kbx index run --no-embed --full"])
    kbx_search = statistics.median(search["kbx search --fast"])
    out: dict = {"index": {}, "search": {}, "hybrid": hybrid_out}
    for name, times in index.items():
        row = _summary(times)
        row["kbx_over_this"] = round(kbx_index / row["median_s"], 2)
        out["index"][name] = row
    for name, times in search.items():
        row = _summary(times)
        row["this_over_kbx"] = round(row["median_s"] / kbx_search, 3)
        row["queries_with_hits"] = sum(1 for h in hits[name] if h)
        out["search"][name] = row
    return out


def print_report(result: dict) -> None:
    print(f"\nWhole-process text-only index ({result['corpus']}); medians of {result['index_rounds']} rounds")
    print(f"{'case':38s} {'median s':>9s} {'min s':>7s} {'max s':>7s} {'kbx/this':>9s}")
    for name, row in result["index"].items():
        print(f"{name:38s} {row['median_s']:9.2f} {row['min_s']:7.2f} {row['max_s']:7.2f} {row['kbx_over_this']:8.2f}x")
    print(f"\nCLI text-only search, {result['queries']} queries x {result['search_rounds']} rounds")
    print(f"{'tool':38s} {'median s':>9s} {'min s':>7s} {'this/kbx':>9s} {'hits':>5s}")
    for name, row in result["search"].items():
        print(f"{name:38s} {row['median_s']:9.3f} {row['min_s']:7.3f} {row['this_over_kbx']:9.3f} "
              f"{row['queries_with_hits']:5d}")
    if result.get("hybrid"):
        print("\nHybrid:", json.dumps(result["hybrid"], indent=1))
    print(f"\nGoals: text-only index >= {GOAL_INDEX_SPEEDUP}x faster than kbx; text-only search <= "
          f"{GOAL_SEARCH_RATIO}x kbx's wall; hybrid <= kbx's hybrid.")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--index-rounds", type=int, default=5)
    parser.add_argument("--search-rounds", type=int, default=7)
    parser.add_argument("--queries", type=int, default=12)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--kbg-rev", action="append", default=[], help="also a commit's kbgraph (repeatable)")
    parser.add_argument("--no-worktree", action="store_true", help="only the --kbg-rev commits, not the working tree")
    parser.add_argument("--kbx-venv", type=Path, default=KBX_VENV)
    parser.add_argument("--work", type=Path, help="keep the corpora here (default: a temporary folder)")
    parser.add_argument("--skip-hybrid", action="store_true")
    parser.add_argument("--skip-search", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    kbx = ensure_kbx(args.kbx_venv)
    work = args.work or Path(tempfile.mkdtemp(prefix="vs_kbx-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        trees = kbg_trees(args.kbg_rev, work, worktree=not args.no_worktree)
        if not trees:
            raise SystemExit("nothing to measure: --no-worktree needs at least one --kbg-rev")
        dirs = make_corpora(work, args.notes, args.pages, args.seed, trees)
        qs = queries(dirs["vault"], args.queries)
        index = index_rounds(dirs, trees, kbx, args.index_rounds)
        search, hits = ({}, {}) if args.skip_search else search_rounds(dirs, trees, kbx, qs, args.search_rounds,
                                                                        args.limit)
        hybrid_rounds = max(1, args.search_rounds // 3)
        hybrid_out = None if args.skip_hybrid else hybrid(dirs, next(iter(trees.values())), kbx, qs, hybrid_rounds,
                                                          args.limit)
        result = report(index, search or {"kbx search --fast": [1.0]}, hits or {"kbx search --fast": []},
                        hybrid_out)
        result.update(corpus=f"{dirs['files']} notes, {dirs['bytes'] / 1024:.0f} KiB, kbx layout",
                      index_rounds=args.index_rounds, search_rounds=args.search_rounds, queries=len(qs),
                      load_average=os.getloadavg(), cpus=os.cpu_count(), kbx=KBX_VERSION,
                      kbg_revs=args.kbg_rev)
        print(json.dumps(result, indent=2) if args.json else "", end="")
        if not args.json:
            print_report(result)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

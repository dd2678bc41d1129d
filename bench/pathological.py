"""Bounded cost on pathological input (issue 18): a one-letter prefix search on the KEP vault, and
one note of many wikilinks, this tree against a baseline commit.

Why this shape:
- Both were reported as wall time of a `kbg` command (33 s for `kbg search "a*"`, 106 s to index a
  note of 100k links), so both are timed as commands: a fresh process each, through the entry point.
- The baseline is another commit's src/ (`git archive REV src`) run by the same interpreter with
  PYTHONPATH pointing at it, as bench/startup.py does, so the two differ in kbgraph's code only.
- Searches run on one index (the KEP vault indexed once, text only: `[search] embedder = "none"`),
  since neither change touched what is stored; the hits of both trees are compared, not only timed.
- The link notes are `- see [[Person k]] about item i` lines (50 people with pages), so every link
  is also a name found in the text: the case the link-span check ran for each. Each size is indexed
  from scratch in its own copy. Quadratic baselines grow fast: sizes above --baseline-max are run
  on this tree only.

Usage:
    .venv/bin/python bench/pathological.py --baseline e1311ac~1 --link-baseline 47be91d~1
    .venv/bin/python bench/pathological.py --json            # this tree only
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
KEPS = REPO.parent / "shared" / "data" / "keps" / "vault"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from startup import baseline_tree  # noqa: E402  (one way to unpack a commit's src/ for every bench)

SEARCHES = {
    'search "a*"': ["search", "a*", "--json"],
    'search "a*" --mode bm25 -n 50': ["search", "a*", "--mode", "bm25", "-n", "50", "--json"],
    'search "t*" --passages -n 50': ["search", "t*", "--passages", "-n", "50", "--json"],
    'search "sch*"': ["search", "sch*", "--json"],
    'search "kubernetes scheduling"': ["search", "kubernetes scheduling", "--json"],
}


def kbg(src: Path, args: list[str], cwd: Path) -> tuple[float, str]:
    env = {**os.environ, "PYTHONPATH": str(src), "KBG_EMBEDDER": "none"}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "kbgraph.cli.app", *args], cwd=cwd, env=env,
                          capture_output=True, text=True)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"kbg {' '.join(args)} failed: {done.stderr[-2000:]}")
    return took, done.stdout


def keps_index(src: Path, into: Path) -> Path:
    vault = into / "keps"
    shutil.copytree(KEPS, vault, ignore=shutil.ignore_patterns(".kbgraph"))
    kbg(src, ["init"], vault)
    with open(vault / "kbgraph.toml", "a", encoding="utf-8") as handle:
        handle.write('\n[search]\nembedder = "none"\n')
    kbg(src, ["index", "--quiet"], vault)
    return vault


def _made(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def searches(trees: dict[str, Path], vault: Path, runs: int) -> dict:
    out: dict = {}
    for name, args in SEARCHES.items():
        row: dict = {}
        answers = {}
        for label, src in trees.items():
            times = []
            for _ in range(runs if label == "this tree" else 1):  # the baseline of a prefix takes minutes
                took, answer = kbg(src, args, vault)
                times.append(took)
            answers[label] = [(h["path"], h["line"], h["snippet"]) for h in json.loads(answer)["hits"]]
            row[label] = round(statistics.median(times), 3)
        row["same hits"] = len({json.dumps(a) for a in answers.values()}) == 1
        out[name] = row
        print(name, row, flush=True)
    return out


def link_vault(links: int, into: Path) -> Path:
    vault = into / f"links-{links}"
    (vault / "people").mkdir(parents=True)
    (vault / "hub.md").write_text("# Hub\n\n" + "\n".join(f"- see [[Person {i % 50}]] about item {i}"
                                                          for i in range(links)) + "\n", encoding="utf-8")
    for k in range(50):
        (vault / "people" / f"person-{k}.md").write_text(f"---\ntitle: Person {k}\ntype: person\n---\n# Person {k}\n",
                                                         encoding="utf-8")
    return vault


def link_notes(trees: dict[str, Path], sizes: list[int], baseline_max: int, into: Path) -> dict:
    out: dict = {}
    for links in sizes:
        row: dict = {}
        for label, src in trees.items():
            if label != "this tree" and links > baseline_max:
                continue
            vault = link_vault(links, into / label.replace(" ", "-"))
            kbg(src, ["init"], vault)
            took, _ = kbg(src, ["index", "--quiet"], vault)
            row[label] = round(took, 2)
            shutil.rmtree(vault)
        out[f"{links} links"] = row
        print(links, row, flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", help="commit whose src/ is the search baseline")
    parser.add_argument("--link-baseline", help="commit whose src/ is the link-note baseline")
    parser.add_argument("--runs", type=int, default=5, help="runs of each search on this tree (median)")
    parser.add_argument("--sizes", default="10000,50000,100000", help="links in the one note")
    parser.add_argument("--baseline-max", type=int, default=50000, help="largest note the baseline indexes")
    parser.add_argument("--skip", choices=["search", "links"], help="leave one part out")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kbg-pathological-") as tmp:
        work = Path(tmp)
        here = REPO / "src"
        result: dict = {}
        if args.skip != "search":
            trees = {"this tree": here}
            if args.baseline:
                trees[f"baseline {args.baseline}"] = baseline_tree(args.baseline, _made(work / "search-baseline"))
            result["search (s)"] = searches(trees, keps_index(here, work), args.runs)
        if args.skip != "links":
            trees = {"this tree": here}
            if args.link_baseline:
                trees[f"baseline {args.link_baseline}"] = baseline_tree(args.link_baseline, _made(work / "link-baseline"))
            sizes = [int(s) for s in args.sizes.split(",")]
            result["index one note (s)"] = link_notes(trees, sizes, args.baseline_max, work)
    if args.json:
        print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

"""Reliability, measured from outside (issue 18): kill -9 trials, parser fuzzing, random queries, disk full.

    .venv/bin/python bench/reliability.py                      # every part, at the issue's scale
    .venv/bin/python bench/reliability.py --part kill --trials 20
    .venv/bin/python bench/reliability.py --part queries       # needs ../shared/data/keps (says so if absent)

kill      Each trial copies an indexed vault, starts one write (index --full, relate, accept a suggestion
          with a new target, confirm a resolution question, merge, import), SIGKILLs its process group at a
          random moment, then recovers as a user would: `kbg index`, then the same command again. Counted:
          corruptions (integrity_check, an unreadable export, a page whose YAML no longer parses or that
          lost text), lost assertions (the write re-run, yet absent), tracebacks, failed recoveries
          (a recovery command that exits non-zero).
fuzz      Random notes, relation sections, queries and configs through each parser, in process: any
          exception other than the parser's documented error is a crash.
queries   Random queries (words, prefixes as short as one letter, phrases, exclusions, junk) against
          the KEP vault's index, in process: p50, p99, slowest.
diskfull  (root only) A vault on a tiny tmpfs that the index cannot fit in: `kbg index` must fail with
          one clear line, the index stay sound, and text search keep working.
Results print as a table and as JSON (--json-out FILE).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "examples" / "vault"
KEPS = REPO.parent / "shared" / "data" / "keps" / "vault"
ENV = {**os.environ, "KBG_EMBEDDER": "fake", "COLUMNS": "200"}
ENV.pop("KBG_VAULT", None)

# Text that makes a resolution question (a near-miss of a known name) and enough notes that a full
# index runs long enough to be killed in the middle.
QUESTION_NOTE = """---
type: meeting
date: 2026-04-02
attendees: [Arjoon Mehta, Chen Wey, Ana Lima]
---
# Platform sync

Arjoon Mehta walked through the payments gateway plan with Chen Wey.
"""


def kbg(vault: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kbgraph.cli.app", *args, "--vault", str(vault)],
                          capture_output=True, text=True, env=ENV, timeout=timeout)


def _json(result: subprocess.CompletedProcess):
    return json.loads(result.stdout) if result.returncode == 0 and result.stdout.strip() else None


# --- kill -9 trials -------------------------------------------------------------------------------

def prepare_base(work: Path) -> tuple[Path, dict]:
    """An indexed vault with pending suggestions and questions, and what each trial's write needs."""
    base = work / "base"
    shutil.copytree(SAMPLE, base, ignore=shutil.ignore_patterns(".kbgraph"))
    (base / "meetings" / "2026-04-02-platform-sync.md").write_text(QUESTION_NOTE, encoding="utf-8")
    filler = "\n".join(f"Line {i}: Ana Lima and Ben Okafor reviewed Project Atlas and Kafka." for i in range(60))
    for i in range(400):
        (base / "notes" / f"filler-{i:03d}.md").write_text(f"# Filler {i}\n\n{filler}\n", encoding="utf-8")
    assert kbg(base, "index", "-q").returncode == 0
    suggestions = (_json(kbg(base, "entity", "suggestions", "--json")) or {}).get("suggestions", [])
    new_target = [s["id"] for s in suggestions if s.get("target_id") is None]
    questions = (_json(kbg(base, "resolve", "pending", "--json")) or {}).get("questions", [])
    scratch = work / "scratch"
    shutil.copytree(base, scratch)
    kbg(scratch, "entity", "relate", "Lena Fischer", "--type", "mentors", "--target", "Sam Ortiz")
    export = work / "export.json"
    export.write_text(kbg(scratch, "export").stdout, encoding="utf-8")
    shutil.rmtree(scratch)
    needs = {"suggestion": (new_target or [s["id"] for s in suggestions] or [None])[0],
             "question": questions[0]["id"] if questions else None, "export": str(export)}
    return base, needs


def _operations(needs: dict) -> dict[str, list[str]]:
    ops = {
        "index": ["index", "--full", "-q"],
        "relate": ["entity", "relate", "Dana Kowalski", "--type", "mentors", "--target", "Ben Okafor"],
        "merge": ["entity", "merge", "Sam Ortiz", "Sam Li"],
        "import": ["import", needs["export"]],
    }
    if needs["suggestion"] is not None:
        ops["accept"] = ["entity", "accept", str(needs["suggestion"])]
    if needs["question"] is not None:
        ops["confirm"] = ["resolve", "confirm", str(needs["question"])]
    return ops


def _asserted(vault: Path, op: str) -> bool:
    """Whether what the write asserted is in the index now."""
    data = _json(kbg(vault, "export"))
    if data is None:
        return False
    pairs = {(r["source"]["name"], r["type"], r["target"]["name"]) for r in data["relations"]}
    if op == "relate":
        return ("Dana Kowalski", "mentors", "Ben Okafor") in pairs
    if op == "import":
        return ("Lena Fischer", "mentors", "Sam Ortiz") in pairs
    if op == "merge":
        return not any(e["name"] == "Sam Ortiz" for e in data["entities"])
    if op == "accept":
        listed = _json(kbg(vault, "entity", "suggestions", "--status", "accepted", "--json")) or {}
        return bool(listed.get("suggestions"))
    if op == "confirm":
        log = _json(kbg(vault, "resolve", "log", "--json")) or {}
        return any(d.get("outcome") == "confirmed" for d in log.get("decisions", []))
    return True  # index: nothing asserted, only consistency


def _pages(vault: Path) -> dict[str, str]:
    return {str(p.relative_to(vault)): p.read_text(encoding="utf-8", errors="replace")
            for p in vault.rglob("*.md") if ".kbgraph" not in p.parts}


def _page_damage(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Pages whose YAML no longer parses, or that lost text they had (kbgraph only ever adds lines or
    edits its own relation lines, so a page shorter than before by more than a line is damaged)."""
    sys.path.insert(0, str(REPO / "src"))
    from kbgraph.base.vault import FrontmatterError, split_frontmatter

    damaged = []
    for path, text in after.items():
        try:
            split_frontmatter(text)
        except FrontmatterError:
            if path in before:
                try:
                    split_frontmatter(before[path])
                    damaged.append(f"{path}: YAML broken")
                except FrontmatterError:
                    pass
        if path in before and len(text) < len(before[path]) - 200:
            damaged.append(f"{path}: lost {len(before[path]) - len(text)} characters")
    damaged += [f"{path}: deleted" for path in before if path not in after]
    return damaged


def kill_trials(trials: int, seed: int) -> dict:
    rng = random.Random(seed)
    work = Path(tempfile.mkdtemp(prefix="kbg-reliability-"))
    try:
        base, needs = prepare_base(work)
        ops = _operations(needs)
        durations = {}
        for name, args in ops.items():  # how long each write takes whole, to kill it somewhere inside
            copy = work / f"time-{name}"
            shutil.copytree(base, copy)
            started = time.perf_counter()
            kbg(copy, *args)
            durations[name] = time.perf_counter() - started
            shutil.rmtree(copy)
        totals = {"trials": 0, "killed_mid_run": 0, "corruptions": 0, "lost_assertions": 0, "tracebacks": 0,
                  "failed_recoveries": 0}
        per_op: dict[str, dict] = {}
        findings: list[str] = []
        for trial in range(trials):
            op = rng.choice(sorted(ops))
            vault = work / f"t{trial}"
            shutil.copytree(base, vault)
            before = _pages(vault)
            process = subprocess.Popen([sys.executable, "-m", "kbgraph.cli.app", *ops[op], "--vault", str(vault)],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV,
                                       start_new_session=True)
            time.sleep(rng.uniform(0.05, durations[op]))
            finished = process.poll() is not None
            if not finished:
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            recovery = [kbg(vault, "index", "-q"), kbg(vault, *ops[op])]
            errors = []
            if any(r.returncode != 0 for r in recovery):
                totals["failed_recoveries"] += 1
                errors += [f"rc {r.returncode}: {r.stderr.strip()[-160:]}" for r in recovery if r.returncode]
            if any("Traceback" in r.stderr for r in recovery):
                totals["tracebacks"] += 1
                errors.append("traceback")
            with sqlite3.connect(vault / ".kbgraph" / "index.db") as db:
                sound = db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            damage = _page_damage(before, _pages(vault))
            if not sound or damage:
                totals["corruptions"] += 1
                errors += (["integrity_check failed"] if not sound else []) + damage
            if not _asserted(vault, op):
                totals["lost_assertions"] += 1
                errors.append("assertion lost")
            totals["trials"] += 1
            totals["killed_mid_run"] += not finished
            stats = per_op.setdefault(op, {"trials": 0, "failed": 0})
            stats["trials"] += 1
            stats["failed"] += bool(errors)
            if errors:
                findings.append(f"trial {trial} {op} (killed after {'end' if finished else 'start'}): "
                                + "; ".join(errors))
            shutil.rmtree(vault)
        return {**totals, "per_operation": per_op, "durations_s": {k: round(v, 2) for k, v in durations.items()},
                "findings": findings[:30]}
    finally:
        shutil.rmtree(work, ignore_errors=True)


# --- parser fuzzing -------------------------------------------------------------------------------

PIECES = ["---\n", "title: x\n", "tags: [a, b\n", "aliases:\n  - A\n", "type: person\n", "date: 2026-13-45\n",
          "&a [*a]\n", "!!python/object:os.system\n", "\t", "# Title\n", "## Relations\n",
          "- reports-to [[Ana Lima]] (since 2026-03)\n", "- [[\n", "- works-with [[]]\n", "- uses [[X|Y]] — why\n",
          "```\n", "~~~\n", "[[Ana Lima]]", "[[a#b|c]]", "[x](y.md)", "[[", "]]", "|", "\x00", "\ufeff", "\r\n",
          "Ana Lima said", "é", "🙂", "\u202e", "   ", "\n\n", '"', "*", "-", "a*", "OR", "NEAR(", ":", "\\"]


def _random_text(rng: random.Random, size: int = 40) -> str:
    out = []
    for _ in range(rng.randint(0, size)):
        if rng.random() < 0.7:
            out.append(rng.choice(PIECES))
        else:
            out.append("".join(chr(rng.choice([rng.randint(32, 126), rng.randint(0, 0x2FFF)]))
                               for _ in range(rng.randint(1, 8))))
    return "".join(out)


def fuzz(count: int, seed: int) -> dict:
    sys.path.insert(0, str(REPO / "src"))
    from kbgraph.config import Config, config_from_dict
    from kbgraph.errors import ConfigError
    from kbgraph.ingest.parse import parse_document
    from kbgraph.base.vault import FrontmatterError, RawFile, split_frontmatter
    from kbgraph.pages.relation_lines import parse_relation_lines
    from kbgraph.search.query import parse_query

    rng = random.Random(seed)
    config = Config()

    def note(text):
        return parse_document(rng.choice(["people/a.md", "meetings/2026/03/2026-03-02-x.md", "n.txt"]),
                              RawFile(text, "h", len(text), 0.0), config)

    def toml_config(text):
        import tomllib

        try:
            raw = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return None
        return config_from_dict(raw)

    tables = {"index": ["ignore", "extensions", "max_file_mb", "chunk_chars"],
              "search": ["embedder", "rrf_k", "weights", "hop_decay", "tier_boost", "min_similarity"],
              "resolve": ["enabled", "auto", "ask"], "entities": ["types", "references", "like"],
              "access": ["owner", "visibility", "sensitivity"], "extract": ["patterns", "cooccurrence"],
              "me": ["name"], "kinds": ["standups"], "relations": ["create_pages", "types"]}
    values = ["inf", "-inf", "nan", "1e308", "-1", "0", "0.5", "10", "true", '"x"', '""', '"../x"', '"("', "[]",
              '["a", "b"]', "[1, 2]", '["../x"]', "[1.0, 0.5, nan]", "{}", "{ a = 1 }", "{ bm25 = inf }",
              '{ sponsor = "person" }', '"private"', '"minilm"', "2026-01-01"]

    def make_toml() -> str:
        lines = []
        for table in rng.sample(sorted(tables), rng.randint(1, 4)):
            lines.append(f"[{table}]")
            for key in rng.sample(tables[table], rng.randint(1, len(tables[table]))):
                lines.append(f"{key} = {rng.choice(values)}")
        return "\n".join(lines) + "\n"

    parsers = {
        "parse_document": (note, (FrontmatterError,), lambda: _random_text(rng)),
        "split_frontmatter": (split_frontmatter, (FrontmatterError,), lambda: _random_text(rng)),
        "parse_relation_lines": (lambda t: parse_relation_lines(t, rng.randint(0, len(t))), (),
                                 lambda: _random_text(rng)),
        "parse_query": (parse_query, (), lambda: _random_text(rng, 12)),
        "config": (toml_config, (ConfigError,), make_toml),
    }
    results = {}
    for name, (parse, allowed, make) in parsers.items():
        crashes, refused, kinds, started = 0, 0, {}, time.perf_counter()
        for _ in range(count):
            text = make()
            try:
                parse(text)
            except allowed:
                refused += 1
            except Exception as exc:  # a crash: what a user's note or config would turn into a traceback
                crashes += 1
                kinds.setdefault(type(exc).__name__, repr(text[:80]))
        results[name] = {"inputs": count, "refused_as_documented": refused, "crashes": crashes, "examples": kinds,
                         "seconds": round(time.perf_counter() - started, 1)}
    return results


# --- random queries -------------------------------------------------------------------------------

def queries(count: int, seed: int, indexed: Path | None = None) -> dict:
    """indexed: a copy of the KEP vault indexed already (with KBG_EMBEDDER=fake), searched as it is: to
    compare two trees' query times on the very same index."""
    if indexed is None and not KEPS.is_dir():
        return {"skipped": f"{KEPS} is absent (the KEP vault lives in ../shared/data)"}
    sys.path.insert(0, str(REPO / "src"))
    from kbgraph.access import LOCAL
    from kbgraph.errors import InvalidInput
    from kbgraph.search import search
    from kbgraph.workspace import Workspace

    work = Path(tempfile.mkdtemp(prefix="kbg-queries-"))
    try:
        vault = indexed or work / "keps"
        if indexed is None:
            shutil.copytree(KEPS, vault, ignore=shutil.ignore_patterns(".kbgraph"))
            assert kbg(vault, "index", "-q", timeout=3600).returncode == 0
        words = sorted({w for p in list(vault.rglob("*.md"))[:200]
                        for w in p.read_text(errors="replace").split() if w.isalpha() and len(w) > 3})
        rng = random.Random(seed)

        def make() -> str:
            kind = rng.random()
            if kind < 0.3:
                return " ".join(rng.sample(words, rng.randint(1, 4)))
            if kind < 0.45:
                return rng.choice(words)[: rng.randint(1, 3)] + "*"
            if kind < 0.6:
                return f'"{" ".join(rng.sample(words, 2))}" -{rng.choice(words)}'
            if kind < 0.75:
                return " ".join(rng.choice(words)[:1] + "*" for _ in range(rng.randint(1, 3)))
            return _random_text(rng, 10) or "x"

        times: list[tuple[float, str]] = []
        ws = Workspace.open(str(vault))
        try:
            # Not timed: the first hybrid search loads the vectors (~0.35 s, once per process).
            search(ws.store, "kubernetes", limit=5, config=ws.config, mode="hybrid", access=LOCAL)
            for _ in range(count):
                query = make()
                mode = rng.choice(["hybrid", "bm25"])
                started = time.perf_counter()
                try:
                    search(ws.store, query, limit=rng.choice([5, 10, 50]), config=ws.config, mode=mode, access=LOCAL)
                except InvalidInput:
                    pass
                times.append((time.perf_counter() - started, f"{mode}: {query!r}"))
        finally:
            ws.close()
        ms = sorted(t * 1000 for t, _ in times)
        slowest = sorted(times, reverse=True)[:8]
        return {"queries": count, "p50_ms": round(statistics.median(ms), 1),
                "p99_ms": round(ms[int(len(ms) * 0.99) - 1], 1), "max_ms": round(ms[-1], 1),
                "slowest": [f"{t * 1000:.0f} ms {q}" for t, q in slowest]}
    finally:
        shutil.rmtree(work, ignore_errors=True)


# --- disk full ------------------------------------------------------------------------------------

def disk_full() -> dict:
    if os.geteuid() != 0:
        return {"skipped": "mounting a tmpfs needs root"}
    mount = Path(tempfile.mkdtemp(prefix="kbg-full-"))
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", str(mount)]).returncode != 0:
        return {"skipped": "cannot mount a tmpfs here"}
    try:
        vault = mount / "vault"
        shutil.copytree(SAMPLE, vault, ignore=shutil.ignore_patterns(".kbgraph"))
        before = kbg(vault, "index", "-q").returncode  # the sample vault fits: indexed and searchable
        text = "\n".join(f"Paragraph {i}: Ana Lima reviewed the payments gateway {i * 7919 % 100003}."
                         for i in range(25_000))
        (vault / "notes" / "big.md").write_text(f"# Big\n\n{text}\n", encoding="utf-8")  # ~1.9 MB: no room
        full = kbg(vault, "index")
        lines = [line for line in full.stderr.splitlines() if line.strip()]
        result = {"first_index_exit": before, "full_index_exit": full.returncode, "stderr_lines": len(lines),
                  "message": lines[-1] if lines else "", "traceback": "Traceback" in full.stderr}
        with sqlite3.connect(f"{(vault / '.kbgraph' / 'index.db').as_uri()}?mode=ro", uri=True) as db:
            result["integrity"] = db.execute("PRAGMA integrity_check").fetchone()[0]
        search = kbg(vault, "search", "payments gateway", "--mode", "bm25", "--json")
        result["search_exit"] = search.returncode
        result["search_hits"] = len((_json(search) or {}).get("hits", []))
        (vault / "notes" / "big.md").unlink()
        result["index_after_freeing_exit"] = kbg(vault, "index", "-q").returncode
        return result
    finally:
        subprocess.run(["umount", "-l", str(mount)])
        shutil.rmtree(mount, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--part", choices=["kill", "fuzz", "queries", "diskfull", "all"], default="all")
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--fuzz", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--indexed", type=Path, default=None,
                        help="queries: an indexed copy of the KEP vault to search as it is (else one is made)")
    parser.add_argument("--json-out", default=None)
    args = parser.parse_args()
    report = {}
    if args.part in ("kill", "all"):
        report["kill"] = kill_trials(args.trials, args.seed)
    if args.part in ("fuzz", "all"):
        report["fuzz"] = fuzz(args.fuzz, args.seed)
    if args.part in ("queries", "all"):
        report["queries"] = queries(args.queries, args.seed, args.indexed)
    if args.part in ("diskfull", "all"):
        report["diskfull"] = disk_full()
    text = json.dumps(report, indent=2, ensure_ascii=False)
    print(text)
    if args.json_out:
        Path(args.json_out).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

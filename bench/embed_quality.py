"""Retrieval quality of each embedding backend: MRR and recall@k on two retrieval sets, in one run.

Why this shape: a faster backend (int8) is acceptable only if it ranks as well as fp32, so it is
judged by ranking, not by cosine to the fp32 vectors. Each set is a query, the passage(s) that
answer it, and a pool of every passage of the set; a backend embeds queries and pool, and each
query's passages are ranked by cosine. Every backend sees the same texts.

Sets:
- keps: ../shared/data/keps (read-only; the set is skipped, and the table says so, when it is
  absent). Query: a KEP's title (frontmatter `title`). Answer: that KEP's "Summary" section
  (kbgraph's markdown parser; the title is not in it). Pool: the Summary of every KEP that has
  one. Short keyword-like queries against ~150-token technical prose.
- conversations: the chat-memory vault bench/conversations.py generates (seeded, in a temp
  folder). Query: a question ("What kind of dog did Maria adopt?"). Answers: the turns the
  question is labelled with (1-3). Pool: every turn of every session. Paraphrased questions
  against short, chatty, look-alike turns: a different kind of text and of difficulty.

MRR: 1 / rank of the first answer (0 past the pool's end). recall@k: the share of a query's
answers in its top k, averaged over queries. Backends that cannot load here are listed as skipped.

Usage (repo root; the model must be installed):
    .venv/bin/python bench/embed_quality.py                                   # all backends, both sets
    .venv/bin/python bench/embed_quality.py --backends minilm-numpy,minilm-int8 --sets keps --json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
KEP_VAULT = HERE.parent.parent / "shared" / "data" / "keps" / "vault"
KS = (1, 5, 10)
BACKENDS = "minilm-numpy,minilm-onnx,minilm-int8"


@dataclass(frozen=True)
class RetrievalSet:
    name: str
    queries: list[str]
    answers: list[list[int]]  # per query, positions in pool
    pool: list[str]
    source: str


def kep_set(vault: Path = KEP_VAULT) -> RetrievalSet | None:
    if not vault.is_dir():
        return None
    from kbgraph.base.markdown import parse_sections
    from kbgraph.base.vault import split_frontmatter

    queries, pool = [], []
    for path in sorted(vault.glob("*.md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        meta, body_start = split_frontmatter(text)
        sections, _ = parse_sections(text[body_start:])
        summary = next((s for s in sections if s.heading_path and s.heading_path[-1].strip().lower() == "summary"
                        and s.text.strip()), None)
        title = (meta or {}).get("title")
        if summary is None or not isinstance(title, str) or not title.strip():
            continue
        queries.append(title.strip())
        body = summary.text.strip()
        pool.append(body.split("\n", 1)[1].strip() if body.startswith("#") and "\n" in body else body)  # not "## Summary"
    return RetrievalSet("keps: title -> summary", queries, [[i] for i in range(len(pool))], pool,
                        f"{vault} ({len(pool)} KEPs with a Summary)")


def conversation_set(seed: int, scale: float) -> RetrievalSet:
    sys.path.insert(0, str(HERE))
    from conversations import Generator

    with tempfile.TemporaryDirectory(prefix="kbg-conv-") as tmp:
        root = Path(tmp)
        info = Generator(seed, scale).write(root)
        pool, where = [], {}
        for path in sorted((root / "conversations").rglob("*.md")):
            lines = path.read_text(encoding="utf-8").split("\n")
            rel = path.relative_to(root).as_posix()
            for number, line in enumerate(lines, start=1):  # a turn: its heading, then its text on the next line
                if line.startswith("#") and number < len(lines) and lines[number].strip() and "session" not in line:
                    where[(rel, number)] = len(pool)
                    pool.append(lines[number].strip())
        questions = [json.loads(line) for line in (root / "questions.jsonl").read_text().splitlines()]
    answers = [[where[(t["path"], t["line"])] for t in q["turns"]] for q in questions]
    return RetrievalSet("conversations: question -> turns", [q["question"] for q in questions], answers, pool,
                        f"bench/conversations.py seed {seed} scale {scale} ({info['turns']} turns)")


def scores(query_vectors: np.ndarray, pool_vectors: np.ndarray, answers: list[list[int]]) -> dict:
    similarity = query_vectors @ pool_vectors.T
    order = np.argsort(-similarity, axis=1, kind="stable")
    rank_of = np.empty_like(order)
    rows = np.arange(order.shape[0])[:, None]
    rank_of[rows, order] = np.arange(order.shape[1])[None, :]  # rank_of[q, passage] (0 = first)
    mrr, recall = [], {k: [] for k in KS}
    for q, wanted in enumerate(answers):
        ranks = rank_of[q, wanted]
        mrr.append(1.0 / (1 + ranks.min()))
        for k in KS:
            recall[k].append(float((ranks < k).mean()))
    return {"mrr": round(float(np.mean(mrr)), 4), **{f"recall@{k}": round(float(np.mean(v)), 4) for k, v in recall.items()},
            "reciprocal_ranks": mrr}


def paired_difference(ours: list[float], base: list[float], seed: int = 0, draws: int = 2000) -> tuple[float, float, float]:
    """MRR(ours) - MRR(base) and its 95% interval by a paired bootstrap over queries: whether a
    difference is larger than what the choice of queries alone would move."""
    diff = np.asarray(ours) - np.asarray(base)
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, len(diff), size=(draws, len(diff)))].mean(axis=1)
    return float(diff.mean()), float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def evaluate(backend: str, sets: list[RetrievalSet]) -> dict:
    from kbgraph.embed import load_embedder
    from kbgraph.errors import KbgError

    try:
        embedder = load_embedder(backend)
    except KbgError as exc:
        return {"backend": backend, "skipped": str(exc)}
    out = {"backend": backend, "model": f"{embedder.name}@{embedder.version}", "sets": {}}
    for rset in sets:
        started = time.perf_counter()
        pool = embedder.embed(rset.pool)
        queries = embedder.embed(rset.queries)
        out["sets"][rset.name] = {**scores(queries, pool, rset.answers),
                                  "embed_s": round(time.perf_counter() - started, 1)}
    return out


def markdown(sets: list[RetrievalSet], skipped: list[str], results: list[dict]) -> str:
    lines = [f"- {s.name}: {len(s.queries)} queries, pool {len(s.pool)} passages; {s.source}" for s in sets]
    lines += [f"- skipped set: {why}" for why in skipped]
    base = next((r for r in results if "skipped" not in r), None)
    lines += ["", f"| backend | set | MRR | MRR - {base['backend'] if base else 'first'} [95% CI] | "
              + " | ".join(f"recall@{k}" for k in KS) + " | embed s |", "|---|---|---:|---|" + "---:|" * len(KS) + "---:|"]
    for r in results:
        if "skipped" in r:
            lines.append(f"| {r['backend']} | skipped: {r['skipped']} |" + " |" * (len(KS) + 3))
            continue
        for name, m in r["sets"].items():
            delta, low, high = paired_difference(m["reciprocal_ranks"], base["sets"][name]["reciprocal_ranks"])
            lines.append(f"| {r['backend']} | {name} | {m['mrr']:.4f} | {delta:+.4f} [{low:+.4f}, {high:+.4f}] | "
                         + " | ".join(f"{m[f'recall@{k}']:.4f}" for k in KS) + f" | {m['embed_s']} |")
    lines += ["", f"CPUs: {os.cpu_count()}; 1-minute load average at the end: {os.getloadavg()[0]:.2f} "
                  "(embed seconds are wall time on a shared machine; bench/embed_speed.py measures speed)"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default=BACKENDS)
    parser.add_argument("--sets", default="keps,conversations")
    parser.add_argument("--seed", type=int, default=1, help="conversations generator seed")
    parser.add_argument("--scale", type=float, default=1.0, help="conversations generator scale")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    wanted = args.sets.split(",")
    sets, skipped = [], []
    if "keps" in wanted:
        keps = kep_set()
        if keps is None:
            skipped.append(f"keps: {KEP_VAULT} is absent")
        else:
            sets.append(keps)
    if "conversations" in wanted:
        sets.append(conversation_set(args.seed, args.scale))
    results = [evaluate(name, sets) for name in args.backends.split(",")]
    if args.json:
        for r in results:
            for m in r.get("sets", {}).values():
                m.pop("reciprocal_ranks")
        print(json.dumps({"sets": {s.name: s.source for s in sets}, "skipped_sets": skipped, "results": results},
                         indent=1))
    else:
        print(markdown(sets, skipped, results))


if __name__ == "__main__":
    main()

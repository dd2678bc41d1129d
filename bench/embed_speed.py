"""Embedding speed: chunks per second for each backend and batch size, on realistic chunk texts.

Why this shape:
- The texts are what kbgraph would embed: the chunks kbgraph's own chunker makes from
  the KEP vault (../shared/data/keps/vault, read-only) when it is there, else from the
  seeded synthetic vault of bench/synth.py. The table says which. A fixed-seed sample
  keeps runs comparable. Chunks run up to 1,500 characters, so many hit the model's
  256-token limit; cost grows with tokens, so the token mix is printed too.
- A second corpus, single sentences cut from the same chunks, shows the short-text
  rate (the kind of number usually quoted as "sentences/s").
- Each cell is the best of --repeats timed runs after a warm-up, in one process per
  backend (the model loads once; load time is shown separately). The machine is
  shared: the 1-minute load average before each run is printed, and CPU seconds per
  chunk are given beside wall time because they are steadier under load.

Usage:
    .venv/bin/python bench/embed_speed.py                        # 256 chunks, all backends
    .venv/bin/python bench/embed_speed.py --chunks 512 --batch-sizes 8,32 --backends minilm
    .venv/bin/python bench/embed_speed.py --json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
KEP_VAULT = REPO.parent / "shared" / "data" / "keps" / "vault"
GOAL_CHUNKS_PER_S = 300.0
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def chunk_texts(vault: Path) -> list[str]:
    """Every chunk kbgraph's parser makes from the vault's markdown files."""
    from kbgraph.ingest.chunking import chunk_sections
    from kbgraph.ingest.markdown import parse_sections
    from kbgraph.ingest.vault import split_frontmatter

    texts = []
    for path in sorted(vault.rglob("*.md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        _, body_start = split_frontmatter(text)
        sections, _ = parse_sections(text[body_start:])
        texts += [chunk.text for chunk in chunk_sections(sections, body_start, text)]
    return texts


def corpus(n: int, seed: int) -> tuple[str, list[str], list[str]]:
    if KEP_VAULT.is_dir():
        source, chunks = f"KEP vault ({KEP_VAULT.name}, kbgraph chunker)", chunk_texts(KEP_VAULT)
    else:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from synth import generate_vault

        with tempfile.TemporaryDirectory() as tmp:
            generate_vault(Path(tmp), notes=300, pages=30, seed=seed)
            source, chunks = "synthetic vault (bench/synth.py, kbgraph chunker)", chunk_texts(Path(tmp))
    rng = random.Random(seed)
    sample = rng.sample(chunks, min(n, len(chunks)))
    sentences = [s.strip() for chunk in chunks for s in _SENTENCE_END.split(chunk) if len(s.split()) >= 4]
    return source, sample, rng.sample(sentences, min(n, len(sentences)))


def token_summary(embedder, texts: list[str]) -> dict:
    lengths = sorted(len(ids) for ids in embedder.tokenizer.encode(texts))
    return {"texts": len(texts), "mean_tokens": round(sum(lengths) / len(lengths), 1),
            "median_tokens": lengths[len(lengths) // 2], "truncated_share": round(sum(n >= 256 for n in lengths) / len(lengths), 2),
            "total_tokens": sum(lengths)}


def measure(embedder, texts: list[str], batch_size: int, repeats: int) -> dict:
    embedder.batch_size = batch_size
    embedder.embed(texts[:4])  # warm-up: thread pools, first allocations
    best_wall, best_cpu, load = float("inf"), float("inf"), os.getloadavg()[0]
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        embedder.embed(texts)
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return {"batch_size": batch_size, "per_s": round(len(texts) / best_wall, 1),
            "cpu_ms_each": round(1000 * best_cpu / len(texts), 1), "load_avg": round(load, 2)}


def run_backend(name: str, corpora: dict[str, list[str]], batch_sizes: list[int], repeats: int) -> dict:
    from kbgraph.embed import load_embedder
    from kbgraph.errors import KbgError

    started = time.perf_counter()
    try:
        embedder = load_embedder(name)
    except KbgError as exc:
        return {"backend": name, "skipped": str(exc)}
    result = {"backend": name, "load_s": round(time.perf_counter() - started, 2),
              "threads": getattr(embedder, "threads", None), "rows": []}
    for corpus_name, texts in corpora.items():
        for batch_size in batch_sizes:
            result["rows"].append({"corpus": corpus_name, **measure(embedder, texts, batch_size, repeats)})
    result["tokens"] = {corpus_name: token_summary(embedder, texts) for corpus_name, texts in corpora.items()}
    return result


def markdown(source: str, results: list[dict]) -> str:
    lines = [f"Texts: {source}. Goal: {GOAL_CHUNKS_PER_S:.0f} chunks/s on 2 cores. CPUs here: {os.cpu_count()}.", ""]
    tokens = next((r["tokens"] for r in results if "tokens" in r), {})
    for corpus_name, summary in tokens.items():
        lines.append(f"- {corpus_name}: {summary['texts']} texts, mean {summary['mean_tokens']} tokens, median "
                     f"{summary['median_tokens']}, {summary['truncated_share']:.0%} cut at 256")
    lines += ["", "| backend | corpus | batch size | texts/s | CPU ms per text | load avg |", "|---|---|---:|---:|---:|---:|"]
    for result in results:
        if "skipped" in result:
            lines.append(f"| {result['backend']} | skipped: {result['skipped']} | | | | |")
            continue
        for row in result["rows"]:
            lines.append(f"| {result['backend']} | {row['corpus']} | {row['batch_size']} | {row['per_s']} | "
                         f"{row['cpu_ms_each']} | {row['load_avg']} |")
    lines += ["", "Load time: " + ", ".join(f"{r['backend']} {r['load_s']} s" for r in results if "load_s" in r)]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=256, help="texts per corpus (default 256)")
    parser.add_argument("--batch-sizes", default="1,8,32,64")
    parser.add_argument("--backends", default="minilm,minilm-onnx")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    source, chunks, sentences = corpus(args.chunks, args.seed)
    corpora = {"chunks": chunks, "sentences": sentences}
    batch_sizes = [int(b) for b in args.batch_sizes.split(",")]
    results = [run_backend(name, corpora, batch_sizes, args.repeats) for name in args.backends.split(",")]
    if args.json:
        print(json.dumps({"source": source, "results": results}, indent=2))
    else:
        print(markdown(source, results))


if __name__ == "__main__":
    main()

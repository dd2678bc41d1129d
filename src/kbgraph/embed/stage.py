"""The embed stage: a vector for every chunk that has none, saved batch by batch, with progress.

It runs after text and graph search are committed (`kbg index`), or on its own (`kbg embed`). Each
model call's vectors are saved in their own transaction, together with the count of sections still
without one (meta `vectors_missing`, which search reads to say so): Ctrl-C, a crash or a full disk
loses at most the call in flight, and the next run starts where this one stopped.

Chunks are re-written when their document changes; a chunk whose text (with its title and heading)
was embedded before gets that vector back by hash, so only text that is new pays for the model.
The model that made the vectors is recorded; another model (or other weights) re-embeds everything.
When the model cannot be loaded the index stays text-only and the run says so, once, as a warning.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from ..store.base import Store

if TYPE_CHECKING:
    from .base import Embedder

BATCH = 64  # texts per model call, and per save: large enough to amortise, small enough for steady progress
READ = BATCH * 8  # chunks read per round trip


def embedding_input(title: str, heading: str, text: str) -> str:
    """What is embedded for a chunk: its document's title and its heading give it context."""
    head = " — ".join(part for part in (title, heading) if part)
    return f"{head}\n{text}" if head else text


def text_hash(model: str, text: str) -> str:
    return hashlib.blake2b(f"{model}\x1f{text}".encode(), digest_size=16).hexdigest()


def embed_stage(run) -> None:
    """Embed what lacks a vector; run.embedded counts the sections given one."""
    try:
        _embed(run)
    finally:  # recounted, whatever happened: search reads this instead of counting per query
        missing = str(run.store.count_chunks_without_vectors())
        if run.store.get_meta("vectors_missing") != missing:  # a run that changed nothing writes nothing
            with run.store.transaction():
                run.store.set_meta("vectors_missing", missing)


def _embed(run) -> None:
    store, name = run.store, run.config.search.embedder
    if name == "none":
        return
    pending = store.count_chunks_without_vectors()
    if pending == 0 and store.get_meta("embed_embedder") == name:
        return  # nothing new, and the model has not changed: do not pay for loading it (nor numpy)
    from ..errors import ConfigError, ModelError
    from ..model import Problem
    from .registry import load_embedder
    if pending:
        run.progress("embed", 0, pending)  # before the model loads: the bar shows at once
    try:
        embedder = load_embedder(name)
    except (ModelError, ConfigError) as exc:
        run.problems.append(Problem("(embeddings)", f"embeddings off, search is text-only: {exc}", "warning"))
        return
    model = f"{embedder.name}@{embedder.version}"
    if store.embedding_model() != model:
        with store.transaction():
            store.reset_vectors(model)
        pending = store.count_chunks_without_vectors()
    with store.transaction():
        store.set_meta("embed_embedder", name)
        store.set_meta("vectors_missing", str(pending))
    missing = pending
    while True:
        rows = store.chunks_without_vectors(READ)
        if not rows:
            break
        for saved in _save_in_batches(store, embedder, model, rows, missing):
            missing -= saved
            run.embedded += saved
            run.progress("embed", min(pending - missing, pending), pending)
    with store.transaction():
        store.drop_unused_vectors()


def _save_in_batches(store: Store, embedder: Embedder, model: str, rows, missing: int):
    """Save the vectors of rows (chunks without one), a model call at a time, each call's rows in one
    transaction with the count still missing; yields how many chunks each save gave a vector. Chunks
    whose text was embedded before (or twice in rows) take that vector and are saved with the first call."""
    import numpy as np

    texts = [embedding_input(title, heading, text) for _, title, heading, text in rows]
    hashes = [text_hash(model, t) for t in texts]
    known = store.known_vector_hashes(hashes)
    new: dict[str, str] = {}
    for h, t in zip(hashes, texts):
        if h not in known:
            new.setdefault(h, t)
    by_hash: dict[str, list[int]] = {}
    for row, h in zip(rows, hashes):
        by_hash.setdefault(h, []).append(row[0])
    order = list(new)
    reused = [(chunk, h, None) for h in by_hash if h in known for chunk in by_hash[h]]
    for start in range(0, max(len(order), 1), BATCH):
        part = order[start:start + BATCH]
        matrix = np.asarray(embedder.embed([new[h] for h in part]), dtype=np.float32) if part else None
        batch = reused + [(chunk, h, matrix[i].tobytes() if j == 0 else None)
                          for i, h in enumerate(part) for j, chunk in enumerate(by_hash[h])]
        reused = []
        if not batch:
            continue
        missing -= len(batch)
        with store.transaction():
            store.put_vectors(batch)
            store.set_meta("vectors_missing", str(missing))
        yield len(batch)

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
        recount_missing(run.store)


def recount_missing(store: Store) -> None:
    """Meta vectors_missing, counted again (a run that changed nothing writes nothing)."""
    missing = str(store.count_chunks_without_vectors())
    if store.get_meta("vectors_missing") != missing:
        with store.transaction():
            store.set_meta("vectors_missing", missing)


def _embed(run) -> None:
    embedding = open_embedding(run)
    if embedding is None:
        return
    while embedding.round(run):
        pass
    embedding.close()


class Embedding:
    """A loaded model over one store, embedding in rounds of READ sections that lack a vector. A round
    reads what is missing when it starts, so a caller that lets an index run between rounds (the
    background embedder) picks up the sections that index added."""

    def __init__(self, store: Store, embedder: Embedder, model: str, pending: int):
        self.store, self.embedder, self.model = store, embedder, model
        self.done = 0  # sections this embedding gave a vector
        self.pending = pending  # sections without one when it began

    def round(self, run) -> bool:
        """Embed up to READ sections, saved a model call at a time; False when none was left."""
        rows = self.store.chunks_without_vectors(READ)
        if not rows:
            return False
        missing = self.store.count_chunks_without_vectors()
        total = self.done + missing
        for saved in _save_in_batches(self.store, self.embedder, self.model, rows, missing):
            self.done += saved
            run.embedded += saved
            run.progress("embed", min(self.done, total), total)
        return True

    def close(self) -> None:
        with self.store.transaction():
            self.store.drop_unused_vectors()


def open_embedding(run) -> Embedding | None:
    """The configured model loaded and checked against the vectors stored (other weights: every
    vector is dropped, to be made again); None when there is nothing to do or the model cannot be
    loaded (then run.problems says so, once, as a warning)."""
    store, name = run.store, run.config.search.embedder
    if name == "none":
        return None
    pending = store.count_chunks_without_vectors()
    if pending == 0 and store.get_meta("embed_embedder") == name:
        return None  # nothing new, and the model has not changed: do not pay for loading it (nor numpy)
    from ..errors import ConfigError, ModelError
    from ..model import Problem
    from .registry import load_embedder
    if pending:
        run.progress("embed", 0, pending)  # before the model loads: the bar shows at once
    try:
        embedder = load_embedder(name)
    except (ModelError, ConfigError) as exc:
        run.problems.append(Problem("(embeddings)", f"embeddings off, search is text-only: {exc}", "warning"))
        return None
    model = f"{embedder.name}@{embedder.version}"
    if store.embedding_model() != model:
        with store.transaction():
            store.reset_vectors(model)
        pending = store.count_chunks_without_vectors()
    with store.transaction():
        store.set_meta("embed_embedder", name)
        store.set_meta("vectors_missing", str(pending))
    return Embedding(store, embedder, model, pending)


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

"""The embed stage of `kbg index`: a vector for every chunk that has none, in batches, with progress.

Chunks are re-written when their document changes; a chunk whose text (with its title and heading)
was embedded before gets that vector back by hash, so only text that is new pays for the model.
The model that made the vectors is recorded; another model (or other weights) re-embeds everything.
When the model cannot be loaded the index stays text-only and the run says so, once, as a warning.
"""

from __future__ import annotations

from ..store.base import Store

import hashlib

import numpy as np

BATCH = 64  # texts per model call: large enough to amortise, small enough for steady progress
READ = BATCH * 8  # chunks read per round trip


def embedding_input(title: str, heading: str, text: str) -> str:
    """What is embedded for a chunk: its document's title and its heading give it context."""
    head = " — ".join(part for part in (title, heading) if part)
    return f"{head}\n{text}" if head else text


def text_hash(model: str, text: str) -> str:
    return hashlib.blake2b(f"{model}\x1f{text}".encode(), digest_size=16).hexdigest()


def embed_stage(run) -> None:
    try:
        _embed(run)
    finally:  # search reads this instead of counting 100k rows per query to say what is missing
        missing = str(run.store.count_chunks_without_vectors())
        if run.store.get_meta("vectors_missing") != missing:  # a run that changed nothing writes nothing
            with run.store.transaction():
                run.store.set_meta("vectors_missing", missing)


def _embed(run) -> None:
    from ..errors import ConfigError, ModelError
    from ..model import Problem
    from . import load_embedder

    store, name = run.store, run.config.search.embedder
    if name == "none":
        return
    pending = store.count_chunks_without_vectors()
    if pending == 0 and store.get_meta("embed_embedder") == name:
        return  # nothing new, and the model has not changed: do not pay for loading it
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
    done = 0
    while True:
        rows = store.chunks_without_vectors(READ)
        if not rows:
            break
        with store.transaction():
            store.put_vectors(_vectors_for(store, embedder, model, rows))
        done += len(rows)
        run.progress("embed", min(done, pending), pending)
    with store.transaction():
        store.drop_unused_vectors()


def _vectors_for(store: Store, embedder, model: str, rows) -> list[tuple[int, str, bytes | None]]:
    texts = [embedding_input(title, heading, text) for _, title, heading, text in rows]
    hashes = [text_hash(model, t) for t in texts]
    known = store.known_vector_hashes(hashes)
    new: dict[str, str] = {}
    for h, t in zip(hashes, texts):
        if h not in known:
            new.setdefault(h, t)
    vectors: dict[str, bytes] = {}
    order = list(new)
    for start in range(0, len(order), BATCH):
        part = order[start:start + BATCH]
        matrix = np.asarray(embedder.embed([new[h] for h in part]), dtype=np.float32)
        vectors.update((h, matrix[i].tobytes()) for i, h in enumerate(part))
    return [(row[0], h, vectors.get(h)) for row, h in zip(rows, hashes)]

"""Embedding on its own: `kbg embed`, after `kbg index --embed later` or an interrupted embedding.

The same stages as the end of `kbg index` (embed, similar, finish), under the same index lock, so a
run of either waits for the other and nothing is embedded twice. It reads no note: what lacks a
vector is read from the index.
"""

from __future__ import annotations

import time
from pathlib import Path

from .. import clock
from ..config import load_config
from ..model import EmbedReport
from ..store.base import Store


def embed_vault(root: Path, progress=None, store: Store | None = None, lock_wait: float = 0.0) -> EmbedReport:
    """Give a vector to every section of the indexed vault at root that has none; saved a model call
    at a time, so an interrupted run loses at most that call and the next one resumes."""
    from ..locks import index_lock
    from .pipeline import IndexRun, Pipeline
    from ..store import open_store

    root = Path(root)
    _not_in_background(root)
    config = load_config(root)
    own_store = store is None
    store = store or open_store(root, create=False)
    try:
        with index_lock(root, lock_wait):
            run = IndexRun(root=root, config=config, store=store, only=set(),
                           progress=progress or (lambda *a: None))
            stages = dict(Pipeline.default().stages)
            Pipeline([("embed", stages["embed"]), ("similar", stages["similar"]),
                      ("finish", finish_embedding)]).run(run)
            missing = store.chunks_missing_vectors()
            model = store.embedding_model() if config.search.embedder != "none" else None
    finally:
        if own_store:
            store.close()
    return EmbedReport(embedded=run.embedded, vectors_missing=missing, model=model,
                       seconds=round(time.perf_counter() - run.started, 3), problems=tuple(run.problems))


def _not_in_background(root: Path) -> None:
    """Refuse while a background embedding runs: it is doing this already (and holds the lock for
    a round at a time, so a second embedding would only take turns with it)."""
    from ..embed.background import embed_status

    status = embed_status(root)
    if status.running:
        from ..errors import EmbeddingRunning

        raise EmbeddingRunning(f"an embedding is already running in the background (pid {status.pid}, "
                               f"{status.done:,} of {status.total:,} sections)",
                               hint="follow it with the embedding status, or let it finish")


EMBEDDINGS = "(embeddings)"  # the problem the embed stage reports when the model cannot be loaded


def finish_embedding(run) -> None:
    """Keep the model's problem (or clear it once embedding works), and give back freed space. Other
    problems are left as the last `kbg index` found them: this run read no note."""
    now = clock.now_iso()
    said = [p for p in run.problems if p.path == EMBEDDINGS]
    with run.store.transaction():
        run.store.record_problems(said, now, clear_paths=[] if said else [EMBEDDINGS])
    run.store.reclaim_space()

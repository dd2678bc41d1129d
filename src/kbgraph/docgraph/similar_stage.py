"""The similar stage, after embed: `references` by meaning between documents whose centroids are
within SIMILAR_THRESHOLD (cosine), both ways, each scored below 1.0.

Incremental: each document's vector print (a hash of its chunks' embedded-text hashes, in order)
is kept; only documents whose print changed are compared again, against every document, and their
old references by meaning (either end) are dropped first. A run where no vector changed costs one
meta read. Documents that are gone take their rows with them (foreign keys).
"""

from __future__ import annotations

from ..access import LOCAL
from ..store.base import DocFilter, Store

VERSION = "1"  # bump when what is computed changes: every document is compared again


def similar_stage(run) -> None:
    store = run.store
    model = store.embedding_model()
    if model is None:
        return
    state = f"{VERSION}:{model}:{store.get_meta('vectors_version') or '0'}"
    seen = store.get_meta("similar_seen")
    if seen == state and not run.full:
        return  # no vector changed since the last run
    prints = store.vector_prints()
    fresh = run.full or seen is None or not seen.startswith(f"{VERSION}:{model}:")
    saved = {} if fresh else store.saved_vector_prints()
    changed = sorted(d for d, p in prints.items() if saved.get(d) != p)
    gone = sorted(set(saved) - set(prints))
    with store.transaction():
        if fresh:
            store.delete_similar_references(None)
        elif changed or gone:
            store.delete_similar_references(changed + gone)
        if changed:
            store.add_doc_relations(_edges(store, changed))
        store.save_vector_prints({d: prints[d] for d in changed}, gone, replace_all=fresh)
        store.set_meta("similar_seen", state)
    run.progress("similar", len(changed), len(changed))


def _edges(store: Store, changed: list[int]) -> list:
    # numpy comes with these: imported only when some document's vectors changed.
    from ..embed.centroids import group_by_document
    from .similar import similar_references

    _, docs, matrix = store.vector_matrix(LOCAL, DocFilter())
    _, doc_ids, _, centroids = group_by_document(docs, matrix)
    every = {int(d): centroids[i] for i, d in enumerate(doc_ids)}
    sources = {d: every[d] for d in changed if d in every}
    edges = {}
    for edge in similar_references(sources, every):  # similarity is mutual: the row both ways
        for e in (edge, type(edge)(edge.target, edge.source, edge.type, edge.score, edge.evidence)):
            edges.setdefault((e.source, e.target), e)
    return sorted(edges.values(), key=lambda e: (e.source, e.target))

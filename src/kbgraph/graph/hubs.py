"""The entities the graph turns on: by degree (relations at either end), or by PageRank (importance
that flows along relations to their targets: people who are reported to, systems depended on)."""

from __future__ import annotations

import numpy as np

from ..access import Access
from ..errors import InvalidInput
from ..vocabulary import Vocabulary
from ..store.base import Store
from .cache import cache_for
from .view import GraphView, ReadPlan, all_edges, plan

MEASURES = ("degree", "pagerank")
_DAMPING = 0.85


def hubs(store: Store, vocab: Vocabulary, limit: int = 10, by: str = "degree", view: GraphView = GraphView(),
         *, access: Access) -> dict:
    """The limit most connected entities by the measure asked, each with its degree and score."""
    if by not in MEASURES:
        raise InvalidInput(f"`by` {by!r}: use one of {', '.join(MEASURES)}", param="by")
    if limit < 1:
        raise InvalidInput("`limit` must be at least 1", param="limit")
    read = plan(vocab, view)
    key = ("hubs", access, limit, by, read)
    return cache_for(store).get(store, key, lambda: _rank(store, vocab, limit, by, read, access))


def _rank(store: Store, vocab: Vocabulary, limit: int, by: str, read: ReadPlan, access: Access) -> dict:
    whole = by == "pagerank" or read.as_of or read.scope.include_inferred
    edges = _edges(store, read, access) if whole else None
    if edges is None:
        degrees = dict(store.relation_degrees(access, read.scope, limit))
        scores = {entity_id: float(n) for entity_id, n in degrees.items()}
    else:
        nodes, pairs = _indexed(edges)
        degrees = dict(zip(nodes.tolist(), np.bincount(pairs.ravel(), minlength=len(nodes)).tolist()))
        scores = (_pagerank(nodes, pairs, edges, vocab) if by == "pagerank"
                  else {k: float(v) for k, v in degrees.items()})
    top = sorted(scores, key=lambda entity_id: (-scores[entity_id], entity_id))[:limit]
    entities = store.entities_by_ids(access, top)
    rows = [{"id": entity_id, "name": entities[entity_id].name, "type": entities[entity_id].type,
             "degree": degrees.get(entity_id, 0), "score": round(scores[entity_id], 6)}
            for entity_id in top if entity_id in entities]
    return {"by": by, "hubs": rows, "count": len(rows), "types": list(read.scope.types), "as_of": read.as_of}


def _edges(store: Store, read: ReadPlan, access: Access) -> list[tuple[int, int, str]]:
    return [(source, target, kind) for source, target, _id, kind, _inferred in all_edges(store, access, read)]


def _indexed(edges: list[tuple[int, int, str]]) -> tuple[np.ndarray, np.ndarray]:
    """The entity ids that edges touch (sorted), and each edge as a pair of indexes into them."""
    if not edges:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 2), dtype=np.int64)
    ends = np.array([(s, t) for s, t, _ in edges], dtype=np.int64)
    nodes, flat = np.unique(ends.ravel(), return_inverse=True)
    return nodes, flat.reshape(-1, 2)


def _pagerank(nodes: np.ndarray, pairs: np.ndarray, edges: list[tuple[int, int, str]],
              vocab: Vocabulary) -> dict[int, float]:
    """PageRank by power iteration (damping 0.85; a node with no way out spreads its rank evenly).
    A symmetric relation flows both ways. Arrays throughout: a million edges in about a second."""
    if not len(nodes):
        return {}
    symmetric = vocab.symmetric_names()
    both = np.fromiter((kind in symmetric for _, _, kind in edges), dtype=bool, count=len(edges))
    src = np.concatenate([pairs[:, 0], pairs[both, 1]])
    dst = np.concatenate([pairs[:, 1], pairs[both, 0]])
    count = len(nodes)
    out_degree = np.bincount(src, minlength=count).astype(np.float64)
    rank = np.full(count, 1.0 / count)
    for _ in range(100):
        share = np.divide(rank, out_degree, out=np.zeros(count), where=out_degree > 0)
        flowed = np.bincount(dst, weights=share[src], minlength=count)
        dangling = rank[out_degree == 0].sum()
        new = (1 - _DAMPING) / count + _DAMPING * (flowed + dangling / count)
        done = np.abs(new - rank).sum() < 1e-10
        rank = new
        if done:
            break
    return dict(zip(nodes.tolist(), rank.tolist()))

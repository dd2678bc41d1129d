"""Reciprocal rank fusion and the boosts after it: pure functions over ranked document ids.

score(d) = sum over signals s of  w_s * g_s(d) / (k + rank_s(d))
where g_s(d) is 1, except for the graph signal with a pinned entity: d's distance decay there;
then the boosts multiply it: the entity tier of what the document mentions, and optional recency.
"""

from __future__ import annotations

import math
from datetime import date

from ..config import Config
from ..model import SignalExplain

FORMULA = ("rrf-2: sum w*g/(k+rank) over document bm25, document vectors, graph ties (g: decay if pinned,"
           " else 1), x tier, x recency")
PASSAGE_FORMULA = ("rrf-3/passage: sum w*g/(k+rank) over section bm25, section vectors, section graph ties (g: the"
                   " section's document's decay if pinned, else 1), x tier, x recency, + 0.5 x the best adjacent"
                   " section's score (neighbour)")
NEIGHBOUR_SHARE = 0.5  # of the better adjacent section's score a section gets (LoCoMo dev, bench/RESULTS.md)


def fusion_k(config: Config, unit: str) -> int:
    """The k of reciprocal rank fusion: `rrf_k` for documents, `passage_rrf_k` for passages. Sections are many
    and short, and on real dialogue the answering turn is often first in one signal and absent from the other:
    with k = 60 a middling rank in both outvoted it (LoCoMo dev, bm25 + vectors: k 60 61.8, k 20 64.0, k 10 66.4,
    k 5 66.7 recall@10; bench/RESULTS.md, dialogue recall)."""
    return config.search.passage_rrf_k if unit == "passage" else config.search.rrf_k


def rrf(rankings: dict[str, list[tuple[int, float]]], weights: dict[str, float], k: int,
        graph_weight: dict[int, float]) -> dict[int, tuple[float, tuple[tuple[str, int, float, float], ...]]]:
    """doc id -> (fused score, each signal's (name, rank, own score, contribution)). Plain tuples:
    a pinned entity can put 5,000 documents in the graph ranking, and only the hits shown are
    explained (explain_signals)."""
    fused: dict[int, list[tuple[str, int, float, float]]] = {}
    for signal, ranked in rankings.items():
        weight = weights.get(signal, 0.0)
        graph = signal == "graph"
        for rank, (doc_id, score) in enumerate(ranked, 1):
            factor = graph_weight.get(doc_id, 0.0) if graph else 1.0
            fused.setdefault(doc_id, []).append((signal, rank, score, weight * factor / (k + rank)))
    return {doc_id: (sum(s[3] for s in signals), tuple(signals)) for doc_id, signals in fused.items()}


def explain_signals(signals: tuple[tuple[str, int, float, float], ...]) -> tuple[SignalExplain, ...]:
    return tuple(SignalExplain(name, rank, round(score, 6), contribution)
                 for name, rank, score, contribution in signals)


def neighbour_scores(scores: dict[int, float], doc_of: dict[int, int]) -> dict[int, float]:
    """Section id -> NEIGHBOUR_SHARE x the better score of the sections just before and after it in its document,
    among those scored (0: neither was). A turn is read with the turns around it: the answer to "what did
    Caroline research?" is often the reply to the turn that names it, and a question's words are spread over
    an exchange (LoCoMo dev passage recall@10: share 0 66.4, 0.2 69.5, 0.5 71.5, 1.0 70.1). A document's
    sections are numbered in reading order (both stores insert them so), and a neighbour must be of the same
    document."""
    out = {}
    for key, doc_id in doc_of.items():
        near = [scores[n] for n in (key - 1, key + 1) if n in scores and doc_of.get(n) == doc_id]
        out[key] = NEIGHBOUR_SHARE * max(near, default=0.0)
    return out


def tier_boost(tier: int, per_tier: float) -> float:
    """1 + per_tier for each tier above 1 (tiers come from mention counts: 1, 2 at 5+, 3 at 15+)."""
    return 1.0 + per_tier * max(0, tier - 1)


def recency_boost(doc_date: str | None, half_life_days: float, today: date | None = None) -> float:
    """0.5 ** (age / half-life); 1.0 when off or when the document has no date."""
    if half_life_days <= 0 or not doc_date:
        return 1.0
    try:
        age = ((today or date.today()) - date.fromisoformat(doc_date[:10])).days
    except ValueError:
        return 1.0
    return math.pow(0.5, max(age, 0) / half_life_days)

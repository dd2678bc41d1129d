"""Widening a hit to its whole passage: a section that indexing split into several chunks is
followed along the document graph's chunk-to-chunk `continues` edges, both ways, so a reader (or an
agent's context) gets the section whole, not the piece that matched."""

from __future__ import annotations

from dataclasses import replace

from ..access import Access
from ..model import Passage, SearchHit
from ..store.base import DocFilter, Store

MAX_PASSAGE_CHUNKS = 20  # a runaway section (a log pasted whole) is cut, not returned entire


def widen(store: Store, hits: tuple[SearchHit, ...], access: Access) -> tuple[SearchHit, ...]:
    """The hits, each with its passage: its chunk and the chunks of the same split section (the hits'
    own documents, which the access has read already)."""
    if not hits:
        return hits
    after: dict[int, int] = {}
    before: dict[int, int] = {}
    for first, second in store.chunk_continuations(sorted({h.doc_id for h in hits})):
        after[first], before[second] = second, first
    chains = {h.chunk_id: _chain(h.chunk_id, before, after) for h in hits}
    wanted = sorted({c for chain in chains.values() for c in chain})
    texts = store.chunk_texts(wanted)
    lines = {c: row["line"] for c, row in store.chunk_rows(access, [chain[0] for chain in chains.values()],
                                                              DocFilter()).items()}
    out = []
    for hit in hits:
        chain = chains[hit.chunk_id]
        text = "\n\n".join(texts.get(c, "").strip() for c in chain)
        out.append(replace(hit, passage=Passage(tuple(chain), lines.get(chain[0], hit.line), text)))
    return tuple(out)


def _chain(chunk_id: int, before: dict[int, int], after: dict[int, int]) -> list[int]:
    chain = [chunk_id]
    while chain[0] in before and len(chain) < MAX_PASSAGE_CHUNKS and before[chain[0]] not in chain:
        chain.insert(0, before[chain[0]])
    while chain[-1] in after and len(chain) < MAX_PASSAGE_CHUNKS and after[chain[-1]] not in chain:
        chain.append(after[chain[-1]])
    return chain


"""The document graph: how documents and their chunks relate.

- references: a document links to another (wikilink or markdown link, score 1.0) or writes out its
  title or file name (0.6); by meaning, from embeddings, only above a high threshold (below 1.0).
- continues: a section split across chunks, chunk to next chunk (1.0); a dated series of notes,
  note to the next one (0.9).
- duplicate-of: a copy to its original: identical text (1.0) or a near-duplicate (SimHash
  similarity, below 1.0).
- parent, sibling: a document's place among folders, derived from paths when read.

Indexing computes and stores the first three in the `relate` stage (docgraph.stage), except
references by meaning, which need vectors: the `similar` stage after `embed` (similar_stage.py).
doc_relations() reads them with the derived ones.
"""

from typing import TYPE_CHECKING

from .edges import RELATION_TYPES, STORED_TYPES, Edge

if TYPE_CHECKING:
    from .read import DocRelation, doc_relations
    from .similar import similar_references

__all__ = ["RELATION_TYPES", "STORED_TYPES", "DocRelation", "Edge", "doc_relations", "similar_references"]

# Imported on first use: the index stages import this package on every run, and .similar brings
# numpy (~0.1-0.3 s) that a run with nothing to relate or compare never needs.
_LAZY = {"DocRelation": ".read", "doc_relations": ".read", "similar_references": ".similar"}


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

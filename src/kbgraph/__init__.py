"""kbgraph: a local-first knowledge graph for the markdown notes you already keep."""

__version__ = "0.1.0"

"""Search: a user's query, its signals (keyword, vector, graph), their fusion, and why a document
is or is not a result."""

from .engine import MODES, search
from .query import MAX_QUERY_CHARS, MAX_TERMS, parse_query

__all__ = ["MAX_QUERY_CHARS", "MAX_TERMS", "MODES", "parse_query", "search"]

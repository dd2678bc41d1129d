"""Rows for contract tests, written only through the Store protocol."""

from __future__ import annotations

from kbgraph.entities.sync import sync_entities
from kbgraph.model import Chunk, EntityRecord, ParsedDocument
from kbgraph.store.base import Store

NOW = "2026-03-01T09:00:00+00:00"


def document(store: Store, path: str, text: str = "some words", owner: str | None = None,
             visibility: str = "private", sensitivity: str = "normal") -> int:
    chunk = Chunk(key=f"{path}#0", ordinal=0, heading_path=("Notes",), start=0, end=len(text), line=1, text=text)
    parsed = ParsedDocument(
        path=path, title=path.rsplit("/", 1)[-1], kind="note", date="2026-01-15", frontmatter={}, tags=(),
        content_hash=f"hash-{path}", size=len(text), mtime=1.0, body_offset=0, chunks=(chunk,), links=(),
        entities=(), owner=owner, visibility=visibility, sensitivity=sensitivity)
    with store.transaction():
        return store.write_document(parsed, None)


def entities(store: Store, names: list[tuple[str, str]], now: str = NOW) -> dict[str, int]:
    """(type, name) pairs -> {name: id}, through the library's own entity sync."""
    records = [EntityRecord(key=f"{t}:{n.lower()}", type=t, name=n, aliases=(), page_doc_id=None,
                            forms=((n, "name"),), attributes={}) for t, n in names]
    with store.transaction():
        ids = sync_entities(store, records, now)
    return {n: ids[f"{t}:{n.lower()}"] for t, n in names}


def relation(store: Store, source: int, target: int, type_name: str, now: str = NOW, **fields) -> dict:
    with store.transaction():
        return store.upsert_relation({"source_id": source, "target_id": target, "type": type_name, **fields}, now,
                                     bump=False)

"""Notes with several sections, headings, links and governance, for the text, vector and document-graph
contract tests; written only through the Store protocol (write_document)."""

from __future__ import annotations

from kbgraph.model import Chunk, Link, ParsedDocument
from kbgraph.store.base import Store


def note(store: Store, path: str, *sections: tuple[tuple[str, ...], str], title: str | None = None,
         kind: str = "note", date: str | None = "2026-01-15", tags: tuple[str, ...] = (),
         links: tuple[tuple[str, str], ...] = (), doc_id: int | None = None, owner: str | None = None,
         visibility: str = "private", sensitivity: str = "normal") -> int:
    """A document of sections (heading path, text), one chunk each; links: (kind, target)."""
    chunks, at = [], 0
    for ordinal, (heading_path, text) in enumerate(sections):
        chunks.append(Chunk(key=f"{path}#{ordinal}", ordinal=ordinal, heading_path=heading_path, start=at,
                            end=at + len(text), line=1 + 2 * ordinal, text=text))
        at += len(text) + 1
    parsed = ParsedDocument(
        path=path, title=title if title is not None else path.rsplit("/", 1)[-1].removesuffix(".md"), kind=kind,
        date=date, frontmatter={}, tags=tags, content_hash=f"hash-{path}-{at}", size=at, mtime=1.0 + at,
        body_offset=0, chunks=tuple(chunks),
        links=tuple(Link(target, None, 10 * i, 10 * i + 5, kind_) for i, (kind_, target) in enumerate(links)),
        entities=(), owner=owner, visibility=visibility, sensitivity=sensitivity)
    with store.transaction():
        return store.write_document(parsed, doc_id)


def body(text: str) -> tuple[tuple[str, ...], str]:
    """One section under a neutral heading."""
    return (("Notes",), text)

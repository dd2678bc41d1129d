"""Documents and entities with the fields the core contract tests look at (frontmatter, tags, links,
claims, page relation lines, names), written only through the Store protocol."""

from __future__ import annotations

from kbgraph.model import Chunk, EntityDecl, EntityRecord, Link, PageRelationLine, ParsedDocument
from kbgraph.store.base import EntityName, EntitySync, Store

NOW = "2026-03-01T09:00:00+00:00"


def parsed(path: str, *texts: str, title: str = "Title", kind: str = "note", date: str | None = "2026-01-15",
           frontmatter: dict | None = None, tags: tuple[str, ...] = (), links: tuple[Link, ...] = (),
           claims: tuple[EntityDecl, ...] = (), lines: tuple[PageRelationLine, ...] = (),
           heading: tuple[str, ...] = ("Notes",), visibility: str = "private") -> ParsedDocument:
    """A document of one chunk per text, each under heading."""
    chunks, at = [], 0
    for ordinal, text in enumerate(texts):
        chunks.append(Chunk(key=f"{path}#{ordinal}", ordinal=ordinal, heading_path=heading, start=at,
                            end=at + len(text), line=1 + ordinal, text=text))
        at += len(text) + 1
    return ParsedDocument(
        path=path, title=title, kind=kind, date=date, frontmatter=frontmatter or {}, tags=tags,
        content_hash=f"hash-{path}-{at}", size=at, mtime=2.5, body_offset=0, chunks=tuple(chunks), links=links,
        entities=claims, relation_lines=lines, visibility=visibility)


def write(store: Store, doc: ParsedDocument, doc_id: int | None = None) -> int:
    with store.transaction():
        return store.write_document(doc, doc_id)


def sync(store: Store, *people: tuple[str, tuple[str, ...]], page_docs: dict[str, int] | None = None,
         entity_type: str = "person") -> EntitySync:
    """Entities (name, aliases) of one type, with their names, aliases and first names as lookup keys."""
    records, names = [], []
    for name, aliases in people:
        key = f"{entity_type}:{name.lower()}"
        page = (page_docs or {}).get(name)
        records.append(EntityRecord(key=key, type=entity_type, name=name, aliases=aliases, page_doc_id=page,
                                    forms=((name, "name"),), attributes={"team": "core"},
                                    page_docs=(page,) if page else ()))
        names.append(EntityName(key, name, "name", name.lower(), name.lower().replace(" ", "")))
        names += [EntityName(key, alias, "alias", alias.lower(), alias.lower().replace(" ", "")) for alias in aliases]
        first = name.split()[0]
        if first != name:
            names.append(EntityName(key, first, "first-name", first.lower(), first.lower()))
    with store.transaction():
        return store.sync_entities(records, names, NOW)

"""Reading a document's relations: the stored ones (both directions) and the ones derived from its path."""

from __future__ import annotations

from dataclasses import dataclass

from ..access import Access
from ..documents.views import resolve_target
from ..errors import InvalidInput
from .edges import PARENT_SCORE, RELATION_TYPES, SIBLING_SCORE, STORED_TYPES
from .structure import folder_of, index_candidates
from ..store.base import DocFilter, Store

INDEX_EXTENSIONS = (".md", ".markdown")


@dataclass(frozen=True)
class DocRelation:
    """One relation of a document, seen from that document."""

    type: str
    direction: str  # "out": this document -> other; "in": other -> this document; "both": symmetric (sibling)
    score: float  # 0..1, higher is stronger
    path: str  # the other end: a document, or a folder ("meetings/2026/") that has no index note
    title: str | None  # None for a folder
    doc_id: int | None  # None for a folder
    line: int | None  # the line of this document's chunk, for a relation between chunks
    other_line: int | None  # the line of the other end's chunk
    evidence: str
    derived: bool  # computed from paths when read (parent, sibling), not stored by indexing


def doc_relations(store: Store, path: str, type: str | None = None, *,  # noqa: A002
                  access: Access) -> list[DocRelation]:
    """Every relation of the document at path (or `12` / `#12`, a document id) the access may read, best first.

    Outgoing (direction "out") and incoming ("in") stored relations, parents (out) and, for an index
    note, its children (in), and siblings ("both"). Stored rows of a type this version does not know
    are skipped. type: only that type (InvalidInput for an unknown one). A reader who may not read every
    row sees neither the documents it may not read nor the folders below this one (whose names would tell
    it that such documents exist).
    """
    return relations_of(store, path, type, access=access)[1]


def relations_of(store: Store, target: str, type_name: str | None = None, *,
                 access: Access) -> tuple[dict, list[DocRelation]]:
    """(the document, its relations): doc_relations with the document it resolved."""
    if type_name is not None and type_name not in RELATION_TYPES:
        raise InvalidInput(f"unknown relation type {type_name!r}; use one of: {', '.join(RELATION_TYPES)}")
    doc, line = resolve_target(store, target, access)
    if line is not None:
        raise InvalidInput(f"{target!r}: give the document without a line (relations are listed per document)")
    wanted = RELATION_TYPES if type_name is None else (type_name,)
    out: list[DocRelation] = []
    if any(t in STORED_TYPES for t in wanted):
        out += [_stored(row) for row in store.stored_doc_relations(doc["id"], type_name)
                if row["type"] in RELATION_TYPES]
    if "parent" in wanted or "sibling" in wanted:
        out += [r for r in _by_path(store, doc) if r.type in wanted]
    if not access.sees_everything:
        out = _readable(store, access, out)
    order = {t: i for i, t in enumerate((*RELATION_TYPES, "out", "in", "both"))}
    out.sort(key=lambda r: (-r.score, order[r.type], order[r.direction], r.path, r.line or 0, r.other_line or 0))
    return doc, out


def _readable(store: Store, access: Access, relations: list[DocRelation]) -> list[DocRelation]:
    """The relations whose other end the access may read: a document it may read, or a folder above."""
    readable = store.docs_passing(access, [r.doc_id for r in relations if r.doc_id is not None], DocFilter())
    return [r for r in relations if r.doc_id in readable or (r.doc_id is None and r.direction == "out")]


def _stored(row: dict) -> DocRelation:
    return DocRelation(row["type"], row["direction"], row["score"], row["path"], row["title"], row["doc_id"],
                       row["line"], row["other_line"], row["evidence"], False)


def _by_path(store: Store, doc: dict) -> list[DocRelation]:
    """Parents (each folder above, as its index note or a folder pseudo-node), an index note's children,
    and siblings. See docgraph.structure for the rules."""
    path = doc["path"]
    own = folder_of(path)
    chain = [own]
    while chain[-1]:
        chain.append(folder_of(chain[-1]))
    notes = _index_notes(store, chain)
    stands_for_own = notes.get(own, (None,))[0] == path  # an index note stands for its folder
    out = []
    for level, folder in enumerate(chain[1:] if stands_for_own else chain):
        if folder or folder in notes:  # the vault root only through its index note
            out.append(_folder_end("parent", "out", PARENT_SCORE / 2 ** level, folder, notes.get(folder),
                                   "folder above"))
    if stands_for_own:
        out += _children(store, own, path)
    else:
        skip = {path, notes.get(own, (None,))[0]}
        out += [DocRelation("sibling", "both", SIBLING_SCORE, p, title, i, None, None, f"same folder {own or '(root)'}",
                            True) for i, p, title in store.docs_in_folder(own) if p not in skip]
    return out


def _children(store: Store, folder: str, note_path: str) -> list[DocRelation]:
    """What the index note of folder stands above: its documents and its subfolders."""
    out = [DocRelation("parent", "in", PARENT_SCORE, p, title, i, None, None, "in the folder this note indexes", True)
           for i, p, title in store.docs_in_folder(folder) if p != note_path]
    subfolders = store.subfolders(folder)
    notes = _index_notes(store, subfolders)
    for sub in subfolders:
        out.append(_folder_end("parent", "in", PARENT_SCORE, sub, notes.get(sub), "a folder this note indexes"))
    return out


def _folder_end(type_name: str, direction: str, score: float, folder: str, note, why: str) -> DocRelation:
    """A relation to folder: to its index note (path, id, title) when it has one, else to the folder itself."""
    if note is not None:
        note_path, doc_id, title = note
        return DocRelation(type_name, direction, score, note_path, title, doc_id, None, None,
                           f"{why}: index note of {folder or 'the vault'}", True)
    return DocRelation(type_name, direction, score, folder + "/", None, None, None, None, f"{why}: no index note", True)


def _index_notes(store: Store, folders: list[str]) -> dict[str, tuple[str, int, str]]:
    """folder -> (path, id, title) of its index note, for the folders that have one."""
    candidates = {f: index_candidates(f, INDEX_EXTENSIONS) for f in folders}
    found = store.docs_at_paths([p for paths in candidates.values() for p in paths])
    out = {}
    for folder, paths in candidates.items():
        note = next((p for p in paths if p in found), None)
        if note is not None:
            out[folder] = (note, *found[note])
    return out

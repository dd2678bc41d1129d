"""Correcting mentions by hand: take back a false one, give it back, and promote an unlinked one to a link.

`unlink` and `relink` are decisions kept in the index (by entity key and document path, so they
survive `kbg index --full` and travel in exports); `link` edits the note itself, wrapping the first
unlinked mention in a [[wikilink]] and changing nothing else.
"""

from __future__ import annotations


from ..errors import InvalidInput, NotFound
from ..entities.lookup import find_entity, key_of
from ..pages.files import edit_page, page_text, write_lock
from ..base.vault import shown_path
from ..relations.records import now_iso
from ..store.base import DocFilter
from ..base.workspace import Workspace


def unlink(ws: Workspace, entity_name: str, doc_path: str) -> dict:
    """ENTITY is not what DOC's text means: its text mentions there are dropped, now and on every re-index."""
    entity, doc = _entity_and_doc(ws, entity_name, doc_path)
    store = ws.store
    with store.transaction():
        added = store.add_unlink(key_of(store, entity), entity.name, doc["path"], now_iso())
        store.mark_for_rescan([doc["id"]])
    ws.refresh()
    return {"entity": entity.name, "path": doc["path"], "unlinked": True, "changed": added}


def relink(ws: Workspace, entity_name: str, doc_path: str) -> dict:
    """Undo `unlink`: DOC's text may mention ENTITY again. Not unlinked (any more) is no error: a run
    killed before its re-index removed the unlink already, and running it again re-indexes."""
    entity, doc = _entity_and_doc(ws, entity_name, doc_path)
    store = ws.store
    with store.transaction():
        removed = store.remove_unlink(key_of(store, entity), doc["path"])
        store.mark_for_rescan([doc["id"]])
    ws.refresh()
    return {"entity": entity.name, "path": doc["path"], "unlinked": False, "changed": removed}


def unlinked_mentions(ws: Workspace, entity_name: str | None = None, limit: int | None = 100) -> list[dict]:
    """Documents whose text names an entity they never link, with the first such mention."""
    entity = find_entity(ws.store, entity_name, access=ws.access) if entity_name else None
    return ws.store.unlinked_mentions(ws.access, entity.id if entity else None, limit)


def link(ws: Workspace, entity_name: str, doc_path: str) -> dict:
    """Wrap the first unlinked mention of ENTITY in DOC in a [[wikilink]] (`[[Name|as written]]` when
    the text spells it differently). Redoable: a note changed since it was indexed (edited, or a link
    killed between its page edit and the re-read) is read again first; a note that links ENTITY
    already answers so (`"changed": false`) rather than refusing."""
    entity, doc = _entity_and_doc(ws, entity_name, doc_path)
    path = doc["path"]
    row = _first_unlinked(ws, entity.id, path)
    if row is None or not _still_written(ws, path, row):
        ws.reread({path})
        row = _first_unlinked(ws, entity.id, path)
    if row is None:
        if _links(ws, entity.id, doc["id"]):
            return {"entity": entity.name, "path": path, "surface": None, "link": None, "remaining": 0,
                    "changed": False}
        raise NotFound(f"{path} has no unlinked mention of {entity.name!r}",
                       hint=f"list the unlinked mentions of {entity.name!r}")
    surface = row["surface"]
    link_text = f"[[{entity.name}]]" if surface == entity.name else f"[[{entity.name}|{surface}]]"

    def wrap(text: str, _body_offset: int) -> str:
        start = row["start"]  # mention offsets count from the top of the file, frontmatter included
        if text[start:start + len(surface)] != surface:  # changed between the check above and the lock
            raise InvalidInput(f"{path} changed while it was being linked; nothing was written",
                               hint="try again")
        return text[:start] + link_text + text[start + len(surface):]

    with write_lock(ws.root):
        edit_page(ws.root, path, wrap)
    ws.reread({path})
    return {"entity": entity.name, "path": path, "surface": surface, "link": link_text,
            "remaining": max(0, row["count"] - 1), "changed": True}


def _first_unlinked(ws: Workspace, entity_id: int, path: str) -> dict | None:
    return next((r for r in ws.store.unlinked_mentions(ws.access, entity_id) if r["path"] == path), None)


def _still_written(ws: Workspace, path: str, row: dict) -> bool:
    """Whether the note on disk still has the mention where the index says it is. A note kbgraph may
    not edit (outside the vault through a symlink, not UTF-8, gone) raises its error here."""
    text = page_text(ws.root, path)
    return text[row["start"]:row["start"] + len(row["surface"])] == row["surface"]


def _links(ws: Workspace, entity_id: int, doc_id: int) -> bool:
    """Whether the document names ENTITY and links it (it is not the entity's own page)."""
    rows = [r for r in ws.store.docs_mentioning(ws.access, [entity_id], DocFilter()) if r[0] == doc_id]
    return bool(rows) and not any(is_page for *_, is_page in rows)


def _entity_and_doc(ws: Workspace, entity_name: str, doc_path: str):
    entity = find_entity(ws.store, entity_name, access=ws.access)
    if shown_path(doc_path) != doc_path:  # bytes that are not UTF-8: the walk never indexes such a name
        raise NotFound(f"'{shown_path(doc_path)}' is not in the index: its name is not valid UTF-8",
                       param="doc_path", hint="rename the file and index the vault")
    doc = ws.store.get_document(ws.access, path=doc_path.removeprefix("./"))
    if doc is None:
        raise NotFound(f"{doc_path!r} is not in the index", param="doc_path", hint="give a vault-relative path")
    return entity, doc

"""Reading documents back: resolving a view target, listing with filters, entity timelines and profiles."""

from __future__ import annotations

import re
from pathlib import Path

from ..access import Access
from ..errors import InvalidInput, NotFound
from ..base.vault import read_in_vault, shown_path
from ..model import Entity, as_dict
from ..store.base import DocFilter, Store

_TARGET_LINE = re.compile(r"^(.*):(\d+)$")


def resolve_target(store: Store, target: str, access: Access) -> tuple[dict, int | None]:
    """A document from a path, `path:LINE`, or a document id (`12` or `#12`); and the line, if given."""
    target = (target or "").strip()
    if not target:
        raise InvalidInput("no target: give a path, path:LINE, or a document id")
    if shown_path(target) != target:  # bytes that are not UTF-8: no indexed path has them (the walk refuses them)
        raise NotFound(f"'{shown_path(target)}' is not in the index: its name is not valid UTF-8", param="target",
                       hint="rename the file, index the vault, and give the new name")
    if re.fullmatch(r"#?\d{1,18}", target):
        doc = store.get_document(access, doc_id=int(target.lstrip("#")))
        if doc is None:
            doc = store.get_document(access, path=target)
        if doc is None:
            raise NotFound(f"no document with id {target}", param="target", hint="list the documents to see their ids")
        return doc, None
    line = None
    path = target
    match = _TARGET_LINE.match(target)
    if match and store.get_document(access, path=target) is None:
        path, line = match.group(1), int(match.group(2))
    path = path.removeprefix("./")
    doc = store.get_document(access, path=path)
    if doc is None:
        raise NotFound(f"{path!r} is not in the index", param="target",
                       hint="check the path (relative to the vault) or index the vault")
    return doc, line


def view_document(root: Path, store: Store, target: str, access: Access) -> dict:
    """The document's metadata and text; with a line, the chunk that holds it."""
    doc, line = resolve_target(store, target, access)
    chunks = store.document_chunks(access, doc["id"])
    text, stale = _current_text(root, doc)
    result = {"document": doc, "line": line, "stale": stale}
    if line is not None:
        if line < 1:
            raise InvalidInput(f"line numbers start at 1, got {line}")
        chunk = next((c for c in reversed(chunks) if c["line"] <= line), chunks[0] if chunks else None)
        result["chunk"] = chunk
        lines = text.splitlines()
        if line > max(len(lines), 1):
            raise InvalidInput(f"{doc['path']} has {len(lines)} lines; line {line} is past the end")
        result["text"] = chunk["text"] if chunk else ""
    else:
        result["text"] = text
    result["chunks"] = [{k: c[k] for k in ("id", "ordinal", "heading", "line")} for c in chunks]
    return result


def _current_text(root: Path, doc: dict) -> tuple[str, bool]:
    """The file's text now, and whether it changed since indexing (then the index may lag).

    Read where the file really is now: a note replaced by a link out of the vault is refused
    (OutsideVault), never printed; one gone or unreadable reads as empty and stale.
    """
    import hashlib

    try:
        data, _, _ = read_in_vault(root, doc["path"])
    except OSError:
        return "", True
    stale = hashlib.blake2b(data, digest_size=16).hexdigest() != doc["content_hash"]
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n"), stale


def list_documents(store: Store, flt: DocFilter, limit: int | None = None, *, access: Access) -> list[dict]:
    return store.list_documents(access, flt, limit)


def timeline(store: Store, entity: Entity, limit: int | None = None, *, access: Access) -> list[dict]:
    """Documents that mention the entity, oldest first (undated ones last)."""
    return store.entity_documents(access, entity.id, limit)


CONNECTED_HOPS = 2
CONNECTED_NAMES = 12  # names listed per entity type in "connected"; the count says how many in all


def profile(store: Store, entity: Entity, vocabulary=None, recent: int = 10, *, access: Access,
            as_of: str | None = None) -> dict:
    """What kbgraph knows of an entity: its record, relations (as of a date, if given), everything
    connected to it within two hops, and where it is mentioned."""
    from ..graph.neighbours import neighbours
    from ..graph.view import GraphView
    from ..relations.history import relations_as_of
    from ..relations.records import grouped_by_reading, relation_summary
    from ..vocabulary import Vocabulary

    vocab = vocabulary or Vocabulary()
    docs = store.entity_documents(access, entity.id)
    dated = [d for d in docs if d["date"]]
    if as_of:
        then = relations_as_of(store, vocab, entity, as_of, access=access)
        relations = grouped_by_reading((item["read_as"], item["other"])
                                       for item in then["relations"] + then["inverse_relations"])
    else:
        relations = relation_summary(store, vocab, entity, access=access)
    reach = neighbours(store, vocab, entity, depth=CONNECTED_HOPS, view=GraphView(as_of=as_of), access=access)
    connected: dict[str, list[str]] = {}
    for level in reach["levels"]:
        for item in level["entities"]:
            connected.setdefault(item["type"], []).append(item["name"])
    return {
        "entity": as_dict(entity),
        # Names the user confirmed for it in some notes (`kbg resolve confirm`): a lookup finds it by them.
        "confirmed_names": store.entity_surfaces(entity.id, "confirmed"),
        "as_of": then["as_of"] if as_of else None,
        "relations": relations,
        "connected": {"hops": CONNECTED_HOPS, "count": reach["count"],
                      "by_type": {kind: names[:CONNECTED_NAMES] for kind, names in sorted(connected.items())}},
        "documents": len(docs),
        "pages": _pages(store, entity, access),
        "first_seen": dated[0]["date"] if dated else None,
        "last_seen": dated[-1]["date"] if dated else None,
        "recent_documents": sorted(docs, key=lambda d: (d["date"] or "", d["path"]), reverse=True)[:recent],
    }


def _pages(store: Store, entity: Entity, access: Access) -> list[str]:
    """Every page of the entity the reader may see: its own first, then those linked to it by `same_as:`."""
    return sorted(store.entity_page_paths(access, entity.id), key=lambda path: path != entity.page_path)


def parse_date_option(value: str | None, param: str, end: bool = False) -> str | None:
    """YYYY, YYYY-MM or YYYY-MM-DD -> an inclusive ISO date bound; errors name `param`."""
    if value is None:
        return None
    import calendar
    import datetime as dt

    match = re.fullmatch(r"(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?", value.strip())
    if not match:
        raise InvalidInput(f"`{param}` {value!r}: use YYYY-MM-DD (or YYYY-MM, YYYY)", param=param)
    year, month, day = match.group(1), match.group(2), match.group(3)
    try:
        y = int(year)
        m = int(month) if month else (12 if end else 1)
        d = int(day) if day else (calendar.monthrange(y, m)[1] if end else 1)
        return dt.date(y, m, d).isoformat()
    except ValueError:
        raise InvalidInput(f"`{param}` {value!r} is not a real date", param=param) from None

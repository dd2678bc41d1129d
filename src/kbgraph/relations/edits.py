"""Asserting and retracting relations: `kbg entity relate` / `unrelate` as library calls.

Order of writes, for durability: the page line first (the file is the relation's
home), then the database row, then a re-index of that one page. A crash after
the first step loses nothing: the next index reads the line back.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..access import LOCAL
from ..errors import InvalidInput, NotFound, StoreError
from ..entities.lookup import find_entity
from ..model import Entity
from ..pages.files import create_entity_page, edit_page, write_lock
from ..pages.relation_lines import format_line, remove_lines, safe_target, upsert_line
from .conflicts import LOOP_KINDS, Conflict, find_conflicts, find_loops, loop_note, record
from .records import (canonical, display_line_type, line_matcher, now_iso, parse_valid_until, stamp_after, today_iso,
                      view_row)
from ..store.base import Store
from ..base.workspace import Workspace


def relate(
    ws: Workspace,
    source_name: str,
    type_name: str,
    target_name: str,
    reason: str | None = None,
    source_doc: str | None = None,
    valid_until: str | None = None,
    create_type: str | None = None,
    since: str | None = None,
    context: str | None = None,
) -> dict:
    """Create (or re-assert) source --type--> target; returns the relation as seen from the source,
    with the contradictions it made (a second manager at once, a second lead) and how each ended."""
    store, vocab = ws.store, ws.config.vocabulary
    normal = vocab.normalise(type_name)
    reason = " ".join(reason.split()) if reason else None
    if normal.type.requires_reason and not reason:
        raise InvalidInput(f"{normal.type.name} relations need `reason`: it is their label", param="reason")
    until = parse_valid_until(valid_until)
    began = parse_valid_until(since) if since is not None else None
    context = " ".join(context.split()) or None if context else None
    source = find_entity(store, source_name, access=ws.access)
    evidence = _source_doc(ws, source_doc)
    target = _target(ws, target_name, create_type, lambda t: canonical(vocab, source, type_name, t))
    return relate_entities(ws, source, type_name, target, reason, evidence, until, valid_until is not None,
                           since=began, context=context)


def relate_entities(ws: Workspace, source: Entity, type_name: str, target: Entity, reason: str | None, evidence: dict | None,
                    until: str | None, until_given: bool = True, confidence: str = "manual", since: str | None = None,
                    context: str | None = None, check_conflicts: bool = True) -> dict:
    """relate() once both ends are known entities: page line first, then the row, then a page re-index;
    then the contradictions it makes are settled or recorded (relations.conflicts)."""
    store, vocab = ws.store, ws.config.vocabulary
    rtype, src, tgt = canonical(vocab, source, type_name, target)
    existing = store.get_relation(src.id, tgt.id, rtype.name)
    if existing is not None:  # re-asserting without --reason / --valid-until keeps what was said before
        reason = reason if reason is not None else existing["reason"]
        until = until if until_given else existing["valid_until"]
        since = since if since is not None else existing["valid_from"]
        context = context if context is not None else existing["context"]
    today = today_iso()
    dated = since or (evidence.get("date") or "")[:10] or None if evidence else since
    current = check_conflicts and (until is None or until >= today)
    found = find_conflicts(store, ws.access, rtype, src, tgt, dated, context, today) if current else []
    found += [loop for loop in (find_loops(store, ws.access, rtype, src, tgt, today) if current else [])
              if existing is None or not store.open_conflict_between(loop.old.relation_id or 0, existing["id"])]
    for conflict in found:  # an earlier-dated new relation is history at once: it ended when the other began
        if conflict.kind == "temporal" and not conflict.new_wins:
            until = min(until or "9999-12-31", conflict.loser_until())
    with write_lock(ws.root):
        mirror = source if rtype.symmetric else src
        other = tgt if mirror.id == src.id else src
        origin, origin_doc_id = "user", None
        page_path = mirror.page_path
        if page_path is None and ws.config.create_pages and safe_target(mirror.name) and safe_target(other.name):
            page_path = create_entity_page(ws.root, mirror.type, mirror.name)
            _reindex(ws, page_path)  # the new file becomes the entity's page; its id stays
        if (page_path is None and existing is not None and existing["origin"] == "page"
                and other.page_path is not None and existing["origin_doc"] == other.page_path):
            # Stated on the other end's page (its frontmatter): the change goes there, or the next index undoes it.
            mirror, other, page_path = other, mirror, other.page_path
        if page_path and safe_target(other.name):
            if since is None and existing is None and (store.get_document(LOCAL, path=page_path) or {}).get("date"):
                # A line without a date starts on its dated page's date; asserted now, it starts today.
                since = today
            write_page_line(ws, page_path, mirror, rtype, src, tgt, reason, until, since, context)
            origin, origin_doc_id = "page", store.get_document(LOCAL, path=page_path)["id"]
        with store.transaction():
            row = store.upsert_relation(
                {"source_id": src.id, "target_id": tgt.id, "type": rtype.name, "reason": reason,
                 # Without --source-doc, earlier evidence stays; a new relation's evidence is its page.
                 "source_doc_id": evidence["id"] if evidence else (None if existing else origin_doc_id),
                 "source_doc_path": evidence["path"] if evidence else (
                     None if existing or origin != "page" else page_path),
                 "valid_until": until, "origin": origin, "origin_doc_id": origin_doc_id, "confidence": confidence,
                 "valid_from": since, "context": context},
                stamp_after(existing) if existing else now_iso(), bump=True,
            )
        if origin == "page" and ws.reread({page_path}):
            row = store.get_relation(src.id, tgt.id, rtype.name)
            if row is None:
                raise StoreError(f"the line written to {page_path} did not read back as a relation (is it inside "
                                 "an unclosed code block?)", hint="check the page and the index status")
    settled = [_settle(ws, conflict, row) for conflict in found]
    _, data = view_row(row, vocab, src.id, today_iso())
    return {"source": src.name, "target": tgt.name, **data, "origin": row["origin"],
            "mirrored_to": page_path if origin == "page" else None, "conflicts": settled}


def write_page_line(ws: Workspace, page_path: str, mirror: Entity, rtype, src: Entity, tgt: Entity,
                    reason: str | None, until: str | None, since: str | None, context: str | None,
                    keep_existing: bool = False) -> bool:
    """Write the `## Relations` line that states src --rtype--> tgt on mirror's page (mirror is one of
    the ends): the line of the same type and other end is replaced (kept as it is with keep_existing),
    else one is added; nothing else in the file changes. Returns whether the file changed. Refuses a
    reason that would not read back."""
    from ..pages.relation_lines import parse_relation_lines

    other = tgt if mirror.id == src.id else src
    line = format_line(display_line_type(rtype, mirror.id == src.id), other.name, reason, until, since, context)
    _check_round_trip(line, reason, until, since, context)
    matches = line_matcher(ws.config.vocabulary, mirror, rtype, src, tgt)

    def change(text: str, off: int) -> str:
        if keep_existing and any(matches(found) for found in parse_relation_lines(text, off)[0]):
            return text
        return upsert_line(text, off, line, matches)

    return edit_page(ws.root, page_path, change)


def _settle(ws: Workspace, conflict: Conflict, new_row: dict) -> dict:
    """Apply a conflict's rule once the new relation is written, and record what was done."""
    now = now_iso()
    if conflict.kind in LOOP_KINDS:  # stored as asserted; which side is wrong is the user's to say
        return record(ws.store, conflict, new_row["id"], "open", None, loop_note(conflict), now)
    if conflict.kind == "contextual":
        return record(ws.store, conflict, new_row["id"], "resolved", "both kept, each in its context", None, now)
    if conflict.kind == "factual":
        return record(ws.store, conflict, new_row["id"], "open", None,
                      "undated: say which holds, or that both do", now)
    if not conflict.new_wins:
        return record(ws.store, conflict, new_row["id"], "resolved",
                      f"the earlier one, {conflict.new.other}, was true until {conflict.loser_until()}", None, now)
    old = conflict.old_row
    # Its page gets a `## Relations` line with the end date; a frontmatter value stays as written.
    relate_entities(ws, ws.store.get_entity(LOCAL, old["source_id"]), old["type"],
                    ws.store.get_entity(LOCAL, old["target_id"]), None, None, conflict.loser_until(), True,
                    old["confidence"], check_conflicts=False)
    return record(ws.store, conflict, new_row["id"], "resolved",
                  f"the later one wins: {conflict.old.other} was true until {conflict.loser_until()}", None, now)


def _frontmatter_home(store: Store, vocab, row: dict) -> str | None:
    """The note whose frontmatter states this relation, if one does (it cannot be edited for it)."""
    rtype = vocab.types[row["type"]]
    src, tgt = store.get_entity(LOCAL, row["source_id"]), store.get_entity(LOCAL, row["target_id"])
    pages = {doc_id: store.get_entity(LOCAL, owner[0]) for doc_id, owner in store.page_entity_ids().items()
             if owner[0] in (src.id, tgt.id)}
    for line in store.page_relation_lines():
        page_entity = pages.get(line["doc_id"])
        if page_entity is not None and line["source"].startswith("frontmatter:") and line_matcher(
                vocab, page_entity, rtype, src, tgt)(_Line(line["type"], line["target"])):
            return line["path"]
    return None


def unrelate(ws: Workspace, source_name: str, type_name: str, target_name: str) -> dict:
    """Remove source --type--> target (from its page line too); a missing relation is an error."""
    store, vocab = ws.store, ws.config.vocabulary
    source = find_entity(store, source_name, access=ws.access)
    target = find_entity(store, target_name, access=ws.access)
    rtype, src, tgt = canonical(vocab, source, type_name, target)
    with write_lock(ws.root):
        row = store.get_relation(src.id, tgt.id, rtype.name)
        # Every page of either end may state it (Dana's "- reports-to [[Ben]]", Ben's "- manages [[Dana]]").
        pages = {doc_id: store.get_entity(LOCAL, owner[0]) for doc_id, owner in store.page_entity_ids().items()
                 if owner[0] in (src.id, tgt.id)}
        paths = {doc_id: store.get_document(LOCAL, doc_id=doc_id)["path"] for doc_id in pages}
        if row is None and _was_ended(store, ws, src, rtype.name, tgt):
            # Removed already (a first run that was killed after ending it, or run twice): done, not refused;
            # a page that run edited is re-read if it was not (unchanged pages are skipped).
            ws.reread(set(paths.values()))
            return {"removed": True, "already": True, **_stated(src, rtype.name, tgt), "page": None}
        if row is None:
            raise NotFound(f"no relation {src.name} --{rtype.name}--> {tgt.name}",
                           hint=f"list the relations of {src.name!r} to see what exists")
        home = _frontmatter_home(store, vocab, row)
        if home is not None:
            raise InvalidInput(
                f"{src.name} --{rtype.name}--> {tgt.name} comes from the frontmatter of {home} "
                "(a key kbgraph.toml maps to relations); edit that file to remove it")
        edited = []
        for doc_id, page_entity in pages.items():
            path = paths[doc_id]
            matches = line_matcher(vocab, page_entity, rtype, src, tgt)
            if edit_page(ws.root, path, lambda text, off, m=matches: remove_lines(text, off, m)[0]):
                edited.append(path)
        with store.transaction():
            store.end_relation(row["id"], stamp_after(row))
        # Every page of either end, not only those edited now: a first run killed after its page edit
        # left a page that this run finds edited already, and the index must still read it again.
        ws.reread(set(paths.values()))
    page_path = ", ".join(sorted(edited)) or None
    return {"removed": True, **_stated(src, rtype.name, tgt), "page": page_path}


def _stated(src: Entity, type_name: str, tgt: Entity) -> dict:
    """A stored relation's ends and type, and the same as the sentence every relation JSON gives."""
    return {"source": src.name, "type": type_name, "target": tgt.name,
            "subject": src.name, "object": tgt.name}


def _was_ended(store, ws: Workspace, src: Entity, type_name: str, tgt: Entity) -> bool:
    """Whether the relation's history holds it, ended and with no current version (it was removed)."""
    versions = [v for v in store.relation_history(ws.access, src.id)
                if v.type == type_name and v.source == src.name and v.target == tgt.name]
    return bool(versions) and all(v.superseded_at is not None or v.valid_until is not None for v in versions)


def _target(ws: Workspace, name: str, create_type: str | None, check) -> Entity:
    """The target entity; with --create, a missing one is created, but only once check(it) passes."""
    try:
        return find_entity(ws.store, name, access=ws.access)
    except NotFound:
        if not create_type:
            raise
    if create_type not in ws.config.entity_types:
        raise InvalidInput(f"`create_type` {create_type!r} is not an entity type; use one of "
                           f"{', '.join(ws.config.entity_types)}", param="create_type")
    name = " ".join(name.split())
    if not name or len(name) > 500:
        raise InvalidInput("`target_name` must be a name of 1 to 500 characters", param="target_name")
    check(Entity(-1, create_type, name, (), None, {}, 0, 1))  # refuse before anything is created
    return create_entity(ws, create_type, name)


def create_entity(ws: Workspace, entity_type: str, name: str) -> Entity:
    """A page-less entity the user asserts (kept across re-index and in export), or the one that exists."""
    try:
        return find_entity(ws.store, name, entity_type, access=ws.access)
    except NotFound:
        pass
    with ws.store.transaction():
        ws.store.add_asserted_entity(entity_type, name, now_iso())
        ws.store.set_meta("entities_dirty", "1")
    ws.refresh()
    return find_entity(ws.store, name, entity_type, access=ws.access)


def _source_doc(ws: Workspace, path: str | None) -> dict | None:
    if path is None:
        return None
    doc = ws.store.get_document(ws.access, path=path.removeprefix("./"))
    if doc is None:
        raise NotFound(f"`source_doc` {path!r} is not in the index", param="source_doc",
                       hint="give a vault-relative path")
    return doc


def _check_round_trip(line: str, reason: str | None, until: str | None, since: str | None = None,
                      context: str | None = None) -> None:
    from ..pages.relation_lines import parse_relation_lines

    parsed, _ = parse_relation_lines("## Relations\n\n" + line + "\n", 0)
    if len(parsed) == 1 and parsed[0].context != context:
        raise InvalidInput(f"`context` {context!r} would not read back from the page line", param="context",
                           hint="leave out ']' and line breaks")
    if len(parsed) != 1 or (parsed[0].reason, parsed[0].valid_until, parsed[0].valid_from) != (reason, until, since):
        raise InvalidInput(f"`reason` {reason!r} would not read back from the page line", param="reason",
                           hint="leave out '(since …)', '(until …)', '[context: …]' and brackets at its end")


@dataclass(frozen=True)
class _Line:
    type: str
    target: str


def _reindex(ws: Workspace, rel_path: str) -> None:
    ws.reindex({rel_path})

"""`kbg export` / `kbg import`: everything a user asserted, in a file, restorable into a fresh vault.

The index itself is rebuilt from the notes; what cannot be rebuilt from them (relations
asserted for entities without a page, entities created with --create, evidence, dates,
strength) is what an export must carry. Import validates the whole file before it
writes anything.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from .access import LOCAL
from .context.memory_portable import export_memory, import_memory, valid_memory
from .entities.assemble import entity_key
from .config import config_from_dict, merge_inferred, stored_profile, user_config
from .errors import ConfigError, InvalidInput
from .model import Merge, as_dict
from .profile.vault import infer_vault_profile
from .relations.records import now_iso, parse_valid_until
from .store.base import Store
from .base.workspace import Workspace

FORMAT = "kbgraph-export"
_RECORD_LISTS = {"entity": "entities", "asserted_entity": "asserted_entities", "merge": "merges",
                 "relation": "relations", "unlink": "unlinks", "reference_link": "reference_links",
                 "decision": "decisions", "relation_version": "relation_history", "fact": "facts", "loop": "loops"}
_DECISION_FIELDS = ("surface", "surface_key", "surface_type", "candidate_key", "candidate_name", "score", "features",
                    "outcome", "decided_by", "doc_path", "created_at", "decided_at")
_OUTCOMES = ("auto-linked", "asked", "confirmed", "rejected", "new")
VERSION = 1
_CHANGES = ("ended", "edited", "moved", "merged", "removed")
_VERSION_TEXT = ("source_key", "source_type", "source_name", "target_key", "target_type", "target_name", "type",
                 "recorded_at", "superseded_at")
_VERSION_FIELDS = (*_VERSION_TEXT, "change", "reason", "source_doc_path", "confidence", "origin", "strength",
                   "inferred", "valid_from", "valid_until", "owner", "visibility", "sensitivity")
_RELATION_KEYS = ("type", "reason", "source_doc", "confidence", "origin", "origin_doc", "created_at", "updated_at",
                  "valid_until", "strength", "inferred", "owner", "visibility", "sensitivity", "valid_from", "context")


def export_data(store: Store, symmetric: frozenset[str] = frozenset()) -> dict:
    relations = []
    for r in store.relations_of_type(LOCAL, None):
        ends = [{"type": r["source_type"], "name": r["source"]}, {"type": r["target_type"], "name": r["target"]}]
        if r["type"] in symmetric:  # stored by id, which differs between vaults: export by name
            ends.sort(key=lambda end: (end["type"], end["name"]))
        relations.append({"source": ends[0], "target": ends[1],
                          **{k: (bool(r[k]) if k == "inferred" else r[k]) for k in _RELATION_KEYS}})
    relations.sort(key=lambda r: (r["type"], r["source"]["name"], r["target"]["name"]))
    entities = [
        {k: v for k, v in as_dict(e).items() if k in ("type", "name", "aliases", "page_path", "attributes", "status")}
        for e in store.list_entities(LOCAL)
    ]
    return {
        "format": FORMAT, "version": VERSION, "exported_at": now_iso(),
        "entities": entities, "asserted_entities": store.asserted_entities(), "merges": store.merge_rows(),
        "relations": relations,
        "unlinks": [{"entity": {"type": u["entity_key"].split(":", 1)[0], "name": u["entity_name"]},
                     "doc_path": u["doc_path"], "created_at": u["created_at"]} for u in store.unlinks()],
        "reference_links": [{"doc_path": r["doc_path"], "name": r["name_key"], "type": r["type"],
                             "entity": {"type": r["entity_key"].split(":", 1)[0], "name": r["entity_name"]},
                             "created_at": r["created_at"]} for r in store.reference_links()],
        "decisions": [{k: d[k] for k in _DECISION_FIELDS} for d in store.decisions(LOCAL)],
        # Every version a relation stopped being; its relation is named by its ends and type, since
        # ids differ between vaults.
        "relation_history": [{k: row[k] for k in _VERSION_FIELDS} for row in store.history_rows()],
        **export_memory(store),  # facts (every version) and loops
    }


def to_jsonl(data: dict) -> str:
    lines = [json.dumps({"record": "header", "format": data["format"], "version": data["version"],
                         "exported_at": data["exported_at"]}, ensure_ascii=False)]
    for kind, key in _RECORD_LISTS.items():
        lines += [json.dumps({"record": kind, **item}, ensure_ascii=False) for item in data.get(key, [])]
    return "\n".join(lines) + "\n"


def load_export(text: str) -> dict:
    """An export from its JSON or JSONL text; a clear error for anything else."""
    stripped = text.strip()
    if not stripped:
        raise InvalidInput("the import file is empty")
    try:
        if stripped.startswith("{") and "\n{" not in stripped:
            data = json.loads(stripped)
        else:
            data = _from_jsonl(stripped)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"not a kbgraph export: invalid JSON at line {exc.lineno} ({exc.msg})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InvalidInput("not a kbgraph export (no \"format\": \"kbgraph-export\" header)")
    if data.get("version") != VERSION:
        raise InvalidInput(f"export version {data.get('version')!r} is not supported (this kbgraph reads {VERSION})")
    return data


def _from_jsonl(text: str) -> dict:
    data = {key: [] for key in _RECORD_LISTS.values()}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise json.JSONDecodeError(exc.msg, exc.doc, exc.pos) from None
        kind = record.pop("record", None) if isinstance(record, dict) else None
        if kind == "header":
            data.update(record)
        elif kind in _RECORD_LISTS:
            data[_RECORD_LISTS[kind]].append(record)
        else:
            raise InvalidInput(f"line {number}: unknown record {kind!r}")
    return data


def import_data(ws: Workspace, data: dict) -> dict:
    """Restore asserted entities and relations into ws; returns counts. All-or-nothing validation first."""
    ws = _with_inferred_profile(ws)
    store, vocab = ws.store, ws.config.vocabulary
    for key in ("relations", "asserted_entities", "merges", "unlinks", "reference_links", "decisions",
                "relation_history"):
        if not isinstance(data.get(key, []), list):
            raise InvalidInput(f"not a kbgraph export: {key} must be a list")
    unlinks = [_valid_unlink(i, u, ws.config.entity_types) for i, u in enumerate(data.get("unlinks", []))]
    decisions = [_valid_decision(i, d) for i, d in enumerate(data.get("decisions", []))]
    links = [_valid_link(i, r, ws.config.entity_types) for i, r in enumerate(data.get("reference_links", []))]
    relations = [_valid_relation(i, r, vocab, ws.config.entity_types) for i, r in enumerate(data.get("relations", []))]
    asserted = [_valid_entity(i, e, ws.config.entity_types) for i, e in enumerate(data.get("asserted_entities", []))]
    merges = [(_valid_merge(i, m, ws.config.entity_types), m.get("created_at")) for i, m in enumerate(data.get("merges", []))]
    history = [_valid_version(i, v) for i, v in enumerate(data.get("relation_history", []))]
    facts, loops = valid_memory(data)
    _check_merges([m for m, _ in merges], store.merges())
    now = now_iso()
    known = {m.from_key for m in store.merges()}
    # What names alone say (short-name links, asserted entities, merges) goes in before the notes are
    # read, so the index builds the entities as they stood in the exporting vault. Added after, a merge
    # was applied to relations the index had just made, and each left a 'removed' version the source
    # never had (migrate-to's check then refused the copy: 'differs in relation_history').
    with store.transaction():
        for link in links:
            store.add_reference_link(link["doc_path"], link["type"], link["name"],
                                     entity_key(link["entity"]["type"], link["entity"]["name"]),
                                     link["entity"]["name"], link.get("created_at") or now)
        for item in asserted:
            store.add_asserted_entity(item["type"], item["name"], item.get("created_at") or now)
        for merge, created_at in merges:
            if merge.from_key not in known:
                store.add_merge(merge, [], created_at or now)
        store.set_meta("entities_dirty", "1")
    # The notes define most entities: index them, so relation ends resolve to them instead of being
    # created as asserted entities.
    ws.reindex()
    ids = store.entity_ids_by_key()
    asserted_keys = {entity_key(item["type"], item["name"]) for item in asserted}
    waiting = [r for r in relations if _waits_on_its_page(store, ids, r, asserted_keys)]
    relations = [r for r in relations if not any(r is w for w in waiting)]
    missing = {(end["type"], end["name"]) for r in relations for end in (r["source"], r["target"])
               if entity_key(end["type"], end["name"]) not in ids and not _known(store, end)}
    if missing:
        with store.transaction():
            for entity_type, name in sorted(missing):
                store.add_asserted_entity(entity_type, name, now)
        _rebuild_entities(ws)
        ids = store.entity_ids_by_key()
    ends = []
    for r in relations:  # every end checked before any page or row is written
        source_id, target_id = _end_id(store, ids, r["source"]), _end_id(store, ids, r["target"])
        if source_id == target_id:
            raise InvalidInput(f"relation {r['source']['name']} --{r['type']}--> {r['target']['name']}: "
                               "both ends are one entity in this vault")
        if vocab.types[r["type"]].symmetric and source_id > target_id:
            source_id, target_id = target_id, source_id  # this vault's ids decide the stored order
        ends.append((r, source_id, target_id))
    from .pages.files import write_lock

    with write_lock(ws.root):
        homes = _write_page_lines(ws, ends)
        waiting_named, waiting_pages, waiting_lines = _write_waiting_lines(ws, waiting, ids)
        relations_added = 0
        with store.transaction():
            for r, source_id, target_id in ends:
                current = store.get_relation(source_id, target_id, r["type"])
                relations_added += current is None
                from_page = current is not None and current["origin"] == "page"
                home = homes.get((source_id, target_id, r["type"]))
                source_doc = store.get_document(LOCAL, path=r["source_doc"]) if r.get("source_doc") else None
                # Two pages may state one relation, and the one it was last written to is its home, which
                # the notes alone do not say (a fresh index takes a `## Relations` line over a frontmatter
                # value): the exporting vault's home stays, when this vault has that note.
                home_doc = store.get_document(LOCAL, path=r["origin_doc"]) if from_page and r.get("origin_doc") else None
                store.restore_relation({
                    **{k: r.get(k) for k in _RELATION_KEYS},
                    "created_at": r.get("created_at") or now, "updated_at": r.get("updated_at") or now,
                    "source_id": source_id, "target_id": target_id,
                    "source_doc_id": source_doc and source_doc["id"], "source_doc_path": r.get("source_doc"),
                    # A relation is a page's only if this vault's page says it (now, or with the line just
                    # written); otherwise the database keeps it.
                    "origin": "page" if from_page or home else "user",
                    "origin_doc_id": ((home_doc or {}).get("id") or current["origin_doc_id"]) if from_page
                    else home and home[1],
                })
            decisions_added = _restore_resolution(store, unlinks, decisions, now)
            if decisions_added:  # a confirmed answer's name joins its entity when the entity set is rebuilt
                store.set_meta("entities_dirty", "1")
            restored_history = store.restore_history(_versions_for(store, history))
            added_facts, added_loops = import_memory(store, facts, loops)
        if homes or waiting_pages:
            ws.reread({path for path, _ in homes.values()} | waiting_pages)
    if unlinks:
        with store.transaction():
            store.mark_for_rescan(None)
        ws.refresh()
    elif decisions_added:
        ws.refresh()
    return {"asserted_entities": len(asserted), "merges": len(merges), "relations": len(relations),
            "relations_added": relations_added,
            "created_entities": len(missing), "unlinks": len(unlinks), "reference_links": len(links),
            "decisions": len(decisions), "decisions_added": decisions_added, "relation_history": restored_history,
            "facts": added_facts, "loops": added_loops, "lines_written": len(homes) + waiting_lines,
            "pages_edited": sorted({path for path, _ in homes.values()} | waiting_pages), "waiting": waiting_named}


def _with_inferred_profile(ws: Workspace) -> Workspace:
    """ws under the profile its notes infer, where no index has inferred one yet: an export of an
    unconfigured vault names the profile's types (kep, authored), and a fresh copy of its notes was
    refused ("unknown entity type 'kep'") before the index that would infer them had run."""
    if not ws.config.infer_profile or stored_profile(Path(ws.root)):
        return ws
    user, source = user_config(Path(ws.root))
    try:
        config = config_from_dict(merge_inferred(user, infer_vault_profile(Path(ws.root)).raw), source=source)
    except ConfigError:
        return ws  # the user's file contradicts it: the index reads the file alone, and so does this
    return replace(ws, config=config)


def _write_page_lines(ws: Workspace, ends: list[tuple[dict, int, int]]) -> dict[tuple[int, int, str], tuple[str, int]]:
    """Write each imported relation that its vault kept on a page (origin "page") and that no page of
    this vault states yet to the `## Relations` section of the page it belongs to, with the writer `kbg
    entity relate` uses (the one line added or replaced, nothing else in the file touched). Returns
    (source id, target id, type) -> (page path, its document id) for each written.

    The page is the end's whose page the export names (origin_doc), else the source's, else (for a type
    that reads both ways) the target's. A relation a page states already is left alone, so a second
    import writes nothing; one its vault kept in the database (origin "user": no page of its own end),
    an end without a page here, a name that cannot stand in [[...]], or a reason a line cannot carry
    stays in the database only. No page is created.
    """
    from .pages.relation_lines import safe_target
    from .relations.edits import write_page_line

    store, vocab = ws.store, ws.config.vocabulary
    homes: dict[tuple[int, int, str], tuple[str, int]] = {}
    for r, source_id, target_id in ends:
        current = store.get_relation(source_id, target_id, r["type"])
        if r.get("origin") != "page" or r.get("inferred") or (current is not None and current["origin"] == "page"):
            continue
        rtype = vocab.types[r["type"]]
        src, tgt = store.get_entity(LOCAL, source_id), store.get_entity(LOCAL, target_id)
        reads_both_ways = rtype.symmetric or bool(rtype.inverse)
        named = [e for e in (src, tgt) if e.page_path and e.page_path == r.get("origin_doc")]
        mirror = (named[0] if named and (named[0].id == src.id or reads_both_ways)
                  else src if src.page_path else tgt if tgt.page_path and reads_both_ways else None)
        if mirror is None or not safe_target((tgt if mirror.id == src.id else src).name):
            continue
        try:
            written = write_page_line(ws, mirror.page_path, mirror, rtype, src, tgt, r.get("reason"),
                                      r.get("valid_until"), r.get("valid_from"), r.get("context"), keep_existing=True)
        except InvalidInput:
            continue
        doc = store.get_document(LOCAL, path=mirror.page_path)
        if written and doc is not None:
            homes[(source_id, target_id, r["type"])] = (mirror.page_path, doc["id"])
    return homes


def _waits_on_its_page(store: Store, ids: dict[str, int], r: dict, asserted: set[str]) -> bool:
    """Whether r is a page's relation to an entity that nothing in this vault or the file stands behind.

    An export from before unknown `## Relations` targets were kept by name (or from a vault whose notes
    named someone this one does not) carries such a target as an entity of its own. Creating it here
    would make the phantom person that a page line no longer makes (entities/assemble.py): the line is
    written back to its page instead, where it waits by name like any other line, and links once a
    page or alias names the target.
    """
    if r.get("origin") != "page" or not r.get("origin_doc"):
        return False
    unknown = [end for end in (r["source"], r["target"])
               if entity_key(end["type"], end["name"]) not in ids and not _known(store, end)]
    if len(unknown) != 1 or entity_key(unknown[0]["type"], unknown[0]["name"]) in asserted:
        return False
    known = r["target"] if unknown[0] is r["source"] else r["source"]
    return store.get_entity(LOCAL, _end_id(store, ids, known)).page_path == r["origin_doc"]


def _write_waiting_lines(ws: Workspace, waiting: list[dict], ids: dict[str, int]) -> tuple[list[str], set[str], int]:
    """Write the lines of the relations _waits_on_its_page found to their pages (an existing line of the
    same type and target is kept as the user wrote it); returns them as "source --type--> target", the
    pages changed and how many lines were written."""
    from .model import Entity
    from .pages.relation_lines import safe_target
    from .relations.edits import write_page_line

    store, vocab = ws.store, ws.config.vocabulary
    named, pages, written = [], set(), 0
    for r in waiting:
        rtype = vocab.types[r["type"]]
        ends = []
        for end in (r["source"], r["target"]):
            entity_id = ids.get(entity_key(end["type"], end["name"]))
            ends.append(store.get_entity(LOCAL, _end_id(store, ids, end)) if entity_id is not None or _known(store, end)
                        else Entity(-1, end["type"], " ".join(end["name"].split()), (), None, {}, 0, 1))
        src, tgt = ends
        mirror, other = (src, tgt) if src.id != -1 else (tgt, src)
        named.append(f"{r['source']['name']} --{r['type']}--> {r['target']['name']}")
        if not safe_target(other.name) or (mirror is tgt and not (rtype.symmetric or rtype.inverse)):
            continue
        try:
            if write_page_line(ws, mirror.page_path, mirror, rtype, src, tgt, r.get("reason"), r.get("valid_until"),
                               r.get("valid_from"), r.get("context"), keep_existing=True):
                pages.add(mirror.page_path)
                written += 1
        except InvalidInput:
            continue
    return named, pages, written


def _versions_for(store: Store, history: list[dict]) -> list[dict]:
    """History rows for this vault: each version tied to this vault's relation of the same ends and
    type when it has one (so its versions read as one relation's), else to none (negative ids, one
    per exported relation, that no current relation can take)."""
    ids = store.entity_ids_by_key()
    orphans: dict[tuple[str, str, str], int] = {}
    out = []
    for version in history:
        ends = (version["source_key"], version["target_key"], version["type"])
        source, target = ids.get(ends[0]), ids.get(ends[1])
        current = store.get_relation(source, target, ends[2]) if source and target else None
        relation_id = current["id"] if current else orphans.setdefault(ends, -1 - len(orphans))
        out.append({**version, "relation_id": relation_id})
    return out


def _valid_version(i: int, version) -> dict:
    where = f"relation_history[{i}]"
    if not isinstance(version, dict):
        raise InvalidInput(f"{where}: must be an object")
    for key in _VERSION_TEXT:
        if not isinstance(version.get(key), str) or not version[key]:
            raise InvalidInput(f"{where}: `{key}` must be a non-empty string")
    if version.get("change") not in _CHANGES:
        raise InvalidInput(f"{where}: `change` must be one of {', '.join(_CHANGES)}")
    if version["superseded_at"] < version["recorded_at"]:
        raise InvalidInput(f"{where}: superseded_at is before recorded_at")
    return {k: version.get(k) for k in _VERSION_FIELDS}


def _restore_resolution(store: Store, unlinks: list[dict], decisions: list[dict], now: str) -> int:
    """Unlinks are added; decisions already in the log (same pair, outcome and time) are not repeated, nor
    are kbgraph's own that this vault's index logged already for the same notes (at its own time). An
    answer to a question this vault's index asks too answers that question. Returns how many decisions
    were added or answered."""
    for u in unlinks:
        store.add_unlink(entity_key(u["entity"]["type"], u["entity"]["name"]), u["entity"]["name"], u["doc_path"],
                         u.get("created_at") or now)
    current = store.decisions(LOCAL)
    logged = {(d["surface_key"], d["candidate_key"], d["outcome"], d["created_at"]) for d in current}
    by_index = {(d["surface_key"], d["candidate_key"], d["outcome"]) for d in current if d["decided_by"] == "kbgraph"}
    answered = {(d["surface_key"], d["candidate_key"], d["outcome"], d["decided_at"]) for d in current
                if d["decided_by"] != "kbgraph"}
    asked = {(d["surface_key"], d["candidate_key"]): d["id"] for d in current if d["outcome"] == "asked"}
    added = 0
    for d in decisions:
        pair = (d["surface_key"], d.get("candidate_key"))
        if (d["decided_by"] == "kbgraph" and (*pair, d["outcome"]) in by_index) or (
                *pair, d["outcome"], d["created_at"]) in logged or (*pair, d["outcome"], d.get("decided_at")) in answered:
            continue
        if d["decided_by"] != "kbgraph" and d["outcome"] in ("confirmed", "rejected") and pair in asked:
            store.decide(asked.pop(pair), d["outcome"], d["decided_by"], d.get("decided_at") or now)
        else:
            store.add_decision(d)
        added += 1
    return added


def _valid_unlink(index: int, item: object, entity_types) -> dict:
    if not isinstance(item, dict) or not isinstance(item.get("entity"), dict) or not isinstance(
            item.get("doc_path"), str) or not item["doc_path"].strip():
        raise InvalidInput(f"unlink #{index + 1}: needs entity (type and name) and doc_path")
    _valid_entity(index, item["entity"], entity_types)
    return item


def _valid_decision(index: int, item: object) -> dict:
    where = f"decision #{index + 1}"
    if not isinstance(item, dict):
        raise InvalidInput(f"{where}: not an object")
    for key in ("surface", "surface_key", "surface_type", "decided_by", "created_at"):
        if not isinstance(item.get(key), str) or not item[key]:
            raise InvalidInput(f"{where}: {key} must be non-empty text")
    if item.get("outcome") not in _OUTCOMES:
        raise InvalidInput(f"{where}: outcome {item.get('outcome')!r} is not one of {', '.join(_OUTCOMES)}")
    if item.get("score") is not None and (isinstance(item["score"], bool) or not isinstance(item["score"], (int, float))
                                          or not 0 <= item["score"] <= 1):
        raise InvalidInput(f"{where}: score must be a number from 0 to 1")
    if not isinstance(item.get("features", {}), dict):
        raise InvalidInput(f"{where}: features must be an object")
    return {k: item.get(k) for k in _DECISION_FIELDS}


def _rebuild_entities(ws: Workspace) -> None:
    with ws.store.transaction():
        ws.store.set_meta("entities_dirty", "1")
    ws.refresh()


def _valid_link(index: int, item: object, entity_types) -> dict:
    if not isinstance(item, dict) or not all(isinstance(item.get(k), str) and item[k] for k in
                                             ("doc_path", "name", "type")) or not isinstance(item.get("entity"), dict):
        raise InvalidInput(f"reference link #{index + 1}: needs doc_path, name, type and entity (type and name)")
    _valid_entity(index, item["entity"], entity_types)
    if item["type"] not in entity_types:
        raise InvalidInput(f"reference link #{index + 1}: unknown entity type {item['type']!r}")
    return item


def _valid_entity(index: int, item: object, entity_types) -> dict:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"].strip():
        raise InvalidInput(f"asserted entity #{index + 1}: needs a non-empty name")
    if item.get("type") not in entity_types:
        raise InvalidInput(f"asserted entity #{index + 1} ({item['name']!r}): unknown entity type {item.get('type')!r}")
    return item


def _end_id(store: Store, ids: dict[str, int], end: dict) -> int:
    """A relation end's id in this vault: by its key, else by the name as an alias or merged name."""
    from .entities.lookup import find_entity

    entity_id = ids.get(entity_key(end["type"], end["name"]))
    # An import restores the whole vault, so it looks among every entity, as the rest of it reads.
    return entity_id if entity_id is not None else find_entity(store, end["name"], end["type"], access=LOCAL).id


def _known(store: Store, end: dict) -> bool:
    from .errors import NotFound
    from .entities.lookup import find_entity

    try:
        find_entity(store, end["name"], end["type"], access=LOCAL)  # the whole vault, as _end_id
    except NotFound:
        return False
    return True


def _check_merges(new: list[Merge], existing: list[Merge]) -> None:
    """Refuse a merge recorded twice in the file, or one that would close a cycle."""
    into = {m.from_key: m.into_key for m in existing}
    seen = set()
    for merge in new:
        if merge.from_key in seen:
            raise InvalidInput(f"merge of {merge.from_name!r} appears twice in the file")
        seen.add(merge.from_key)
        if merge.from_key in into:
            continue  # recorded already: skipped on import
        key, path = merge.into_key, {merge.from_key}
        while key in into:
            if key in path:
                break
            path.add(key)
            key = into[key]
        if key in path:
            raise InvalidInput(f"merging {merge.from_name!r} into {merge.into_name!r} would make a cycle of merges")
        into[merge.from_key] = merge.into_key


def _valid_merge(index: int, item: object, entity_types) -> Merge:
    if not isinstance(item, dict) or not all(isinstance(item.get(k), dict) for k in ("from", "into")):
        raise InvalidInput(f"merge #{index + 1}: needs from and into, each with type and name")
    ends = [_valid_entity(index, item[k], entity_types) for k in ("from", "into")]
    merge = Merge(entity_key(ends[0]["type"], ends[0]["name"]), ends[0]["type"], ends[0]["name"],
                  entity_key(ends[1]["type"], ends[1]["name"]), ends[1]["type"], ends[1]["name"])
    if merge.from_key == merge.into_key:
        raise InvalidInput(f"merge #{index + 1}: merges {ends[0]['name']!r} into itself")
    return merge


def _valid_relation(index: int, item: object, vocab, entity_types) -> dict:
    where = f"relation #{index + 1}"
    if not isinstance(item, dict):
        raise InvalidInput(f"{where}: not an object")
    for end in ("source", "target"):
        if not isinstance(item.get(end), dict):
            raise InvalidInput(f"{where}: {end} must be an object with type and name")
        _valid_entity(index, item[end], entity_types)
    normal = vocab.normalise(str(item.get("type")))
    if normal.swapped or normal.type.name != item["type"]:
        raise InvalidInput(f"{where}: type {item['type']!r} is not canonical (exports store {normal.type.name!r})")
    if item.get("confidence", "manual") not in ("manual", "auto-high", "auto-low"):
        raise InvalidInput(f"{where}: confidence {item.get('confidence')!r} is not manual, auto-high or auto-low")
    kinds = {"reason": str, "source_doc": str, "origin_doc": str, "created_at": str, "updated_at": str,
             "valid_until": str, "owner": str, "visibility": str, "sensitivity": str, "valid_from": str,
             "context": str}
    for key, kind in kinds.items():
        if item.get(key) is not None and not isinstance(item[key], kind):
            raise InvalidInput(f"{where}: {key} must be text, got {item[key]!r}")
    strength = item.get("strength", 1)
    if not isinstance(strength, int) or isinstance(strength, bool) or strength < 1:
        raise InvalidInput(f"{where}: strength must be a whole number ≥ 1, got {strength!r}")
    if not isinstance(item.get("inferred", False), bool):
        raise InvalidInput(f"{where}: inferred must be true or false")
    parse_valid_until(item.get("valid_until"))
    if item.get("valid_from") is not None:
        parse_valid_until(item["valid_from"])  # the same date rule
    if entity_key(item["source"]["type"], item["source"]["name"]) == entity_key(
            item["target"]["type"], item["target"]["name"]):
        raise InvalidInput(f"{where}: relates {item['source']['name']!r} to itself")
    vocab.check_pair(normal.type, (item["source"]["name"], item["source"]["type"]),
                     (item["target"]["name"], item["target"]["type"]))
    return item

"""The indexing run: a list of named stages over one context object.

Default stages: walk -> plan -> documents -> entities -> ... -> govern -> ready -> embed -> similar -> finish.
A user can insert, replace or drop a stage (``Pipeline.default().insert_after(...)``).

Text and graph first: everything keyword and graph search read (documents, full text, entities,
relations, suggestions, tiers, problems) is committed by the `ready` stage, which says so through
the progress callback ("ready", documents, sections) before the embed stage loads a model. Embedding
then saves as it goes (embed/stage.py); `embed="later"` stops before it (`kbg embed` does it then).

Consistency under interruption: documents are written in batches, each batch one
transaction that also marks the entity set dirty; entities and mentions are
rebuilt from what is stored, and the flags that say "still to do" are only
cleared in the transaction that does it. A run killed at any point leaves a
consistent index, and the next run completes the work.
"""

from __future__ import annotations

import os
import posixpath
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable
from urllib.parse import unquote

from .. import clock
from ..access import LOCAL
from ..config import Config, load_config
from ..entities.sync import renamed_entities, sync_entities
from ..entities.assemble import (assemble_entities, entity_key, matcher_forms,
                                 without_unresolved_line_targets)
from ..locks import index_lock
from ..entities.mentions import MentionMatcher, find_document_mentions
from ..model import TIER_THRESHOLDS, IndexReport, Link, Mention, ParsedDocument, Problem, TextReady
from ..entities.names import name_key, page_link_keys
from .parse import parse_document
from .profile_stage import profile_stage
from ..store.base import DocState, Store
from ..base.vault import FileEntry, FrontmatterError, file_entry, read_file, walk_vault

ProgressFn = Callable[[str, int, int], None]
BATCH_SIZE = 250
# Bytes of notes per documents transaction at most: a batch of large notes (or one huge one after
# small ones) is committed before the next is read, so what was read is saved as the run goes.
BATCH_BYTES = 4 * 1024 * 1024
EMBED_CHOICES = ("now", "later", "background")


@dataclass
class IndexRun:
    """What the stages share. Stages read and extend it; the store holds the results."""

    root: Path
    config: Config
    store: Store
    full: bool = False
    only: set[str] | None = None  # index just these vault-relative paths (after kbgraph edits a page)
    progress: ProgressFn = lambda stage, done, total: None
    started: float = field(default_factory=time.perf_counter)
    files: list[FileEntry] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    to_read: list[tuple[FileEntry, DocState | None]] = field(default_factory=list)
    removed: dict[str, DocState] = field(default_factory=dict)
    kept_paths: set[str] = field(default_factory=set)  # unreadable now, but indexed before: keep
    indexed: int = 0
    skipped: int = 0
    moved: int = 0
    deleted: int = 0
    ambiguous_mentions: int = 0
    parsed_hook: list[Callable[[ParsedDocument], ParsedDocument]] = field(default_factory=list)
    changed: bool = False  # any document written or removed in this run
    mentions_scanned: int = 0
    extracted: dict[int, tuple[str, list[dict]]] = field(default_factory=dict)  # doc id -> (path, suggestions)
    assembly: tuple | None = None  # (claims, resolved references, merges), computed once per run
    embed: str = "now"  # "later": stop once text and graph search are ready (vectors by `kbg embed`)
    embedded: int = 0  # sections given a vector by this run
    ready: TextReady | None = None  # set by the ready stage
    prose_log: Any = None  # resolve.prose.ProseLog: the mention scan's decisions about names in prose
    # The entities whose mentions this run changed, when it re-reads given pages (only) and rescans only
    # them: the ready stage refreshes those entities' counts and tiers, not every entity's. None: all.
    stats_for: set[int] | None = None


Stage = Callable[[IndexRun], None]


def walk_stage(run: IndexRun) -> None:
    if run.only is not None:
        run.stats_for = None if run.full else set()
        run.files = [entry for entry in map(lambda p: file_entry(run.root, p), sorted(run.only)) if entry]
        return
    run.files, problems = walk_vault(run.root, run.config)
    run.problems.extend(problems)


def plan_stage(run: IndexRun) -> None:
    """Which files to read, which are unchanged, which documents are gone."""
    states = run.store.doc_states()
    seen = set()
    for entry in run.files:
        seen.add(entry.path)
        state = states.get(entry.path)
        if not run.full and state and state.size == entry.size and state.mtime == entry.mtime:
            run.skipped += 1
        else:
            run.to_read.append((entry, state))
    problem_paths = [p.path for p in run.problems]
    for path, state in states.items():
        if path in seen or (run.only is not None and path not in run.only):
            continue
        # A folder we could not read this time is not a deletion.
        if any(p == "." or path == p or path.startswith(p + "/") for p in problem_paths):
            run.kept_paths.add(path)
        else:
            run.removed[path] = state


def documents_stage(run: IndexRun) -> None:
    """Read, parse and store changed files in batches; apply moves and deletions.

    Reading and parsing run in worker processes on large runs (they are pure), while
    this process writes to the store: SQLite has one writer.
    """
    store = run.store
    removed_by_hash: dict[str, list[DocState]] = {}
    for state in run.removed.values():
        removed_by_hash.setdefault(state.content_hash, []).append(state)
    outcomes = _outcomes(run)
    total = len(run.to_read)
    if total:
        run.progress("documents", 0, total)  # before the first file is read: a huge one takes a while
    batch: list = []
    size = 0
    try:
        for done, (entry, state) in enumerate(run.to_read, 1):
            if batch and (len(batch) >= BATCH_SIZE or size + entry.size > BATCH_BYTES):
                _write_batch(run, batch)  # before waiting for this file's outcome: a huge one parses for long
                batch, size = [], 0
            item = _apply(run, entry, state, next(outcomes), removed_by_hash)
            if item is not None:
                batch.append(item)
                size += entry.size
            run.progress("documents", done, total)
        _write_batch(run, batch)
    finally:
        outcomes.close()
    leftovers = [s for states in removed_by_hash.values() for s in states]
    with store.transaction():
        _note_mentions_dropped(run, [state.id for state in leftovers])
        for state in leftovers:
            store.delete_document(state.id)
        if leftovers:
            run.changed = True
            store.set_meta("entities_dirty", "1")
    run.deleted = len(leftovers)


def _note_mentions_dropped(run: IndexRun, doc_ids: list[int]) -> None:
    """Before documents' mentions are deleted (a rewrite or a removal), note whose counts change."""
    if run.stats_for is not None and doc_ids:
        run.stats_for |= run.store.mentioned_entities(doc_ids)


PARALLEL_MIN_FILES = 300
COMPACT_SHARE = 0.1  # a run that rewrote this share of the vault's notes compacts the keyword index


def _outcomes(run: IndexRun):
    """The outcome of reading and parsing each file of run.to_read, in order."""
    jobs = [(entry, state.content_hash if state else None) for entry, state in run.to_read]
    yield from _parallel_map(partial(read_and_parse, config=run.config, full=run.full), jobs, len(jobs))


def _worker_count() -> int:
    configured = os.environ.get("KBG_INDEX_WORKERS")
    if configured and configured.isdigit():
        return int(configured)
    return min(os.cpu_count() or 1, 4)


def read_and_parse(job: tuple[FileEntry, str | None], config: Config, full: bool):
    """One file's outcome, with no store and no shared state (safe in a worker process):
    a ParsedDocument, a Problem, ("empty", Problem), or ("unchanged", mtime, size)."""
    entry, known_hash = job
    raw = read_file(entry, config)
    if isinstance(raw, Problem):
        return raw
    if not raw.text.strip():
        return ("empty", Problem(entry.path, "empty file, nothing to index", "warning"))
    if known_hash is not None and not full and known_hash == raw.content_hash:
        return ("unchanged", raw.mtime, raw.size)
    try:
        return parse_document(entry.path, raw, config)
    except FrontmatterError as exc:
        return Problem(entry.path, str(exc))


def _apply(run: IndexRun, entry: FileEntry, state: DocState | None, outcome, removed_by_hash):
    """What to write for one file's outcome; problems and moves are recorded on run."""
    if isinstance(outcome, Problem):
        run.problems.append(outcome)
        if state is not None:
            run.kept_paths.add(entry.path)  # the last good version stays
        return None
    if isinstance(outcome, tuple) and outcome[0] == "empty":
        run.problems.append(outcome[1])
        return ("delete", state.id, 0.0, 0) if state is not None else None
    if isinstance(outcome, tuple) and outcome[0] == "unchanged":
        run.skipped += 1
        return ("touch", state.id, outcome[1], outcome[2])
    parsed = outcome
    for hook in run.parsed_hook:
        parsed = hook(parsed)
    doc_id = state.id if state else None
    if state is None and removed_by_hash.get(parsed.content_hash):
        doc_id = removed_by_hash[parsed.content_hash].pop().id  # a move: keep the document's id
        run.moved += 1
    return (parsed, doc_id)


def _write_batch(run: IndexRun, batch) -> None:
    if not batch:
        return
    store = run.store
    with store.transaction():
        changed = False
        for item in batch:
            if item[0] == "touch":
                store.touch_document(item[1], item[3], item[2])
                continue
            _note_mentions_dropped(run, [item[1]] if item[1] is not None else [])  # a rewrite, a move or a delete
            if item[0] == "delete":
                store.delete_document(item[1])
                run.deleted += 1
            else:
                parsed, doc_id = item
                store.write_document(parsed, doc_id)
                run.indexed += 1
            changed = True
        if changed:
            run.changed = True
            store.set_meta("entities_dirty", "1")


def entities_stage(run: IndexRun) -> None:
    """Rebuild the entity set from every stored claim when any document changed."""
    store = run.store
    if store.get_meta("entities_dirty") != "1" and not run.full:
        return
    from ..resolve.decisions import confirmed_names  # the names the user's answers made findable

    now = clock.now_iso()
    # Read and write in one transaction: a `relate --create` or `merge` committed in between
    # would otherwise be marked done without being applied.
    with store.transaction():
        claims = store.all_claims()
        merges, links = store.merges(), _reference_links(store)
        previous = _own_page_keys(store)
        records, resolved = assemble_entities(claims, merges, links, confirmed_names(store), previous)

        def primary_page(entity_id: int) -> str | None:
            entity = store.get_entity(LOCAL, entity_id)
            return entity.page_path if entity else None

        def auto_linked(from_key: str) -> bool:  # a merge the resolver recorded (decisions.py marks its undo)
            record = store.merge_record(from_key)
            return bool(record and record["undo"].get("resolved"))

        if renames := renamed_entities(store.page_entity_ids(), claims, primary_page, merges, auto_linked):
            # A renamed page's entity keeps what the user said about it under its old key.
            for old, (new_key, new_name) in renames.items():
                store.rename_entity_key(old, new_key, new_name)
            merges, links = store.merges(), _reference_links(store)
            records, resolved = assemble_entities(claims, merges, links, confirmed_names(store), previous)
        if run.config.resolve.enabled and _resolve_references(run, records, claims, resolved, now):
            merges, links = store.merges(), _reference_links(store)  # what the resolver linked: assemble again
            records, resolved = assemble_entities(claims, merges, links, confirmed_names(store), previous)
        records, resolved = without_unresolved_line_targets(records, claims, resolved)
        run.assembly = (claims, resolved, merges)
        # An entity kept alive only by a user's relations whose name now resolves elsewhere (a page
        # took it as an alias) hands its relations over instead of losing them.
        keys = {r.key for r in records}
        redirects = {entity_key(c.type, c.name): resolved[(c.doc_id, c.type, c.name)]
                     for c in claims if c.role == "asserted" and (c.doc_id, c.type, c.name) in resolved}
        redirects = {old: new for old, new in redirects.items() if old not in keys and new in keys}
        sync_entities(store, records, now, redirects, run.config.vocabulary.symmetric_names())
        fingerprint = _forms_fingerprint(store.entity_forms())
        if fingerprint != store.get_meta("forms_fingerprint") or run.full:
            # New names or aliases can appear in any document: every document is re-scanned.
            store.set_meta("mentions_rescan_all", "1")
            store.set_meta("forms_fingerprint", fingerprint)
        store.set_meta("entities_dirty", "0")


def _own_page_keys(store: Store):
    """A callable giving page path -> the key of the entity it is the own page of (asked by assembly only
    when one name's pages are split into namesakes: their keys stay from one index to the next)."""
    cache: dict[str, str] = {}

    def read() -> dict[str, str]:
        if not cache:
            key_of = {entity_id: key for key, entity_id in store.entity_ids_by_key().items()}
            cache.update((e.page_path, key_of[e.id]) for e in store.list_entities(LOCAL)
                         if e.page_path and e.id in key_of and e.status == "active")
        return cache

    return read


def _reference_links(store: Store) -> dict[tuple[str, str, str], str]:
    return {(r["doc_path"], r["type"], r["name_key"]): r["entity_key"] for r in store.reference_links()}


def _resolve_references(run: IndexRun, records, claims, resolved, now: str) -> int:
    """Put the names no page spells exactly to the resolver; returns how many it linked (as merges)."""
    from ..resolve.decisions import current_weights, record_reference_decisions, thresholds
    from ..resolve.references import resolve_references

    store = run.store
    decisions = resolve_references(records, claims, store.decided_pairs(), current_weights(store),
                                   thresholds(run.config), resolved)
    # A `## Relations` target that nothing stands behind is not made an entity (entities/assemble.py), so
    # "new" (it stays its own entity) would log one that does not exist; a link or a question stays, since
    # answering it makes the line resolve.
    kept = {r.key for r in without_unresolved_line_targets(records, claims, resolved)[0]}
    decisions = [d for d in decisions if d.outcome != "new" or d.record_key in kept]
    return record_reference_decisions(store, decisions, now)


def relations_stage(run: IndexRun) -> None:
    """Turn the entity pages' `## Relations` lines into relations; report lines that do not resolve."""
    from ..relations.records import sync_page_relations

    now = clock.now_iso()
    with run.store.transaction():
        run.problems.extend(sync_page_relations(run.store, run.config.vocabulary, now))


def conflicts_stage(run: IndexRun) -> None:
    """Record contradictions between current relations the pages state (relations/stated_conflicts.py).
    A run after kbgraph's own edit (only set) leaves them to that edit, which settles what it made."""
    if run.only is not None:
        return
    from ..relations.records import now_iso, today_iso
    from ..relations.stated_conflicts import record_stated_conflicts

    with run.store.transaction():
        record_stated_conflicts(run.store, run.config.vocabulary, today_iso(), now_iso())


def govern_stage(run: IndexRun) -> None:
    """Who may read each entity, relation, suggestion and resolution question, from the notes they come
    from (ingest/governance.py). Entities are derived again when this run rebuilt them (or the rules
    changed); the rest every run, since an edit adds some without rebuilding entities. Only what changed
    is written."""
    from .governance import (RULES_VERSION, decision_governance, entity_governance, relation_governance,
                             suggestion_governance, vault_default)

    store = run.store
    with store.transaction():
        documents = store.document_governance()
        current = store.entity_governance()
        if run.assembly is not None or store.get_meta("governance_rules") != RULES_VERSION:
            claims, resolved, _ = run.assembly or _assembled(store)
            pages = {doc_id: owner[0] for doc_id, owner in store.page_entity_ids().items()}
            derived = entity_governance(store.entity_ids_by_key(), pages, claims, resolved, documents,
                                        vault_default(run.config))
            for entity_id, governance in derived.items():
                if current.get(entity_id) != governance:
                    store.set_entity_governance(entity_id, governance.owner, governance.visibility,
                                                governance.sensitivity)
            current = derived
            store.set_meta("governance_rules", RULES_VERSION)
        relations = store.relation_governance()
        for relation_id, governance in relation_governance(relations, current, documents).items():
            if relations[relation_id][3] != governance:
                store.set_relation_governance(relation_id, governance)
        default = vault_default(run.config)
        suggestions = store.suggestion_governance()
        for suggestion_id, governance in suggestion_governance(suggestions, documents, default).items():
            if suggestions[suggestion_id][1] != governance:
                store.set_suggestion_governance(suggestion_id, governance)
        decisions = store.decision_governance()
        for decision_id, governance in decision_governance(decisions, documents, default).items():
            if decisions[decision_id][1] != governance:
                store.set_decision_governance(decision_id, governance)


def _assembled(store: Store) -> tuple:
    claims = store.all_claims()
    _, resolved = assemble_entities(claims, store.merges(), _reference_links(store))
    return claims, resolved, None


def memory_stage(run: IndexRun) -> None:
    """Turn the entity pages' `## Facts` and `## Loops` lines into facts and loops (pages whose content
    changed since last read); report lines that do not read."""
    from ..context.memory_sync import sync_page_memory

    now = clock.now_iso()
    with run.store.transaction():
        run.problems.extend(sync_page_memory(run.store, run.root, run.config, now))


def _forms_fingerprint(forms: list[tuple[int, str, str]]) -> str:
    import hashlib

    digest = hashlib.blake2b(digest_size=16)
    for entity_id, surface, kind in sorted(forms):
        digest.update(f"{entity_id}\x1f{surface}\x1f{kind}\x1e".encode())
    return digest.hexdigest()


def mentions_stage(run: IndexRun) -> None:
    """Link explicit and textual mentions in every document that needs it."""
    store = run.store
    rescan_all = store.get_meta("mentions_rescan_all") == "1"
    if rescan_all:
        run.stats_for = None
    total = store.count_docs_for_mentions(rescan_all)
    if total == 0:
        return
    # Set before any worker is forked, so workers inherit it instead of receiving it pickled; keyed
    # by run, so two vaults indexed at once in one process never scan with each other's names.
    forms, entities = store.entity_forms(), store.list_entities(LOCAL)
    run_key = id(run)
    claims_by_doc = _claim_entities_by_doc(store, run.assembly)  # once: the prose resolver reads it too
    prose = _prose_resolver(run, entities, claims_by_doc) if run.config.resolve.enabled else None
    if prose is not None and total >= PARALLEL_MIN_FILES:
        _ = prose.index  # built on first use; here once, before workers fork, rather than once in each
    _SCAN_CONTEXTS[run_key] = (
        MentionMatcher(matcher_forms(forms)),
        _link_resolver(forms, entities),
        claims_by_doc,
        {e.id: e.type for e in entities} if run.config.extract_patterns else None,
        run.config.vocabulary,
        frozenset(name_key(surface) for _, surface, _ in forms),
        store.unlinked_entities_by_doc(),
        prose,
        {e.id: (e.name, e.aliases, e.type) for e in entities},
    )
    results = _parallel_map(partial(scan_document, run_key=run_key), store.docs_for_mentions(rescan_all), total)
    try:
        items = (_counted(run, doc_id, found, ambiguous, extracted, prose_decisions)
                 for doc_id, found, ambiguous, extracted, prose_decisions in results)
        _drain_in_batches(run, "mentions", total, items, _write_mentions)
    finally:
        results.close()
        del _SCAN_CONTEXTS[run_key]
    with store.transaction():
        if run.prose_log is not None:
            run.prose_log.withdraw_unraised(store, rescan_all)  # the scanned documents said what they still ask
        store.set_meta("mentions_rescan_all", "0")


def _prose_resolver(run: IndexRun, entities: list, claims_by_doc: dict[int, list[tuple[int, str, str]]]):
    """The resolver for names in running text (resolve/prose.py), and the log its decisions go to."""
    from ..resolve.decisions import current_weights, thresholds
    from ..resolve.prose import ProseLog, ProseResolver

    store = run.store
    decided = store.decided_pairs()
    run.prose_log = ProseLog(dict(decided))
    return ProseResolver.build(entities, store.entity_ids_by_key(), claims_by_doc, decided, current_weights(store),
                               thresholds(run.config))


_SCAN_CONTEXTS: dict[int, tuple] = {}  # id(IndexRun) -> what its mention scan needs


def scan_document(doc: dict, run_key: int) -> tuple[int, list, int, tuple[str, list[dict]], list]:
    """(doc id, mentions with their chunk ids, ambiguous forms left unlinked, (path, suggested relations),
    decisions about names in its prose to log) for one stored document."""
    from ..extract.self_reference import page_self
    from ..extract.stage import extract_from_chunks

    matcher, link_resolver, claims_by_doc, types, vocab, known_names, unlinked, prose, pages = _SCAN_CONTEXTS[run_key]
    links = [Link(t, a, s, e, k) for t, a, s, e, k in doc["links"]]
    anchored = claims_by_doc.get(doc["id"], [])
    found, ambiguous = find_document_mentions(
        doc["chunks"], links, doc["body_offset"], matcher, lambda link: link_resolver(link, doc["path"]),
        {eid for eid, _, _ in anchored},
    )
    prose_decisions: list = []
    if prose is not None:  # names no exact form matched, put to the resolver (resolve/prose.py)
        found, prose_decisions = prose.resolve_document(doc["path"], doc["chunks"], found,
                                                        {eid for eid, _, _ in anchored}, known_names)
    taken_back = unlinked.get(doc["id"])
    if taken_back:  # `kbg entity unlink`: this text does not mean that entity here
        found = [(chunk_id, m) for chunk_id, m in found
                 if m.kind not in ("text", "prose") or m.entity_id not in taken_back]
    in_text = [(m.entity_id, chunk_id, m.start, m.end) for chunk_id, m in found if chunk_id is not None]
    owners = [eid for eid, _, role in anchored if role == "page"]
    page = page_self(owners[0], pages[owners[0]], doc.get("kind", "")) if len(owners) == 1 and owners[0] in pages else None
    suggested = (extract_from_chunks(doc["chunks"], in_text, types, vocab, page, known_names)
                 if types is not None else [])
    found += [(None, Mention(eid, None, None, name, "frontmatter")) for eid, name, role in anchored
              if role == "reference"]
    return doc["id"], found, ambiguous, (doc["path"], suggested), prose_decisions


def _parallel_map(fn, items, total: int):
    """fn over items, in order: in worker processes when there are enough items to pay for them."""
    workers = _worker_count()
    if total < PARALLEL_MIN_FILES or workers < 2:
        yield from (fn(item) for item in items)
        return
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    from .workers import worker_init

    pool = ProcessPoolExecutor(workers, mp_context=get_context("fork"), initializer=worker_init,
                               initargs=(os.getpid(),))
    try:
        yield from pool.map(fn, items, chunksize=16)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _counted(run: IndexRun, doc_id: int, found: list, ambiguous: int, extracted, prose) -> tuple[int, list, list]:
    run.ambiguous_mentions += ambiguous
    run.mentions_scanned += 1
    run.extracted[doc_id] = extracted
    return doc_id, found, prose


def _write_mentions(run: IndexRun, batch) -> None:
    """Mentions and the pattern suggestions found with them, in one transaction: a document marked
    scanned always has its suggestions."""
    if not batch:
        return
    now = clock.now_iso()
    with run.store.transaction():
        _note_mentions_dropped(run, [doc_id for doc_id, _, _ in batch])
        if run.stats_for is not None:
            run.stats_for.update(m.entity_id for _, found, _ in batch for _, m in found)
        run.store.replace_mentions([(doc_id, found) for doc_id, found, _ in batch])
        for doc_id, _, _ in batch:
            if doc_id in run.extracted and run.config.extract_patterns:
                path, found = run.extracted[doc_id]
                run.store.replace_suggestion_evidence(doc_id, path, found, now)
        run.store.drop_unstated_suggestions()
        if run.prose_log is not None:
            run.prose_log.write(run.store, [d for _, _, prose in batch for d in prose], now,
                                [run.extracted[doc_id][0] for doc_id, _, _ in batch if doc_id in run.extracted])


def _drain_in_batches(run: IndexRun, stage: str, total: int, items, write) -> None:
    """Write items (None: nothing to write) in transactions of BATCH_SIZE, reporting progress."""
    batch = []
    for done, item in enumerate(items, 1):
        if item is not None:
            batch.append(item)
        if len(batch) >= BATCH_SIZE:
            write(run, batch)
            batch = []
        run.progress(stage, done, total)
    write(run, batch)


def _link_resolver(forms: list[tuple[int, str, str]], entities: list) -> Callable[[Link, str], int | None]:
    """A link -> entity id: a wikilink by unique name/alias, page path or file stem; a markdown
    link by the page it points to, relative to the linking document."""
    by_key: dict[str, set[int]] = {}
    for entity_id, surface, kind in forms:
        if kind not in ("first-name", "confirmed"):  # a [[link]] by either could name several
            by_key.setdefault(name_key(surface), set()).add(entity_id)
    by_stem: dict[str, set[int]] = {}
    by_path: dict[str, int] = {}
    for entity in entities:
        if entity.page_path:
            for key in page_link_keys(entity.page_path):
                by_stem.setdefault(key, set()).add(entity.id)
            by_path[entity.page_path] = entity.id

    def resolve(link: Link, doc_path: str) -> int | None:
        if link.kind == "markdown":
            target = unquote(link.target)
            base = "" if target.startswith("/") else posixpath.dirname(doc_path)
            return by_path.get(posixpath.normpath(posixpath.join(base, target.lstrip("/"))))
        key = name_key(link.target.strip())
        for table in (by_key, by_stem):
            found = table.get(key)
            if found and len(found) == 1:
                return next(iter(found))
        return None

    return resolve


def _claim_entities_by_doc(store: Store, assembly: tuple | None) -> dict[int, list[tuple[int, str, str]]]:
    """Per document: (entity id, claimed name, role) for its page entity and frontmatter references."""
    if assembly is None:
        claims, merges = store.all_claims(), store.merges()
        _, resolved = assemble_entities(claims, merges, _reference_links(store))
    else:
        claims, resolved, merges = assembly
    merged_into = {m.from_key: m.into_key for m in merges}

    ids = {rec_key: eid for rec_key, eid in store.entity_ids_by_key().items()}
    page_owner = {doc_id: owner[0] for doc_id, owner in store.page_entity_ids().items()}
    out: dict[int, list[tuple[int, str, str]]] = {}
    for claim in claims:
        if claim.role == "page" and claim.doc_id in page_owner:  # a namesake's page is its own entity's
            out.setdefault(claim.doc_id, []).append((page_owner[claim.doc_id], claim.name, claim.role))
            continue
        key = entity_key(claim.type, claim.name) if claim.role == "page" else resolved.get(
            (claim.doc_id, claim.type, claim.name)
        )
        seen = set()
        while key in merged_into and key not in seen:  # a cycle (never written, but never loop on one)
            seen.add(key)
            key = merged_into[key]
        if key in ids:
            out.setdefault(claim.doc_id, []).append((ids[key], claim.name, claim.role))
    return out


def ready_stage(run: IndexRun) -> None:
    """Commit what text and graph search still need (entity tiers, problems, the keyword index
    compacted after many rewrites, the count of sections without vectors), then say they are ready:
    progress("ready", documents, sections), and run.ready for the report."""
    store = run.store
    now = clock.now_iso()
    with store.transaction():
        if run.changed or run.mentions_scanned or run.full:
            store.refresh_entity_stats(TIER_THRESHOLDS, None if run.stats_for is None else sorted(run.stats_for))
        _record_problems(run, now)
        store.set_meta("last_indexed", now)
        if run.only is None:  # every note was read under this configuration (or is unchanged since)
            store.set_meta("config_fingerprint", run.config.fingerprint)
        missing = store.count_chunks_without_vectors()
        if store.get_meta("vectors_missing") != str(missing):  # search says how many lack vectors from this
            store.set_meta("vectors_missing", str(missing))
    if run.only is None and _rewrote_a_large_share(run):
        store.compact_text_index()  # many rewrites left the keyword index in pieces every query reads
    stats = store.stats()
    run.ready = TextReady(round(time.perf_counter() - run.started, 3), stats["documents"], stats["chunks"],
                          stats["entities"], stats["relations"], missing)
    run.progress("ready", stats["documents"], stats["chunks"])


def _rewrote_a_large_share(run: IndexRun) -> bool:
    """Whether this run rewrote or removed COMPACT_SHARE of the notes, by count or by size: one deleted
    50 MB note among small ones leaves most of the keyword index as delete markers, whose space only
    a merge gives back."""
    rewritten = run.indexed + len(run.removed)
    if not rewritten:
        return False
    if rewritten >= COMPACT_SHARE * max(len(run.files), 1):
        return True
    # Bytes whose text went out of the keyword index (old versions, removed notes) or into it.
    old = sum(state.size for _, state in run.to_read if state) + sum(state.size for state in run.removed.values())
    changed = old + sum(entry.size for entry, _ in run.to_read)
    return changed >= COMPACT_SHARE * (sum(entry.size for entry in run.files) + old)


def finish_stage(run: IndexRun) -> None:
    """Record what embedding added to the problems, the run's time, and give back the space freed."""
    store = run.store
    now = clock.now_iso()
    with store.transaction():
        _record_problems(run, now)
        store.set_meta("last_run_seconds", f"{time.perf_counter() - run.started:.3f}")
    store.reclaim_space()


def _record_problems(run: IndexRun, now: str) -> None:
    store = run.store
    store.record_problems(run.problems, now, clear_paths=[])
    current = {p.path for p in run.problems}
    if run.only is None:
        store.clear_problems_except(current)
    else:  # a partial run knows only about its own files (and every page line)
        stale = [p.path for p in store.problems()
                 if p.path not in current and (p.path in run.only or _is_line_problem(p.path))]
        store.record_problems([], now, clear_paths=stale)


def _is_line_problem(path: str) -> bool:
    head, _, line = path.rpartition(":")
    return bool(head) and line.isdigit()


def _extract_stage(run: IndexRun) -> None:
    if run.extracted and run.config.llm is not None:
        from ..extract.stage import extract_stage

        extract_stage(run)


def _relate_stage(run: IndexRun) -> None:
    from ..docgraph.stage import relate_stage

    relate_stage(run)


def _cooccurrence_stage(run: IndexRun) -> None:
    # Only meetings count: recompute when one was re-read or anything was removed.
    meetings_changed = run.full or run.deleted or run.store.count_meetings(list(run.extracted))
    if meetings_changed:
        from ..extract.stage import cooccurrence_stage

        cooccurrence_stage(run)


def _infer_stage(run: IndexRun) -> None:
    # Relations that follow by the inference rules, recomputed only when relations changed.
    from ..graph.inference import infer_if_changed

    infer_if_changed(run.store, run.config.inference_rules)


def _embed_stage(run: IndexRun) -> None:
    if run.embed != "now":
        return
    from ..embed.background import running

    if running(run.root):
        # A background embedding is alive: it takes the index lock a round at a time, so its next
        # round picks up what this run added (and compares documents by meaning when it is done).
        run.embed = "background"
        return
    from ..embed.stage import embed_stage

    embed_stage(run)


def _similar_stage(run: IndexRun) -> None:
    """References by meaning: they compare vectors, so they follow the embedding (and wait for it)."""
    if run.embed != "now":
        return
    from ..docgraph.similar_stage import similar_stage

    similar_stage(run)


class Pipeline:
    """An ordered list of named stages."""

    def __init__(self, stages: list[tuple[str, Stage]]):
        self.stages = list(stages)

    @classmethod
    def default(cls) -> "Pipeline":
        return cls(
            [
                ("walk", walk_stage),
                ("profile", profile_stage),
                ("plan", plan_stage),
                ("documents", documents_stage),
                ("entities", entities_stage),
                ("relations", relations_stage),
                ("conflicts", conflicts_stage),
                ("memory", memory_stage),
                ("mentions", mentions_stage),
                ("relate", _relate_stage),
                ("extract", _extract_stage),
                ("cooccur", _cooccurrence_stage),
                ("infer", _infer_stage),
                ("govern", govern_stage),
                ("ready", ready_stage),
                ("embed", _embed_stage),
                ("similar", _similar_stage),
                ("finish", finish_stage),
            ]
        )

    def names(self) -> list[str]:
        return [name for name, _ in self.stages]

    def _index(self, name: str) -> int:
        try:
            return self.names().index(name)
        except ValueError:
            from ..errors import InvalidInput

            raise InvalidInput(f"no stage named {name!r}; stages are {', '.join(self.names())}") from None

    def insert_after(self, name: str, new_name: str, stage: Stage) -> "Pipeline":
        self.stages.insert(self._index(name) + 1, (new_name, stage))
        return self

    def insert_before(self, name: str, new_name: str, stage: Stage) -> "Pipeline":
        self.stages.insert(self._index(name), (new_name, stage))
        return self

    def replace(self, name: str, stage: Stage) -> "Pipeline":
        self.stages[self._index(name)] = (name, stage)
        return self

    def remove(self, name: str) -> "Pipeline":
        del self.stages[self._index(name)]
        return self

    def run(self, run: IndexRun) -> None:
        for _, stage in self.stages:
            stage(run)


def index_vault(
    root: Path,
    full: bool = False,
    progress: ProgressFn | None = None,
    pipeline: Pipeline | None = None,
    store: Store=None,
    only: set[str] | None = None,
    lock_wait: float = 0.0,
    embed: str = "now",
    db: str | None = None,
    config: Config | None = None,
) -> IndexReport:
    """Index the vault at root (incrementally unless full) and report what happened. Text and graph
    search are committed before any embedding (progress "ready"); embed="later" stops there, and
    `embed_vault` (or the next run) makes the vectors; embed="background" then starts a detached
    embedding process (embed.background; db: the PostgreSQL URL of store, for it to open). While a
    background embedding runs, embedding is left to it whatever embed says (report.background).
    config: the vault's settings as already loaded (a workspace's re-read), instead of kbgraph.toml read now."""
    from ..store import open_store

    if embed not in EMBED_CHOICES:
        from ..errors import InvalidInput

        raise InvalidInput(f"`embed` {embed!r}: use {' or '.join(EMBED_CHOICES)}", param="embed")
    root = Path(root)
    config = load_config(root) if config is None else config
    own_store = store is None
    store = store or open_store(root)
    try:
        with index_lock(root, lock_wait):
            config_changed = only is None and not full and _config_changed(store, config)
            run = IndexRun(root=root, config=config, store=store, full=full or config_changed, only=only,
                           progress=progress or (lambda *a: None), embed=embed)
            (pipeline or Pipeline.default()).run(run)
            stats = store.stats()
            missing = store.chunks_missing_vectors()
    finally:
        if own_store:
            store.close()
    background = _background(root, run.embed if config.search.embedder != "none" else "off", db)
    return IndexReport(
        indexed=run.indexed,
        skipped=run.skipped,
        removed=run.deleted,
        moved=run.moved,
        errors=sum(p.severity == "error" for p in run.problems),
        warnings=sum(p.severity == "warning" for p in run.problems),
        seconds=round(time.perf_counter() - run.started, 3),
        chunks=stats["chunks"],
        entities=stats["entities"],
        mentions=stats["mentions"],
        problems=tuple(run.problems),
        config_changed=config_changed,
        ready=run.ready,
        embedded=run.embedded,
        vectors_missing=missing,
        background=background,
    )


def _background(root: Path, embed: str, db: str | None):
    """The background embedding this run asked for (embed="background") or left its sections to."""
    if embed != "background":
        return None
    from ..embed.background import embed_status, start_background
    from ..model import EmbedStart

    status = embed_status(root)
    if status.running:
        return EmbedStart(started=False, status=status)
    return start_background(root, db=db)


def _config_changed(store: Store, config) -> bool:
    """Whether the notes were read under other settings than config's (an index from before kbgraph
    kept a fingerprint counts as changed, unless it holds nothing yet)."""
    stored = store.get_meta("config_fingerprint")
    if stored is None:
        return store.get_meta("last_indexed") is not None
    return stored != config.fingerprint

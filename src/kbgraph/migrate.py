"""`kbg migrate-to URL`: move a vault's index into another store (a team's PostgreSQL) losslessly.

The target is built the way a user would by hand (index the notes, then import an export of
everything a user asserted and decided), plus what no export carries: vectors by text hash, so
nothing is embedded again, and API tokens with their digests. It happens in one transaction of the
target and is checked before it commits: the target's export must equal the source's, or nothing is
kept. An interrupted migration leaves the target as it was, so running it again completes it."""

from __future__ import annotations

import re
from dataclasses import replace

from .access import LOCAL
from .errors import InvalidInput, StoreError
from .portable import export_data, import_data
from .store import drop_added, open_store, server_objects
from .base.workspace import Workspace

VECTOR_PAGE = 2000
# What two indexing runs write differently: when they ran. Everything else must be equal.
_RUN_TIMES = {"exported_at", "created_at", "updated_at", "recorded_at", "superseded_at", "decided_at"}


def migrate_to(ws: Workspace, url: str) -> dict:
    """Copy ws's index into the empty store at url; returns what was copied and that it was verified.
    A failure at any step, the check included, leaves the database with what it held before."""
    before = server_objects(url)
    try:
        return _migrate_to(ws, url)
    except BaseException:
        drop_added(url, before)  # the schema the store made at open: it is not the copy's transaction's to undo
        raise


def _migrate_to(ws: Workspace, url: str) -> dict:
    target = open_store(ws.root, db=url)
    where = re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)  # never echo a password
    try:
        held = target.stats()["documents"]
        if held:
            raise InvalidInput(f"{where} already holds an index of {held} notes; migrate into an empty "
                               "database", param="url", hint="create a new database, or drop this one's tables")
        symmetric = ws.config.vocabulary.symmetric_names()
        data = export_data(ws.store, symmetric)
        with target.transaction():  # all of it or none of it
            vectors = _copy_vectors(ws, target)
            tokens = ws.store.token_rows()
            for row in tokens:
                target.add_token_row(row)
            # The decision log first, as the source holds it: the target's index then decides as the
            # source's would now (a pair the user unmerged or rejected is not merged again, an answered
            # question is not asked again), not as a first index of the notes would.
            decisions = ws.store.decisions(LOCAL)
            target.replace_decisions(decisions)
            counts = import_data(replace(ws, store=target), data)
            # And last, exactly the source's: a question the target's index asked too carries the features it
            # measured then, which need not be the ones the user answered.
            target.replace_decisions(decisions)
            moved = export_data(target, symmetric)
            different = [key for key in data if key not in _RUN_TIMES
                         and comparable(key, data[key]) != comparable(key, moved.get(key))]
            if different:
                raise StoreError(f"the copy differs from the index in {', '.join(different)}; nothing was kept",
                                 hint="index the vault and migrate again")
        return {"target": where, "documents": target.stats()["documents"], "vectors": vectors,
                "tokens": len(tokens), "verified": True, **counts}
    finally:
        target.close()


def _copy_vectors(ws: Workspace, target) -> int:
    model = ws.store.embedding_model()
    if model is None:
        return 0
    target.reset_vectors(model)  # the target's vectors are this model's: none is computed again
    copied, after = 0, ""
    while rows := ws.store.vector_rows(after, VECTOR_PAGE):
        target.add_vector_rows(rows)
        copied, after = copied + len(rows), rows[-1][0]
    return copied


def comparable(key: str, value):
    """An export's part as the check compares it: without run times, and facts and loops by what they
    say rather than by row id or order, since the copy numbers them in the order it reads them (its
    pages' lines first, then the rest), not in the order the user added them."""
    value = without_run_times(value)
    if key not in ("facts", "loops") or not isinstance(value, list):
        return value
    said = {item.get("id"): _identity(item) for item in value if isinstance(item, dict)}
    rows = [{**{k: v for k, v in item.items() if k != "id"}, "superseded_by": said.get(item.get("superseded_by"))}
            if key == "facts" else item for item in value]
    return sorted(rows, key=lambda item: repr(sorted(item.items())))


def _identity(fact: dict) -> tuple:
    return tuple(fact.get(k) for k in ("entity_key", "kind", "text", "date", "source", "superseded_at"))


def without_run_times(value):
    """value (an export or part of one) without the times a run writes: two runs over the same notes
    differ only in them."""
    if isinstance(value, dict):
        return {k: without_run_times(v) for k, v in value.items() if k not in _RUN_TIMES}
    if isinstance(value, list):
        return [without_run_times(v) for v in value]
    return value

"""The relate stage of `kbg index`: docgraph.relate's work, when there is any.

The work needs numpy (SimHash, word arrays), whose import costs about as much as a whole index run
that finds nothing changed; so this module imports nothing heavy, and docgraph.relate is imported
only when some document changed.
"""

from __future__ import annotations

VERSION = "1"  # bump when what is computed changes: every document is related again


def relate_stage(run) -> None:
    store = run.store
    full = run.full or store.get_meta("docgraph_version") != VERSION
    if not full and not any(store.docgraph_changes()):
        return  # nothing changed: no write transaction at all
    with store.transaction():
        changed, removed = store.docgraph_changes(full)  # again, inside the transaction that acts on it
        if changed or removed:
            from .relate import relate

            relate(store, changed, removed, full)
            run.progress("relate", len(changed), len(changed))
        store.set_meta("docgraph_version", VERSION)

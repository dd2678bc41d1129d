"""Section and document keyword reads, on every backend: passages rank sections across documents,
filtered before the limit, and compacting the text index changes no answer."""

from __future__ import annotations

from kbgraph.access import LOCAL, Access
from kbgraph.search.query import parse_query
from kbgraph.store.base import DocFilter

from .builders import document


def test_ranked_chunks_filter_before_the_limit_and_compaction_changes_nothing(store):
    for i in range(6):
        document(store, f"notes/{i}.md", "harbour budget " * (6 - i), owner="ana" if i < 3 else None,
                 visibility="private" if i < 3 else "public")
    query = parse_query("harbour budget")
    everyone = store.ranked_chunks(LOCAL, query, DocFilter(), 10)
    assert len(everyone) == 6 and [s for _, _, s in everyone] == sorted((s for _, _, s in everyone), reverse=True)
    ben = Access.of("ben", ["public"], "normal")
    assert len(store.ranked_chunks(ben, query, DocFilter(), 3)) == 3  # three readable, three asked
    before = (everyone, store.ranked_docs(LOCAL, query, DocFilter(), 10), store.documents_revision())
    store.compact_text_index()
    assert (store.ranked_chunks(LOCAL, query, DocFilter(), 10), store.ranked_docs(LOCAL, query, DocFilter(), 10),
            store.documents_revision()) == before

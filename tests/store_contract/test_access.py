"""Access on every read: random principals over rows of random governance, on every backend.

Each read must return exactly what kbgraph.access.Access.may_read allows (for relations: the
relation and both of its ends), and it must filter before it cuts, so a limit of k still returns k
readable rows when there are k. A principal that may read nothing gets empty results, not errors.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbgraph.access import LOCAL, SENSITIVITIES, VISIBILITIES, Access
from kbgraph.errors import ForeignAccess
from kbgraph.search.query import parse_query
from kbgraph.store.base import DocFilter

from .builders import document, entities, relation
from .conftest import open_backend

OWNERS = ("ana", "ben", None)
governance = st.tuples(st.sampled_from(OWNERS), st.sampled_from((*VISIBILITIES, "unheard-of")),
                       st.sampled_from((*SENSITIVITIES, "typo")))
principals = st.builds(Access.of, st.sampled_from(("ana", "ben", "cy")),
                       st.sets(st.sampled_from(VISIBILITIES)), st.sampled_from(SENSITIVITIES))
PEOPLE = ("Ana", "Ben", "Cy", "Dee")
PAIRS = [(a, b) for a in PEOPLE for b in PEOPLE if a != b]
SHARED_WORD = "harbour"


def _fill(store, docs, people, links):
    """Documents, entities and relations with the given governance; returns what was written."""
    doc_ids = {f"notes/{i}.md": document(store, f"notes/{i}.md", f"{SHARED_WORD} minutes number{i}", *g)
               for i, g in enumerate(docs)}
    ids = entities(store, [("person", name) for name in PEOPLE])
    with store.transaction():
        for name, (owner, visibility, sensitivity) in zip(PEOPLE, people):
            store.set_entity_governance(ids[name], owner, visibility, sensitivity)
        for i, doc_id in enumerate(doc_ids.values()):
            chunk = store.document_chunks(LOCAL, doc_id)[0]
            vector = np.ones(4, dtype=np.float32) / 2
            store.put_vectors([(chunk["id"], f"hash-{i}", vector.tobytes())])
    for (source, target), (owner, visibility, sensitivity) in links.items():
        relation(store, ids[source], ids[target], "works-with", owner=owner, visibility=visibility,
                 sensitivity=sensitivity)
    return doc_ids, ids


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(access=principals, docs=st.lists(governance, min_size=1, max_size=6),
       people=st.lists(governance, min_size=len(PEOPLE), max_size=len(PEOPLE)),
       links=st.dictionaries(st.sampled_from(PAIRS), governance, max_size=6))
def test_no_read_returns_a_row_the_principal_may_not_read(backend, access, docs, people, links):
    store = open_backend(backend)
    try:
        doc_ids, ids = _fill(store, docs, people, links)
        readable_docs = {path for path, g in zip(doc_ids, docs) if access.may_read(*g)}
        readable_ids = {doc_ids[p] for p in readable_docs}
        may_see = {name for name, g in zip(PEOPLE, people) if access.may_read(*g)}
        readable_links = {pair for pair, g in links.items()
                          if access.may_read(*g) and pair[0] in may_see and pair[1] in may_see}

        assert {d["path"] for d in store.list_documents(access, DocFilter())} == readable_docs
        assert {p for p, i in doc_ids.items() if store.get_document(access, doc_id=i)} == readable_docs
        assert {p for p, i in doc_ids.items() if store.document_chunks(access, i)} == readable_docs
        ranked = store.ranked_docs(access, parse_query(SHARED_WORD), DocFilter(), 2)
        assert {d for d, _ in ranked} <= readable_ids and len(ranked) == min(2, len(readable_ids))  # filter, then cut
        every_chunk = [c["id"] for i in doc_ids.values() for c in store.document_chunks(LOCAL, i)]
        assert {row["path"] for row in store.chunk_rows(access, every_chunk, DocFilter()).values()} == readable_docs
        assert store.docs_passing(access, list(doc_ids.values()), DocFilter()) == readable_ids
        assert {i for i in doc_ids.values() if store.doc_passes(access, i, DocFilter())} == readable_ids
        _, vector_docs, _ = store.vector_matrix(access, DocFilter())
        assert set(vector_docs.tolist()) == readable_ids

        assert {e.name for e in store.list_entities(access)} == may_see
        assert {n for n, i in ids.items() if store.get_entity(access, i)} == may_see
        assert {n for n in PEOPLE if store.entities_by_name_key(access, n.lower())} == may_see
        assert {name for _, name in store.all_entity_names(access)} <= may_see

        listed = {(r["source"], r["target"]) for r in store.relations_of_type(access, None)}
        assert listed == readable_links
        for name, entity_id in ids.items():
            out = {(name, r["target"]) for r in store.relations_from(access, entity_id, "out", None, None, None)}
            assert out == {pair for pair in readable_links if pair[0] == name}
            counted = sum(store.relation_counts(access, entity_id, None).values())
            assert counted == sum(1 for pair in readable_links if name in pair)
            near = store.active_neighbours(access, [entity_id], "2026-01-01", 50)
            assert {(name, _name_of(ids, n)) if d == "out" else (_name_of(ids, n), name)
                    for _, n, _, d in near} == {pair for pair in readable_links if name in pair}
            as_of = store.relations_as_of(access, entity_id, "out", None, "2026-12-01")
            assert {(v.source, v.target) for v in as_of} == {pair for pair in readable_links if pair[0] == name}
    finally:
        store.close()


def _name_of(ids: dict[str, int], entity_id: int) -> str:
    return next(name for name, i in ids.items() if i == entity_id)


def test_history_is_read_through_the_same_rule(store):
    ids = entities(store, [("person", "Dana"), ("person", "Ana")])
    row = relation(store, ids["Dana"], ids["Ana"], "reports-to", owner="ana", visibility="team",
                   sensitivity="confidential")
    with store.transaction():
        store.end_relation(row["id"], "2026-06-01T00:00:00+00:00")
        for entity_id in ids.values():
            store.set_entity_governance(entity_id, None, "team", "normal")
    team = Access.of("ben", ["team"], "internal")
    assert store.relation_history(team) == [] and store.relation_history(LOCAL) != []
    assert len(store.relation_history(Access.of("ben", ["team"], "confidential"))) == 1
    assert len(store.relation_history(Access.of("ana", [], "confidential"))) == 0  # owns it, but not its ends


def test_a_principal_that_may_read_nothing_gets_empty_results(store):
    document(store, "a.md", "harbour", owner="ana", visibility="private")
    nobody = Access.of("zed", [], "normal")
    assert store.list_documents(nobody, DocFilter()) == []
    assert store.ranked_docs(nobody, parse_query("harbour"), DocFilter(), 5) == []
    assert store.suggestions(nobody) == [] and store.decisions(nobody) == []


@pytest.mark.parametrize("foreign", [None, "local", {"principal": "local"}])
def test_a_read_given_anything_but_an_access_is_refused(store, foreign):
    with pytest.raises(ForeignAccess):
        store.list_documents(foreign, DocFilter())

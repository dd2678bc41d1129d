"""No leaks through the graph: random principals over a random graph of random governance, on every
backend. A relation or an entity a principal may not read never shows in its neighbourhood, path, hub
counts, relation lists or agent context — not as a name, not as a step, not in a count."""

from __future__ import annotations

import itertools
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbgraph.access import SENSITIVITIES, VISIBILITIES, Access
from kbgraph.config import Config
from kbgraph.context.agent import build_context
from kbgraph.context.tokens import EstimateCounter
from kbgraph.errors import NotFound
from kbgraph.graph.hubs import hubs
from kbgraph.graph.neighbours import neighbours
from kbgraph.graph.paths import path
from kbgraph.graph.view import GraphView
from kbgraph.relations.records import entity_relations

from .builders import entities, relation
from .conftest import open_backend

OWNERS = ("ana", "ben", None)
PEOPLE = ("Avery Quill", "Blake Umber", "Casey Vole", "Devon Wren", "Emery Yarrow")
PAIRS = [(a, b) for a, b in itertools.permutations(PEOPLE, 2)]
governance = st.tuples(st.sampled_from(OWNERS), st.sampled_from(VISIBILITIES), st.sampled_from(SENSITIVITIES))
principals = st.builds(Access.of, st.sampled_from(("ana", "ben", "cy")),
                       st.sampled_from([VISIBILITIES[i:] for i in range(3)]), st.sampled_from(SENSITIVITIES))
VIEW = GraphView((), None, False, False)


def _names(value) -> set[str]:
    text = json.dumps(value, default=str)
    return {name for name in PEOPLE if name in text}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(access=principals, people=st.lists(governance, min_size=len(PEOPLE), max_size=len(PEOPLE)),
       links=st.dictionaries(st.sampled_from(PAIRS), governance, min_size=1, max_size=8))
def test_graph_answers_show_only_what_the_principal_may_read(backend, access, people, links):
    store = open_backend(backend)
    try:
        vocab = Config().vocabulary
        ids = entities(store, [("person", name) for name in PEOPLE])
        with store.transaction():
            for name, g in zip(PEOPLE, people):
                store.set_entity_governance(ids[name], *g)
        for (source, target), (owner, visibility, sensitivity) in links.items():
            relation(store, ids[source], ids[target], "works-with", owner=owner, visibility=visibility,
                     sensitivity=sensitivity)
        may_see = {name for name, g in zip(PEOPLE, people) if access.may_read(*g)}
        readable = [pair for pair, g in links.items()
                    if access.may_read(*g) and pair[0] in may_see and pair[1] in may_see]
        edges = {frozenset(pair) for pair in readable}

        for name in sorted(may_see):
            start = store.get_entity(access, ids[name])
            near = neighbours(store, vocab, start, 3, "both", VIEW, None, access=access)
            assert _names(near) <= may_see
            for level in near["levels"]:
                for found in level["entities"]:
                    for step in found["path"]:
                        assert frozenset((step["from"], step["to"])) in edges
            listed = entity_relations(store, vocab, start, None, False, access=access)
            assert _names(listed) <= may_see
            assert len(listed["relations"]) + len(listed["inverse_relations"]) == sum(name in p for p in readable)
            for other in sorted(may_see - {name}):
                try:
                    route = path(store, vocab, start, store.get_entity(access, ids[other]), False, 4, VIEW, access=access)
                except NotFound as exc:  # not connected by what it may read: the message names only the two
                    assert _names(str(exc)) <= {name, other}
                    continue
                assert _names(route) <= may_see
                assert route["paths"]
                for step in itertools.chain.from_iterable(route["paths"]):
                    assert frozenset((step["from"], step["to"])) in edges
        ranked = hubs(store, vocab, 10, "degree", VIEW, access=access)
        assert _names(ranked) <= may_see
        for row in ranked["hubs"]:
            assert row["degree"] == sum(row["name"] in p for p in readable)
        context = build_context(store, Config(), None, 1000, access=access, counter=EstimateCounter())
        assert _names(context.text) <= may_see
    finally:
        store.close()

"""The graph written for other tools: GraphML (Gephi, Cytoscape, yEd, networkx), Cytoscape's JSON
(elements of nodes and edges), and Graphviz DOT. Streamed a line at a time, so a large graph is
never held twice."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from xml.sax.saxutils import escape

from ..access import Access
from ..errors import InvalidInput
from ..vocabulary import Vocabulary
from ..store.base import Store
from .view import GraphView, all_edges, plan

FORMATS = ("graphml", "json", "dot")
# XML 1.0 cannot carry most control characters, even escaped; a note may contain them.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def export_graph(store: Store, vocab: Vocabulary, fmt: str = "graphml", view: GraphView = GraphView(),
                 connected_only: bool = False, *, access: Access) -> Iterator[str]:
    """The graph's text in fmt, line by line: every entity the access may read (connected_only: those
    with a relation in the view) and every relation of the view."""
    if fmt not in FORMATS:
        raise InvalidInput(f"`format` {fmt!r}: use one of {', '.join(FORMATS)}", param="format")
    read = plan(vocab, view)
    edges = all_edges(store, access, read)
    entities = store.list_entities(access)
    if connected_only:
        linked = {n for s, t, *_ in edges for n in (s, t)}
        entities = [e for e in entities if e.id in linked]
    known = {e.id for e in entities}
    edges = [e for e in edges if e[0] in known and e[1] in known]
    writer = {"graphml": _graphml, "json": _cytoscape, "dot": _dot}[fmt]
    return writer(entities, edges, vocab)


def _graphml(entities, edges, vocab) -> Iterator[str]:
    yield '<?xml version="1.0" encoding="UTF-8"?>'
    yield '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
    for key, domain, name, kind in (("name", "node", "name", "string"), ("type", "node", "type", "string"),
                                    ("label", "edge", "label", "string"), ("inverse", "edge", "inverse", "string"),
                                    ("inferred", "edge", "inferred", "boolean")):
        yield f'  <key id="{key}" for="{domain}" attr.name="{name}" attr.type="{kind}"/>'
    yield '  <graph id="kbgraph" edgedefault="directed">'
    for e in entities:
        yield (f'    <node id="e{e.id}"><data key="name">{escape(_NOT_XML.sub("", e.name))}</data>'
               f'<data key="type">{escape(e.type)}</data></node>')
    for source, target, relation_id, kind, inferred in edges:
        inverse = vocab.label(kind, False)
        yield (f'    <edge id="r{relation_id}" source="e{source}" target="e{target}">'
               f'<data key="label">{escape(kind)}</data><data key="inverse">{escape(inverse)}</data>'
               f'<data key="inferred">{"true" if inferred else "false"}</data></edge>')
    yield "  </graph>"
    yield "</graphml>"


def _cytoscape(entities, edges, vocab) -> Iterator[str]:
    yield '{"elements": {"nodes": ['
    for i, e in enumerate(entities):
        data = {"id": f"e{e.id}", "name": e.name, "type": e.type}
        yield json.dumps({"data": data}, ensure_ascii=False) + ("," if i < len(entities) - 1 else "")
    yield '], "edges": ['
    for i, (source, target, relation_id, kind, inferred) in enumerate(edges):
        data = {"id": f"r{relation_id}", "source": f"e{source}", "target": f"e{target}", "type": kind,
                "inverse": vocab.label(kind, False), "inferred": inferred}
        yield json.dumps({"data": data}, ensure_ascii=False) + ("," if i < len(edges) - 1 else "")
    yield "]}}"


def _dot_id(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def _dot(entities, edges, vocab) -> Iterator[str]:
    yield "digraph kbgraph {"
    for e in entities:
        yield f"  e{e.id} [label={_dot_id(e.name)}, type={_dot_id(e.type)}];"
    for source, target, relation_id, kind, inferred in edges:
        style = ", style=dashed" if inferred else ""
        yield f"  e{source} -> e{target} [label={_dot_id(kind)}, id={_dot_id(f'r{relation_id}')}{style}];"
    yield "}"

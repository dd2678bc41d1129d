"""`kbg resolve duplicates`: entity pages that are likely one entity become questions; answering one.

The finding is resolve/duplicates.py (pure); this module reads the entity pages from the store,
puts each likely pair in the resolver's question queue (the decision log, outcome "asked", so
`kbg resolve pending` lists it with the name questions) and applies a confirmed one.

A question is logged like a name question: surface = the page to link (its name, its path as
doc_path), candidate = the entity it is the same as, features = {"kind": DUPLICATE_KIND, the
weight, the model version, both paths and every attribute comparison}. The pair is keyed as the
resolver keys a name (surface_key(name), candidate entity key), so a rejected pair is never asked
again, by this command or by the resolver, and a pair asked already is not asked twice.

Confirming writes `same_as: "[[Candidate]]"` into the surface page's frontmatter (one added line,
pages/frontmatter_lines.py): neither page's prose changes, the link is the user's, in their file,
and entity assembly honours it (entities/assemble.py) on every index, `--full` included.
"""

from __future__ import annotations

from typing import Callable

from ..access import Access
from ..errors import InvalidInput
from .duplicate_questions import DUPLICATE_KIND
from .duplicate_clusters import DuplicateCluster, duplicate_clusters
from .duplicates import (
    MODEL_VERSION, PROPOSE_WEIGHT, DuplicatePair, DuplicateRecord, find_duplicates, normalise, score_pair,
)
from ..entities.keys import surface_key
from ..entities.names import name_key
from ..store.base import Store
from ..base.workspace import Workspace

def page_records(store: Store, access: Access) -> list[DuplicateRecord]:
    """Every active entity that has a page, as the duplicate finder reads it (id: its stored key, which
    a namesake's page qualifies, entities/namesakes.py)."""
    key_of = {entity_id: key for key, entity_id in store.entity_ids_by_key().items()}
    return [DuplicateRecord(key_of[e.id], e.type, e.name, tuple(e.aliases), dict(e.attributes), e.page_path)
            for e in store.list_entities(access) if e.page_path and e.status == "active" and e.id in key_of]


def find_duplicate_pages(store: Store, access: Access, now: str | None = None,
                         progress: Callable[[int, int], None] | None = None) -> dict:
    """Find likely duplicate pages and ask about each pair not asked or answered before. Idempotent:
    a second run adds no question. Returns the questions asked now and the search's numbers."""
    from ..relations.records import now_iso

    decided = store.decided_pairs()
    records = page_records(store, access)
    by_id = {r.id: r for r in records}

    def answered(a: str, b: str) -> bool:
        return any(decided.get(_pair_key(by_id[x], by_id[y])) in ("rejected", "confirmed") for x, y in ((a, b), (b, a)))

    def asked_before(surface: DuplicateRecord, candidate: DuplicateRecord) -> bool:
        # As it would be asked: the other way round, the key may be a name question's ("John Smith" in a
        # note, asked about every John Smith and Jon Smith), not this page's.
        return _pair_key(surface, candidate) in decided

    # Pairs asked already are still scored: the clusters they make must come out the same every run.
    search = find_duplicates(records, skip=answered, progress=progress)
    asked, now = [], now or now_iso()
    with store.transaction():
        for cluster in duplicate_clusters(search.pairs, _fullness):
            for pair, surface, candidate in _questions_of(cluster):
                if asked_before(surface, candidate):
                    continue
                row = _question_row(pair, surface, candidate, now, cluster)
                asked.append({"id": store.add_decision(row), **_summary(pair, surface, candidate, cluster)})
    return {"asked": asked, "namesake_pages": namesake_pages(store, access), "pages": search.records,
            "comparisons": search.comparisons,
            "all_pairs": search.records * (search.records - 1) // 2, "skipped_blocks": search.skipped_blocks,
            "seconds": round(search.seconds, 3)}


MAX_PAGES_PER_NAME = 20  # pages of one name compared with each other (a name on more pages is rare)


def namesake_pages(store: Store, access: Access) -> list[dict]:
    """Pages that are one entity because they carry one name, but whose other attributes say two people
    (an address or role that differs, and the model's weight below the line): they are reported, never
    split. Pages of one name whose identifiers disagree (birth date, id number, email, phone) are two
    entities already (entities/namesakes.py), and not listed here."""
    from collections import defaultdict
    from itertools import combinations

    owner = store.page_entity_ids()
    by_key: dict[tuple, list] = defaultdict(list)
    for claim in store.all_claims():
        if claim.role == "page" and claim.doc_id in owner:
            by_key[(owner[claim.doc_id][0], claim.type, name_key(claim.name))].append(claim)
    found = []
    for claims in by_key.values():
        if len(claims) < 2:
            continue  # one page: nothing to compare (most entities; normalising them all cost ~1 s at 10k)
        pages = [normalise(DuplicateRecord(c.doc_path, c.type, c.name, c.aliases, c.attributes, c.doc_path))
                 for c in claims[:MAX_PAGES_PER_NAME]]
        for a, b in combinations(pages, 2):
            pair = score_pair(a, b)
            if pair.weight < PROPOSE_WEIGHT and any(not c.agrees for c in pair.comparisons if c.attribute != "name"):
                found.append({"name": a.record.name, "pages": [a.record.id, b.record.id], "explain": pair.explain()})
    return [f for f in found if all(store.get_document(access, path=p) is not None for p in f["pages"])]


def _pair_key(surface: DuplicateRecord, candidate: DuplicateRecord) -> tuple[str, str]:
    return surface_key(surface.name), candidate.id


def _fullness(r: DuplicateRecord) -> tuple:
    """The page with fewer attributes and aliases, then the shorter name, points to the fuller one."""
    return len(r.attributes) + len(r.aliases), len(r.name), r.id


def _oriented(pair: DuplicatePair) -> tuple[DuplicateRecord, DuplicateRecord]:
    """(page to link, entity it is the same as): the page with fewer attributes and aliases, then the
    shorter name, points to the fuller one ("Jon Smith" is "Jonathan Smith")."""
    surface, candidate = sorted((pair.left, pair.right), key=_fullness)
    return surface, candidate


def _questions_of(cluster: DuplicateCluster) -> list[tuple[DuplicatePair, DuplicateRecord, DuplicateRecord]]:
    """(pair, page to link, entity it is the same as): one pair as before; a cluster of three or more
    pages, every other page against the fullest (cluster.canonical), one question in all: confirming
    any of them confirms the cluster, so no answer can leave A = B, B = C and A != C."""
    if len(cluster.members) == 2:
        return [(cluster.pairs[0], *_oriented(cluster.pairs[0]))]
    return [(cluster.pair_with(m), m, cluster.canonical) for m in cluster.members if m.id != cluster.canonical.id]


def _question_row(pair: DuplicatePair, surface: DuplicateRecord, candidate: DuplicateRecord, now: str,
                  cluster: DuplicateCluster | None = None) -> dict:
    features = {"kind": DUPLICATE_KIND, "model": MODEL_VERSION, "weight": pair.weight,
                "surface_path": surface.path, "candidate_path": candidate.path, "explain": _explain(pair, cluster),
                "comparisons": [{"attribute": c.attribute, "level": c.level, "weight": c.weight, "detail": c.detail}
                                for c in pair.comparisons]}
    if cluster is not None and len(cluster.members) > 2:
        features["cluster"] = cluster.paths()
    return {"surface": surface.name, "surface_key": _pair_key(surface, candidate)[0], "surface_type": surface.type,
            "candidate_key": candidate.id, "candidate_name": candidate.name, "score": round(pair.probability, 6),
            "features": features, "outcome": "asked", "decided_by": "kbgraph", "doc_path": surface.path,
            "created_at": now}


def _explain(pair: DuplicatePair, cluster: DuplicateCluster | None) -> str:
    if cluster is None or len(cluster.members) <= 2:
        return pair.explain()
    return (f"one of {len(cluster.members)} pages that are likely one {cluster.canonical.type} "
            f"({', '.join(p or '?' for p in cluster.paths())}); confirming one confirms them all | {pair.explain()}")


def _summary(pair: DuplicatePair, surface: DuplicateRecord, candidate: DuplicateRecord,
             cluster: DuplicateCluster | None = None) -> dict:
    out = {"page": surface.path, "name": surface.name, "same_as": candidate.name, "same_as_page": candidate.path,
           "weight": pair.weight, "probability": round(pair.probability, 6), "explain": _explain(pair, cluster)}
    if cluster is not None and len(cluster.members) > 2:
        out["cluster"] = cluster.paths()
    return out


def confirm_duplicate(ws: Workspace, decision_id: int, question: dict) -> dict:
    """Yes, one entity: `same_as: "[[Candidate]]"` is added to the surface page's frontmatter (nothing
    else in either file changes), the answer is saved, and the page is re-read. Redoable: confirming
    again finds the line there and only re-reads."""
    from ..entities.assemble import SAME_AS_KEY
    from ..pages.files import edit_page, write_lock
    from ..pages.frontmatter_lines import add_list_value
    from .decisions import answered_at

    path = question["doc_path"]
    if not path or ws.store.get_document(ws.access, path=path) is None:
        raise InvalidInput(f"question {decision_id}: the page {path or '?'} is no longer in the index; nothing "
                           "was changed", param="decision_id", hint="reject it, or look for duplicate pages again")
    if question["candidate_key"] not in ws.store.entity_ids_by_key():
        raise InvalidInput(f"question {decision_id}: {question['candidate_name']} is no longer an entity (its page "
                           "was removed or renamed); nothing was changed", param="decision_id",
                           hint="reject it, or look for duplicate pages again")
    name = _same_as_target(ws, question)
    plain = any(c in name for c in "#|[],")  # a wikilink would cut "C# Team" at '#': a list item keeps it
    target = name if plain else f"[[{name}]]"
    together = [(decision_id, question), *_cluster_siblings(ws, decision_id, question)]
    paths = [q["doc_path"] for _, q in together]
    with write_lock(ws.root):
        for page in paths:
            edit_page(ws.root, page, lambda text, offset: add_list_value(text, offset, SAME_AS_KEY, target, plain))
        with ws.store.transaction():
            for qid, q in together:
                if q["outcome"] != "confirmed":
                    ws.store.decide(qid, "confirmed", "user", answered_at(q))
            ws.store.set_meta("entities_dirty", "1")
    ws.reindex(paths)
    return {"id": decision_id, "outcome": "confirmed", "surface": question["surface"],
            "entity": question["candidate_name"], "aliases": [q["surface"] for _, q in together], "documents": paths,
            **({"cluster": question["features"]["cluster"]} if len(together) > 1 else {})}


def _same_as_target(ws: Workspace, question: dict) -> str:
    """The candidate's name; its page's path without .md where namesakes' pages share the name (their
    identifiers disagree, entities/namesakes.py), so the link names that one."""
    name = question["candidate_name"]
    path = question["features"].get("candidate_path")
    named = [e for e in ws.store.entities_by_name_key(ws.access, name_key(name))
             if e.page_path and e.type == question["surface_type"] and name_key(e.name) == name_key(name)]
    if len(named) > 1 and path:
        return path.removesuffix(".md")
    return name


def _cluster_siblings(ws: Workspace, decision_id: int, question: dict) -> list[tuple[int, dict]]:
    """The other open questions of the question's cluster (its pages against one canonical page, asked as
    one): answered with it. A page no longer in the index is left out (its question stays open)."""
    cluster = question["features"].get("cluster")
    if not cluster:
        return []
    from .duplicate_questions import is_duplicate_question

    return [(q["id"], q) for q in ws.store.decisions(ws.access, "asked")
            if q["id"] != decision_id and is_duplicate_question(q) and q["features"].get("cluster") == cluster
            and q["candidate_key"] == question["candidate_key"] and q["doc_path"]
            and ws.store.get_document(ws.access, path=q["doc_path"]) is not None]

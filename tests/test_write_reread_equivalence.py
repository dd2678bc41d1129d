"""A write's re-read of its page leaves the index as a full index of the same files would.

After a single-page write (relate, unrelate, accept, fact add) the index re-reads only that page
(ws.reread, the default index port in kbgraph.workspace); the stages after it may do less than on a full run only where
the outcome is the same. These tests make random writes on a copy of the sample vault, then index the
same files from nothing and compare what the files determine: entities and their names, mentions,
current relations, pending suggestions, document-graph edges, facts and page relation lines (ids are
left out: a fresh index numbers rows its own way; so is what only the database knows, named below).
"""

from __future__ import annotations

import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from kbgraph.errors import KbgError
from kbgraph.ingest import pipeline as pipeline_module
from kbgraph.ingest.pipeline import index_vault
from kbgraph.workspace import Workspace

QUERIES = {
    "entities": "SELECT e.key, e.type, e.name, e.aliases, d.path, e.attributes, e.mention_count, e.doc_count, e.tier,"
                " e.status, e.first_mentioned, e.last_mentioned, e.owner, e.visibility, e.sensitivity"
                " FROM entities e LEFT JOIN documents d ON d.id = e.page_doc_id",
    "entity names": "SELECT e.key, n.name, n.kind, n.loose FROM entity_names n JOIN entities e ON e.id = n.entity_id",
    "mentions": "SELECT d.path, e.key, c.key, m.start, m.\"end\", m.surface, m.kind FROM mentions m"
                " JOIN documents d ON d.id = m.doc_id JOIN entities e ON e.id = m.entity_id"
                " LEFT JOIN chunks c ON c.id = m.chunk_id",
    # Current relations, by what their page lines say. Left out: strength (each write re-observes it),
    # confidence and the evidence document of an accepted suggestion (the database's, not the line's).
    "relations": "SELECT s.key, r.type, t.key, r.reason, r.valid_until, r.valid_from, r.context, r.origin, od.path,"
                 " r.inferred, r.visibility, r.sensitivity FROM relations r"
                 " JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id"
                 " LEFT JOIN documents od ON od.id = r.origin_doc_id WHERE r.superseded_by IS NULL",
    "doc relations": "SELECT sd.path, sc.key, td.path, tc.key, r.type, round(r.score, 6), r.evidence"
                     " FROM doc_relations r JOIN documents sd ON sd.id = r.source_doc_id"
                     " JOIN documents td ON td.id = r.target_doc_id LEFT JOIN chunks sc ON sc.id = r.source_chunk_id"
                     " LEFT JOIN chunks tc ON tc.id = r.target_chunk_id",
    "facts": "SELECT entity_key, kind, text, date, origin_path, superseded_at IS NULL FROM facts",
    "page relation lines": "SELECT d.path, l.line, l.ordinal, l.source, l.type, l.target, l.reason, l.valid_until,"
                           " l.problem FROM page_relation_lines l JOIN documents d ON d.id = l.doc_id",
    "claims": "SELECT d.path, c.ordinal, c.type, c.name, c.aliases, c.role, c.field, c.attributes"
              " FROM entity_claims c JOIN documents d ON d.id = c.doc_id",
    "documents": "SELECT path, title, kind, date, content_hash, owner, visibility, sensitivity FROM documents",
    "fingerprints": "SELECT path, title, content_hash, date, series, text_hash, simhash, words FROM doc_fingerprints",
}


def snapshot(vault: Path) -> dict[str, list]:
    """What the index holds that the vault's files determine, without row ids."""
    from kbgraph.access import LOCAL
    from kbgraph.store import open_store

    db = sqlite3.connect(f"file:{vault / '.kbgraph' / 'index.db'}?mode=ro", uri=True)
    try:
        out = {}
        for name, sql in QUERIES.items():
            out[name] = sorted(db.execute(sql).fetchall(), key=repr)
    finally:
        db.close()
    store = open_store(vault)
    try:  # the pending suggestions a user is shown (the store hides one whose relation exists)
        out["pending suggestions"] = sorted(
            (s["source"], s["type"], s["target"], s["rule"], s["confidence"])
            for s in store.suggestions(LOCAL, "pending"))
    finally:
        store.close()
    return out


def fresh_index(vault: Path, into: Path) -> Path:
    """The same files, indexed from nothing."""
    shutil.copytree(vault, into, ignore=shutil.ignore_patterns(".kbgraph"))
    index_vault(into, full=True)
    return into


def random_writes(vault: Path, count: int, seed: int) -> list[str]:
    """count writes drawn by seed: relate and unrelate between people (and people and projects),
    accept a pending suggestion, add a fact. Returns what was done, for a failure's message."""
    from kbgraph.context.facts import add_fact
    from kbgraph.relations.edits import relate, unrelate
    from kbgraph.relations.suggestions import accept

    rng = random.Random(seed)
    done: list[str] = []
    with Workspace.open(str(vault)) as ws:
        entities = [e for e in ws.store.list_entities(ws.access) if e.page_path]
        people = sorted(e.name for e in entities if e.type == "person")
        projects = sorted(e.name for e in entities if e.type == "project")
        made: list[tuple[str, str, str]] = []
        while len(done) < count:
            kind = rng.choice(("relate", "relate", "unrelate", "accept", "fact"))
            try:
                if kind == "relate":
                    rtype, target = rng.choice((("mentors", people), ("collaborates-with", people),
                                                ("contributes-to", projects)))
                    a, b = rng.choice(people), rng.choice(target)
                    if a == b:
                        continue
                    relate(ws, a, rtype, b)
                    made.append((a, rtype, b))
                    done.append(f"relate {a} {rtype} {b}")
                elif kind == "unrelate" and made:
                    a, rtype, b = made.pop(rng.randrange(len(made)))
                    unrelate(ws, a, rtype, b)
                    done.append(f"unrelate {a} {rtype} {b}")
                elif kind == "accept":
                    pending = ws.store.suggestions(ws.access, "pending")
                    if pending:
                        chosen = rng.choice(pending)
                        accept(ws, chosen["id"])
                        done.append(f"accept {chosen['source']} {chosen['type']} {chosen['target']}")
                elif kind == "fact":
                    who = rng.choice(people + projects)
                    hobby = rng.choice(("sailing", "chess", "go"))
                    add_fact(ws, who, rng.choice(("interest", "note")), f"likes {hobby} {len(done)}")
                    done.append(f"fact {who}")
            except KbgError as exc:  # a pair the vocabulary refuses, or a relation ended already: not a write
                if "relate" in kind:
                    continue
                raise AssertionError(f"{kind} failed after {done}: {exc}") from exc
    return done


def differences(left: dict[str, list], right: dict[str, list]) -> dict[str, tuple[list, list]]:
    return {name: (sorted(set(left[name]) - set(right[name]), key=repr)[:5],
                   sorted(set(right[name]) - set(left[name]), key=repr)[:5])
            for name in left if left[name] != right[name]}


@pytest.mark.parametrize("seed", [1, 2])
def test_random_writes_leave_the_index_a_full_index_of_the_same_files_would(indexed_vault, tmp_path, seed):
    done = random_writes(indexed_vault, 8, seed)
    after_writes = snapshot(indexed_vault)
    fresh = snapshot(fresh_index(indexed_vault, tmp_path / "fresh"))
    assert not differences(after_writes, fresh), (done, differences(after_writes, fresh))


def test_the_comparison_finds_a_stage_the_reread_skipped(indexed_vault, tmp_path, monkeypatch):
    """The comparison has teeth: re-reads that leave out the mention scan leave a difference it finds."""
    default = pipeline_module.Pipeline.default

    def without_mentions():
        return default().remove("mentions")

    monkeypatch.setattr(pipeline_module.Pipeline, "default", staticmethod(without_mentions))
    done = random_writes(indexed_vault, 4, 3)
    monkeypatch.setattr(pipeline_module.Pipeline, "default", staticmethod(default))
    after_writes = snapshot(indexed_vault)
    fresh = snapshot(fresh_index(indexed_vault, tmp_path / "fresh"))
    assert "mentions" in differences(after_writes, fresh), done


def test_a_line_taken_away_takes_its_mention_out_of_the_counts(indexed_vault, tmp_path):
    """unrelate removes the page's only mention of its target: the target's count and documents drop
    (the re-read refreshes the counts of the entities whose mentions it changed, these included)."""
    from kbgraph.relations.edits import relate, unrelate

    with Workspace.open(str(indexed_vault)) as ws:
        people = [e for e in ws.store.list_entities(ws.access) if e.type == "person" and e.page_path]
        page = people[0]
        doc = ws.store.get_document(ws.access, path=page.page_path)
        named = ws.store.mentioned_entities([doc["id"]])
        target = next(e for e in people if e.id not in named and e.id != page.id)
        relate(ws, page.name, "mentors", target.name)
        assert target.id in ws.store.mentioned_entities([doc["id"]])
        unrelate(ws, page.name, "mentors", target.name)
        assert ws.store.get_entity(ws.access, target.id).mention_count == target.mention_count
    after_writes = snapshot(indexed_vault)
    fresh = snapshot(fresh_index(indexed_vault, tmp_path / "fresh"))
    assert not differences(after_writes, fresh), differences(after_writes, fresh)

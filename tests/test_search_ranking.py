"""How search weighs evidence: whole documents for text, summed and hub-damped ties for the graph,
names recognised in any spelling; and the document-level index kept in step with the notes."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from kbgraph.access import LOCAL
from kbgraph.config import load_config
from kbgraph.ingest.pipeline import index_vault
from kbgraph.search import search
from kbgraph.search.graph import expand, graph_ranking, recognise
from kbgraph.search.query import parse_query
from kbgraph.store import open_store
from kbgraph.store.sqlite import migrations
from kbgraph.store.base import DocFilter
from kbgraph.store.sqlite.store import SqliteStore


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _docs_with(store, word: str) -> set[str]:
    ids = [doc_id for doc_id, _ in store.ranked_docs(LOCAL, parse_query(word).requiring("any"), DocFilter(), 1000)]
    return set(store.doc_paths(ids).values())


def test_a_document_whose_sections_hold_the_words_between_them_matches_all_terms(tmp_path):
    vault = _write(tmp_path, {
        "split.md": "# Split\n\n## Storage\n\nThe quokka archive lives on tape.\n\n"
                    "## Access\n\nReaders ask the marmot desk for a copy.\n",
        "one.md": "# One\n\nA quokka, and nothing else worth a search.\n",
    })
    index_vault(vault)
    with closing(open_store(vault)) as store:
        result = search(store, "quokka marmot", mode="bm25", access=LOCAL)
    assert result.mode.startswith("all-terms"), "no single section has both words, the note does"
    assert [h.path for h in result.hits][:2] == ["split.md", "one.md"]
    assert result.hits[0].heading, "the hit still points at one section of the note"


def test_a_long_pasted_query_places_each_hit_on_its_best_section(tmp_path):
    vault = _write(tmp_path, {
        "guide.md": "# Guide\n\n## Intro\n\nGeneral words about the guide.\n\n"
                    "## Walrus care\n\nFeed the walrus herring, check the walrus pool daily, log the walrus weight.\n",
    })
    index_vault(vault)
    query = " ".join(["walrus herring pool weight"] + [f"filler{i}" for i in range(20)])
    with closing(open_store(vault)) as store:
        (hit,) = search(store, query, mode="bm25", access=LOCAL).hits
    assert hit.heading.endswith("Walrus care")


def test_the_document_index_follows_edits_and_deletes(tmp_path):
    vault = _write(tmp_path, {"a.md": "# A\n\nalpha bravo\n\n## More\n\ncharlie\n", "b.md": "# B\n\nbravo delta\n"})
    index_vault(vault)
    (vault / "a.md").write_text("# A\n\nalpha echo\n\n## More\n\ncharlie\n\n## Added\n\nfoxtrot\n", encoding="utf-8")
    (vault / "b.md").unlink()
    (vault / "c.md").write_text("# C\n\nbravo golf\n", encoding="utf-8")
    index_vault(vault)
    with closing(open_store(vault)) as store:
        words = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf")
        incremental = {w: _docs_with(store, w) for w in words}
        assert store.db.execute("INSERT INTO doc_fts (doc_fts) VALUES ('integrity-check')") is not None
    assert incremental == {"alpha": {"a.md"}, "bravo": {"c.md"}, "charlie": {"a.md"}, "delta": set(),
                           "echo": {"a.md"}, "foxtrot": {"a.md"}, "golf": {"c.md"}}
    index_vault(vault, full=True)
    with closing(open_store(vault)) as store:
        assert {w: _docs_with(store, w) for w in incremental} == incremental


def test_an_older_index_gains_document_search_and_loose_name_keys(tmp_path, monkeypatch):
    path = str(tmp_path / "index.db")
    monkeypatch.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:11])  # an index from before m012
    old = SqliteStore.open(path)
    old.db.execute("INSERT INTO documents (id, path, title, kind, content_hash, size, mtime, indexed_at)"
                   " VALUES (1, 'kep.md', 'KEP', 'note', 'h', 1, 1.0, 'now')")
    old.db.execute("INSERT INTO chunks (doc_id, key, ordinal, heading, start, end, line, text)"
                   " VALUES (1, 'k', 0, '', 0, 10, 1, 'pod startup holdoff')")
    old.db.execute("INSERT INTO entities (id, type, name, key, created_at, updated_at)"
                   " VALUES (1, 'project', 'KEP-950', 'project:kep-950', 'now', 'now')")
    old.db.execute("INSERT INTO entity_names (entity_id, key, name, kind) VALUES (1, 'kep-950', 'KEP-950', 'name')")
    old.close()
    monkeypatch.undo()

    upgraded = SqliteStore.open(path)
    assert upgraded.ranked_docs(LOCAL, parse_query("holdoff"), DocFilter(), 5)[0][0] == 1
    assert upgraded.keys_by_loose_key(["kep 950"]) == {"kep 950": {"kep-950"}}
    upgraded.db.execute("INSERT INTO doc_fts (doc_fts) VALUES ('integrity-check')")
    upgraded.close()
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_names_are_recognised_in_any_spelling_and_at_a_title_s_length(tmp_path):
    vault = _write(tmp_path, {
        "projects/kep-950.md": "---\ntype: project\nname: KEP-950\naliases:\n"
                               "  - Add pod-startup liveness-probe holdoff for slow-starting pods\n---\n\n"
                               "# KEP-950\n\nText.\n",
    })
    index_vault(vault)
    with closing(open_store(vault)) as store:
        for query in ("what did KEP 950 change", "kep-950",
                      "Add pod startup liveness probe holdoff for slow starting pods"):
            assert [e[1] for e in recognise(store, query, LOCAL).entities] == ["KEP-950"], query


def _uses(*targets: str) -> str:
    return "\n## Relations\n" + "".join(f"- uses [[{t}]]\n" for t in targets)


def test_the_graph_ranks_by_summed_ties_and_damps_hubs(tmp_path):
    projects = {
        "projects/alpha.md": "---\ntype: project\n---\n# Alpha\n" + _uses("Redis", "Kafka", "Postgres"),
        "projects/beta.md": "---\ntype: project\n---\n# Beta\n" + _uses("Redis", "Kafka"),
        "projects/gamma.md": "---\ntype: project\n---\n# Gamma\n" + _uses("Redis"),
        "projects/delta.md": "---\ntype: project\n---\n# Delta\n" + _uses("Postgres"),
    }
    projects.update({f"projects/p{i}.md": f"---\ntype: project\n---\n# P{i}\n" + _uses("Postgres") for i in range(8)})
    techs = {f"tech/{t.lower()}.md": f"---\ntype: technology\n---\n# {t}\n" for t in ("Redis", "Kafka", "Postgres")}
    vault = _write(tmp_path, {**projects, **techs})
    index_vault(vault)
    config = load_config(vault)
    with closing(open_store(vault)) as store:
        seeds = [(e[0], e[1]) for e in recognise(store, "Alpha", LOCAL).entities]
        reach = expand(store, LOCAL, seeds, 2, config.search.hop_decay, config.vocabulary)
        by_name = {r.name: r for r in reach.values()}
        assert by_name["Redis"].distance == 1 and by_name["Redis"].weight == 0.7
        assert by_name["Beta"].activation > by_name["Gamma"].activation > by_name["Delta"].activation, \
            "two shared technologies beat one, and one shared with few beats one shared with a crowd"
        assert by_name["Beta"].weight == by_name["Delta"].weight == 0.4, "the distance decay is unchanged"
        hits = graph_ranking(store, LOCAL, reach, DocFilter(), 50)
        order = [store.doc_paths([h.ranked.doc_id])[h.ranked.doc_id] for h in hits]
    assert order.index("projects/beta.md") < order.index("projects/gamma.md") < order.index("projects/delta.md")


def test_unpinned_expansion_adds_only_documents_with_two_ties(tmp_path):
    vault = _write(tmp_path, {
        "projects/alpha.md": "---\ntype: project\n---\n# Alpha\n\nThe zebra crossing project.\n"
                             + _uses("Redis", "Kafka"),
        "projects/beta.md": "---\ntype: project\n---\n# Beta\n\nRuns on Redis and Kafka.\n" + _uses("Redis", "Kafka"),
        "notes/aside.md": "# Aside\n\nSomeone mentioned Redis once.\n",
        "tech/redis.md": "---\ntype: technology\n---\n# Redis\n",
        "tech/kafka.md": "---\ntype: technology\n---\n# Kafka\n",
    })
    index_vault(vault)
    with closing(open_store(vault)) as store:
        paths = [h.path for h in search(store, "Alpha zebra", mode="bm25", expand_relations=True, limit=20, access=LOCAL).hits]
    assert "projects/beta.md" in paths, "tied to Alpha through both technologies"
    assert "notes/aside.md" not in paths, "one passing mention of one related entity is no answer"


def test_widen_gives_the_whole_split_section_a_hit_came_from(tmp_path):
    paragraphs = [f"Paragraph {i} of the runbook talks about routine things at length. " * 6 for i in range(12)]
    paragraphs[9] += "The narwhal switch is the last resort."
    body = "# Runbook\n\n## Failover\n\n" + "\n\n".join(paragraphs) + "\n\n## Other\n\nUnrelated.\n"
    vault = _write(tmp_path, {"runbook.md": body})
    index_vault(vault)
    with closing(open_store(vault)) as store:
        (plain,) = search(store, "narwhal", mode="bm25", access=LOCAL).hits
        (wide,) = search(store, "narwhal", mode="bm25", widen=True, access=LOCAL).hits
        section = [c["id"] for c in store.document_chunks(LOCAL, plain.doc_id) if c["heading"].endswith("Failover")]
    assert plain.passage is None
    assert len(section) > 1 and list(wide.passage.chunk_ids) == section, "every chunk of the section, in order"
    assert wide.passage.line == 3 and wide.passage.text.startswith("## Failover")
    assert "narwhal switch" in wide.passage.text and "Unrelated" not in wide.passage.text
    assert wide.chunk_id == plain.chunk_id != section[0], "the hit still names the chunk that matched"


def test_a_word_only_in_a_heading_is_found(tmp_path):
    vault = _write(tmp_path, {"a.md": "# Alpha\n\n## Zebracorn\n\n### Setup\n\nInstall it twice.\n"})
    index_vault(vault)
    with closing(open_store(vault)) as store:
        assert [h.path for h in search(store, "zebracorn", mode="bm25", access=LOCAL).hits] == ["a.md"]
        assert search(store, "zebracorn", mode="bm25", why_not="a.md", access=LOCAL).why_not["reason"] == "shown"


def test_a_document_with_nothing_to_show_takes_no_result_slot(tmp_path):
    vault = _write(tmp_path, {"title-only.md": "---\ntitle: Zanzibar Zanzibar\n---\n",
                              "body.md": "# Trip\n\nWe flew to Zanzibar.\n"})
    index_vault(vault)
    with closing(open_store(vault)) as store:
        assert [h.path for h in search(store, "zanzibar", mode="bm25", limit=1, access=LOCAL).hits] == ["body.md"]


def test_an_exact_spelling_wins_over_a_loose_one_and_punctuation_breaks_a_name(tmp_path):
    vault = _write(tmp_path, {
        "tech/cpp.md": "---\ntype: technology\nname: C++\n---\n# C++\n\nA language.\n",
        "teams/cpp.md": "---\ntype: team\nname: C++ Guild\n---\n# C++ Guild\n\nPeople.\n",
        "teams/cs.md": "---\ntype: team\nname: C# Guild\n---\n# C# Guild\n\nPeople.\n",
        "people/sam-li.md": "---\ntype: person\nname: Sam Li\n---\n# Sam Li\n\nData.\n",
    })
    index_vault(vault)
    with closing(open_store(vault)) as store:
        named = {q: ([e[1] for e in r.entities], r.ambiguous) for q in
                 ("C++", "who is in the C++ Guild", "C# Guild members") for r in [recognise(store, q, LOCAL)]}
        surfaces = [e[3] for e in recognise(store, "ask Sam, Li Wei said", LOCAL).entities]
    assert named["C++"] == (["C++"], ())
    assert named["who is in the C++ Guild"] == (["C++ Guild"], ())
    assert named["C# Guild members"] == (["C# Guild"], ())
    assert surfaces == ["Sam"], "the unique first name, not a name read across the comma"


def test_a_pinned_search_weighs_a_document_by_its_nearest_tie(tmp_path):
    files = {"projects/alpha.md": "---\ntype: project\n---\n# Alpha\n" + _uses("Redis"),
             "projects/gamma.md": "---\ntype: project\n---\n# Gamma\n\nGamma runs on Redis.\n" + _uses("Redis"),
             "tech/redis.md": "---\ntype: technology\n---\n# Redis\n"}
    files.update({f"notes/n{i}.md": f"# N{i}\n\nRedis note {i}.\n" for i in range(10)})
    vault = _write(tmp_path, files)
    index_vault(vault)
    with closing(open_store(vault)) as store:
        hits = search(store, "runs", entity="Alpha", expand_relations=True, explain=True, mode="bm25", access=LOCAL).hits
    (gamma,) = [h for h in hits if h.path == "projects/gamma.md"]
    assert dict(gamma.explain.boosts)["distance"] == 0.7, "it mentions Redis, one hop from Alpha"

"""Section BM25 is BM25 (issue 30): the passage unit's keyword ranking equals a reference Okapi BM25 over the
same sections, with the question's words tokenized as the sections' are and its question words left out.

The reference is written here from the formula, not from the store: each section is one row of three fields
(the note's title, the section's heading path, its text) weighed 1, 2 and 1 (a heading counts twice, as the
store documents), tf = the weighed sum of a term's counts, the row's length = all its words, k1 1.2, b 0.75,
idf = log((N - n + 0.5) / (n + 0.5)) (at least 1e-6, as FTS5 floors it). The fixture's words are ones the
Porter stemmer leaves as they are, so plain lower-cased words are the tokens.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from contextlib import closing

from kbgraph.access import LOCAL
from kbgraph.ingest.pipeline import index_vault
from kbgraph.search import search
from kbgraph.search.keyword import QUESTION_WORDS, section_bm25_ranking
from kbgraph.search.query import parse_query
from kbgraph.store import open_store
from kbgraph.store.base import DocFilter

SESSION = """---
type: conversation
date: 2023-05-08
---

# Nora and Ivan

## Nora
What did you do on Sunday? Did you go out?

## Ivan
What a day. I did the garden, what else.

## Nora
I bought a kayak at the harbor market, a red kayak.

## Ivan
Nice. My kayak is old and the harbor is far from me.

## Nora
When did you last paint? I want to paint the kayak.
"""
OTHER = """# Garden log

## Spring
Tulip bulbs went in by the fence.

## Summer
The kayak rack by the shed needs paint.
"""
_TOKEN = re.compile(r"[^\W_]+")
WEIGHTS = (1.0, 2.0, 1.0)


def _vault(tmp_path):
    (tmp_path / "chat.md").write_text(SESSION, encoding="utf-8")
    (tmp_path / "garden.md").write_text(OTHER, encoding="utf-8")
    index_vault(tmp_path)
    return tmp_path


def _reference(store, question: str) -> list[tuple[int, float]]:
    rows = store.db.execute("SELECT c.id, d.title, c.heading, c.text FROM chunks c JOIN documents d ON d.id = c.doc_id"
                            " ORDER BY c.id").fetchall()
    fields = {cid: [Counter(w.lower() for w in _TOKEN.findall(text or "")) for text in (title, heading, body)]
              for cid, title, heading, body in rows}
    length = {cid: sum(sum(f.values()) for f in fs) for cid, fs in fields.items()}
    avg = sum(length.values()) / len(length)
    words = [w.lower() for w in _TOKEN.findall(question)]
    terms = list(dict.fromkeys(w for w in words if w not in QUESTION_WORDS)) or list(dict.fromkeys(words))
    scores: dict[int, float] = {}
    for term in terms:
        holding = [cid for cid, fs in fields.items() if any(term in f for f in fs)]
        n = len(holding)
        idf = max(math.log((len(fields) - n + 0.5) / (n + 0.5)), 1e-6)
        for cid in holding:
            tf = sum(w * f[term] for w, f in zip(WEIGHTS, fields[cid]))
            scores[cid] = scores.get(cid, 0.0) + idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length[cid] / avg))
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


def test_section_bm25_equals_a_reference_bm25_and_question_words_are_not_terms(tmp_path):
    vault = _vault(tmp_path)
    with closing(open_store(vault)) as store:
        for question in ("What did Nora buy at the harbor?", "When did Ivan paint the kayak?",
                         "what did you do", "Nora's kayak", "Where is the kayak rack?"):
            ranked, _ = section_bm25_ranking(store, LOCAL, parse_query(question), DocFilter(), 50)
            got = [(r.chunk_id, r.score) for r in ranked]
            want = _reference(store, question)
            assert [c for c, _ in got] == [c for c, _ in want], question
            assert all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9) for (_, a), (_, b) in zip(got, want)), question


def test_small_talk_full_of_question_words_is_not_the_answer(tmp_path):
    vault = _vault(tmp_path)
    with closing(open_store(vault)) as store:
        hits = search(store, "What did Nora buy at the harbor?", mode="bm25", unit="passage", access=LOCAL).hits
        assert "bought a kayak" in store.chunk_texts([hits[0].chunk_id])[hits[0].chunk_id]
        possessive = search(store, "Nora's kayak", mode="bm25", unit="passage", access=LOCAL).hits
        assert "Nora" in possessive[0].heading, "the possessive is the name: the turns Nora spoke come first"


def test_a_question_of_question_words_only_still_searches_them(tmp_path):
    vault = _vault(tmp_path)
    with closing(open_store(vault)) as store:
        hits = search(store, "what did you do", mode="bm25", unit="passage", access=LOCAL).hits
        assert hits and "What did you do" in store.chunk_texts([hits[0].chunk_id])[hits[0].chunk_id]


def test_a_quoted_phrase_still_asks_for_every_term(tmp_path):
    vault = _vault(tmp_path)
    with closing(open_store(vault)) as store:
        result = search(store, '"red kayak" harbor', mode="bm25", unit="passage", access=LOCAL)
        assert result.mode.startswith("all-terms")
        first = result.hits[0].chunk_id
        assert "harbor market, a red kayak" in store.chunk_texts([first])[first]


PEOPLE = """---
type: conversation
date: 2023-05-08
participants: [Nora Lind, Ivan Petrov]
---

# Nora and Ivan, session 1

## Ivan Petrov
Nora! Nora Lind, how are you? I miss you, Nora.

## Nora Lind
I bought a kayak at the harbor market.
"""


def test_unpinned_passages_are_not_ranked_by_the_names_they_mention_and_fuse_with_their_own_k(tmp_path):
    (tmp_path / "chat.md").write_text(PEOPLE, encoding="utf-8")
    index_vault(tmp_path)
    with closing(open_store(tmp_path)) as store:
        passages = search(store, "What did Nora Lind buy?", mode="bm25", unit="passage", explain=True, access=LOCAL)
        assert passages.entities and passages.entities[0]["name"] == "Nora Lind", "the name is recognised"
        assert "graph" not in passages.signals, "a section naming Nora is no answer to what she bought"
        assert passages.hits[0].explain.rrf_k == 10
        pinned = search(store, "kayak", mode="bm25", unit="passage", entity="Nora Lind", access=LOCAL)
        assert "graph" in pinned.signals, "pinned, the graph still restricts and weighs"
        documents = search(store, "What did Nora Lind buy?", mode="bm25", explain=True, access=LOCAL)
        assert "graph" in documents.signals and documents.hits[0].explain.rrf_k == 60


TRIP = """# Trip

## Ivan
The kayak trip to the harbor was long, and the harbor kayak club met us at the harbor.

## Nora
I loved the kayak.
"""
SHOP = """# Shop

## Ivan
Bought bread and milk today.

## Nora
My kayak, the old kayak, is red.

## Ivan
Fine by me.
"""


def test_a_turn_is_read_with_its_neighbours(tmp_path):
    from kbgraph.search.fusion import NEIGHBOUR_SHARE, neighbour_scores

    assert neighbour_scores({1: 0.4, 2: 0.1, 3: 0.2, 7: 0.9}, {1: 1, 2: 1, 3: 1, 7: 2, 8: 3}) == \
        {1: NEIGHBOUR_SHARE * 0.1, 2: NEIGHBOUR_SHARE * 0.4, 3: NEIGHBOUR_SHARE * 0.1, 7: 0.0, 8: NEIGHBOUR_SHARE * 0.0}
    (tmp_path / "trip.md").write_text(TRIP, encoding="utf-8")
    (tmp_path / "shop.md").write_text(SHOP, encoding="utf-8")
    index_vault(tmp_path)
    with closing(open_store(tmp_path)) as store:
        hits = search(store, "kayak harbor", mode="bm25", unit="passage", explain=True, access=LOCAL).hits
        texts = store.chunk_texts([h.chunk_id for h in hits])
        order = [texts[h.chunk_id].split("\n", 1)[1][:12] for h in hits]
        assert order[:3] == ["The kayak tr", "I loved the ", "My kayak, th"], "the reply to the trip comes before"
        assert ("neighbour", hits[1].explain.boosts[-1][1]) == hits[1].explain.boosts[-1]


def _camping(month: str) -> str:
    return (f"---\ntype: conversation\ndate: 2023-{month}-03\n---\n\n# Session\n\n## Nora\n"
            "We went camping by the lake, it rained all night.\n\n## Ivan\nSounds wet.\n")


def test_a_month_named_prefers_the_sessions_of_that_month(tmp_path):
    from kbgraph.search.dates import month_asked

    assert month_asked("When did Nora go camping in July?").month == 7
    assert month_asked("On 1 February, 2023 what did she find?") == month_asked("in February 2023")
    assert month_asked("May I ask what Nora did?") is None and month_asked("What did she do in May?").month == 5
    assert month_asked("in July").holds("2023-08-09") and not month_asked("in July").holds("2023-08-20")
    (tmp_path / "may.md").write_text(_camping("05"), encoding="utf-8")
    (tmp_path / "july.md").write_text(_camping("07"), encoding="utf-8")
    index_vault(tmp_path)
    with closing(open_store(tmp_path)) as store:
        for month, path in (("July", "july.md"), ("May", "may.md")):
            hits = search(store, f"When did Nora go camping in {month}?", mode="bm25", unit="passage", explain=True,
                          access=LOCAL).hits
            assert hits[0].path == path and ("date", 1.5) in hits[0].explain.boosts, month
        plain = search(store, "When did Nora go camping?", mode="bm25", unit="passage", explain=True, access=LOCAL)
        assert all(name != "date" for h in plain.hits for name, _ in h.explain.boosts)

"""Graph-aware hybrid search: the signals, their fusion, pinning and expanding entities, explain and
why-not, embeddings kept per chunk and recomputed only for changed text, and every odd query."""

from __future__ import annotations

import pytest

from kbgraph.access import LOCAL
from kbgraph.config import load_config
from kbgraph.embed import FakeEmbedder, register_embedder
from kbgraph.errors import Ambiguous, InvalidInput
from kbgraph.ingest.pipeline import index_vault
from kbgraph.search import search
from kbgraph.store import open_store
from kbgraph.store.base import DocFilter

from .conftest import kbg


@pytest.fixture
def store(indexed_vault):
    opened = open_store(indexed_vault)
    yield opened
    opened.close()


def _search(vault, store, query, access=LOCAL, **options):
    return search(store, query, config=load_config(vault), access=access, **options)


def test_keyword_and_vector_signals_are_fused(indexed_vault, store):
    result = _search(indexed_vault, store, "token rotation", explain=True)
    assert result.signals[:2] == ("bm25", "vector") and result.hits
    top = result.hits[0].explain
    assert {s.signal for s in top.signals} >= {"bm25", "vector"}
    assert top.fused == pytest.approx(sum(s.contribution for s in top.signals), abs=1e-6)
    expected = top.fused
    for _, factor in top.boosts:
        expected *= factor
    assert top.score == pytest.approx(expected, abs=1e-5) and top.score == result.hits[0].score
    assert all(s.contribution == pytest.approx(1 / (60 + s.rank)) for s in top.signals if s.signal != "graph")


def test_each_signal_alone(indexed_vault, store):
    assert _search(indexed_vault, store, "token rotation", mode="bm25").signals == ("bm25",)
    vector = _search(indexed_vault, store, "token rotation", mode="vector")
    assert vector.signals == ("vector",) and vector.hits
    assert _search(indexed_vault, store, "zzqqxx vvkkww", mode="vector").hits == (), "nothing near: nothing found"


def test_an_entity_named_in_the_query_adds_the_graph_signal(indexed_vault, store):
    result = _search(indexed_vault, store, "what is Arjun Mehta working on")
    assert [e["name"] for e in result.entities] == ["Arjun Mehta"] and "graph" in result.signals
    assert any(h.via and h.via.startswith("Arjun Mehta") for h in result.hits)


def test_an_ambiguous_name_is_reported_and_used_for_no_one(indexed_vault, store):
    result = _search(indexed_vault, store, "what is Sam doing")
    (item,) = result.ambiguous
    assert item["surface"] == "Sam"
    assert {c["name"] for c in item["candidates"]} == {"Sam Li", "Sam Ortiz"}
    assert "graph" not in result.signals and result.entities == ()
    with pytest.raises(Ambiguous) as raised:
        _search(indexed_vault, store, "notes", entity="Sam")
    assert {c["name"] for c in raised.value.candidates} == {"Sam Li", "Sam Ortiz"}


def test_pinning_an_entity_keeps_only_documents_that_mention_it(indexed_vault, store):
    pinned = _search(indexed_vault, store, "gateway", entity="Ben Okafor", limit=50)
    assert pinned.hits and all(h.via.startswith("Ben Okafor ← mentioned in") for h in pinned.hits)
    mentioning = {d["path"] for d in kbg(indexed_vault, "person", "timeline", "Ben Okafor")["documents"]}
    assert {h.path for h in pinned.hits} <= mentioning | {"people/ben-okafor.md"}


def test_expanding_relations_reaches_related_entities_documents_with_decay(indexed_vault, store):
    plain = {h.path for h in _search(indexed_vault, store, "gateway", entity="Ben Okafor", limit=50).hits}
    expanded = _search(indexed_vault, store, "gateway", entity="Ben Okafor", expand_relations=True, limit=50,
                       explain=True)
    via = {h.path: h for h in expanded.hits}
    reached = [h for h in expanded.hits if h.path not in plain]
    assert reached, "one hop out there are documents Ben's own notes never mention"
    hop = reached[0]
    assert hop.via.startswith("Ben Okafor --manages--> ")
    assert ("distance", 0.7) in hop.explain.boosts
    assert set(plain) <= set(via)


def test_expired_relations_are_not_followed(indexed_vault):
    kbg(indexed_vault, "entity", "relate", "Lena Fischer", "--type", "mentors", "--target", "Sam Ortiz",
        "--valid-until", "2020-01-31")
    with _opened(indexed_vault) as store:
        result = _search(indexed_vault, store, "usability", entity="Lena Fischer", expand_relations=True, limit=50)
    # Sam Ortiz is still reached, through a current relation (his page's reports_to: Lena Fischer),
    # but never along the mentorship that ended.
    assert not [h for h in result.hits if h.via and "--mentors--> Sam Ortiz" in h.via]


class _opened:
    def __init__(self, vault):
        self.store = open_store(vault)

    def __enter__(self):
        return self.store

    def __exit__(self, *exc):
        self.store.close()


def test_why_not_names_the_reason(indexed_vault, store):
    def reason(path, **options):
        return _search(indexed_vault, store, "token rotation", limit=2, why_not=path, **options).why_not["reason"]

    assert reason("nope.md") == "not-indexed"
    assert reason("people/sam-li.md", flt=DocFilter(kinds=("meeting",))) == "filtered"
    shown = _search(indexed_vault, store, "token rotation", limit=2).hits[0].path
    assert reason(shown) == "shown"
    assert reason("people/sam-li.md", entity="Arjun Mehta") in ("not-related", "below-cutoff")
    below = _search(indexed_vault, store, "token rotation", limit=1, why_not=_search(
        indexed_vault, store, "token rotation", limit=5).hits[3].path).why_not
    assert below["reason"] == "below-cutoff" and below["rank"] > 1 and below["cutoff_score"] >= below["score"]


@pytest.mark.parametrize("query", ["the of and", "!!! ??? ...", "東京 сервис αβγ", "x" * 10_000,
                                   "AND OR NOT", '"unbalanced', "Ana's"])
def test_any_query_text_is_answered_without_error(indexed_vault, store, query):
    result = _search(indexed_vault, store, query)
    assert isinstance(result.hits, tuple)


def test_empty_queries_and_bad_options_are_refused(indexed_vault, store):
    for bad in ("", "   "):
        with pytest.raises(InvalidInput):
            _search(indexed_vault, store, bad)
    with pytest.raises(InvalidInput):
        _search(indexed_vault, store, "kafka", mode="magic")
    assert kbg(indexed_vault, "search", "", code=1)["error"].startswith("empty query")


def _missing_one(store) -> str:
    return f"1 of {store.vector_counts()[1]:,} sections have no vectors yet: hybrid search uses text for them; run `kbg embed`"


def test_an_index_without_vectors_searches_text_only_and_says_so(vault, monkeypatch):
    monkeypatch.setenv("KBG_EMBEDDER", "none")
    index_vault(vault)
    monkeypatch.setenv("KBG_EMBEDDER", "fake")
    with _opened(vault) as store:
        result = _search(vault, store, "token rotation")
        assert result.signals == ("bm25",) and result.hits
        assert "no vectors yet" in result.notes[0]
    index_vault(vault)
    with _opened(vault) as store:
        result = _search(vault, store, "token rotation")
        assert "vector" in result.signals and not result.notes
    (vault / "notes" / "late.md").write_text("# Late\n\nToken rotation, written after embedding.\n", encoding="utf-8")
    monkeypatch.setenv("KBG_EMBEDDER", "none")
    index_vault(vault)
    monkeypatch.setenv("KBG_EMBEDDER", "fake")
    with _opened(vault) as store:
        result = _search(vault, store, "token rotation")
        assert "vector" in result.signals and result.notes == (_missing_one(store),)
        store.db.execute("DELETE FROM meta WHERE key = 'vectors_missing'")  # as an index from before the count
        assert _search(vault, store, "token rotation").notes == (_missing_one(store),)


def test_a_missing_model_leaves_text_search_working_and_names_the_fix(vault, monkeypatch, tmp_path):
    monkeypatch.setenv("KBG_MODEL_DIR", str(tmp_path / "no-model-here"))
    monkeypatch.setenv("KBG_EMBEDDER", "minilm")
    report = index_vault(vault)
    assert report.errors == 0
    (warning,) = [p for p in report.problems if p.path == "(embeddings)"]
    assert "install the model" in warning.reason
    out = kbg(vault, "search", "token rotation", "--json")
    assert out["hits"] and out["signals"] == ["bm25"] and "no vectors yet" in out["notes"][0]


class _Counting(FakeEmbedder):
    texts: list[str] = []

    def embed(self, texts):
        _Counting.texts.extend(texts)
        return super().embed(texts)


class _CountingV2(_Counting):
    version = "2"


def test_only_changed_text_is_embedded_again_and_a_new_model_re_embeds_all(vault, monkeypatch):
    register_embedder("counting", lambda **o: _Counting(**o), replace=True)
    monkeypatch.setenv("KBG_EMBEDDER", "counting")
    index_vault(vault)
    with _opened(vault) as store:
        total = store.vector_counts()[1]
        assert store.vector_counts() == (total, total)
    _Counting.texts.clear()
    page = vault / "projects/auth-service.md"
    page.write_text(page.read_text() + "\n## Follow-up\n\nRotate the signing keys every 90 days.\n")
    index_vault(vault)
    assert len(_Counting.texts) == 1 and "Rotate the signing keys" in _Counting.texts[0]
    _Counting.texts.clear()
    index_vault(vault)
    assert _Counting.texts == [], "nothing changed: the model is not even called"

    register_embedder("counting", lambda **o: _CountingV2(**o), replace=True)
    with _opened(vault) as store, store.transaction():
        store.set_meta("embed_embedder", "")  # a config edit: the stage checks the model again
    index_vault(vault)
    with _opened(vault) as store:
        distinct = store.db.execute("SELECT count(DISTINCT text_hash) FROM chunk_vectors").fetchone()[0]
        assert store.vector_counts() == (total + 1, total + 1)
    assert len(_Counting.texts) == distinct, "another model: every distinct text again (copies once)"


def test_cli_search_explains_and_answers_why_not(indexed_vault):
    out = kbg(indexed_vault, "search", "gateway", "--entity", "Ben Okafor", "--expand-relations", "--explain",
              "--why-not", "nope.md", "-n", "3")
    assert out["entities"][0]["name"] == "Ben Okafor" and out["why_not"]["reason"] == "not-indexed"
    assert all(h["explain"]["signals"] for h in out["hits"])
    error = kbg(indexed_vault, "search", "x", "--entity", "Sam", code=1)
    assert error["kind"] == "Ambiguous" and {c["name"] for c in error["candidates"]} == {"Sam Li", "Sam Ortiz"}


def test_a_near_duplicate_is_folded_into_the_better_ranked_hit(indexed_vault, store):
    result = _search(indexed_vault, store, "sidecar memory tuning", limit=10)
    paths = [h.path for h in result.hits]
    assert "notes/atlas-retro-copy.md" not in paths
    retro = next(h for h in result.hits if h.path == "meetings/2026/03/31/atlas-retro.md")
    assert retro.duplicates == ("notes/atlas-retro-copy.md",)


def test_expansion_as_of_a_date_follows_the_relations_true_then(indexed_vault):
    # Lena mentored Sam Ortiz until 2020-01-31: as of 2020-01-15 the mentorship is followed again.
    kbg(indexed_vault, "entity", "relate", "Lena Fischer", "--type", "mentors", "--target", "Sam Ortiz",
        "--valid-until", "2020-01-31")
    with _opened(indexed_vault) as store:
        then = _search(indexed_vault, store, "usability", entity="Lena Fischer", expand_relations=True, limit=50,
                       as_of="2020-01-15")
        now = _search(indexed_vault, store, "usability", entity="Lena Fischer", expand_relations=True, limit=50)
    assert any(h.via and "--mentors--> Sam Ortiz" in h.via for h in then.hits)
    assert not any(h.via and "--mentors--> Sam Ortiz" in h.via for h in now.hits)
    with pytest.raises(InvalidInput, match="in the future"):
        with _opened(indexed_vault) as store:
            _search(indexed_vault, store, "usability", as_of="2999-01-01")

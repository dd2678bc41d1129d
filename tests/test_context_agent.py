"""kbg context and kbg slice: the token budget is a ceiling, counted by the model's tokenizer; uncertainty is
rendered; access is honoured; bad input is refused in the library's words."""

from __future__ import annotations

import json
import shutil

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbgraph.access import LOCAL, Access
from kbgraph.config import load_config
from kbgraph.context.agent import build_context
from kbgraph.context.packing import Candidate, pack, trim
from kbgraph.context.slice import slice_entities
from kbgraph.context.tokens import EstimateCounter, WordPieceCounter, _load
from kbgraph.errors import Ambiguous, InvalidInput, NotFound

from .conftest import copy_indexed, fast, kbg, run_kbg

WORDS = ["Ana", "Atlas", "key", "rotation", "Kafka", "Beacon", "Sam", "Ben Okafor", "rollout", "Postgres", "the",
         "auth", "service", "migration", "Dana", "checkout", "gateway", "retro", "décision", "日本", "—", "C++", "?"]


@pytest.fixture(scope="module")
def store_and_config(tmp_path_factory, indexed_sample):
    from kbgraph.store import open_store

    root = copy_indexed(indexed_sample, tmp_path_factory.mktemp("context") / "vault")
    store = open_store(root)
    yield store, load_config(root)
    store.close()


@pytest.fixture(scope="module")
def wordpiece():
    counter = _load()
    if not isinstance(counter, WordPieceCounter):
        pytest.skip("the embedding model's tokenizer.json is not installed (`kbg model install`)")
    return counter


topics = st.one_of(st.none(), st.lists(st.sampled_from(WORDS), min_size=1, max_size=8).map(" ".join),
                   st.text(min_size=1, max_size=60).filter(str.strip))


@fast(60)
@given(topic=topics, budget=st.one_of(st.integers(1, 40), st.integers(1, 4000)), items=st.integers(1, 30))
def test_the_budget_is_a_ceiling_with_the_models_tokenizer(store_and_config, wordpiece, topic, budget, items):
    store, config = store_and_config
    result = build_context(store, config, topic, budget, items, counter=wordpiece, access=LOCAL)
    assert result.tokens == wordpiece.count(result.text) <= budget
    assert len(result.entities) + len(result.passages) <= items
    assert result.exact


@fast(40)
@given(topic=topics, budget=st.integers(1, 3000), items=st.integers(1, 30))
def test_the_budget_is_a_ceiling_with_the_estimate(store_and_config, topic, budget, items):
    store, config = store_and_config
    counter = EstimateCounter()
    result = build_context(store, config, topic, budget, items, counter=counter, access=LOCAL)
    assert result.tokens == counter.count(result.text) <= budget
    assert not result.exact and result.notes and "estimated" in result.notes[0]


def test_the_count_is_the_tokenizers_count_of_the_text(store_and_config, wordpiece):
    from tokenizers import Tokenizer

    from kbgraph.embed.model_files import model_dir

    store, config = store_and_config
    result = build_context(store, config, "key rotation for the Auth Service", 700, counter=wordpiece, access=LOCAL)
    reference = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    reference.no_truncation()
    assert result.tokens == len(reference.encode(result.text, add_special_tokens=False).ids)
    assert 600 < result.tokens <= 700  # the budget is used, not wasted
    assert result.passages and all(p.citation in result.text for p in result.passages)


def test_the_estimate_errs_high_on_real_notes(store_and_config, wordpiece):
    store, _ = store_and_config
    estimate = EstimateCounter()
    for _, text in store.all_chunk_texts():
        assert estimate.count(text) >= wordpiece.count(text)


def test_context_for_a_topic_names_its_entities_then_passages(store_and_config):
    store, config = store_and_config
    result = build_context(store, config, "Auth Service key rotation", 2000, counter=EstimateCounter(), access=LOCAL)
    assert result.entities[0].name == "Auth Service" and result.entities[0].why == "named"
    assert result.entities[0].line.startswith("Auth Service (project")
    assert "led by: Arjun Mehta" in result.entities[0].line
    assert result.passages and result.passages[0].citation in result.text
    lines = result.text.splitlines()
    assert lines[0] == "# Context: Auth Service key rotation" and "## Entities" in lines and "## Passages" in lines


def test_context_without_a_topic_lists_the_central_entities(store_and_config):
    store, config = store_and_config
    result = build_context(store, config, None, 2000, 5, counter=EstimateCounter(), access=LOCAL)
    assert len(result.entities) == 5 and not result.passages
    assert {e.why for e in result.entities} == {"central"}
    assert "Ana Lima (person, Engineering Manager, Platform; reports to: Ben Okafor;" in result.text


def test_an_ambiguous_name_is_reported_never_blended(store_and_config):
    store, config = store_and_config
    result = build_context(store, config, "Sam rollout", 2000, counter=EstimateCounter(), access=LOCAL)
    assert result.ambiguous and {c["name"] for c in result.ambiguous[0]["candidates"]} == {"Sam Li", "Sam Ortiz"}
    assert not [e for e in result.entities if e.why == "named"]
    assert any("could be" in note for note in result.notes)


def test_a_passage_is_cut_at_a_sentence_end():
    counter = EstimateCounter()
    body = "First sentence is here. Second sentence follows it. Third one is long enough to be cut somewhere."
    cut = trim(body, 20, counter)
    assert cut == "First sentence is here. Second sentence follows it."
    text, packed, tokens = pack("", [Candidate("passages", "[a.md:1] A", body)], 35, 5, counter)
    assert packed[0].trimmed and text.endswith("follows it. …") and counter.count(text) == tokens <= 35


def test_bad_limits_are_refused(store_and_config):
    store, config = store_and_config
    for budget in (0, -5, True):
        with pytest.raises(InvalidInput) as error:
            build_context(store, config, budget=budget, access=LOCAL)
        assert error.value.param == "budget"
    with pytest.raises(InvalidInput) as error:
        build_context(store, config, items=0, access=LOCAL)
    assert error.value.param == "items"
    with pytest.raises(InvalidInput) as error:
        build_context(store, config, "   ", access=LOCAL)
    assert error.value.param == "topic"


def test_a_reader_gets_only_what_it_may_read(store_and_config):
    store, config = store_and_config
    stranger = Access.of("someone-else")  # public rows only; the sample's notes are private
    result = build_context(store, config, "Auth Service key rotation", 2000, access=stranger,
                           counter=EstimateCounter())
    assert result.text == "" and not result.entities and not result.passages
    with pytest.raises(NotFound):
        slice_entities(store, config, ["Ana Lima"], access=stranger)


def test_slice_lines_are_short_and_mark_uncertainty(store_and_config, wordpiece):
    store, config = store_and_config
    result = slice_entities(store, config, ["Arjun Mehta", "Auth Service"], include_inferred=True, counter=wordpiece, access=LOCAL)
    arjun = result.entities[0]
    assert arjun.lines[0].startswith("Arjun Mehta: person, Senior Software Engineer, team Platform; mentioned ")
    assert "- reports to: Ana Lima" in arjun.lines
    assert any("(unconfirmed)" in line for line in arjun.lines)
    assert "- skip level reports to: Ben Okafor (inferred)" in arjun.lines
    lines = result.text.splitlines()
    assert result.tokens / len(lines) <= 20  # ~15 tokens a line
    assert max(wordpiece.count(line) for line in lines) <= 32
    plain = slice_entities(store, config, ["Arjun Mehta"], counter=wordpiece, access=LOCAL)
    assert not any("(inferred)" in line for line in plain.text.splitlines())


def test_slice_refuses_more_than_three_ambiguous_and_unknown(store_and_config):
    store, config = store_and_config
    with pytest.raises(InvalidInput) as error:
        slice_entities(store, config, ["Ana Lima", "Ben Okafor", "Sam Li", "Chen Wei"], access=LOCAL)
    assert error.value.param == "names"
    with pytest.raises(InvalidInput):
        slice_entities(store, config, [], access=LOCAL)
    with pytest.raises(Ambiguous) as ambiguous:
        slice_entities(store, config, ["Sam"], access=LOCAL)
    assert {c["name"] for c in ambiguous.value.candidates} == {"Sam Li", "Sam Ortiz"}
    with pytest.raises(NotFound):
        slice_entities(store, config, ["Nobody Atall"], access=LOCAL)


def test_expired_relations_show_only_when_asked(indexed_vault):
    kbg(indexed_vault, "entity", "relate", "Lena Fischer", "--type", "mentors", "--target", "Sam Ortiz",
        "--valid-until", "2020-01-31")
    plain = kbg(indexed_vault, "slice", "Lena Fischer")
    assert "expired" not in plain["text"]
    shown = kbg(indexed_vault, "slice", "Lena Fischer", "--include-expired")
    assert "- mentors: Sam Ortiz (expired 2020-01-31)" in shown["text"].splitlines()


def test_cli_context_prints_the_counted_text(indexed_vault):
    result = run_kbg("context", "--for", "Auth Service key rotation", "--budget", "300", "--vault", str(indexed_vault))
    assert result.returncode == 0, result.stderr
    data = kbg(indexed_vault, "context", "--for", "Auth Service key rotation", "--budget", "300")
    assert result.stdout == data["text"] + "\n" and data["tokens"] <= 300
    assert data["passages"][0]["citation"] == f"{data['passages'][0]['path']}:{data['passages'][0]['line']}"


@pytest.mark.parametrize("args, flag", [(("--budget", "0"), "--budget"), (("--budget", "-3"), "--budget"),
                                        (("--items", "0"), "--items")])
def test_cli_bad_limits(indexed_vault, args, flag):
    result = run_kbg("context", *args, "--vault", str(indexed_vault))
    assert result.returncode == 1 and result.stderr.startswith(f"error: {flag} must be")


def test_cli_slice_errors(indexed_vault):
    result = run_kbg("slice", "Ana Lima", "Ben Okafor", "Sam Li", "Chen Wei", "--vault", str(indexed_vault))
    assert result.returncode == 1 and "at most 3" in result.stderr
    result = run_kbg("slice", "Sam", "--vault", str(indexed_vault), "--json")
    assert result.returncode == 1 and json.loads(result.stdout)["kind"] == "Ambiguous"


def test_context_on_an_empty_vault_is_empty_and_says_so(tmp_path):
    assert run_kbg("init", str(tmp_path / "empty")).returncode == 0
    assert run_kbg("index", "--vault", str(tmp_path / "empty")).returncode == 0
    result = run_kbg("context", "--for", "anything", "--vault", str(tmp_path / "empty"))
    assert result.returncode == 0 and result.stdout == ""
    assert "nothing" in result.stderr and "kbg index" in result.stderr
    data = kbg(tmp_path / "empty", "context")
    assert data["text"] == "" and data["tokens"] == 0 and not data["entities"]
    shutil.rmtree(tmp_path / "empty")


def test_slice_lists_current_facts_and_open_loops(indexed_vault):
    from kbgraph.context.facts import add_fact, supersede_fact
    from kbgraph.context.loops import add_loop, resolve_loop
    from kbgraph.workspace import Workspace

    with Workspace.open(str(indexed_vault)) as ws:
        old = add_fact(ws, "Arjun Mehta", "interest", "fountain pens", "2026-03-01")
        supersede_fact(ws, old.item.id, "mechanical keyboards")
        add_loop(ws, "Arjun Mehta", "ask about the surgery", "2026-08-15")
        done = add_loop(ws, "Arjun Mehta", "send the offsite agenda", "2026-01-02")
        resolve_loop(ws, done.item.id)
        add_loop(ws, "Arjun Mehta", "return the book", "2020-01-02")
        result = slice_entities(ws.store, ws.config, ["Arjun Mehta"], today="2026-05-01", access=LOCAL)
    lines = result.entities[0].lines
    assert any(line.startswith("- interest: mechanical keyboards") for line in lines)
    assert not any("fountain pens" in line for line in lines)  # superseded
    assert "- open loop: return the book (overdue 2020-01-02)" in lines
    assert "- open loop: ask about the surgery (due 2026-08-15)" in lines
    assert not any("offsite" in line for line in lines)  # resolved


def test_every_slice_line_is_short_however_long_a_fact(indexed_vault, wordpiece):
    from kbgraph.context.facts import add_fact
    from kbgraph.context.loops import add_loop
    from kbgraph.context.slice import MAX_CARD_TOKENS, MAX_LINE_TOKENS
    from kbgraph.workspace import Workspace

    words = " ".join(["a fountain pen collector who writes letters by hand every single weekend"] * 25)
    with Workspace.open(str(indexed_vault)) as ws:
        add_fact(ws, "Arjun Mehta", "interest", words, "2026-03-01")
        add_loop(ws, "Arjun Mehta", words, "2026-08-15")
        result = slice_entities(ws.store, ws.config, ["Arjun Mehta"], today="2026-05-01", counter=wordpiece, access=LOCAL)
    lines = result.text.splitlines()
    assert max(wordpiece.count(line) for line in lines) <= MAX_CARD_TOKENS
    fact = next(line for line in lines if line.startswith("- interest: a fountain pen"))
    loop = next(line for line in lines if line.startswith("- open loop: a fountain pen"))
    assert fact.endswith("… (2026-03-01)") and loop.endswith("… (due 2026-08-15)")
    assert wordpiece.count(fact) <= MAX_LINE_TOKENS and wordpiece.count(loop) <= MAX_LINE_TOKENS
    cut = fact.removeprefix("- interest: ").split("…")[0]
    assert len(cut) < 100 and words.startswith(cut) and words[len(cut)] == " "  # cut at a word's end
    assert result.tokens < 300


@pytest.fixture(scope="module")
def governed(tmp_path_factory):
    """A public person, page, note, fact and loop next to a private person, note, relation, fact and loop."""
    from kbgraph.ingest.pipeline import index_vault
    from kbgraph.store import open_store

    root = tmp_path_factory.mktemp("governed") / "vault"
    (root / "people").mkdir(parents=True)
    (root / "notes").mkdir()
    (root / "people" / "pia-public.md").write_text(
        "---\ntype: person\nvisibility: public\nrole: Harbour Master\n---\n# Pia Public\n\nPia runs the harbour.\n\n"
        "## Facts\n\n- interest: sailing (2026-04-01)\n\n## Loops\n\n- [ ] return the tide charts @2026-04-20\n",
        encoding="utf-8")
    (root / "people" / "quinn-hidden.md").write_text(
        "---\ntype: person\nvisibility: private\nowner: ana\nrole: Smuggler\nreports_to: Pia Public\n---\n"
        "# Quinn Hidden\n\nQuinn knows the harbour tunnels.\n\n## Relations\n\n- collaborates-with [[Pia Public]]\n\n"
        "## Facts\n\n- note: owes money (2026-04-02)\n\n## Loops\n\n- [ ] collect the debt @2026-04-19\n",
        encoding="utf-8")
    (root / "notes" / "harbour-public.md").write_text(
        "---\nvisibility: public\ndate: 2026-04-25\n---\n# Harbour log\n\nPia Public inspected the harbour cranes.\n",
        encoding="utf-8")
    (root / "notes" / "harbour-secret.md").write_text(
        "---\nvisibility: private\nowner: ana\ndate: 2026-04-26\n---\n# Harbour whispers\n\n"
        "Pia Public and Quinn Hidden met at the harbour tunnels about contraband.\n", encoding="utf-8")
    report = index_vault(root)
    assert report.errors == 0, report.problems
    store = open_store(root)
    pia = next(e for e in store.list_entities(LOCAL) if e.name == "Pia Public")
    assert store.entity_governance()[pia.id].visibility == "public"  # as her page; Quinn's is ana's, private
    key = store.entity_keys([pia.id])[pia.id]
    with store.transaction():  # a private fact and loop about the public person (as an import keeps them)
        common = {"entity_key": key, "entity_name": "Pia Public", "source": "manual", "origin": "user",
                  "recorded_at": "2026-04-03T00:00:00+00:00", "owner": "ana", "visibility": "private"}
        store.add_fact({**common, "kind": "note", "text": "under investigation", "date": "2026-04-03"})
        store.add_loop({**common, "text": "ask about the inquiry", "due": "2026-04-18", "status": "open",
                        "updated_at": "2026-04-03T00:00:00+00:00"})
    yield store, load_config(root)
    store.close()


PRIVATE_WORDS = ("Quinn", "Smuggler", "tunnels", "contraband", "owes money", "debt", "investigation", "inquiry",
                 "collaborates", "manages", "reports", "whispers", "secret")


def _no_private(text: str) -> None:
    assert not [word for word in PRIVATE_WORDS if word.lower() in text.lower()], text


def test_a_public_reader_sees_the_public_and_none_of_the_private(governed):
    from kbgraph.context.brief import brief_entity, brief_today
    from kbgraph.context.facts import list_facts
    from kbgraph.context.loops import list_loops

    store, config = governed
    ben = Access.of("ben", ["public"])
    context = build_context(store, config, "Pia Public harbour", 2000, access=ben, counter=EstimateCounter())
    assert "Pia Public" in context.text and "cranes" in context.text
    _no_private(context.text)
    _no_private(build_context(store, config, None, 2000, access=ben, counter=EstimateCounter()).text)
    sliced = slice_entities(store, config, ["Pia Public"], access=ben, today="2026-04-30", counter=EstimateCounter())
    assert "- interest: sailing (2026-04-01)" in sliced.text and "- open loop: return the" in sliced.text
    mine = slice_entities(store, config, ["Pia Public"], today="2026-04-30", counter=EstimateCounter(), access=LOCAL)
    assert mine.text.startswith("Pia Public: person, Harbour Master; mentioned 6x")  # the private notes count
    assert sliced.text.startswith("Pia Public: person, Harbour Master; mentioned 3x")  # for her: her page, a note
    _no_private(sliced.text)
    for hidden in ("Quinn Hidden", "Quinn"):
        with pytest.raises(NotFound):
            slice_entities(store, config, [hidden], access=ben)
    brief = brief_entity(store, ben, config.vocabulary, "Pia Public", today="2026-04-30")
    assert brief.items
    _no_private(" ".join(f"{i.text} {i.ref}" for i in brief.items))
    _no_private(" ".join(f"{i.entity} {i.text} {i.ref}" for i in brief_today(store, ben, today="2026-04-30").items))
    assert [f.text for f in list_facts(store, ben)] == ["sailing"]
    assert [f.text for f in list_facts(store, ben, "Pia Public", include_superseded=True)] == ["sailing"]
    assert [x.text for x in list_loops(store, ben, include_closed=True)] == ["return the tide charts"]
    ana = Access.of("ana", ["public"])  # the owner reads her fact about Pia, and Quinn's page, which she owns
    assert {f.text for f in list_facts(store, ana)} == {"sailing", "under investigation", "owes money"}

"""Entity resolution, part 3: the issue's cases, end to end through ResolverIndex."""

from __future__ import annotations

import pytest

pytest.importorskip("rapidfuzz")  # not yet a declared dependency: skip rather than fail without it
pytest.importorskip("jellyfish")

from kbgraph.errors import InvalidInput  # noqa: E402
from kbgraph.resolve import (  # noqa: E402
    DEFAULT_WEIGHTS,
    EntityProfile,
    MentionInfo,
    ResolverIndex,
    calibration_report,
    examples_from_log,
    fit,
    surface_key,
)

ARJUN = EntityProfile(1, "person", "Arjun Mehta", ("AJ",), ("arjun@acme.io",), frozenset({100, 101, 102}))
SAM_LI = EntityProfile(2, "person", "Sam Li", context=frozenset({200, 201}))
SAM_ORTIZ = EntityProfile(3, "person", "Sam Ortiz", context=frozenset({300, 301}))
ANIL = EntityProfile(4, "person", "Anil Jain")
ATLAS = EntityProfile(5, "project", "Atlas")


@pytest.fixture
def index() -> ResolverIndex:
    return ResolverIndex([ARJUN, SAM_LI, SAM_ORTIZ, ANIL, ATLAS])


def ids(decision) -> list[int]:
    return [c.entity_id for c in decision.candidates]


@pytest.mark.parametrize(
    "surface", ["Arjun Mehta", "arjun mehta", "Mehta, Arjun", "arjun@acme.io", "AJ", "A.J.", "Arjoon Mehta"]
)
def test_the_forms_of_arjun_that_say_enough_link_to_him(index, surface):
    d = index.resolve(surface)
    assert (d.outcome, d.best.entity_id) == ("auto-link", 1), d.reason


@pytest.mark.parametrize("surface", ["Arjun", "Arjoon", "@amehta", "A. Mehta", "Mehta"])
def test_the_forms_that_say_little_ask_about_arjun(index, surface):
    d = index.resolve(surface)
    assert d.outcome == "ask" and d.best.entity_id == 1, d.reason


def test_shared_context_lets_a_bare_first_name_link(index):
    d = index.resolve(MentionInfo("Arjun", "person", frozenset({100, 101})))
    assert (d.outcome, d.best.entity_id) == ("auto-link", 1)
    # ...but one shared id is not enough, and context never vouches for a misspelling.
    assert index.resolve(MentionInfo("Arjun", "person", frozenset({100}))).outcome == "ask"
    assert index.resolve(MentionInfo("Arjoon", "person", frozenset({100, 101}))).outcome == "ask"


def test_two_sams_are_asked_about_never_blended(index):
    d = index.resolve("Sam")
    assert d.outcome == "ask" and {2, 3} <= set(ids(d))
    assert index.resolve("Sam Li").best.entity_id == 2
    assert index.resolve("Sam Ortiz").best.entity_id == 3
    assert index.resolve("Sam Lin").outcome != "auto-link"
    assert index.resolve("Sam Lee").outcome != "auto-link"


def test_a_bare_first_name_with_two_owners_is_asked_even_when_one_is_favoured(index):
    d = index.resolve(MentionInfo("Sam", context=frozenset({200, 201, 300})))
    assert d.outcome == "ask" and {2, 3} <= set(ids(d))


def test_initials_never_auto_link_on_similarity_alone():
    index = ResolverIndex([ANIL, EntityProfile(6, "person", "Alice Jones")])
    for surface in ("AJ", "A.J.", "A. J."):
        assert index.resolve(surface).outcome != "auto-link"
    index.add(EntityProfile(6, "person", "Alice Jones", aliases=("AJ",)))
    assert index.resolve("AJ").best.entity_id == 6  # a declared alias is a claim, not similarity


def test_a_shared_alias_asks_with_both_claimants():
    index = ResolverIndex(
        [
            EntityProfile(7, "person", "Kim Park", aliases=("Kimmy",)),
            EntityProfile(8, "person", "Kim Lee", aliases=("Kimmy",)),
            EntityProfile(9, "person", "Jordan Blake"),
            EntityProfile(10, "person", "Jordan Blake"),  # two people, one full name
        ],
        top_k=1,
    )
    d = index.resolve("Kimmy")
    assert d.outcome == "ask" and {7, 8} <= set(ids(d))  # both shown even with top_k=1
    assert "Kim Park (#7) and Kim Lee (#8)" in d.reason
    d = index.resolve("Jordan Blake")
    assert d.outcome == "ask" and set(ids(d)) == {9, 10}


def test_a_shared_email_asks_too():
    index = ResolverIndex(
        [
            EntityProfile(11, "person", "Ana Lima", emails=("team@x.io",)),
            EntityProfile(12, "person", "Bo Berg", emails=("team@x.io",)),
        ]
    )
    assert index.resolve("team@x.io").outcome == "ask"


def test_a_rejected_pair_is_never_proposed_again(index):
    key = surface_key("Arjun")
    d = index.resolve("Arjun", rejected={(key, 1)})
    assert 1 not in ids(d) and d.outcome == "new"
    assert 1 in ids(index.resolve("Arjun Mehta", rejected={(key, 1)}))  # only that surface is barred


def test_a_confirmed_pair_links(index):
    d = index.resolve("Arjun", confirmed={(surface_key("Arjun"), 1)})
    assert (d.outcome, d.best.entity_id, d.best.confirmed) == ("auto-link", 1, True)
    d = index.resolve("Sam", confirmed={(surface_key("Sam"), 2), (surface_key("Sam"), 3)})
    assert d.outcome == "ask"  # confirmed for two entities: no silent winner


def test_a_confirmed_first_name_is_asked_again_where_the_context_points_elsewhere(index):
    confirmed = {(surface_key("Sam"), 2)}
    assert index.resolve("Sam", confirmed=confirmed).outcome == "auto-link"
    d = index.resolve(MentionInfo("Sam", context=frozenset({300, 301})), confirmed=confirmed)
    assert d.outcome == "ask" and "Sam Ortiz" in d.reason


def test_a_type_hint_keeps_a_project_from_being_linked_as_a_person(index):
    assert index.resolve(MentionInfo("Atlas", "project")).outcome == "auto-link"
    assert index.resolve(MentionInfo("Atlas", "person")).outcome != "auto-link"


def test_unknown_people_come_out_new(index):
    for surface in ("Beatriz Okafor", "Zebulon", "Takeshi Mehta-Jones"):
        assert index.resolve(surface).outcome == "new", surface


def test_add_replaces_and_remove_forgets(index):
    index.add(EntityProfile(1, "person", "Arjun Mehta", aliases=("Juno",)))
    assert index.resolve("Juno").best.entity_id == 1 and index.resolve("AJ").outcome != "auto-link"
    assert index.remove(1) and not index.remove(1) and 1 not in index
    assert 1 not in ids(index.resolve("Arjun Mehta")) and len(index) == 4
    for pid in (2, 3, 4, 5):
        index.remove(pid)
    assert index._postings == {}  # nothing left behind


@pytest.mark.parametrize("bad", ["", "  ", "?!", "🙂", "x" * 10_000])
def test_bad_mentions_raise_invalid_input_with_one_line(index, bad):
    with pytest.raises(InvalidInput) as err:
        index.resolve(bad)
    assert "\n" not in str(err.value)


def test_a_bad_profile_is_refused_and_leaves_the_index_as_it_was(index):
    for bad in (
        EntityProfile(1, "person", "   "),
        EntityProfile(1, "person", "Arjun", emails=("nope",)),
        EntityProfile("1", "person", "Arjun"),
    ):
        with pytest.raises(InvalidInput):
            index.add(bad)
    assert index.resolve("Arjun Mehta").best.entity_id == 1


def test_the_decision_log_rows_carry_what_a_recalibration_needs(index):
    d = index.resolve("Arjun")
    (row,) = d.log_rows()
    assert row["entity_id"] == 1 and row["outcome"] == "ask" and not row["linked"]
    assert (
        set(row["features"]) >= {"tokens", "alias", "context", "info"} and row["weights_version"] == d.weights_version
    )
    assert index.resolve("Arjun Mehta").log_rows()[0]["linked"]


def test_a_typo_still_finds_its_entity_in_a_big_block():
    """600 Arjuns: the block is cut to max_scored, by keys and by name similarity both."""
    surnames = [f"Zed{chr(97 + i // 26)}{chr(97 + i % 26)}son" for i in range(600)]
    people = [EntityProfile(i + 10, "person", f"Arjun {s}") for i, s in enumerate(surnames)]
    index = ResolverIndex([*people, ARJUN], max_scored=20)
    d = index.resolve("Arjun Mehat")
    assert (d.outcome, d.best.entity_id) == ("auto-link", 1), d.reason


def test_answered_log_rows_refit_the_weights(index):
    """What `kbg resolve calibrate` will do: answered rows -> examples -> fit -> report."""
    rows = []
    for surface, truth in [("Arjun", 1), ("Sam", 2), ("Anil", 4), ("Arjoon", 1), ("Mehta", None), ("@amehta", 1)]:
        for row in index.resolve(surface).log_rows():
            rows.append({**row, "answer": "confirmed" if row["entity_id"] == truth else "rejected"})
    rows.append({"features": {}, "answer": None})  # unanswered: skipped
    examples = examples_from_log(rows)
    assert len(examples) == len(rows) - 1 and sum(e.same for e in examples) == 5
    after = fit(examples)
    report = calibration_report(examples, DEFAULT_WEIGHTS, after)
    assert report.after.log_loss <= report.before.log_loss

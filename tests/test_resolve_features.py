"""Entity resolution, part 2: each feature, and the scoring model around them."""

from __future__ import annotations

import pytest

pytest.importorskip("rapidfuzz")  # not yet a declared dependency: skip rather than fail without it
pytest.importorskip("jellyfish")

from kbgraph.errors import InvalidInput  # noqa: E402
from kbgraph.resolve import (  # noqa: E402
    DEFAULT_WEIGHTS,
    FEATURE_NAMES,
    EntityProfile,
    Example,
    Features,
    MentionInfo,
    Thresholds,
    Weights,
    calibration_report,
    fit,
    probability,
)
from kbgraph.resolve.features import (  # noqa: E402
    DIMINUTIVE, EXACT, INITIAL, PHONETIC, PREFIX, TYPO, features, token_agreement)
from kbgraph.resolve.scoring import apply_rules  # noqa: E402

ARJUN = EntityProfile(1, "person", "Arjun Mehta", ("AJ",), ("arjun@acme.io",), frozenset({100, 101, 102}))


def f(surface: str, profile: EntityProfile = ARJUN, **kw) -> Features:
    return features(MentionInfo(surface, **kw), profile)


@pytest.mark.parametrize(
    "a, b, level",
    [
        ("mehta", "mehta", EXACT),
        ("bob", "robert", DIMINUTIVE),
        ("bill", "william", DIMINUTIVE),
        ("arjoon", "arjun", PHONETIC),
        ("catherine", "kathryn", PHONETIC),
        ("mehat", "mehta", TYPO),  # a transposition is one edit
        ("oluwaseun", "o1uwaseun", TYPO),
        ("sam", "samuel", PREFIX),
        ("a", "arjun", INITIAL),
        ("li", "lin", 0.0),  # one letter is a lot in a short word
        ("liu", "lee", 0.0),  # same metaphone "L", spelt apart
        ("james", "john", 0.0),  # same NYSIIS "JAN", spelt apart
        ("b", "arjun", 0.0),
    ],
)
def test_token_agreement_levels(a, b, level):
    assert token_agreement(a, b) == level


def test_an_exact_name_matches_on_every_name_feature():
    x = f("Arjun Mehta")
    assert (x.alias, x.tokens, x.theirs, x.conflict, x.partial, x.near) == (1.0, 1.0, 1.0, 0.0, 0.0, 1.0)
    assert x.jw_name == x.jw_sorted == 1.0 and x.info == 0.9


def test_order_case_and_a_middle_initial_do_not_lower_the_match():
    assert f("MEHTA, arjun").tokens == 1.0 and f("MEHTA, arjun").jw_sorted == 1.0
    extra = f("Arjun K. Mehta")
    assert extra.tokens == 1.0 and extra.conflict == 0.0


def test_a_different_surname_is_a_conflict_and_part_of_a_name_is_partial():
    sam = EntityProfile(2, "person", "Sam Li")
    assert f("Sam Ortiz", sam).conflict == 1.0
    assert f("Sam Lin", sam).conflict == 1.0
    ana = EntityProfile(3, "person", "Ana Lee Fournier")
    assert f("Lee Fournier", ana).partial == 1.0 and f("Ana Fournier", ana).partial == 0.0


def test_rival_needs_an_index_that_knows_the_word():
    andrew = EntityProfile(4, "person", "Andrew Berg")
    mention = MentionInfo("Andres Berg")
    assert features(mention, andrew).rival == 0.0
    assert features(mention, andrew, known_word=lambda w: w == "andres").rival == 1.0


def test_email_handle_and_alias_hits():
    assert f("arjun@acme.io").email == 1.0
    assert f("Arjun", email="ARJUN@acme.io").email == 1.0
    assert f("@amehta").handle == 1.0 and f("@amehta").conflict == 0.0
    assert f("AJ").alias == 1.0 and f("a.j.").alias == 1.0


def test_type_context_information_and_label():
    assert f("Arjun", type="person").same_type == 1.0
    assert f("Arjun").same_type == 0.5
    assert f("Arjun", type="project").same_type == 0.0
    x = f("Arjun", context=frozenset({100, 101, 999}))
    assert x.context == pytest.approx(2 / 3) and x.context_n == pytest.approx(2 / 3)
    assert [f(s).info for s in ("AJ", "Arjun", "@amehta", "A. Mehta", "Arjun Mehta", "Arjun Kumar Mehta")] == [
        0.0,
        0.3,
        0.5,
        0.5,
        0.9,
        1.0,
    ]
    assert f("Will", EntityProfile(5, "person", "Will Turner")).label == 1.0
    assert f("Arjun").label == 0.0


def test_features_round_trip_through_a_log_dict():
    x = f("Arjoon Mehta")
    assert Features.from_dict(x.as_dict()) == x
    assert tuple(x.as_dict()) == FEATURE_NAMES
    assert Features.from_dict({"tokens": 1, "unknown": 5}) == Features(tokens=1.0)


def test_probability_orders_exact_above_typo_above_different_person():
    exact, typo, other = (probability(f(s)) for s in ("Arjun Mehta", "Arjun Mehat", "Arjun Patel"))
    assert exact > 0.99 and 0.9 < typo < exact and other < 0.55


def test_rules_cap_low_information_names_below_auto():
    t = Thresholds()
    p = probability(f("Arjun"))
    assert p > t.auto  # the model alone would link a bare first name...
    score, why = apply_rules(p, f("Arjun"), t)
    assert score < t.auto and why == "low-information name"  # ...the rule will not
    strong = f("Arjun", context=frozenset({100, 101}))
    assert apply_rules(probability(strong), strong, t)[1] is None  # two shared ids vouch for it
    near_miss = f("Arjoon", context=frozenset({100, 101}))
    assert apply_rules(1.0, near_miss, t)[1] == "low-information name"  # never for a misspelling
    assert apply_rules(1.0, f("AJ"), t) == (1.0, None)  # an exact alias is a claim, not similarity
    assert apply_rules(1.0, f("Arjun Mehta", type="project"), t)[1] == "different type"


def test_thresholds_and_weights_validate():
    with pytest.raises(InvalidInput, match="0 < ask < auto"):
        Thresholds(auto=0.5, ask=0.6)
    with pytest.raises(InvalidInput, match="coefficients"):
        Weights("x", 0.0, (1.0,))
    assert Weights.from_dict("v", DEFAULT_WEIGHTS.as_dict()) == Weights("v", DEFAULT_WEIGHTS.bias, DEFAULT_WEIGHTS.coef)


def _examples() -> list[Example]:
    rows = [
        ("Arjun Mehta", True),
        ("Arjun Mehat", True),
        ("Mehta, Arjun", True),
        ("arjun@acme.io", True),
        ("Arjun", True),
        ("Arjun", False),
        ("Arjoon", True),
        ("AJ", True),
        ("Arjun Patel", False),
        ("Anil Mehta", False),
        ("Arjun Rao", False),
        ("A. Mehta", False),
        ("Sam Mehta", False),
    ]
    return [Example(f(s), same) for s, same in rows]


def test_fit_is_deterministic_and_improves_log_loss_on_its_answers():
    examples = _examples()
    first, second = fit(examples), fit(list(examples))
    assert first == second and first.version.startswith("fit-") and first.version.endswith("-n13")
    report = calibration_report(examples, DEFAULT_WEIGHTS, first)
    assert report.examples == 13 and report.positives == 7
    assert report.after.log_loss < report.before.log_loss
    assert 0.0 <= report.after.accuracy <= 1.0 and report.after.auto_precision == 1.0


def test_fit_refuses_nothing_to_learn_from_and_a_zero_penalty():
    with pytest.raises(InvalidInput, match="nothing to calibrate"):
        fit([])
    with pytest.raises(InvalidInput, match="l2 must be positive"):
        fit(_examples(), l2=0)

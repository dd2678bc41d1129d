"""Entity resolution, part 4: properties over arbitrary text (hypothesis)."""

from __future__ import annotations

import pytest

pytest.importorskip("rapidfuzz")  # not yet a declared dependency: skip rather than fail without it
pytest.importorskip("jellyfish")

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from kbgraph.errors import InvalidInput  # noqa: E402
from kbgraph.entities.names import fold  # noqa: E402
from kbgraph.resolve import (  # noqa: E402
    OUTCOMES,
    EntityProfile,
    Example,
    Features,
    MentionInfo,
    ResolverIndex,
    Thresholds,
    blocking_keys,
    fit,
)
from kbgraph.resolve.features import features  # noqa: E402
from kbgraph.entities.keys import MAX_NAME_CHARS  # noqa: E402

from .conftest import fast  # noqa: E402

PEOPLE = [
    EntityProfile(1, "person", "Arjun Mehta", ("AJ",), ("arjun@acme.io",), frozenset({100, 101})),
    EntityProfile(2, "person", "Sam Li", context=frozenset({200})),
    EntityProfile(3, "person", "Sam Ortiz"),
    EntityProfile(4, "person", "José Núñez-García", ("Pepe",)),
    EntityProfile(5, "person", "Siobhán O'Brien"),
    EntityProfile(6, "team", "Data Platform", ("Data",)),
    EntityProfile(7, "person", "王伟"),
]
INDEX = ResolverIndex(PEOPLE)

LETTERS = "abcdefghijklmnopqrstuvwxyzéèüöñçåøłş"
word = st.text(alphabet=LETTERS, min_size=2, max_size=9)
full_name = st.lists(word, min_size=2, max_size=3).map(lambda ws: " ".join(w.capitalize() for w in ws))
anything = st.text(max_size=60) | st.sampled_from(
    ["", " ", "🙂", "@", "a@b.co", "@x-y", "A.J.", "'", "Ⅻ", "ß", "\u200d"]
)


def _usable(text: str) -> bool:
    return len(text.strip()) <= MAX_NAME_CHARS and any(c.isalnum() for c in text)


@fast(150)
@given(anything, st.sampled_from([None, "person", "team"]), st.frozensets(st.integers(0, 300), max_size=4))
def test_resolve_returns_a_decision_or_invalid_input_for_any_text(text, type_hint, context):
    try:
        d = INDEX.resolve(MentionInfo(text, type_hint, context))
    except InvalidInput:
        assert not _usable(text)
        return
    assert _usable(text)
    assert d.outcome in OUTCOMES
    scores = [c.score for c in d.candidates]
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert d.outcome != "auto-link" or d.best.score >= Thresholds().auto or d.best.confirmed


@fast(80)
@given(full_name)
def test_keys_are_stable_under_case_and_accents(name):
    keys = blocking_keys(name)
    assert blocking_keys(name.lower()) == keys
    assert blocking_keys(name.upper()) == keys
    assert blocking_keys(fold(name)) == keys


@fast(80)
@given(anything.filter(_usable), st.sampled_from(PEOPLE))
def test_every_feature_is_a_number_in_zero_one(text, profile):
    values = features(MentionInfo(text), profile).values()
    assert all(isinstance(v, float) and 0.0 <= v <= 1.0 for v in values)


@fast(80)
@given(full_name)
def test_a_known_name_written_exactly_never_goes_to_another_entity(name):
    index = ResolverIndex([*PEOPLE, EntityProfile(99, "person", name)])
    d = index.resolve(name)
    assert d.outcome == "ask" or d.best.entity_id == 99


unit = st.floats(0.0, 1.0)
examples = st.lists(
    st.builds(Example, st.builds(Features, tokens=unit, jw_name=unit, alias=unit, info=unit), st.booleans()),
    min_size=1,
    max_size=12,
)


@fast(25)
@given(examples)
def test_fit_is_deterministic(rows):
    assert fit(rows) == fit(list(rows))


def _roster_neighbours() -> list[tuple[str, str]]:
    """Pairs of listed real surnames one edit apart (Shah / Shaw, Hall / Hale...)."""
    from rapidfuzz.distance import OSA

    from kbgraph.resolve.roster import SURNAMES

    names = sorted(n for n in SURNAMES if len(n) >= 4)
    return [(a, b) for a in names for b in names if a != b and a[0] == b[0] and OSA.distance(a, b) == 1]


NEIGHBOURS = _roster_neighbours()


@fast(60)
@given(st.sampled_from(NEIGHBOURS), word, st.sampled_from([str.title, str.upper, str.lower]))
def test_a_real_surname_one_letter_from_a_known_one_never_links_on_its_own(pair, given_name, case):
    known, other = pair
    index = ResolverIndex([EntityProfile(1, "person", f"{given_name} {known}".title())])
    d = index.resolve(MentionInfo(case(f"{given_name} {other}"), "person"))
    assert d.outcome != "auto-link", d.reason

"""The relation vocabulary: inverses, symmetry, allowed pairs, user types."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from kbgraph.config import config_from_dict
from kbgraph.errors import ConfigError, InvalidInput
from kbgraph.vocabulary import SEED_TYPES, Vocabulary

VOCAB = Vocabulary()


def test_inverse_input_is_normalised_to_the_canonical_type():
    normal = VOCAB.normalise("manages")
    assert (normal.type.name, normal.swapped) == ("reports-to", True)
    assert VOCAB.normalise("Reports_To").type.name == "reports-to"
    assert VOCAB.normalise("led-by").type.name == "leads"


@given(st.sampled_from(SEED_TYPES))
def test_every_type_and_its_inverse_round_trip(rtype):
    assert VOCAB.normalise(rtype.name) == VOCAB.normalise(rtype.name.upper())
    assert not VOCAB.normalise(rtype.name).swapped
    if rtype.symmetric:
        assert rtype.inverse is None and VOCAB.label(rtype.name, outgoing=False) == rtype.name
    else:
        assert VOCAB.normalise(rtype.inverse).swapped
        assert VOCAB.label(rtype.name, outgoing=False) == rtype.inverse
        assert VOCAB.label(rtype.name, outgoing=True) == rtype.name


@given(st.text(max_size=40))
def test_any_type_name_is_either_known_or_a_clear_error(name):
    try:
        normal = VOCAB.normalise(name)
    except InvalidInput as exc:
        assert str(exc).startswith("unknown relation type")
    else:
        assert normal.type.name in VOCAB.types


def test_unknown_type_suggests_close_names():
    with pytest.raises(InvalidInput, match="did you mean reports-to"):
        VOCAB.normalise("reportsto")


def test_pairs_are_enforced_with_a_message_naming_the_allowed_ones():
    leads = VOCAB.types["leads"]
    assert leads.allows("person", "project") and leads.allows("person", "team")
    assert not leads.allows("project", "person")
    with pytest.raises(InvalidInput, match="leads links person → project, person → team"):
        VOCAB.check_pair(leads, ("Atlas", "project"), ("Ana", "person"))
    assert VOCAB.types["uses"].allows("concept", "organization")


def test_target_type_hint_only_when_the_vocabulary_fixes_it():
    assert VOCAB.target_type_hint("reports-to", "person") == "person"
    assert VOCAB.target_type_hint("member-of", "person") == "team"
    assert VOCAB.target_type_hint("has-member", "team") == "person"
    assert VOCAB.target_type_hint("leads", "person") is None  # a project or a team
    assert VOCAB.target_type_hint("uses", "project") is None
    assert VOCAB.target_type_hint("nonsense", "person") is None


def test_user_types_from_kbgraph_toml():
    config = config_from_dict({"relations": {"types": {"advises": {
        "inverse": "advised-by", "source": ["person"], "target": ["person", "project"]}}}})
    vocab = config.vocabulary
    assert vocab.normalise("advised-by").type.name == "advises" and vocab.normalise("advised-by").swapped
    assert vocab.types["advises"].allows("person", "project")
    assert not vocab.types["advises"].allows("project", "person")


@pytest.mark.parametrize("spec, message", [
    ({"reports-to": {"inverse": "x"}}, "is built in; its table may only add pairs"),
    ({"manages": {"source": ["person"]}}, "is the inverse of a built-in type"),
    ({"advises": {"source": ["person"]}}, "needs an inverse"),
    ({"advises": {"inverse": "advised-by", "source": "person"}}, "list of entity types"),
    ({"advises": "person"}, "must be a table"),
])
def test_bad_user_types_are_config_errors(spec, message):
    with pytest.raises(ConfigError, match=message):
        config_from_dict({"relations": {"types": spec}})

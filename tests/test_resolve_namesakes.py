"""Entity resolution, part 5: a name one or two letters from a known person's is asked about when the
other spelling is itself a real name (a namesake: Shah / Shaw), and linked when it is a slip (Arjoon
/ Arjun) or when independent evidence agrees (same email, shared context). Issue 17."""

from __future__ import annotations

import pytest

pytest.importorskip("rapidfuzz")  # not yet a declared dependency: skip rather than fail without it
pytest.importorskip("jellyfish")

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from kbgraph.errors import InvalidInput  # noqa: E402
from kbgraph.resolve import (  # noqa: E402
    DEFAULT_THRESHOLDS,
    DEFAULT_WEIGHTS,
    EntityProfile,
    Features,
    MentionInfo,
    ResolverIndex,
    Weights,
)
from kbgraph.resolve.features import describe_namesake, namesake_kind  # noqa: E402
from kbgraph.resolve.scoring import apply_rules  # noqa: E402

from .conftest import fast  # noqa: E402

# (the person known, a different person one or two letters away): real surname and given-name pairs.
NAMESAKES = [
    ("Ravi Shah", "Ravi Shaw"),
    ("Marcus Hale", "Marcus Hall"),
    ("Ana Lima", "Anna Lima"),
    ("Wei Chen", "Wei Chan"),
    ("Tom Wong", "Tom Wang"),
    ("John Smith", "John Smyth"),
    ("Karl Jensen", "Karl Jenson"),
    ("Karl Jensen", "Carl Jensen"),
    ("Erik Meyer", "Eric Meier"),
    ("Barry Warsaw", "Larry Warsaw"),
    ("Mia Clark", "Mia Clarke"),
    ("Anna Reid", "Anna Reed"),
    ("Ben Peterson", "Ben Petersen"),
    ("Lea Brandt", "Leah Brandt"),
]
# (the person known, a slip in their name) that link today and must keep linking.
TYPOS = [
    ("Arjun Mehta", "Arjoon Mehta"),
    ("Arjun Mehta", "Arjun Mehat"),
    ("Katarzyna Kowalski", "Katarzyna Kowalksi"),
    ("Alexander Petrov", "Alexnader Petrov"),
    ("Deepika Chatterjee", "Deepika Chaterjee"),
    ("Siobhan Gallagher", "Siobhan Gallager"),
    ("Christopher Lindqvist", "Christopher Lindqvsit"),
]

RAVI = EntityProfile(1, "person", "Ravi Shah", emails=("ravi@acme.io",), context=frozenset({10, 11, 12}))


def _only(name: str, **kw) -> ResolverIndex:
    return ResolverIndex([EntityProfile(1, "person", name, **kw), EntityProfile(2, "person", "Dana Kowalski")])


@pytest.mark.parametrize(("known", "said"), NAMESAKES)
def test_a_namesake_is_asked_never_linked(known, said):
    d = _only(known).resolve(MentionInfo(said, "person"))
    assert d.outcome == "ask" and d.best.entity_id == 1, d.reason
    assert " differs (" in d.reason and "another" in d.reason


@pytest.mark.parametrize(("known", "said"), TYPOS)
def test_a_slip_still_links(known, said):
    d = _only(known).resolve(MentionInfo(said, "person"))
    assert (d.outcome, d.best.entity_id) == ("auto-link", 1), d.reason
    assert not d.best.features.namesake


def test_the_reason_names_the_words_and_why():
    d = ResolverIndex([RAVI]).resolve(MentionInfo("Ravi Shaw", "person"))
    assert "surname differs (Shaw / Shah): another person's name, asked" in d.reason
    d = ResolverIndex([RAVI]).resolve(MentionInfo("Shaw, Ravi", "person"))
    assert "surname differs (Shaw / Shah)" in d.reason  # the role comes from the known name's order


def test_independent_evidence_links_and_says_which():
    index = ResolverIndex([RAVI])
    by_mail = index.resolve(MentionInfo("Ravi Shaw", "person", email="ravi@acme.io"))
    assert by_mail.outcome == "auto-link" and "same email address" in by_mail.reason
    by_context = index.resolve(MentionInfo("Ravi Shaw", "person", frozenset({10, 11})))
    assert by_context.outcome == "auto-link"
    assert "surname differs (Shaw / Shah)" in by_context.reason and "2 shared context ids" in by_context.reason
    # One shared id (the same team) is not enough: namesakes often work in one team.
    assert index.resolve(MentionInfo("Ravi Shaw", "person", frozenset({10}))).outcome == "ask"


def test_no_weight_lifts_the_rule():
    f = Features(jw_name=0.97, jw_sorted=0.97, tokens=0.85, theirs=1.0, namesake=1.0, same_type=1.0, info=0.9)
    score, why = apply_rules(1.0, f, DEFAULT_THRESHOLDS)
    assert score < DEFAULT_THRESHOLDS.auto and why
    eager = Weights.from_dict("eager", {**DEFAULT_WEIGHTS.as_dict(), "namesake": 30.0})
    d = ResolverIndex([RAVI], weights=eager).resolve(MentionInfo("Ravi Shaw", "person"))
    assert d.outcome == "ask"


def test_namesake_kind_tells_a_real_name_from_a_slip():
    assert namesake_kind("shaw", "shah") == "real"
    assert namesake_kind("larry", "barry") == "real"
    assert namesake_kind("zarry", "barry") == "initial"  # not a listed name, but the first letter changed
    assert namesake_kind("arjoon", "arjun") is None
    assert namesake_kind("mehat", "mehta") is None
    assert namesake_kind("antos", "santos") is None  # a dropped first letter is a slip
    assert namesake_kind("shah", "shah") is None


def test_a_logged_pair_is_explained_again_from_its_names():
    assert describe_namesake("Anna Lima", ["Ana Lima"]) == "given name differs (Anna / Ana): another person's name"
    assert describe_namesake("Arjoon Mehta", ["Arjun Mehta"]) is None


# --- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize(("known", "said"), [("Javier Yılmaz", "JAVIER YILMAZ"), ("Søren Åberg", "Soren Aberg"),
                                              ("Łukasz Wójcik", "Lukasz Wojcik")])
def test_a_name_in_ascii_letters_is_not_its_own_namesake(known, said):
    d = _only(known).resolve(MentionInfo(said, "person"))
    assert (d.outcome, d.best.entity_id) == ("auto-link", 1), d.reason


@pytest.mark.parametrize("said", ["RAVI SHAH", "ravi shah", "Ravi Shah 🎉", "🎉 Ravi Shah", "Dr. Ravi Shah"])
def test_case_emoji_and_titles_do_not_make_a_namesake(said):
    d = ResolverIndex([RAVI]).resolve(MentionInfo(said, "person"))
    assert (d.outcome, d.best.entity_id) == ("auto-link", 1), d.reason
    assert not d.best.features.namesake


def test_all_caps_namesake_is_still_asked():
    d = ResolverIndex([RAVI]).resolve(MentionInfo("RAVI SHAW", "person"))
    assert d.outcome == "ask" and "(Shaw / Shah)" in d.reason


@pytest.mark.parametrize("said", ["R. S.", "R.S.", "RS", "R. Shah", "Ravi S."])
def test_initials_never_link_alone(said):
    d = ResolverIndex([RAVI]).resolve(MentionInfo(said, "person"))
    assert d.outcome != "auto-link", d.reason


@pytest.mark.parametrize("name", ["محمد علي", "דוד כהן", "王伟", "Ōtsuka Kōhei"])
def test_names_in_other_scripts_link_exactly_and_never_as_namesakes(name):
    index = ResolverIndex([EntityProfile(2, "person", name), RAVI])
    d = index.resolve(MentionInfo(name, "person"))
    assert (d.outcome, d.best.entity_id) == ("auto-link", 2)
    assert not d.best.features.namesake


def test_rtl_name_one_letter_off_does_not_crash_or_link_silently():
    index = ResolverIndex([EntityProfile(1, "person", "محمد علي")])
    d = index.resolve(MentionInfo("محمود علي", "person"))  # Mahmoud, not Mohammed
    assert d.outcome != "auto-link"


def test_emoji_alone_is_not_a_name():
    with pytest.raises(InvalidInput):
        ResolverIndex([RAVI]).resolve(MentionInfo("🎉🎉", "person"))


name_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyzéüñçøאבגدهو", min_size=2, max_size=9)


@fast(60)
@given(st.lists(name_word, min_size=2, max_size=3), st.sampled_from([str.upper, str.lower, str.title]))
def test_a_known_name_in_any_case_is_never_its_own_namesake(words, case):
    name = " ".join(words)
    d = ResolverIndex([EntityProfile(1, "person", name)]).resolve(MentionInfo(case(name), "person"))
    assert d.best is not None and not d.best.features.namesake
    assert d.outcome == "auto-link" or d.best.features.info <= 0.5  # all-caps short words read as initials


# --- explain: the log rows say why ------------------------------------------------------


def _row(surface, name, outcome, **features):
    return {"surface": surface, "candidate_name": name, "outcome": outcome, "features": features}


def test_a_logged_namesake_question_says_which_word_and_why():
    from kbgraph.resolve.explain import explain_decision

    f = ResolverIndex([RAVI]).resolve(MentionInfo("Ravi Shaw", "person")).best.features.as_dict()
    assert explain_decision(_row("Ravi Shaw", "Ravi Shah", "asked", **f)) == (
        "surname differs (Shaw / Shah): another person's name, asked"
    )


def test_a_logged_namesake_link_says_which_evidence_carried_it():
    from kbgraph.resolve.explain import explain_decision, with_reasons

    d = ResolverIndex([RAVI]).resolve(MentionInfo("Ravi Shaw", "person", frozenset({10, 11, 12})))
    row = _row("Ravi Shaw", "Ravi Shah", "auto-linked", **d.best.features.as_dict())
    assert explain_decision(row) == (
        "surname differs (Shaw / Shah): another person's name; linked on: "
        "3+ shared context ids (team, projects, people named with them)"
    )
    assert with_reasons([row])[0]["why"] == explain_decision(row)
    # Rows logged by older versions (no namesake feature) and rows with no candidate still explain.
    assert explain_decision(_row("Dan", "Dana Kowalski", "asked", tokens=0.6, info=0.3, same_type=1.0)) == (
        "names disagree, asked"
    )
    assert explain_decision({"surface": "Zed", "candidate_name": None, "outcome": "new", "features": {}})


def test_capping_a_namesake_does_not_hand_the_link_to_another_near_miss():
    # Both fit "Alexander Maisford" (two slips from Maruford, one letter from Kaisford): before the
    # namesake rule both scored above auto-link and were asked about; the cap must not make Maruford win.
    index = ResolverIndex([EntityProfile(1, "person", "Alexander Maruford"),
                           EntityProfile(2, "person", "Alexander Kaisford")])
    d = index.resolve(MentionInfo("Alexander Maisford", "person"))
    assert d.outcome == "ask" and {1, 2} <= {c.entity_id for c in d.candidates}, d.reason
    assert index.resolve(MentionInfo("Alexander Maruford", "person")).outcome == "auto-link"  # exact: no question


def test_an_indexed_namesake_is_a_question_whose_why_names_the_words(tmp_path):
    from .conftest import kbg, run_kbg

    (tmp_path / "people").mkdir()
    (tmp_path / "people" / "ravi-shah.md").write_text("---\ntype: person\nname: Ravi Shah\n---\n# Ravi Shah\n")
    (tmp_path / "sync.md").write_text("---\ntype: meeting\nattendees: [Ravi Shaw]\n---\n# Sync\n")
    assert run_kbg("index", "--vault", str(tmp_path)).returncode == 0
    questions = kbg(tmp_path, "resolve", "pending")["questions"]
    assert [(q["surface"], q["candidate_name"]) for q in questions] == [("Ravi Shaw", "Ravi Shah")]
    assert questions[0]["why"] == "surname differs (Shaw / Shah): another person's name, asked"


@pytest.mark.parametrize("acronym", ["API", "SRE", "OKR", "NASA", "HR", "QA"])
def test_an_all_caps_acronym_is_no_ones_initials(acronym):
    """'API' in a meeting's attendees beside Ana P. Ibarra was asked about as her initials (the shared
    meeting made it 0.90); a word everyone reads as an acronym is no person's initials."""
    met = frozenset({100, 101})
    index = ResolverIndex([EntityProfile(1, "person", name, context=met) for name in (
        "Ana P. Ibarra", "Sara Rose Evans", "Olga K. Rossi", "Nora Anne Sato Adler", "Hana Reed", "Quinn Adams")])
    d = index.resolve(MentionInfo(acronym, "person", met))
    assert d.outcome == "new" and d.best is None, d.reason
    from kbgraph.entities.keys import parse_name

    assert parse_name(acronym).kind != "initials"


def test_initials_that_are_no_acronym_are_still_asked_and_an_alias_still_links():
    met = frozenset({100, 101})
    index = ResolverIndex([EntityProfile(1, "person", "Priya Raman", context=met),
                           EntityProfile(2, "person", "Sam Ortiz", aliases=("SRE",), context=met)])
    assert index.resolve(MentionInfo("PR", "person", met)).outcome == "ask"
    d = index.resolve(MentionInfo("SRE", "person", met))
    assert (d.outcome, d.best.entity_id) == ("auto-link", 2), "a page's own alias is a claim"

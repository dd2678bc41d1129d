"""Contradictions between relations allowed one at a time: scoped to one subject and type, classified
temporal / contextual / factual, settled or left to the user, and nothing deleted."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbgraph.relations.conflicts import Claim, classify

from .conftest import fast, kbg, run_kbg


def _relations(vault, name, type_name):
    data = kbg(vault, "entity", "relations", name, "--type", type_name, "--include-expired")
    return {(r.get("target") or r.get("source"), r["valid_until"])
            for r in data["relations"] + data["inverse_relations"]}


def test_a_dated_change_of_manager_retires_the_old_one_the_day_before(indexed_vault):
    made = kbg(indexed_vault, "entity", "relate", "Arjun Mehta", "--type", "reports-to", "--target", "Chen Wei",
               "--since", "2026-11-01")
    (conflict,) = made["conflicts"]
    assert (conflict["kind"], conflict["status"], conflict["old"]["other"]) == ("temporal", "resolved", "Ana Lima")
    assert _relations(indexed_vault, "Arjun Mehta", "reports-to") == {("Ana Lima", "2026-10-31"), ("Chen Wei", None)}
    page = (indexed_vault / "people" / "arjun-mehta.md").read_text()
    assert "reports_to: Ana Lima" in page  # the frontmatter value is left as written
    assert "- reports-to [[Ana Lima]] (until 2026-10-31)" in page
    assert run_kbg("index", "--vault", str(indexed_vault)).returncode == 0  # and the next index agrees
    assert _relations(indexed_vault, "Arjun Mehta", "reports-to") == {("Ana Lima", "2026-10-31"), ("Chen Wei", None)}
    october = kbg(indexed_vault, "entity", "relations", "Arjun Mehta", "--as-of", "2026-12-04", "--type", "reports-to")
    assert [r["other"] for r in october["relations"]] == ["Chen Wei"]


def test_an_undated_disagreement_goes_to_the_user(indexed_vault):
    made = kbg(indexed_vault, "entity", "relate", "Sam Li", "--type", "reports-to", "--target", "Ben Okafor")
    (conflict,) = made["conflicts"]
    assert (conflict["kind"], conflict["status"]) == ("factual", "open")
    assert _relations(indexed_vault, "Sam Li", "reports-to") == {("Chen Wei", None), ("Ben Okafor", None)}
    listed = kbg(indexed_vault, "graph", "conflicts")["conflicts"]
    assert [c["id"] for c in listed] == [conflict["id"]]
    settled = kbg(indexed_vault, "graph", "resolve", str(conflict["id"]), "--keep", "new")
    assert settled["status"] == "resolved" and "kept Ben Okafor" in settled["resolution"]
    current = kbg(indexed_vault, "entity", "relations", "Sam Li", "--type", "reports-to")
    assert [r["target"] for r in current["relations"]] == ["Ben Okafor"]
    assert kbg(indexed_vault, "graph", "conflicts")["conflicts"] == []
    again = run_kbg("graph", "resolve", str(conflict["id"]), "--keep", "old", "--vault", str(indexed_vault))
    assert again.returncode == 1 and "was resolved already" in again.stderr
    missing = run_kbg("graph", "resolve", "999", "--keep", "old", "--vault", str(indexed_vault))
    assert missing.returncode != 0 and "no conflict 999" in missing.stderr


def test_different_contexts_are_no_contradiction(indexed_vault):
    made = kbg(indexed_vault, "entity", "relate", "María García", "--type", "reports-to", "--target", "Chen Wei",
               "--context", "dotted line")
    assert [(c["kind"], c["status"]) for c in made["conflicts"]] == [("contextual", "resolved")]
    assert {other for other, until in _relations(indexed_vault, "María García", "reports-to")} == {
        "Ben Okafor", "Chen Wei"}


def test_only_the_same_subject_and_type_is_compared(indexed_vault):
    # Chen Wei already leads Project Beacon; leading a second project is fine (a project has one lead).
    assert kbg(indexed_vault, "entity", "relate", "Chen Wei", "--type", "leads", "--target", "Checkout Revamp",
               "--since", "2026-11-01")["conflicts"][0]["subject"] == "Checkout Revamp"  # its lead was Lena
    beacon = kbg(indexed_vault, "entity", "relations", "Chen Wei", "--type", "leads")
    assert {r["target"] for r in beacon["relations"]} >= {"Project Beacon", "Checkout Revamp"}
    # Not functional: a second mentor is no contradiction.
    assert kbg(indexed_vault, "entity", "relate", "Lena Fischer", "--type", "mentors", "--target", "Sam Li")[
        "conflicts"] == []
    # Another person's manager is not Sam's.
    assert kbg(indexed_vault, "entity", "relate", "Dana Kowalski", "--type", "mentored-by", "--target", "Ben Okafor")[
        "conflicts"] == []


def test_an_earlier_dated_relation_is_history_at_once(indexed_vault):
    kbg(indexed_vault, "entity", "relate", "Dana Kowalski", "--type", "reports-to", "--target", "Ben Okafor",
        "--since", "2026-11-01")
    made = kbg(indexed_vault, "entity", "relate", "Dana Kowalski", "--type", "reports-to", "--target", "Lena Fischer",
               "--since", "2026-01-01")
    assert made["valid_until"] == "2026-10-31" and made["expired"]
    assert made["conflicts"][0]["kind"] == "temporal"


_claims = st.builds(Claim, other_id=st.integers(1, 3), other=st.just("x"),
                    since=st.one_of(st.none(), st.sampled_from(["2026-01-01", "2026-06-01"])),
                    context=st.one_of(st.none(), st.sampled_from(["dotted line", "Dotted  line", "acting"])))


@fast(200)
@given(_claims, _claims)
def test_classification_rules(old, new):
    kind = classify(old, new)
    if old.other_id == new.other_id:
        assert kind is None  # the same relation again
    elif " ".join((old.context or "").split()).casefold() != " ".join((new.context or "").split()).casefold():
        assert kind == "contextual"
    elif new.since and new.since != old.since:
        assert kind == "temporal"
    else:
        assert kind == "factual"


@pytest.mark.parametrize("value", ["both-ends", 3])
def test_a_bad_functional_setting_is_a_config_error(value):
    from kbgraph.config import config_from_dict
    from kbgraph.errors import ConfigError

    with pytest.raises(ConfigError, match="functional must be"):
        config_from_dict({"relations": {"types": {"mentors": {"functional": value}}}})


def test_taking_over_a_project_supersedes_the_old_lead_when_accepted(tmp_path):
    vault = tmp_path / "org"
    for folder in ("people", "projects", "meetings/2026/05/04"):
        (vault / folder).mkdir(parents=True)
    for name in ("Ravi Shah", "Alex Chen"):
        (vault / "people" / f"{name.lower().replace(' ', '-')}.md").write_text(f"---\ntype: person\nname: {name}\n---\n")
    (vault / "projects" / "lighthouse.md").write_text(
        "---\ntype: project\nname: Project Lighthouse\nlead: Alex Chen\n---\n# Project Lighthouse\n")
    (vault / "meetings/2026/05/04/staff.md").write_text(
        "# Staff meeting\n\nRavi Shah is taking over Project Lighthouse from Alex Chen.\n")
    assert run_kbg("init", str(vault)).returncode == 0
    assert run_kbg("index", "--vault", str(vault)).returncode == 0
    pending = kbg(vault, "entity", "suggest-relations")["pending"]
    (takeover,) = [s for s in pending if (s["source"], s["type"], s["target"]) == (
        "Ravi Shah", "leads", "Project Lighthouse")]
    accepted = kbg(vault, "entity", "accept", str(takeover["id"]))
    assert [(c["kind"], c["status"]) for c in accepted["relation"]["conflicts"]] == [("temporal", "resolved")]
    leads = _relations(vault, "Project Lighthouse", "leads")
    assert leads == {("Ravi Shah", None), ("Alex Chen", "2026-05-03")}  # until the day before the note


def test_resolving_a_conflict_whose_relation_is_gone_ends_nothing_else(indexed_vault):
    made = kbg(indexed_vault, "entity", "relate", "Sam Li", "--type", "reports-to", "--target", "Ben Okafor")
    conflict = made["conflicts"][0]["id"]
    kbg(indexed_vault, "entity", "unrelate", "Sam Li", "--type", "reports-to", "--target", "Ben Okafor")
    kbg(indexed_vault, "entity", "relate", "Sam Li", "--type", "uses", "--target", "Kafka")  # may reuse the id
    kbg(indexed_vault, "graph", "resolve", str(conflict), "--keep", "old")
    uses = kbg(indexed_vault, "entity", "relations", "Sam Li", "--type", "uses")
    assert [(r["target"], r["valid_until"]) for r in uses["relations"]] == [("Kafka", None)]
    assert "uses [[Kafka]] (until" not in (indexed_vault / "people" / "sam-li.md").read_text()

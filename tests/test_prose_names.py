"""Names in running text (issue 17): found by entities/prose_names.py, resolved by resolve/prose.py.

Detection is precision first: a capitalised phrase is a name only with a person cue around it, and
technical prose ("Pod Security", "the Kubelet's") is not. Resolution goes through the same resolver
as frontmatter references: a typo links, a gray-zone name is asked, a stranger creates nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from kbgraph.entities.prose_names import MAX_NAMES, find_prose_names

from .conftest import fast, kbg
from .timing import fastest


def _names(text: str) -> list[str]:
    return [n.surface for n in find_prose_names(text)]


@pytest.mark.parametrize("text, names", [
    ("Arjoon Mehta asked about the surgery.", ["Arjoon Mehta"]),
    ("Then Arjoon Mehta asked about the surgery.", ["Arjoon Mehta"]),
    ("Thanks Priya Raman for the review.", ["Priya Raman"]),
    ("Zoë O'Brien said the rollout is done.", ["Zoë O'Brien"]),
    ("cc: Dana Kowalski", ["Dana Kowalski"]),
    ("We had a call with Ravi Shah about it.", ["Ravi Shah"]),
    ("It is in Ravi Shah's notes.", ["Ravi Shah"]),
    ("Ana and Ravi Shah joined the call.", ["Ana", "Ravi Shah"]),
    ("- Dana to follow up with the vendor.", ["Dana"]),
    ("Jean-Luc Picard confirmed that the date holds.", ["Jean-Luc Picard"]),
])
def test_a_name_with_a_person_cue_is_found(text, names):
    assert _names(text) == names


@pytest.mark.parametrize("text", [
    "Pod Security said nothing about it.",  # "security" is a common word
    "The Pod Security Admission said nothing.",  # a title, not a name with a cue
    "This is enforced by Pod Security Admission.",
    "It ships with Docker by default.",  # one word and a weak cue
    "The Kubelet's configuration changes.",
    "We integrate with Topology Manager; the topology manager decides.",  # the note writes it in lower case
    "Remember to remove the old file.",
    "Failed to update the status.",
    "Fixed reported bugs from the community.",  # "reported" describes bugs here
    "Work with SIG Docs to update examples.",  # an acronym next to it: a group
    "Released with Windows Server 2019 said nobody.",
    "ARJUN MEHTA SAID so.",  # all capitals: no way to tell
    "It is needed by Rootless Docker to set up cgroups: rootless mode needs them.",  # a title the note writes in lower case
    "[[Nobody Here]] said hello.",
    "T. B. said so.",  # initials only
    "🙂 said hi, and مرحبا said hello.",  # emoji, right-to-left script
])
def test_technical_or_uncued_phrases_are_not_names(text):
    assert _names(text) == []


_PIECES = st.sampled_from(["Arjoon", "Mehta", "Pod", "Security", "'s", "’s", " said", " with ", " and ", ", ",
                           "thanks ", "cc: ", " to follow", "\n", "- ", ". ", "O'Brien", "Zoë", "ß", "İ", "[[", "@"])


@fast(300)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=4)), max_size=30))
def test_any_text_gives_spans_inside_it_in_order_deterministically(parts):
    text = "".join(parts)
    found = find_prose_names(text)
    assert found == find_prose_names(text)
    assert len(found) <= MAX_NAMES
    for n in found:
        assert 0 <= n.start < n.end <= len(text) and text[n.start:n.end] == n.surface
    assert all(a.end <= b.start for a, b in zip(found, found[1:]))


@pytest.mark.parametrize("piece", ["Ana Lima said, ", "with Ravi Shah and Lena Fischer, ", "Pod's Kubelet's ",
                                   "x" * 500 + " said "])
def test_finding_costs_linear_time_in_the_text(piece):
    small, large = (fastest(lambda n=n: find_prose_names(piece * n)) for n in (50, 800))
    # 16 times the text: linear work is ~16x; a cue walking a list or a word back from each name would not be.
    assert large < 64 * small + 0.05, (small, large)


def test_a_note_of_many_names_gives_at_most_max_names():
    text = " ".join(f"Person{chr(97 + i % 26)}x Name{chr(97 + i // 26 % 26)}y said hi." for i in range(500))
    assert len(find_prose_names(text)) == MAX_NAMES


PAGES = {
    "people/lena-fischer.md": "---\ntype: person\nname: Lena Fischer\n---\n# Lena Fischer\n",
    "people/dana-kowalski.md": "---\ntype: person\nname: Dana Kowalski\n---\n# Dana Kowalski\n",
}
NOTE = """---
title: Rollout sync
attendees: [Lena Fischer]
---
# Rollout sync

Lena Fischr said the rollout starts on Monday. Lenna asked about the dashboard.
Priya Raman said she would join next week. Thanks Pod Security for nothing: it ships with Topology Manager.
"""


@pytest.fixture
def prose_vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for path, text in {**PAGES, "notes/sync.md": NOTE}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    kbg(root, "index")
    return root


def test_prose_names_link_ask_or_stay_candidates_through_the_cli(prose_vault):
    linked = [d for d in kbg(prose_vault, "resolve", "log", "--outcome", "auto-linked")["decisions"]]
    assert [(d["surface"], d["candidate_name"], d["doc_path"]) for d in linked] == [
        ("Lena Fischr", "Lena Fischer", "notes/sync.md")]
    assert linked[0]["features"]["prose"] == 1.0 and linked[0]["score"] >= 0.9, "the evidence is logged"
    timeline = kbg(prose_vault, "person", "timeline", "Lena Fischer")
    assert "prose" in next(d for d in timeline["documents"] if d["path"] == "notes/sync.md")["mention_kinds"]

    asked = {q["surface"]: q for q in kbg(prose_vault, "resolve", "pending")["questions"]}
    assert set(asked) == {"Lenna"} and asked["Lenna"]["candidate_name"] == "Lena Fischer"

    # A stranger is a candidate, never an entity; a technical phrase is neither.
    kbg(prose_vault, "person", "find", "Priya Raman", code=1)
    people = {c["surface"] for c in kbg(prose_vault, "entity", "candidates", "--type", "person",
                                        "--min-count", "1")["candidates"]}
    assert "Priya Raman" in people and not people & {"Pod Security", "Topology Manager"}
    assert not people & {"Lena Fischr", "Lenna"}, "linked or asked: no candidate"
    assert sorted(e["name"] for e in kbg(prose_vault, "entity", "list", "--type", "person")["entities"]) \
        == ["Dana Kowalski", "Lena Fischer"]


def test_confirming_a_prose_question_links_the_name_without_a_merge(prose_vault):
    question = kbg(prose_vault, "resolve", "pending")["questions"][0]
    result = kbg(prose_vault, "resolve", "confirm", str(question["id"]))
    assert result["entity"] == "Lena Fischer" and result["documents"] == ["notes/sync.md"]
    assert kbg(prose_vault, "resolve", "pending")["questions"] == []
    mentions = next(d for d in kbg(prose_vault, "person", "timeline", "Lena Fischer")["documents"]
                    if d["path"] == "notes/sync.md")["mentions"]
    assert mentions == 3, "the attendee, 'Lena Fischr' and, confirmed, 'Lenna'"
    kbg(prose_vault, "index", "--full")
    assert kbg(prose_vault, "resolve", "pending")["questions"] == [], "an answer is kept across --full"


def test_a_rejected_prose_question_is_not_asked_again(prose_vault):
    question = kbg(prose_vault, "resolve", "pending")["questions"][0]
    kbg(prose_vault, "resolve", "reject", str(question["id"]))
    kbg(prose_vault, "index", "--full")
    assert kbg(prose_vault, "resolve", "pending")["questions"] == []
    sync = next(d for d in kbg(prose_vault, "person", "timeline", "Lena Fischer")["documents"]
                if d["path"] == "notes/sync.md")
    assert sync["mentions"] == 2, "the attendee and 'Lena Fischr', not 'Lenna'"


def test_a_one_word_name_is_asked_about_only_where_the_note_is_about_that_person(tmp_path):
    root = tmp_path / "vault"
    (root / "people").mkdir(parents=True)
    (root / "people/lena-fischer.md").write_text(PAGES["people/lena-fischer.md"])
    (root / "example.md").write_text("# Example\n\nLenna wants to deploy the service on Friday.\n")
    kbg(root, "index")
    assert kbg(root, "resolve", "pending")["questions"] == [], "an example persona, not Lena Fischer"


def test_a_prose_question_is_withdrawn_when_its_name_is_edited_away(prose_vault):
    assert [q["surface"] for q in kbg(prose_vault, "resolve", "pending")["questions"]] == ["Lenna"]
    note = prose_vault / "notes/sync.md"
    note.write_text(note.read_text().replace("Lenna asked", "Lena asked"))
    kbg(prose_vault, "index")
    assert kbg(prose_vault, "resolve", "pending")["questions"] == []


def test_unlinking_takes_back_a_prose_link(prose_vault):
    kbg(prose_vault, "entity", "unlink", "Lena Fischer", "notes/sync.md")
    sync = next(d for d in kbg(prose_vault, "person", "timeline", "Lena Fischer")["documents"]
                if d["path"] == "notes/sync.md")
    assert sync["mention_kinds"] == ["frontmatter"], "'Lena Fischr' in the text is not her here"

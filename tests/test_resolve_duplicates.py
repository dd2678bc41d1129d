"""Duplicate entity pages: found from names and attributes (blocked, never all pairs), asked about in
the resolver's queue, linked by one `same_as:` frontmatter line on confirm, never asked again on reject."""

from __future__ import annotations

import random
import re

import pytest
import yaml

from kbgraph.errors import InvalidInput
from kbgraph.ingest.pipeline import index_vault
from kbgraph.base.vault import split_frontmatter
from kbgraph.pages.frontmatter_lines import add_list_value
from kbgraph.resolve.duplicates import (
    MAX_BLOCK, PROPOSE_WEIGHT, DuplicateRecord, NameFrequencies, find_duplicates, normalise, normalise_phone,
    parse_dob, score_pair,
)

from .conftest import kbg, run_kbg

JON = """---
type: person
name: Jon Smith
email: JS@Acme.io
---
# Jon Smith

Jon likes *trains*.   Trailing spaces stay.
"""
JONATHAN = """---
type: person
name: Jonathan Smith
email: js@acme.io
role: Engineer
---
# Jonathan Smith

Works on Atlas.
"""


def _page(name: str, **attrs) -> str:
    return "---\n" + yaml.safe_dump({"type": "person", "name": name, **attrs}, sort_keys=False) + f"---\n# {name}\n"


@pytest.fixture
def dup_vault(tmp_path):
    vault = tmp_path / "vault"
    (vault / "people").mkdir(parents=True)
    (vault / "people/jon-smith.md").write_text(JON)
    (vault / "people/jonathan-smith.md").write_text(JONATHAN)
    # Namesakes: a one-letter surname apart, or nearly one name, but each has their own email or birth date.
    (vault / "people/ravi-shah.md").write_text(_page("Ravi Shah", email="ravi@acme.io", dob="1980-01-02"))
    (vault / "people/ravi-shaw.md").write_text(_page("Ravi Shaw", email="rshaw@acme.io", dob="1991-07-30"))
    (vault / "people/marcus-hall.md").write_text(_page("Marcus Hall", email="mhall@acme.io"))
    (vault / "people/marcus-halls.md").write_text(_page("Marcus Halls", email="marcus@other.org"))
    index_vault(vault, embed="later")
    return vault


def test_same_email_pages_are_one_question_and_namesakes_none(dup_vault):
    found = kbg(dup_vault, "resolve", "duplicates")
    assert [(q["page"], q["same_as_page"]) for q in found["asked"]] == [
        ("people/jon-smith.md", "people/jonathan-smith.md")]
    assert "email exact (js@acme.io)" in found["asked"][0]["explain"]
    pending = kbg(dup_vault, "resolve", "pending")["questions"]
    question = next(q for q in pending if q["id"] == found["asked"][0]["id"])
    assert question["features"]["kind"] == "duplicate-pages"
    assert {c["attribute"] for c in question["features"]["comparisons"]} >= {"given", "surname", "email"}
    assert question["why"].startswith("duplicate pages: agree: given nickname (jon / jonathan)")

    again = kbg(dup_vault, "resolve", "duplicates")
    assert again["asked"] == [], "a second run asks nothing new"
    index_vault(dup_vault, embed="later")  # an index run keeps the question (it withdraws only name questions)
    assert question["id"] in {q["id"] for q in kbg(dup_vault, "resolve", "pending")["questions"]}


def test_confirm_adds_one_frontmatter_line_and_the_link_survives_a_full_index(dup_vault):
    qid = kbg(dup_vault, "resolve", "duplicates")["asked"][0]["id"]
    jonathan_before = (dup_vault / "people/jonathan-smith.md").read_bytes()
    kbg(dup_vault, "resolve", "confirm", str(qid))

    after = (dup_vault / "people/jon-smith.md").read_text()
    assert after == JON.replace("email: JS@Acme.io\n", 'email: JS@Acme.io\nsame_as: "[[Jonathan Smith]]"\n')
    assert (dup_vault / "people/jonathan-smith.md").read_bytes() == jonathan_before
    frontmatter, _ = split_frontmatter(after)
    assert frontmatter["same_as"] == "[[Jonathan Smith]]"

    index_vault(dup_vault, full=True, embed="later")
    profile = kbg(dup_vault, "person", "find", "Jon Smith")
    assert profile["entity"]["name"] == "Jonathan Smith"
    assert "Jon Smith" in profile["entity"]["aliases"]
    assert profile["pages"] == ["people/jonathan-smith.md", "people/jon-smith.md"]
    kbg(dup_vault, "resolve", "confirm", str(qid))  # confirming again changes nothing
    assert (dup_vault / "people/jon-smith.md").read_text() == after
    assert kbg(dup_vault, "resolve", "duplicates")["asked"] == []
    # The name scorer is not refitted on a duplicate-page answer: its features are another model's.
    assert "has 0 usable" in kbg(dup_vault, "resolve", "calibrate", "--dry-run", code=1)["error"]


def test_a_rejected_pair_is_never_asked_again(dup_vault):
    qid = kbg(dup_vault, "resolve", "duplicates")["asked"][0]["id"]
    kbg(dup_vault, "resolve", "reject", str(qid))
    assert kbg(dup_vault, "resolve", "duplicates")["asked"] == []
    index_vault(dup_vault, full=True, embed="later")
    assert kbg(dup_vault, "resolve", "duplicates")["asked"] == []
    assert not (dup_vault / "people/jon-smith.md").read_text().count("same_as")


# --- the pure scorer ----------------------------------------------------------------


def _rec(rid: str, name: str, **attrs) -> DuplicateRecord:
    return DuplicateRecord(rid, "person", name, attributes=attrs)


def test_namesakes_with_another_birth_date_or_email_are_not_proposed():
    records = [_rec("a", "John Smith", dob="1980-01-02"), _rec("b", "John Smith", dob="1975-05-06"),
               _rec("c", "Sam Li", email="sam@acme.io"), _rec("d", "Sam Li", email="sli@other.org"),
               _rec("e", "Mei Chen", team="Core", email="mei@acme.io"),
               _rec("f", "Mei Chan", team="Core", email="mchan@acme.io")]
    assert find_duplicates(records).pairs == ()


def test_variants_of_one_person_are_proposed_with_their_evidence():
    records = [_rec("a", "Robert Jones", dob="12/03/1980", phone="+61 2 6123 4567"),
               _rec("b", "Jones Bob", dob="1980-03-12", phone="02 6123 4567"),
               _rec("c", "Katherine Nguyen", address="12 Main Street, Braddon 2612"),
               _rec("d", "Katherine Ngyuen", address="12 Main St Braddon 2612")]
    pairs = {(p.left.id, p.right.id): p for p in find_duplicates(records).pairs}
    assert set(pairs) == {("a", "b"), ("c", "d")}
    levels = {c.attribute: c.level for c in pairs[("a", "b")].comparisons}
    assert levels == {"given": "nickname", "surname": "exact", "phone": "exact", "dob": "exact"}
    assert {c.attribute: c.level for c in pairs[("c", "d")].comparisons}["address"] == "exact"


def test_a_common_name_agreeing_is_weaker_evidence_than_a_rare_one():
    names = ["John Smith"] * 300 + ["Zed Xu"] * 900 + ["Ottoline Quibble"] * 2
    normalised = [normalise(_rec(str(i), name)) for i, name in enumerate(names)]
    frequencies = NameFrequencies.of(normalised)
    common = score_pair(normalised[0], normalised[1], frequencies).weight
    rare = score_pair(normalised[-2], normalised[-1], frequencies).weight
    assert common < PROPOSE_WEIGHT <= rare
    assert score_pair(normalised[0], normalised[1]).weight == rare, "without frequencies: the table's weights"


def test_normalisation():
    assert normalise_phone("+44 20 7946 0958") == normalise_phone("020 7946 0958")
    assert normalise_phone("123") is None
    assert [parse_dob(v) for v in ("1980-03-12", "19800312", "12/03/1980", "03/25/1980", "12 March 1980",
                                   "March 12, 1980", "31/02/1980", "soon")] == [
        "1980-03-12", "1980-03-12", "1980-03-12", "1980-03-25", "1980-03-12", "1980-03-12", None, None]
    n = normalise(_rec("x", "Dr. Ana Lima", **{"E-Mail": " ANA@Acme.IO ", "GitHub": "@AnaL", "address": "3 Oak Rd"}))
    assert (n.given, n.surname, n.emails, n.handles) == ("ana", "lima", {"ana@acme.io"}, {"anal"})
    assert n.address == {"3", "oak", "road"}


def test_blocking_never_compares_all_pairs():
    rng = random.Random(4)
    given = ["john", "mary", "wei", "ana", "omar", "li", "sam", "kate"]
    surnames = ["smith", "chen", "garcia", "okafor", "novak", "kim"]
    records = [_rec(str(i), f"{rng.choice(given)} {rng.choice(surnames)}", dob=f"19{rng.randint(50, 99)}-0"
                    f"{rng.randint(1, 9)}-1{rng.randint(0, 9)}") for i in range(1200)]
    search = find_duplicates(records)
    # ~25 people share each name here: the name blocks are large but capped, the date blocks small.
    assert search.comparisons < len(records) * MAX_BLOCK
    assert search.comparisons < 0.05 * len(records) * (len(records) - 1) / 2


# --- the frontmatter writer ---------------------------------------------------------


def _add(text: str) -> str:
    _, offset = split_frontmatter(text)
    return add_list_value(text, offset, "same_as", "[[B]]")


def test_frontmatter_line_added_to_a_missing_key_a_block_list_or_no_frontmatter():
    assert _add("---\nname: A\n---\nbody\n") == '---\nname: A\nsame_as: "[[B]]"\n---\nbody\n'
    assert _add('---\nsame_as:\n  - "[[C]]"\ntags: [x]\n---\n') == \
        '---\nsame_as:\n  - "[[C]]"\n  - "[[B]]"\ntags: [x]\n---\n'
    assert _add("# A\nbody\n") == '---\nsame_as: "[[B]]"\n---\n# A\nbody\n'
    once = _add("---\nname: A\n---\n")
    assert _add(once) == once
    assert _add('---\nsame_as: [[B]]\n---\n') == '---\nsame_as: [[B]]\n---\n', "the unquoted wikilink counts"
    with pytest.raises(InvalidInput):
        _add("---\nsame_as: Other\n---\n")  # a scalar the user wrote is not rewritten


def test_confirming_after_the_other_page_was_deleted_changes_nothing(dup_vault):
    qid = kbg(dup_vault, "resolve", "duplicates")["asked"][0]["id"]
    (dup_vault / "people/jonathan-smith.md").unlink()
    index_vault(dup_vault, embed="later")
    error = kbg(dup_vault, "resolve", "confirm", str(qid), code=1)
    assert "no longer an entity" in error["error"]
    assert (dup_vault / "people/jon-smith.md").read_text() == JON


def test_same_as_to_itself_or_in_a_cycle_leaves_one_entity_and_no_loop(tmp_path):
    vault = tmp_path / "vault"
    (vault / "people").mkdir(parents=True)
    (vault / "people/a.md").write_text(_page("Ann Lee", same_as="[[Ann Lee]]"))
    (vault / "people/b.md").write_text(_page("Ben Ray", same_as=["[[Bo Ray]]"]))
    (vault / "people/c.md").write_text(_page("Bo Ray", same_as="[[Ben Ray]]"))
    index_vault(vault, embed="later")
    assert kbg(vault, "person", "find", "Ann Lee")["entity"]["name"] == "Ann Lee"
    ben = kbg(vault, "person", "find", "Ben Ray")
    assert kbg(vault, "person", "find", "Bo Ray")["entity"]["id"] == ben["entity"]["id"]
    assert sorted(ben["pages"]) == ["people/b.md", "people/c.md"]


def test_two_pages_of_one_name_with_other_emails_are_two_people_and_other_differences_are_reported(tmp_path):
    vault = tmp_path / "vault"
    (vault / "people").mkdir(parents=True)
    (vault / "people/john-smith.md").write_text(_page("John Smith", email="john@acme.io"))
    (vault / "people/john-smith-2.md").write_text(_page("John Smith", email="jsmith@other.org"))
    (vault / "people/ana-lee.md").write_text(_page("Ana Lee", email="ana@acme.io"))
    (vault / "people/ana-lee-2.md").write_text(_page("Ana Lee", role="Engineer"))  # nothing contradicts
    (vault / "people/bo-ray.md").write_text(_page("Bo Ray", address="1 High Street Leeds"))
    (vault / "people/bo-ray-2.md").write_text(_page("Bo Ray", address="77 Rue de Rivoli Paris"))
    index_vault(vault, embed="later")
    found = kbg(vault, "resolve", "duplicates")
    # Another email: two entities (entities/namesakes.py), so nothing to report as one entity of two people.
    assert [item["pages"] for item in found["namesake_pages"]] == [["people/bo-ray-2.md", "people/bo-ray.md"]]
    assert "address disagree" in found["namesake_pages"][0]["explain"]
    johns = kbg(vault, "person", "find", "John Smith", code=1)["candidates"]
    assert sorted(c["page_path"] for c in johns) == ["people/john-smith-2.md", "people/john-smith.md"]


def test_bad_names_and_values_are_compared_without_error():
    records = [_rec("a", "😀"), _rec("b", "محمد علي", email="nope", dob="not a date", phone="abc"),
               _rec("c", "محمد علي", email="m@x.io", address=["1 Oak St", 7]), _rec("d", "J. S."),
               _rec("e", "INADA Naoki", email="inada@python.org"), _rec("f", "Inada Naoki", email="INADA@python.org"),
               _rec("g", "", dob=19800101)]
    pairs = {(p.left.id, p.right.id) for p in find_duplicates(records).pairs}
    assert pairs == {("b", "c"), ("e", "f")}, "an RTL name agrees with itself; all-caps is the same name"


def test_frontmatter_line_keeps_crlf_bom_comments_and_a_dots_fence(tmp_path):
    from kbgraph.pages.files import edit_page

    page = tmp_path / "p.md"
    original = "\ufeff---\r\nname: A  # the name\r\naliases: [a]\r\n...\r\nBody  \r\n"
    page.write_bytes(original.encode("utf-8"))
    assert edit_page(tmp_path, "p.md", lambda text, offset: add_list_value(text, offset, "same_as", "[[B]]"))
    after = page.read_bytes().decode("utf-8")
    assert after == original.replace("aliases: [a]\r\n", 'aliases: [a]\r\nsame_as: "[[B]]"\r\n')
    frontmatter, _ = split_frontmatter(after.lstrip("\ufeff").replace("\r\n", "\n"))
    assert frontmatter == {"name": "A", "aliases": ["a"], "same_as": "[[B]]"}


def test_an_alias_is_compared_as_a_name():
    records = [DuplicateRecord("a", "person", "Jonathan Smith", ("Jon S.", "Jonno Smith")),
               DuplicateRecord("b", "person", "Jonno Smith", attributes={"team": "Core"}),
               DuplicateRecord("c", "person", "Jonno Smyth")]
    pairs = {(p.left.id, p.right.id): p for p in find_duplicates(records).pairs}
    assert ("a", "b") in pairs and ("a", "c") not in pairs
    assert {c.level for c in pairs[("a", "b")].comparisons if c.attribute in ("given", "surname")} == {"exact"}


def test_a_page_named_as_another_pages_alias_is_asked_about(tmp_path):
    vault = tmp_path / "vault"
    (vault / "people").mkdir(parents=True)
    (vault / "people/jonathan-smith.md").write_text(_page("Jonathan Smith", aliases=["Jon Smith"]))
    (vault / "people/jon-smith.md").write_text(_page("Jon Smith", team="Core"))
    index_vault(vault, embed="later")
    found = kbg(vault, "resolve", "duplicates")["asked"]
    assert [(q["page"], q["same_as_page"]) for q in found] == [("people/jon-smith.md", "people/jonathan-smith.md")]
    kbg(vault, "resolve", "confirm", str(found[0]["id"]))
    index_vault(vault, full=True, embed="later")
    # same_as names "Jonathan Smith", whose page also lists "Jon Smith" as an alias: the name wins.
    assert kbg(vault, "person", "find", "Jon Smith")["pages"] == ["people/jonathan-smith.md", "people/jon-smith.md"]


def test_same_as_prefers_the_page_of_that_name_to_a_page_with_that_alias():
    from kbgraph.entities.assemble import assemble_entities
    from kbgraph.model import EntityClaim

    claims = [EntityClaim(1, "people/a.md", "person", "Jonathan Smith", ("Jon Smith",), "page", None, {}),
              EntityClaim(2, "people/b.md", "person", "Jon Smith", (), "page", None, {}),
              EntityClaim(3, "people/c.md", "person", "J. Smith", (), "page", None, {"same_as": "[[Jon Smith]]"})]
    records, _ = assemble_entities(claims)
    assert {r.name: r.page_docs for r in records} == {"Jonathan Smith": (1,), "Jon Smith": (2, 3)}


def test_a_name_a_wikilink_would_cut_is_written_as_a_list_item_and_read_whole():
    from kbgraph.entities.assemble import assemble_entities
    from kbgraph.model import EntityClaim

    text = add_list_value("---\nname: Csharp\n---\n", 21, "same_as", "C# Team", as_list=True)
    assert text == '---\nname: Csharp\nsame_as: ["C# Team"]\n---\n'
    same_as = split_frontmatter(text)[0]["same_as"]
    claims = [EntityClaim(1, "teams/c.md", "team", "C# Team", (), "page", None, {}),
              EntityClaim(2, "teams/csharp.md", "team", "Csharp", (), "page", None, {"same_as": same_as})]
    records, _ = assemble_entities(claims)
    assert [(r.name, r.aliases, r.page_docs) for r in records] == [("C# Team", ("Csharp",), (1, 2))]


def test_the_cli_line_with_nothing_asked_reads_as_a_result_not_a_prompt(indexed_vault):
    """It said '19 entities with a page, 0 pairs compared of 171 (0.00 s); answer with `kbg resolve confirm
    ID` or `kbg resolve reject ID`' with nothing asked: no ID to answer, and '0 compared of 171' read as a
    failure to compare."""
    result = run_kbg("resolve", "duplicates", "--vault", str(indexed_vault))
    assert result.returncode == 0, result.stderr
    assert "no new likely duplicates" in result.stdout
    last = result.stdout.strip().splitlines()[-1]
    assert "answer with" not in last, last
    assert re.fullmatch(r"\d+ entities with a page: \d+ of \d+ possible pairs had something in common to compare "
                        r"\(\d+\.\d\d s\)", last), last

"""Pages with one name whose identifiers disagree are two entities (issue 29): birth date, id number,
email or phone. Agreeing or absent identifiers keep today's one-entity rule. The name is then ambiguous,
as for any namesakes: a lookup lists both, a reference by the name alone is asked about."""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kbgraph.entities.assemble import assemble_entities
from kbgraph.entities.identifiers import disagreement, identifiers
from kbgraph.entities.namesakes import page_keys
from kbgraph.ingest.pipeline import index_vault
from kbgraph.model import EntityClaim
from kbgraph.store import open_store

from .conftest import kbg


def _claim(doc_id: int, path: str, name: str = "John Smith", **attrs) -> EntityClaim:
    return EntityClaim(doc_id, path, "person", name, (), "page", None, attrs)


def _page(name: str, **attrs) -> str:
    return "---\n" + yaml.safe_dump({"type": "person", "name": name, **attrs}, sort_keys=False) + f"---\n# {name}\n"


def _pages_of(records) -> list[list[str]]:
    return sorted(sorted(map(str, r.page_docs)) for r in records)


def test_each_identifier_that_differs_makes_two_entities_and_one_that_agrees_or_is_missing_one():
    for attrs in ({"dob": ("1980-01-02", "1975-07-12")}, {"id_number": ("123-45-6789", "987-65-4321")},
                  {"email": ("john@acme.io", "js@other.org")}, {"phone": ("+44 20 7946 0958", "020 7946 0001")}):
        (key, (a, b)), = attrs.items()
        records, _ = assemble_entities([_claim(1, "people/a.md", **{key: a}), _claim(2, "people/b.md", **{key: b})])
        assert _pages_of(records) == [["1"], ["2"]], key
        assert len({r.key for r in records}) == 2
    same = [({"dob": "1980-01-02"}, {"born": "02/01/1980"}), ({"phone": "+44 20 7946 0958"}, {"mobile": "020 7946 0958"}),
            ({"email": "John@Acme.io"}, {"email": ["john@acme.io", "j@x.org"]}), ({"dob": "1980-01-02"}, {}),
            ({"email": "a@x.io"}, {"dob": "1980-01-02"})]
    for left, right in same:
        records, _ = assemble_entities([_claim(1, "people/a.md", **left), _claim(2, "people/b.md", **right)])
        assert _pages_of(records) == [["1", "2"]], (left, right)


def test_a_page_without_identifiers_joins_the_first_group_and_three_people_make_three():
    claims = [_claim(1, "people/a.md", dob="1980-01-02"), _claim(2, "people/b.md", dob="1990-01-02"),
              _claim(3, "people/c.md"), _claim(4, "people/d.md", dob="1990-01-02", email="j@x.io"),
              _claim(5, "people/e.md", dob="2001-05-05")]
    records, _ = assemble_entities(claims)
    assert _pages_of(records) == [["1", "3"], ["2", "4"], ["5"]]
    assert sorted(r.key for r in records) == ["person:john smith", "person:john smith#people/b.md",
                                             "person:john smith#people/e.md"]


def test_a_reference_by_the_split_name_alone_joins_neither_and_a_same_as_joins_them():
    ref = EntityClaim(9, "meetings/m.md", "person", "John Smith", (), "reference", "attendees", {})
    claims = [_claim(1, "people/a.md", dob="1980-01-02"), _claim(2, "people/b.md", dob="1990-01-02"), ref]
    records, resolved = assemble_entities(claims)
    placeholder = resolved[(9, "person", "John Smith")]
    assert placeholder not in {r.key for r in records if r.page_doc_id}
    assert next(r for r in records if r.key == placeholder).page_doc_id is None
    joined, _ = assemble_entities([_claim(1, "people/a.md", dob="1980-01-02"),
                                   _claim(2, "people/b.md", dob="1990-01-02", same_as="[[John Smith]]")])
    assert _pages_of(joined) == [["1", "2"]]


_IDS = st.dictionaries(st.sampled_from(["dob", "email", "phone", "id_number"]),
                       st.sampled_from(["1980-01-02", "1990-03-04", "a@x.io", "b@y.org", "0207946000", "123456789"]),
                       max_size=2)


@settings(max_examples=60, deadline=None)
@given(st.lists(_IDS, min_size=1, max_size=6), st.randoms(use_true_random=False))
def test_page_keys_are_unique_per_group_and_do_not_depend_on_the_order_claims_come_in(attrs, rnd):
    claims = [_claim(i + 1, f"people/p{i}.md", **a) for i, a in enumerate(attrs)]
    shuffled = list(claims)
    rnd.shuffle(shuffled)
    keys = page_keys(claims, lambda c: "person:john smith")
    assert page_keys(shuffled, lambda c: "person:john smith") == keys
    assert "person:john smith" in keys.values()
    by_key: dict[str, list[EntityClaim]] = {}
    for claim in claims:
        by_key.setdefault(keys[claim.doc_id], []).append(claim)
    for members in by_key.values():  # a group never holds two pages whose identifiers disagree
        ids = [identifiers(c.attributes) for c in members]
        assert all(disagreement(x, y) is None for x in ids for y in ids)


def _vault(tmp_path):
    vault = tmp_path / "vault"
    (vault / "people").mkdir(parents=True)
    (vault / "meetings").mkdir()
    (vault / "people/john-smith.md").write_text(_page("John Smith", dob="1980-01-02", email="john@acme.io"))
    (vault / "people/ana-lee.md").write_text(_page("Ana Lee", email="ana@acme.io"))
    (vault / "meetings/sync.md").write_text("---\ntype: meeting\ndate: 2026-01-05\nattendees: [J. Smith, Ana Lee]\n"
                                            "---\n# Sync\n")
    (vault / "meetings/later.md").write_text("---\ntype: meeting\ndate: 2026-02-05\nattendees: [John Smith]\n---\n# Later\n")
    index_vault(vault, embed="later")
    return vault


def _page_of(vault, name: str) -> str:
    return kbg(vault, "person", "find", name)["entity"]["page_path"]


def test_a_namesake_page_added_later_takes_nothing_the_user_said_about_the_first(tmp_path):
    vault = _vault(tmp_path)
    kbg(vault, "entity", "merge", "J. Smith", "John Smith")
    assert _page_of(vault, "J. Smith") == "people/john-smith.md"
    # Another John Smith, born elsewhere, on a page whose path sorts first.
    (vault / "people/john-smith-1950.md").write_text(_page("John Smith", dob="1950-06-30"))
    index_vault(vault, embed="later")
    found = kbg(vault, "person", "find", "John Smith", code=1)
    assert {c.get("page_path") for c in found["candidates"]} >= {"people/john-smith.md",
                                                                          "people/john-smith-1950.md"}
    assert _page_of(vault, "J. Smith") == "people/john-smith.md"  # the user's merge still holds
    store = open_store(vault)
    keys = store.entity_ids_by_key()
    store.close()
    kbg(vault, "index", "--full")
    again = open_store(vault)
    assert again.entity_ids_by_key() == keys
    again.close()
    assert _page_of(vault, "J. Smith") == "people/john-smith.md"
    kbg(vault, "entity", "unmerge", "J. Smith")
    aliases = {c["page_path"]: c["aliases"] for c in kbg(vault, "person", "find", "John Smith", code=1)["candidates"]}
    assert aliases["people/john-smith.md"] == [] and aliases["people/john-smith-1950.md"] == []


def test_the_name_alone_in_a_note_is_asked_about_both_and_an_answer_holds_for_that_note(tmp_path):
    vault = _vault(tmp_path)
    (vault / "people/john-smith-2.md").write_text(_page("John Smith", dob="1975-07-12"))
    index_vault(vault, embed="later")
    asked = [q for q in kbg(vault, "resolve", "pending")["questions"] if q["surface"] == "John Smith"]
    assert len(asked) == 2 and {q["doc_path"] for q in asked} == {"meetings/later.md"}
    chosen = asked[0]
    kbg(vault, "resolve", "confirm", str(chosen["id"]))
    assert not [q for q in kbg(vault, "resolve", "pending")["questions"] if q["surface"] == "John Smith"]
    found = kbg(vault, "person", "find", "John Smith", code=1)  # still two people of that name
    assert sorted(c["page_path"] for c in found["candidates"]) == ["people/john-smith-2.md",
                                                                           "people/john-smith.md"]


def test_a_duplicate_confirmed_as_one_of_two_namesakes_links_to_that_one(tmp_path):
    vault = _vault(tmp_path)
    (vault / "people/john-smith-2.md").write_text(_page("John Smith", dob="1975-07-12"))
    (vault / "people/jon-smith.md").write_text(_page("Jon Smith", dob="1980-01-02", email="john@acme.io"))
    index_vault(vault, embed="later")
    asked = kbg(vault, "resolve", "duplicates")["asked"]
    question = next(q for q in asked if q["page"] == "people/jon-smith.md")
    assert question["same_as_page"] == "people/john-smith.md"
    kbg(vault, "resolve", "confirm", str(question["id"]))
    assert "same_as" in (vault / "people/jon-smith.md").read_text()
    for _ in range(2):  # and after a full index, from the file alone
        assert kbg(vault, "person", "find", "Jon Smith")["entity"]["page_path"] == "people/john-smith.md"
        kbg(vault, "index", "--full")

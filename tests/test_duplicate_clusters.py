"""A person with four pages is one question (issue 29): `kbg resolve duplicates` asked six pairwise
questions about four pages of Ana Lima, and answering some of them could leave A = B, B = C and A != C."""

from __future__ import annotations

import yaml

from kbgraph.ingest.pipeline import index_vault

from .conftest import kbg


def _page(name: str, **attrs) -> str:
    return "---\n" + yaml.safe_dump({"type": "person", "name": name, **attrs}, sort_keys=False) + f"---\n# {name}\n"


def _vault(tmp_path):
    vault = tmp_path / "vault"
    (vault / "people").mkdir(parents=True)
    home = {"dob": "1984-02-29", "address": "4 Rua Augusta, Lisboa"}
    (vault / "people/ana-lima.md").write_text(_page("Ana Lima", email="ana@lima.pt", phone="+351 912 345 678", **home))
    (vault / "people/a-lima.md").write_text(_page("A. Lima", email="ana@lima.pt"))
    (vault / "people/lima-ana.md").write_text(_page("Lima, Ana", **home))
    (vault / "people/ana-lyma.md").write_text(_page("Ana Lyma", phone="912 345 678", dob="1984-02-29"))
    (vault / "people/ben-ortiz.md").write_text(_page("Ben Ortiz", email="ben@ortiz.es"))
    index_vault(vault, embed="later")
    return vault


def test_four_pages_of_one_person_are_one_question_answered_once(tmp_path):
    vault = _vault(tmp_path)
    found = kbg(vault, "resolve", "duplicates")
    assert len(found["asked"]) == 3  # each other page against the fullest, not six pairs
    assert {q["same_as_page"] for q in found["asked"]} == {"people/ana-lima.md"}
    assert all(len(q["cluster"]) == 4 for q in found["asked"])
    assert "one of 4 pages" in found["asked"][0]["explain"]
    assert kbg(vault, "resolve", "duplicates")["asked"] == []  # idempotent
    result = kbg(vault, "resolve", "confirm", str(found["asked"][0]["id"]))
    assert sorted(result["documents"]) == ["people/a-lima.md", "people/ana-lyma.md", "people/lima-ana.md"]
    assert [q for q in kbg(vault, "resolve", "pending")["questions"] if q["features"].get("kind")] == []
    ana = kbg(vault, "person", "find", "Ana Lyma")
    assert ana["entity"]["page_path"] == "people/ana-lima.md"
    assert sorted(ana["pages"]) == ["people/a-lima.md", "people/ana-lima.md", "people/ana-lyma.md",
                                    "people/lima-ana.md"]
    kbg(vault, "index", "--full")
    assert kbg(vault, "person", "find", "A. Lima")["entity"]["page_path"] == "people/ana-lima.md"
    assert kbg(vault, "resolve", "duplicates")["asked"] == []


def test_a_page_rejected_from_its_cluster_is_not_asked_again_through_another(tmp_path):
    vault = _vault(tmp_path)
    found = kbg(vault, "resolve", "duplicates")["asked"]
    odd = next(q for q in found if q["page"] == "people/ana-lyma.md")
    kbg(vault, "resolve", "reject", str(odd["id"]))
    kbg(vault, "resolve", "confirm", str(next(q for q in found if q["id"] != odd["id"])["id"]))
    assert kbg(vault, "resolve", "duplicates")["asked"] == []
    assert kbg(vault, "person", "find", "Ana Lyma")["entity"]["page_path"] == "people/ana-lyma.md"

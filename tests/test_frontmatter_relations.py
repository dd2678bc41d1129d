"""Structured relations: frontmatter keys mapped to relation types in kbgraph.toml, and page rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbgraph.config import config_from_dict
from kbgraph.errors import ConfigError
from kbgraph.ingest.pipeline import index_vault

from .conftest import run_kbg

CONFIG = """
[entities]
types = ["sig"]

[[entities.pages]]
when = "kep-number"
type = "project"
name = "KEP-{kep-number:int}"
aliases = ["{title}"]

[relations.types.authored]
inverse = "authored-by"
source = ["person"]
target = ["project"]

[relations.types.owned-by]
inverse = "owns"
source = ["project"]
target = ["sig"]

[relations.frontmatter.authors]
type = "authored"
direction = "to-page"
entity = "person"
strip = "@"

[relations.frontmatter.owning-sig]
type = "owned-by"
entity = "sig"

[relations.frontmatter.see-also]
type = "related-to"
entity = "project"
pattern = "/0*(\\\\d+)-"
name = "KEP-{int}"

[relations.frontmatter.replaces]
type = "replaces"
entity = "project"
pattern = "/0*(\\\\d+)-"
name = "KEP-{int}"
"""

KEP_A = """---
title: Apply
kep-number: '555'
authors:
- '@apelisse'
- '@lavalamp'
owning-sig: sig-api-machinery
see-also:
- /keps/sig-api-machinery/0006-apply.md
replaces:
- https://docs.google.com/document/d/abc
- n/a
---
# KEP-555: Apply
"""

KEP_B = """---
title: Server-side apply
kep-number: '0006'
authors: ['@lavalamp']
owning-sig: sig-api-machinery
see-also: [n/a]
---
# KEP-6
"""


@pytest.fixture
def kep_vault(tmp_path: Path) -> Path:
    root = tmp_path / "keps"
    root.mkdir()
    (root / "kbgraph.toml").write_text(CONFIG)
    (root / "kep-0555.md").write_text(KEP_A)
    (root / "kep-0006.md").write_text(KEP_B)
    return root


def relations(vault: Path, name: str) -> dict:
    result = run_kbg("entity", "relations", name, "--vault", str(vault), "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_page_rules_name_documents_as_entities(kep_vault):
    report = index_vault(kep_vault)
    assert report.errors == 0 and report.warnings == 0, report.problems
    found = json.loads(run_kbg("entity", "find", "Apply", "--vault", str(kep_vault), "--json").stdout)
    assert found["entity"]["name"] == "KEP-555" and found["entity"]["type"] == "project"
    assert "Apply" in found["entity"]["aliases"]


def test_mapped_frontmatter_keys_become_relations_in_both_directions(kep_vault):
    index_vault(kep_vault)
    kep = relations(kep_vault, "KEP-555")
    assert {(r["type"], r["target"]) for r in kep["relations"]} == {
        ("owned-by", "sig-api-machinery"), ("related-to", "KEP-6")}
    assert {(r["type"], r["source"]) for r in kep["inverse_relations"]} == {
        ("authored-by", "apelisse"), ("authored-by", "lavalamp")}
    lavalamp = relations(kep_vault, "lavalamp")
    assert sorted(r["target"] for r in lavalamp["relations"]) == ["KEP-555", "KEP-6"]
    assert all(r["source_doc"].startswith("kep-") for r in lavalamp["relations"])
    assert relations(kep_vault, "sig-api-machinery")["total"]["inverse_relations"] == 2


def test_values_that_are_not_entities_are_skipped(kep_vault):
    index_vault(kep_vault)
    kep = relations(kep_vault, "KEP-555")
    assert not [r for r in kep["relations"] if r["type"] == "replaces"], "a URL and n/a name no KEP"


def test_removing_a_value_from_the_frontmatter_removes_the_relation(kep_vault):
    index_vault(kep_vault)
    page = kep_vault / "kep-0555.md"
    page.write_text(page.read_text().replace("- '@apelisse'\n", ""))
    index_vault(kep_vault)
    kep = relations(kep_vault, "KEP-555")
    assert {r["source"] for r in kep["inverse_relations"]} == {"lavalamp"}


@pytest.mark.parametrize("raw, message", [
    ({"relations": {"frontmatter": {"authors": {"type": "nonsense", "entity": "person"}}}}, "unknown relation type"),
    ({"relations": {"frontmatter": {"authors": {"type": "uses", "entity": "alien"}}}}, "entity must be one of"),
    ({"relations": {"frontmatter": {"authors": {"type": "uses", "entity": "person", "direction": "up"}}}},
     "direction must be"),
    ({"relations": {"frontmatter": {"authors": {"type": "uses", "entity": "person", "pattern": "("}}}},
     "not a valid regex"),
    ({"relations": {"frontmatter": {"authors": {"type": "uses", "entity": "person", "pattern": "x"}}}},
     "needs one (group)"),
    ({"entities": {"pages": [{"when": "kep-number", "type": "alien"}]}}, "[[entities.pages]] needs"),
])
def test_bad_mappings_are_config_errors(raw, message):
    with pytest.raises(ConfigError) as info:
        config_from_dict(raw)
    assert message in str(info.value)


def test_unrelate_of_a_frontmatter_relation_says_where_to_edit(kep_vault):
    index_vault(kep_vault)
    before = (kep_vault / "kep-0555.md").read_text()
    result = run_kbg("entity", "unrelate", "KEP-555", "--type", "owned-by", "--target", "sig-api-machinery",
                     "--vault", str(kep_vault))
    assert result.returncode == 1 and "comes from the frontmatter of kep-0555.md" in result.stderr
    assert (kep_vault / "kep-0555.md").read_text() == before
    assert [r["target"] for r in relations(kep_vault, "KEP-555")["relations"] if r["type"] == "owned-by"] == [
        "sig-api-machinery"]


def test_two_pages_of_one_entity_both_state_relations(kep_vault):
    (kep_vault / "kep-0555-copy.md").write_text(KEP_A.replace("owning-sig: sig-api-machinery", "owning-sig: sig-cli"))
    index_vault(kep_vault)
    owners = {r["target"] for r in relations(kep_vault, "KEP-555")["relations"] if r["type"] == "owned-by"}
    assert owners == {"sig-api-machinery", "sig-cli"}


def test_a_name_used_with_two_types_by_references_stays_two_entities(kep_vault):
    (kep_vault / "kep-0777.md").write_text("---\ntitle: X\nkep-number: '777'\nauthors: ['@sig-cli']\n"
                                          "owning-sig: sig-cli\n---\n")
    (kep_vault / "kep-0778.md").write_text("---\ntitle: Y\nkep-number: '778'\nowning-sig: sig-cli\n---\n")
    report = index_vault(kep_vault)
    assert report.warnings == 0, report.problems
    assert relations(kep_vault, "KEP-778")["relations"][0]["target"] == "sig-cli"


def test_odd_frontmatter_values_neither_crash_nor_vanish(kep_vault):
    (kep_vault / "kep-0900.md").write_text("---\ntitle: Odd\nkep-number: '²'\nreplaces: /keps/sig-x/0555-apply\n"
                                          "see-also: 555\nowning-sig: {nested: value}\n---\n")
    report = index_vault(kep_vault)
    assert report.errors == 0
    odd = json.loads(run_kbg("entity", "find", "Odd", "--vault", str(kep_vault), "--json").stdout)["entity"]
    rels = {(r["type"], r["target"]) for r in relations(kep_vault, odd["name"])["relations"]}
    assert ("replaces", "KEP-555") in rels

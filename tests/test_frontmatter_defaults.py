"""Relations that exist out of the box: the frontmatter keys people write (reports_to, team, lead ...)
become relations without any configuration; each can be turned off or redefined; and a changed
kbgraph.toml is applied by the next plain `kbg index`."""

from __future__ import annotations

import json

import pytest

from kbgraph.config import DEFAULT_FRONTMATTER_RELATIONS, config_from_dict
from kbgraph.errors import ConfigError

from .conftest import kbg, run_kbg


def _read(vault, name):
    data = kbg(vault, "entity", "relations", name)
    return ({(r["type"], r["target"]) for r in data["relations"]}
            | {(r["type"], r["source"]) for r in data["inverse_relations"]})


def test_reports_to_and_team_keys_are_relations_without_configuration(indexed_vault):
    arjun = _read(indexed_vault, "Arjun Mehta")  # reports_to: Ana Lima, team: Platform
    assert {("reports-to", "Ana Lima"), ("member-of", "Platform")} <= arjun
    assert ("manages", "Arjun Mehta") in _read(indexed_vault, "Ana Lima")
    auth = _read(indexed_vault, "Auth Service")  # a project page with lead: Arjun Mehta
    assert ("led-by", "Arjun Mehta") in auth


def test_a_default_key_is_turned_off_or_redefined(vault):
    config = vault / "kbgraph.toml"
    config.write_text(config.read_text() + "\n[relations.frontmatter]\nteam = false\nmembers = false\n"
                      "\n[relations.frontmatter.reports_to]\ntype = \"mentored-by\"\nentity = \"person\"\n")
    assert run_kbg("index", "--vault", str(vault)).returncode == 0
    arjun = _read(vault, "Arjun Mehta")
    assert ("mentored-by", "Ana Lima") in arjun and ("reports-to", "Ana Lima") not in arjun
    assert not any(kind == "member-of" for kind, _ in arjun)


def test_defaults_false_keeps_only_what_is_configured():
    assert config_from_dict({}).frontmatter_relations == DEFAULT_FRONTMATTER_RELATIONS
    assert config_from_dict({"relations": {"frontmatter": {"defaults": False}}}).frontmatter_relations == ()
    with pytest.raises(ConfigError, match="has no default mapping"):
        config_from_dict({"relations": {"frontmatter": {"assignee": True}}})
    with pytest.raises(ConfigError, match="defaults must be true or false"):
        config_from_dict({"relations": {"frontmatter": {"defaults": "no"}}})


def test_a_changed_config_is_applied_by_the_next_index_and_said(indexed_vault):
    again = json.loads(run_kbg("index", "--vault", str(indexed_vault), "--json").stdout)
    assert (again["indexed"], again["config_changed"]) == (0, False)
    config = indexed_vault / "kbgraph.toml"
    config.write_text(config.read_text() + "\n[relations.frontmatter]\nteam = false\nmembers = false\n")
    result = run_kbg("index", "--vault", str(indexed_vault))
    assert result.returncode == 0, result.stderr
    assert "configuration changed since the last index" in result.stdout
    assert not any(kind == "member-of" for kind, _ in _read(indexed_vault, "Arjun Mehta"))
    settled = json.loads(run_kbg("index", "--vault", str(indexed_vault), "--json").stdout)
    assert (settled["indexed"], settled["config_changed"]) == (0, False)


def test_search_settings_change_no_index(indexed_vault):
    config = indexed_vault / "kbgraph.toml"
    config.write_text(config.read_text() + "\n[search]\nrrf_k = 30\n")
    report = json.loads(run_kbg("index", "--vault", str(indexed_vault), "--json").stdout)
    assert (report["indexed"], report["config_changed"]) == (0, False)


def test_an_index_from_before_fingerprints_is_read_again_once(indexed_vault):
    import sqlite3

    db = sqlite3.connect(indexed_vault / ".kbgraph" / "index.db")
    with db:
        db.execute("DELETE FROM meta WHERE key = 'config_fingerprint'")
    db.close()
    first = json.loads(run_kbg("index", "--vault", str(indexed_vault), "--json").stdout)
    assert first["config_changed"] and first["indexed"] > 0
    second = json.loads(run_kbg("index", "--vault", str(indexed_vault), "--json").stdout)
    assert not second["config_changed"] and second["indexed"] == 0


def test_a_custom_type_that_behaves_like_a_project_uses_the_built_in_vocabulary(tmp_path):
    """"What does the billing service depend on, two hops out?" on a vault of services."""
    vault = tmp_path / "services"
    (vault / "services").mkdir(parents=True)
    (vault / "kbgraph.toml").write_text('[entities]\ntypes = ["service"]\nlike = { service = "project" }\n')
    (vault / "services" / "billing.md").write_text(
        "---\ntype: service\nname: Billing\nlead: Priya Raman\ndepends_on: [Ledger]\n---\n# Billing\n\n"
        "## Relations\n- depends-on [[Auth]]\n")
    (vault / "services" / "ledger.md").write_text("---\ntype: service\nname: Ledger\ndepends_on: [Postgres DB]\n---\n")
    (vault / "services" / "auth.md").write_text("---\ntype: service\nname: Auth\n---\n# Auth\n")
    report = json.loads(run_kbg("index", "--vault", str(vault), "--json").stdout)
    assert report["warnings"] == 0, report["problems"]
    data = kbg(vault, "graph", "neighbours", "Billing", "--direction", "out", "--type", "depends-on", "-d", "2")
    assert [[e["name"] for e in level["entities"]] for level in data["levels"]] == [["Auth", "Ledger"],
                                                                                   ["Postgres DB"]]
    assert kbg(vault, "entity", "find", "Postgres DB")["entity"]["type"] == "service"
    assert ("led-by", "Priya Raman") in _read(vault, "Billing")


def test_like_and_added_pairs_are_checked():
    from kbgraph.config import config_from_dict

    with pytest.raises(ConfigError, match="declare 'service' in entities.types first"):
        config_from_dict({"entities": {"like": {"service": "project"}}})
    with pytest.raises(ConfigError, match="give a built-in type"):
        config_from_dict({"entities": {"types": ["service"], "like": {"service": "gadget"}}})
    added = config_from_dict({"entities": {"types": ["service"]},
                              "relations": {"types": {"depends-on": {"source": ["service"], "target": ["service"]}}}})
    assert added.vocabulary.types["depends-on"].allows("service", "service")
    assert added.vocabulary.types["depends-on"].inverse == "depended-on-by"
    with pytest.raises(ConfigError, match="may only add pairs"):
        config_from_dict({"relations": {"types": {"depends-on": {"inverse": "needed-by"}}}})


def test_document_metadata_keys_name_people_and_placeholders_name_no_one():
    """A KEP, RFC or design doc lists its people under authors / reviewers / approvers: out of the box
    they were nobody (the 654-note KEP vault indexed with 0 entities). A placeholder ("TBD", "n/a") is
    no one: an entity "TBD" would claim every "TBD" of the text as a mention."""
    from kbgraph.ingest.parse import declared_entities

    frontmatter = {"authors": ["@lavalamp", "Ana Lima"], "reviewers": ["TBD"], "approvers": "n/a, Ben Okafor",
                   "assignee": "none", "informed": ["Sam Li", "-"]}
    found = {(d.type, d.name, d.ref_field) for d in declared_entities("note", frontmatter, None, "kep-1", config_from_dict({}))}
    assert found == {("person", "@lavalamp", "authors"), ("person", "Ana Lima", "authors"),
                     ("person", "Ben Okafor", "approvers"), ("person", "Sam Li", "informed")}


def test_a_key_the_vault_maps_with_its_own_reading_is_not_also_a_plain_reference():
    """With [relations.frontmatter.authors] strip = "@" the mapping names "lavalamp"; reading authors
    as a plain reference too made "@lavalamp" a second entity (the KEP bench: 1,454 -> 2,155 entities)."""
    retold = config_from_dict({"relations": {"frontmatter": {"authors": {
        "type": "contributor", "entity": "person", "strip": "@"}}}})
    assert "authors" not in retold.references and "reviewers" in retold.references
    plain = config_from_dict({"relations": {"frontmatter": {"authors": {"type": "contributor", "entity": "person"}}}})
    assert plain.references["authors"] == "person", "a mapping that reads values as they are keeps the reference"
    declared = config_from_dict({"entities": {"references": {"authors": "person"}},
                                 "relations": {"frontmatter": {"authors": {
                                     "type": "contributor", "entity": "person", "strip": "@"}}}})
    assert declared.references["authors"] == "person", "a reference the vault declares itself stays"

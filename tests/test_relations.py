"""Typed relations end to end: relate/unrelate/relations through the CLI, the page mirror, expiry, staleness."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
import yaml

from kbgraph.ingest.pipeline import index_vault

from .conftest import kbg, run_kbg, tree_digest


@pytest.fixture
def rvault(unmapped_vault):
    return unmapped_vault


def kbg_error(vault, *args) -> str:
    result = run_kbg(*args, "--vault", str(vault))
    assert result.returncode != 0, result.stdout
    assert "Traceback" not in result.stderr
    return result.stderr


def test_inverse_input_is_stored_canonically_and_read_both_ways(rvault):
    made = kbg(rvault, "entity", "relate", "Ben", "--type", "manages", "--target", "Ana", "--reason", "org chart")
    assert (made["source"], made["type"], made["target"]) == ("Ana Lima", "reports-to", "Ben Okafor")
    ana = kbg(rvault, "entity", "relations", "Ana Lima")
    assert ana["entity"] == "Ana Lima"
    (rel,) = ana["relations"]
    assert {k: rel[k] for k in ("type", "target", "reason", "valid_until", "confidence", "source_doc")} == {
        "type": "reports-to", "target": "Ben Okafor", "reason": "org chart", "valid_until": None,
        "confidence": "manual", "source_doc": "people/ana-lima.md"}  # the page line is the evidence
    assert rel["since"] == time.strftime("%Y-%m-%d")
    ben = kbg(rvault, "entity", "relations", "Ben Okafor")
    assert ("manages", "Ana Lima") in [(r["type"], r["source"]) for r in ben["inverse_relations"]]
    assert all(r["type"] == "manages" for r in ben["inverse_relations"])


def test_relate_mirrors_one_line_into_the_source_page_and_nothing_else(rvault):
    page = rvault / "people/dana-kowalski.md"
    before = page.read_text()
    others = {k: v for k, v in tree_digest(rvault).items() if k != "people/dana-kowalski.md"}
    count = kbg(rvault, "index", "status")["relations"]
    kbg(rvault, "entity", "relate", "Dana Kowalski", "--type", "reports-to", "--target", "Ana Lima",
        "--reason", "SRE on Platform", "--valid-until", "2027-06-30")
    after = page.read_text()
    assert after.startswith(before.rstrip("\n"))
    assert after[len(before.rstrip("\n")):] == (
        "\n\n## Relations\n\n- reports-to [[Ana Lima]] — SRE on Platform (until 2027-06-30)\n")
    assert yaml.safe_load(after.split("---")[1])["name"] == "Dana Kowalski"
    assert {k: v for k, v in tree_digest(rvault).items() if k != "people/dana-kowalski.md"} == others
    status = kbg(rvault, "index", "status")
    assert status["problems"] == [] and status["relations"] == count + 1


def test_relating_again_updates_and_strengthens(rvault):
    kbg(rvault, "entity", "relate", "Arjun", "--type", "leads", "--target", "Auth Service")
    again = kbg(rvault, "entity", "relate", "AJ", "--type", "leads", "--target", "authsvc", "--reason", "rewrite",
                "--source-doc", "meetings/2026/03/02/auth-service-launch-review.md")
    assert again["strength"] == 2 and again["reason"] == "rewrite"
    assert again["source_doc"] == "meetings/2026/03/02/auth-service-launch-review.md"
    text = (rvault / "people/arjun-mehta.md").read_text()
    assert text.count("- leads [[Auth Service]]") == 1 and "- leads [[Auth Service]] — rewrite" in text


def test_editing_the_page_in_an_editor_adds_and_removes_relations(rvault):
    page = rvault / "projects/project-atlas.md"
    page.write_text(page.read_text() + "\n## Relations\n\n- depends-on [[Auth Service]] — tokens\n- blocks [[Checkout Revamp]]\n")
    index_vault(rvault)
    rels = kbg(rvault, "entity", "relations", "Atlas")["relations"]
    from_beacon = {("related-to", "Project Beacon")}  # said on Project Beacon's page; symmetric
    assert {(r["type"], r["target"]) for r in rels} == {
        ("depends-on", "Auth Service"), ("blocks", "Checkout Revamp")} | from_beacon
    blocked = kbg(rvault, "entity", "relations", "Checkout Revamp")["inverse_relations"]
    assert ("blocked-by", "Project Atlas") in [(r["type"], r["source"]) for r in blocked]
    page.write_text(page.read_text().replace("- blocks [[Checkout Revamp]]\n", ""))
    index_vault(rvault)
    rels = kbg(rvault, "entity", "relations", "Atlas")["relations"]
    assert {(r["type"], r["target"]) for r in rels} == {("depends-on", "Auth Service")} | from_beacon


def test_a_malformed_relations_line_is_reported_with_file_and_line(rvault):
    page = rvault / "tech/kafka.md"
    lines = page.read_text().rstrip("\n").split("\n")
    page.write_text("\n".join(lines) + "\n\n## Relations\n\n- uses [[Kubernetes]]\n- depends on zookeeper\n"
                    "- frobnicates [[PostgreSQL]]\n- uses [[Nobody Known]]\n")
    report = index_vault(rvault)
    problems = {p.path: p.reason for p in report.problems}
    base = len(lines) + 3
    assert problems[f"tech/kafka.md:{base + 2}"].startswith("not a relation line")
    assert "unknown relation type 'frobnicates'" in problems[f"tech/kafka.md:{base + 3}"]
    assert problems[f"tech/kafka.md:{base + 4}"].startswith("relation target not found: uses [[Nobody Known]]")
    assert report.errors == 0, "a bad line is a warning: the page itself is indexed"
    assert [r["target"] for r in kbg(rvault, "entity", "relations", "Kafka")["relations"]] == ["Kubernetes"]
    assert kbg(rvault, "search", "Kafka", "--path", "tech")["hits"], "the rest of the page is still searchable"


def test_an_unknown_relation_line_target_waits_by_name_until_its_page_appears(rvault):
    # It used to become a page-less person at once; `kbg entity relate` refuses the same name without
    # --create, so a page line no longer invents one: it is reported, and links once the person exists.
    page = rvault / "people/ben-okafor.md"
    page.write_text(page.read_text() + "\n## Relations\n\n- mentors [[Priya Raman]]\n")
    report = index_vault(rvault)
    assert [p.reason for p in report.problems if "Priya Raman" in p.reason] == [
        "relation target not found: mentors [[Priya Raman]]: no page, name or alias spells it; the line links on "
        "the next index once one does (a new page, an alias), or relate it with --create TYPE"]
    kbg(rvault, "person", "find", "Priya Raman", code=1)
    assert "Priya Raman" not in json.dumps(kbg(rvault, "graph", "neighbours", "Ben Okafor"))
    (rvault / "people/priya-raman.md").write_text("---\ntype: person\n---\n# Priya Raman\n")
    report = index_vault(rvault)
    assert not [p for p in report.problems if "Priya Raman" in p.reason]
    assert kbg(rvault, "person", "find", "Priya Raman")["relations"] == {"mentored_by": ["Ben Okafor"]}


def test_expired_relations_are_hidden_unless_asked_for(rvault):
    kbg(rvault, "entity", "relate", "Sam Li", "--type", "reports-to", "--target", "Chen Wei", "--valid-until", "2020-01-01")
    kbg(rvault, "entity", "relate", "Sam Li", "--type", "member-of", "--target", "Data")
    active = kbg(rvault, "entity", "relations", "Sam Li")["relations"]
    assert sorted(r["type"] for r in active) == ["contributes-to", "member-of"]
    everything = kbg(rvault, "entity", "relations", "Sam Li", "--include-expired")["relations"]
    expired = [r for r in everything if r["expired"]]
    assert [(r["type"], r["valid_until"]) for r in expired] == [("reports-to", "2020-01-01")]
    assert "(until 2020-01-01)" in (rvault / "people/sam-li.md").read_text(), "expiry is written to the page line"
    assert kbg(rvault, "person", "find", "Sam Li")["relations"] == {
        "contributes_to": ["Project Beacon"], "member_of": ["Data"], "mentored_by": ["Chen Wei"]}
    stale = kbg(rvault, "entity", "stale", "--include-relations")
    assert any(r["target"] == "Chen Wei" and "expired on 2020-01-01" in r["why"] for r in stale["relations"])


def test_every_relation_of_a_type_across_the_graph(rvault):
    kbg(rvault, "entity", "relate", "Ana", "--type", "reports-to", "--target", "Ben")
    kbg(rvault, "entity", "relate", "Chen Wei", "--type", "reports-to", "--target", "Ben")
    rows = kbg(rvault, "entity", "relations", "--type", "reports-to")["relations"]
    # Chen Wei, María García and Sam Li also say so on their own pages in the sample vault.
    assert [(r["source"], r["target"]) for r in rows] == [
        ("Ana Lima", "Ben Okafor"), ("Chen Wei", "Ben Okafor"), ("María García", "Ben Okafor"), ("Sam Li", "Chen Wei")]
    managers = kbg(rvault, "entity", "relations", "--type", "manages")["relations"]
    assert {(r["source"], r["type"], r["target"]) for r in managers} == {
        ("Ben Okafor", "manages", "Ana Lima"), ("Ben Okafor", "manages", "Chen Wei"),
        ("Ben Okafor", "manages", "María García"), ("Chen Wei", "manages", "Sam Li")}
    who = kbg(rvault, "entity", "relations", "Ben", "--type", "manages")
    assert sorted(r["source"] for r in who["inverse_relations"]) == ["Ana Lima", "Chen Wei", "María García"]
    assert who["relations"] == []


def test_profile_has_a_relations_section(rvault):
    kbg(rvault, "entity", "relate", "Ana", "--type", "reports-to", "--target", "Ben")
    kbg(rvault, "entity", "relate", "Dana", "--type", "reports-to", "--target", "Ana")
    kbg(rvault, "entity", "relate", "Arjun", "--type", "manages", "--target", "Ana", code=0)
    kbg(rvault, "entity", "unrelate", "Arjun", "--type", "manages", "--target", "Ana")
    kbg(rvault, "entity", "relate", "Ana", "--type", "leads", "--target", "Atlas")
    kbg(rvault, "entity", "relate", "Ana", "--type", "member-of", "--target", "Platform")
    profile = kbg(rvault, "person", "find", "Ana")
    assert profile["relations"] == {"leads": ["Project Atlas"], "manages": ["Dana Kowalski"],
                                    "member_of": ["Platform"], "reports_to": ["Ben Okafor"]}
    human = run_kbg("person", "find", "Ana", "--vault", str(rvault)).stdout
    assert "Reports to: Ben Okafor" in human and "Manages: Dana Kowalski" in human


def test_unrelate_removes_the_line_and_the_relation(rvault):
    page = rvault / "people/lena-fischer.md"
    before = page.read_text()
    kbg(rvault, "entity", "relate", "Lena", "--type", "leads", "--target", "Checkout Revamp")
    removed = kbg(rvault, "entity", "unrelate", "Lena Fischer", "--type", "led-by", "--target", "Checkout Revamp",
                  code=1) or None
    assert removed is None or "error" in removed  # led-by reverses the direction: Checkout Revamp leads Lena
    result = kbg(rvault, "entity", "unrelate", "Checkout Revamp", "--type", "led-by", "--target", "Lena")
    assert result["removed"] and result["page"] == "people/lena-fischer.md"
    assert page.read_text() == before
    assert kbg(rvault, "entity", "relations", "Lena")["relations"] == []
    again = kbg(rvault, "entity", "unrelate", "Lena", "--type", "leads", "--target", "Checkout Revamp")
    assert again["already"] and again["page"] is None and page.read_text() == before  # done, not refused
    assert "no relation Lena Fischer --uses--> Checkout Revamp" in kbg_error(
        rvault, "entity", "unrelate", "Lena", "--type", "uses", "--target", "Checkout Revamp")


@pytest.mark.parametrize("args, message", [
    (("Ana", "--type", "reports-to", "--target", "Ana Lima"), "cannot be related to itself"),
    (("Ana", "--type", "reports-to", "--target", "Nobody"), "no entity named 'Nobody'"),
    (("Sam", "--type", "reports-to", "--target", "Ben"), "ambiguous: 'Sam' matches"),
    (("Ana", "--type", "depends-on", "--target", "Atlas"), "depends-on is not allowed from person"),
    (("Ana", "--type", "custom", "--target", "Ben"), "custom relations need --reason"),
    (("Ana", "--type", "reports-to", "--target", "Ben", "--valid-until", "2026-02-30"), "use a real date"),
    (("Ana", "--type", "reportsto", "--target", "Ben"), "did you mean reports-to"),
    (("Ana", "--type", "reports-to", "--target", "Ben", "--source-doc", "nope.md"), "is not in the index"),
    (("Ana", "--type", "mentors", "--target", "Zed", "--create", "alien"), "not an entity type"),
])
def test_bad_relate_input_is_a_clear_error_and_changes_nothing(rvault, args, message):
    before = tree_digest(rvault)
    relations = kbg(rvault, "export")["relations"]
    stderr = kbg_error(rvault, "entity", "relate", *args)
    assert message in stderr and stderr.startswith("error: ")
    assert tree_digest(rvault) == before
    assert kbg(rvault, "export")["relations"] == relations


def test_create_makes_a_missing_target_explicitly_and_it_survives_a_full_reindex(rvault):
    assert "no entity named 'Priya'" in kbg_error(rvault, "entity", "relate", "Ana", "--type", "mentors",
                                                   "--target", "Priya")
    made = kbg(rvault, "entity", "relate", "Priya", "--type", "mentored-by", "--target", "Ana", "--create", "person",
               code=1)
    assert made["error"].startswith("no entity named 'Priya'")  # --create applies to the target only
    kbg(rvault, "entity", "relate", "Ana", "--type", "mentors", "--target", "Priya", "--create", "person")
    kbg(rvault, "entity", "relate", "Priya", "--type", "collaborates-with", "--target", "Sam Li")
    index_vault(rvault, full=True)
    priya = kbg(rvault, "person", "find", "Priya")
    assert priya["entity"]["page_path"] is None
    assert priya["relations"] == {"collaborates_with": ["Sam Li"], "mentored_by": ["Ana Lima"]}


def test_relations_of_page_less_entities_live_in_the_index_and_survive_full_reindex(rvault):
    kbg(rvault, "entity", "relate", "Kafka", "--type", "used-by", "--target", "Ingest Bot", "--create", "concept")
    made = kbg(rvault, "entity", "relations", "Ingest Bot")["relations"]
    assert [(r["type"], r["target"]) for r in made] == [("uses", "Kafka")]
    (rvault / "tech/kafka.md").unlink()  # Kafka loses its page: the asserted relation keeps the entity
    index_vault(rvault, full=True)
    rels = kbg(rvault, "entity", "relations", "Ingest Bot")["relations"]
    assert [(r["type"], r["target"]) for r in rels] == [("uses", "Kafka")]
    assert kbg(rvault, "entity", "find", "Kafka")["entity"]["page_path"] is None


def test_stale_entities_by_days(rvault):
    old = time.time() - 400 * 86400
    for note in (p for p in rvault.rglob("*") if p.is_file()):  # a vault nobody has touched for 400 days
        os.utime(note, (old, old))
    index_vault(rvault, full=True)
    stale = kbg(rvault, "entity", "stale", "--days", "120", "--type", "technology")
    assert {e["name"] for e in stale["entities"]} == {"Kafka", "Kubernetes", "PostgreSQL"}
    assert kbg(rvault, "entity", "stale", "--days", "100000")["entities"] == []
    assert "--days must be between 0 and 365000" in kbg_error(rvault, "entity", "stale", "--days", "-1")
    assert "--days must be between" in kbg_error(rvault, "entity", "stale", "--days", "99999999")


def test_export_import_round_trip_into_a_fresh_vault(rvault, tmp_path):
    import shutil

    kbg(rvault, "entity", "relate", "Ana", "--type", "reports-to", "--target", "Ben", "--reason", "org",
        "--source-doc", "meetings/2026/02/10/ana-ben-1on1.md")
    kbg(rvault, "entity", "relate", "Ana", "--type", "reports-to", "--target", "Ben")  # strength 2
    kbg(rvault, "entity", "relate", "Ana", "--type", "mentors", "--target", "Priya", "--create", "person")
    kbg(rvault, "entity", "relate", "Priya", "--type", "collaborates-with", "--target", "Sam Ortiz")
    kbg(rvault, "entity", "relate", "Sam Li", "--type", "reports-to", "--target", "Chen", "--valid-until", "2020-01-01")
    kbg(rvault, "entity", "relate", "Ana", "--type", "mentors", "--target", "Sam Ortiz")
    kbg(rvault, "entity", "unrelate", "Ana", "--type", "mentors", "--target", "Sam Ortiz")  # ended: in history
    out = tmp_path / "export.jsonl"
    from_pages = kbg(rvault, "index", "status")["relations"] - 4
    summary = kbg(rvault, "export", "--format", "jsonl", "--output", str(out))
    assert summary["relations"] == 4 + from_pages

    fresh = tmp_path / "fresh"
    shutil.copytree(rvault, fresh, ignore=shutil.ignore_patterns(".kbgraph"))
    assert run_kbg("index", "--vault", str(fresh)).returncode == 0
    counts = kbg(fresh, "import", str(out))
    assert counts["relations"] == 4 + from_pages
    assert counts["relation_history"] >= 1
    assert kbg(fresh, "import", str(out))["relation_history"] == 0  # twice adds nothing
    ended = [v for v in kbg(fresh, "export")["relation_history"] if v["change"] == "ended"]
    assert [(v["source_name"], v["type"], v["target_name"]) for v in ended] == [("Ana Lima", "mentors", "Sam Ortiz")]

    def comparable(vault):
        data = json.loads(run_kbg("export", "--vault", str(vault)).stdout)
        data.pop("exported_at")
        # The resolution log is each vault's history: the fresh one saw [[Priya]] before the import
        # created her, and logged it as a new name. What the user decided is in merges and unlinks.
        auto = {d["surface"] for d in data.pop("decisions") if d["outcome"] == "auto-linked"}
        for merge in data["merges"]:
            if merge["from"]["name"] in auto:  # the sample's 'Arjoon Mehta': each index links it, at its own time
                merge.pop("created_at")
        return data

    assert comparable(fresh) == comparable(rvault)


def test_import_rejects_bad_files_without_writing(rvault, tmp_path):
    relations = kbg(rvault, "export")["relations"]
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "kbgraph-export", "version": 1, "relations": ['
                   '{"source": {"type": "person", "name": "Ana Lima"}, "target": {"type": "person", "name": "Ben Okafor"},'
                   ' "type": "reports-to"}, {"source": {"type": "person", "name": "X"}, "target": {"type": "person",'
                   ' "name": "Y"}, "type": "nonsense"}]}')
    assert "unknown relation type 'nonsense'" in kbg_error(rvault, "import", str(bad))
    assert kbg(rvault, "export")["relations"] == relations
    (tmp_path / "junk.json").write_text("not json at all {")
    assert "not a kbgraph export" in kbg_error(rvault, "import", str(tmp_path / "junk.json"))
    assert "cannot read" in kbg_error(rvault, "import", str(tmp_path / "missing.json"))


def test_concurrent_relate_from_two_processes_keeps_both(rvault):
    script = (
        "import sys; from kbgraph.workspace import Workspace; from kbgraph.relations.edits import relate\n"
        "ws = Workspace.open(sys.argv[1])\n"
        "for target in sys.argv[2:]:\n"
        "    relate(ws, 'Ben Okafor', 'mentors', target)\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(rvault), "Ana Lima", "Chen Wei", "Lena Fischer"]),
        subprocess.Popen([sys.executable, "-c", script, str(rvault), "Dana Kowalski", "Sam Li", "Sam Ortiz"]),
    ]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    text = (rvault / "people/ben-okafor.md").read_text()
    targets = ["Ana Lima", "Chen Wei", "Lena Fischer", "Dana Kowalski", "Sam Li", "Sam Ortiz"]
    assert all(text.count(f"- mentors [[{t}]]") == 1 for t in targets)
    assert text.count("## Relations") == 1
    rels = kbg(rvault, "entity", "relations", "Ben")["relations"]
    assert sorted(r["target"] for r in rels) == sorted(targets)
    index_vault(rvault)
    assert sorted(r["target"] for r in kbg(rvault, "entity", "relations", "Ben")["relations"]) == sorted(targets)


def test_merge_moves_names_mentions_and_relations_and_survives_a_full_reindex(rvault):
    extra = rvault / "people/d-kowalski.md"
    extra.write_text("---\ntype: person\nname: D. Kowalski Jr\n---\n# D. Kowalski Jr\n\nOn call this week.\n\n"
                     "## Relations\n\n- reports-to [[Ana Lima]]\n")
    (rvault / "notes/oncall.md").write_text("D. Kowalski Jr paged Arjun twice.\n")
    index_vault(rvault)
    kbg(rvault, "entity", "relate", "Dana Kowalski", "--type", "reports-to", "--target", "Ana Lima")
    kbg(rvault, "entity", "relate", "D. Kowalski Jr", "--type", "collaborates-with", "--target", "Dana Kowalski")
    before = tree_digest(rvault)

    result = kbg(rvault, "entity", "merge", "D. Kowalski Jr", "Dana Kowalski")

    assert result["into"] == "Dana Kowalski" and "D. Kowalski Jr" in result["aliases"]
    (dropped,) = result["self_relations_dropped"]  # symmetric: stored in either order
    assert "--collaborates-with-->" in dropped and "D. Kowalski Jr" in dropped and "Dana Kowalski" in dropped
    changed = {k for k, v in tree_digest(rvault).items() if before.get(k) != v}
    assert changed == {"people/d-kowalski.md"} == set(result["pages_edited"])
    assert "collaborates-with" not in extra.read_text(), "only the line that became a self-relation went"
    assert "- reports-to [[Ana Lima]]" in extra.read_text()
    for _ in range(2):
        dana = kbg(rvault, "person", "find", "D. Kowalski Jr")  # the old name finds the merged entity
        assert dana["entity"]["name"] == "Dana Kowalski"
        rels = kbg(rvault, "entity", "relations", "Dana Kowalski")["relations"]
        assert [(r["type"], r["target"]) for r in rels] == [("reports-to", "Ana Lima")], "duplicates collapse"
        timeline = [d["path"] for d in kbg(rvault, "person", "timeline", "Dana")["documents"]]
        assert "notes/oncall.md" in timeline and "people/d-kowalski.md" in timeline
        index_vault(rvault, full=True)


def test_merge_takes_lines_that_would_self_relate_out_of_the_pages(rvault):
    page = rvault / "people/sam-li.md"
    kbg(rvault, "entity", "relate", "Sam Li", "--type", "collaborates-with", "--target", "Sam Ortiz")
    assert "- collaborates-with [[Sam Ortiz]]" in page.read_text()
    result = kbg(rvault, "entity", "merge", "Sam Ortiz", "Sam Li")
    assert result["pages_edited"] == ["people/sam-li.md"]
    assert "collaborates-with" not in page.read_text()
    report = index_vault(rvault, full=True)
    assert not [p for p in report.problems if "itself" in p.reason], report.problems


@pytest.mark.parametrize("args, message", [
    (("Dana", "Dana Kowalski"), "are the same entity"),
    (("Dana", "Platform"), "only entities of one type can be merged"),
    (("Nobody", "Dana"), "no entity named 'Nobody'"),
])
def test_bad_merges_are_refused(rvault, args, message):
    assert message in kbg_error(rvault, "entity", "merge", *args)


def test_a_merged_away_name_means_the_survivor(rvault):
    kbg(rvault, "entity", "merge", "Sam Ortiz", "Sam Li")
    assert kbg(rvault, "person", "find", "Sam")["entity"]["name"] == "Sam Li", "one Sam left"
    assert kbg(rvault, "entity", "merge", "Sam Ortiz", "Sam Li")["already"], "the same merge again: redoable"
    assert "are the same entity (Sam Li)" in kbg_error(rvault, "entity", "merge", "Sam Li", "Sam Ortiz")


def test_merges_travel_in_export_and_import(rvault, tmp_path):
    import shutil

    kbg(rvault, "entity", "merge", "Sam Ortiz", "Sam Li")
    out = tmp_path / "export.json"
    kbg(rvault, "export", "-o", str(out))
    fresh = tmp_path / "fresh"
    shutil.copytree(rvault, fresh, ignore=shutil.ignore_patterns(".kbgraph"))
    run_kbg("index", "--vault", str(fresh))
    # Sam's, and the sample vault's automatic link of 'Arjoon Mehta' (the fresh index made it too)
    assert kbg(fresh, "import", str(out))["merges"] == 2
    assert kbg(fresh, "person", "find", "Sam Ortiz")["entity"]["name"] == "Sam Li"


def test_create_pages_gives_a_page_less_entity_a_page_when_configured(rvault):
    kbg(rvault, "entity", "relate", "Ana", "--type", "mentors", "--target", "Priya Raman", "--create", "person")
    priya = kbg(rvault, "entity", "relate", "Priya Raman", "--type", "member-of", "--target", "Platform")
    assert priya["mirrored_to"] is None and priya["origin"] == "user"
    config = rvault / "kbgraph.toml"
    config.write_text(config.read_text() + "\n[relations]\ncreate_pages = true\n")
    made = kbg(rvault, "entity", "relate", "Priya Raman", "--type", "collaborates-with", "--target", "Sam Li")
    assert made["mirrored_to"] == "people/priya-raman.md"
    page = (rvault / "people/priya-raman.md").read_text()
    assert page.startswith("---\ntype: person\nname: Priya Raman\n---\n# Priya Raman\n")
    assert "- collaborates-with [[Sam Li]]" in page
    profile = kbg(rvault, "person", "find", "Priya")
    assert profile["entity"]["page_path"] == "people/priya-raman.md"
    assert profile["relations"] == {"collaborates_with": ["Sam Li"], "member_of": ["Platform"],
                                    "mentored_by": ["Ana Lima"]}


def test_a_refused_relate_with_create_creates_nothing(rvault):
    stderr = kbg_error(rvault, "entity", "relate", "Sam Li", "--type", "reports-to", "--target", "Zed",
                       "--create", "technology")
    assert "reports-to is not allowed from person 'Sam Li' to technology 'Zed'" in stderr
    assert "no entity named 'Zed'" in kbg_error(rvault, "entity", "find", "Zed")
    kbg_error(rvault, "entity", "relate", "Ana", "--type", "mentors", "--target", "Zed", "--create", "person",
              "--source-doc", "missing.md")
    assert "no entity named 'Zed'" in kbg_error(rvault, "entity", "find", "Zed")


def test_relating_again_without_reason_keeps_it_in_the_page_and_the_index(rvault):
    kbg(rvault, "entity", "relate", "Dana", "--type", "reports-to", "--target", "Ana", "--reason", "SRE",
        "--source-doc", "meetings/2026/02/10/ana-ben-1on1.md")
    again = kbg(rvault, "entity", "relate", "Dana", "--type", "reports-to", "--target", "Ana")
    assert (again["reason"], again["strength"]) == ("SRE", 2)
    assert "- reports-to [[Ana Lima]] — SRE" in (rvault / "people/dana-kowalski.md").read_text()
    index_vault(rvault, full=True)
    (rel,) = [r for r in kbg(rvault, "entity", "relations", "Dana")["relations"] if r["type"] == "reports-to"]
    assert (rel["reason"], rel["source_doc"]) == ("SRE", "meetings/2026/02/10/ana-ben-1on1.md")


def test_a_reason_deleted_from_the_page_is_deleted_from_the_index(rvault):
    kbg(rvault, "entity", "relate", "Dana", "--type", "reports-to", "--target", "Ana", "--reason", "SRE")
    page = rvault / "people/dana-kowalski.md"
    page.write_text(page.read_text().replace(" — SRE", ""))
    index_vault(rvault)
    (rel,) = [r for r in kbg(rvault, "entity", "relations", "Dana")["relations"] if r["type"] == "reports-to"]
    assert rel["reason"] is None and rel["source_doc"] == "people/dana-kowalski.md"


def test_import_into_a_vault_never_indexed_resolves_to_its_notes(rvault, tmp_path):
    import shutil

    out = tmp_path / "export.json"
    kbg(rvault, "entity", "relate", "Ana", "--type", "mentors", "--target", "Priya", "--create", "person")
    kbg(rvault, "export", "-o", str(out))
    fresh = tmp_path / "fresh"
    shutil.copytree(rvault, fresh, ignore=shutil.ignore_patterns(".kbgraph"))
    counts = kbg(fresh, "import", str(out))
    assert counts["created_entities"] == 0
    assert [e["name"] for e in kbg(fresh, "export")["asserted_entities"]] == ["Priya"]


def test_relations_of_a_hub_are_paged_with_totals(rvault):
    for name in ("Ana Lima", "Arjun Mehta", "Dana Kowalski", "Lena Fischer"):
        kbg(rvault, "entity", "relate", "Ben Okafor", "--type", "mentors", "--target", name)
    page = kbg(rvault, "entity", "relations", "Ben Okafor", "--limit", "2")
    assert len(page["relations"]) == 2 and page["total"]["relations"] == 4 and page["truncated"]
    assert page["total"]["inverse_relations"] == len(page["inverse_relations"]) == 2  # Chen, María report to Ben
    everything = kbg(rvault, "entity", "relations", "Ben Okafor", "--limit", "0")
    assert len(everything["relations"]) == 4 and not everything["truncated"]


def test_a_page_taking_a_created_entity_s_name_keeps_its_relations(rvault):
    kbg(rvault, "entity", "relate", "Ben", "--type", "manages", "--target", "Priya", "--create", "person")
    page = rvault / "people/priya-raman.md"
    page.write_text("---\ntype: person\nname: Priya Raman\naliases: [Priya]\n---\n# Priya Raman\n")
    index_vault(rvault)
    rels = kbg(rvault, "entity", "relations", "Priya Raman")["relations"]
    assert [(r["type"], r["target"]) for r in rels] == [("reports-to", "Ben Okafor")]


def test_deleting_a_page_drops_the_relations_its_lines_stated(rvault):
    kbg(rvault, "entity", "relate", "Dana", "--type", "reports-to", "--target", "Ben")
    (rvault / "people/dana-kowalski.md").unlink()
    index_vault(rvault)
    assert [r for r in kbg(rvault, "entity", "relations", "Ben")["inverse_relations"]
            if r["source"] == "Dana Kowalski"] == []


@pytest.mark.parametrize("reason", ["multi line — (until 2020-01-01)", "on-call (until she is back)"])
def test_a_reason_that_would_not_read_back_is_refused(rvault, reason):
    before = tree_digest(rvault)
    stderr = kbg_error(rvault, "entity", "relate", "Dana", "--type", "mentors", "--target", "Ben", "--reason", reason)
    assert "would not read back" in stderr and tree_digest(rvault) == before


def test_merging_keeps_one_row_per_symmetric_relation(rvault):
    for name in ("Aaa Ent", "Xxx Ent", "Bbb Ent"):
        kbg(rvault, "entity", "relate", "Ana", "--type", "mentors", "--target", name, "--create", "person")
    kbg(rvault, "entity", "relate", "Xxx Ent", "--type", "collaborates-with", "--target", "Bbb Ent")
    kbg(rvault, "entity", "relate", "Aaa Ent", "--type", "collaborates-with", "--target", "Xxx Ent")
    kbg(rvault, "entity", "merge", "Aaa Ent", "Bbb Ent")
    rels = [r for r in kbg(rvault, "entity", "relations", "Xxx Ent")["relations"] if r["type"] == "collaborates-with"]
    assert [r["target"] for r in rels] == ["Bbb Ent"] and rels[0]["strength"] == 2
    kbg(rvault, "entity", "unrelate", "Xxx Ent", "--type", "collaborates-with", "--target", "Bbb Ent")
    assert [r for r in kbg(rvault, "entity", "relations", "Xxx Ent")["relations"]
            if r["type"] == "collaborates-with"] == []


@pytest.mark.parametrize("relation, message", [
    ({"type": "reports-to", "strength": "x"}, "strength must be a whole number"),
    ({"type": "reports-to", "reason": ["a"]}, "reason must be text"),
    ({"type": "reports-to", "valid_until": 20270101}, "valid_until must be text"),
    ({"type": "mentors", "source": {"type": "project", "name": "Project Atlas"}}, "mentors is not allowed"),
    ({"type": "reports-to", "target": {"type": "person", "name": "ana lima"}}, "to itself"),
])
def test_import_refuses_malformed_relations_before_writing(rvault, tmp_path, relation, message):
    base = {"source": {"type": "person", "name": "Ana Lima"}, "target": {"type": "person", "name": "Ben Okafor"}}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "kbgraph-export", "version": 1, "relations": [{**base, **relation}]}))
    before = kbg(rvault, "export")["relations"]
    assert message in kbg_error(rvault, "import", str(bad))
    assert kbg(rvault, "export")["relations"] == before


def test_import_refuses_a_cycle_of_merges(rvault, tmp_path):
    merges = [{"from": {"type": "person", "name": "Ana Lima"}, "into": {"type": "person", "name": "Ben Okafor"}},
              {"from": {"type": "person", "name": "Ben Okafor"}, "into": {"type": "person", "name": "Ana Lima"}}]
    bad = tmp_path / "cycle.json"
    bad.write_text(json.dumps({"format": "kbgraph-export", "version": 1, "merges": merges}))
    assert "cycle of merges" in kbg_error(rvault, "import", str(bad))
    index_vault(rvault)  # and indexing still finishes


def test_import_resolves_ends_named_by_alias(rvault, tmp_path):
    data = {"format": "kbgraph-export", "version": 1, "relations": [
        {"source": {"type": "person", "name": "Ana"}, "target": {"type": "person", "name": "Ben"}, "type": "mentors"}]}
    (tmp_path / "alias.json").write_text(json.dumps(data))
    counts = kbg(rvault, "import", str(tmp_path / "alias.json"))
    assert (counts["relations"], counts["created_entities"]) == (1, 0)
    assert ("mentors", "Ben Okafor") in [(r["type"], r["target"]) for r in kbg(rvault, "entity", "relations", "Ana")["relations"]]


def test_unrelate_removes_the_relation_from_every_page_that_states_it(rvault):
    dana, ben = rvault / "people/dana-kowalski.md", rvault / "people/ben-okafor.md"
    dana.write_text(dana.read_text() + "\n## Relations\n\n- reports-to [[Ben Okafor]]\n")
    ben.write_text(ben.read_text() + "\n## Relations\n\n- manages [[Dana Kowalski]]\n")
    index_vault(rvault)
    result = kbg(rvault, "entity", "unrelate", "Dana", "--type", "reports-to", "--target", "Ben")
    assert "people/ben-okafor.md" in result["page"] and "people/dana-kowalski.md" in result["page"]
    index_vault(rvault, full=True)
    assert [r for r in kbg(rvault, "entity", "relations", "Dana")["relations"] if r["type"] == "reports-to"] == []


def test_relation_lines_may_link_a_page_by_file_name_or_first_name(rvault):
    page = rvault / "people/dana-kowalski.md"
    page.write_text(page.read_text() + "\n## Relations\n\n- reports-to [[ben-okafor]]\n- collaborates-with [[Arjun]]\n")
    report = index_vault(rvault)
    assert report.warnings == 0, report.problems
    rels = {(r["type"], r["target"]) for r in kbg(rvault, "entity", "relations", "Dana")["relations"]}
    assert {("reports-to", "Ben Okafor"), ("collaborates-with", "Arjun Mehta")} <= rels
    assert "ben-okafor" not in {e["name"] for e in kbg(rvault, "entity", "list")["entities"]}, "no invented entity"


def test_relate_with_a_reason_keeps_it_when_another_page_states_the_relation_too(rvault):
    ben = rvault / "people/ben-okafor.md"
    ben.write_text(ben.read_text() + "\n## Relations\n\n- manages [[Dana Kowalski]]\n")
    index_vault(rvault)
    made = kbg(rvault, "entity", "relate", "Dana", "--type", "reports-to", "--target", "Ben", "--reason", "since the reorg")
    assert made["reason"] == "since the reorg"
    index_vault(rvault, full=True)
    (rel,) = [r for r in kbg(rvault, "entity", "relations", "Dana")["relations"] if r["type"] == "reports-to"]
    assert rel["reason"] == "since the reorg"


@pytest.mark.parametrize("version, message", [
    ({"change": "vanished"}, "`change` must be one of"),
    ({"source_key": ""}, "`source_key` must be a non-empty string"),
    ({"superseded_at": "2020-01-01T00:00:00+00:00"}, "superseded_at is before recorded_at"),
])
def test_import_refuses_a_malformed_relation_version_before_writing(rvault, tmp_path, version, message):
    good = {"source_key": "person:ana lima", "source_type": "person", "source_name": "Ana Lima",
            "target_key": "person:ben okafor", "target_type": "person", "target_name": "Ben Okafor",
            "type": "reports-to", "change": "ended", "recorded_at": "2026-03-01T00:00:00+00:00",
            "superseded_at": "2026-06-01T00:00:00+00:00", "valid_until": "2026-06-01"}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "kbgraph-export", "version": 1, "relation_history": [{**good, **version}]}))
    before = kbg(rvault, "export")["relation_history"]
    assert message in kbg_error(rvault, "import", str(bad))
    assert kbg(rvault, "export")["relation_history"] == before

"""Who has gone quiet, by the dates notes carry: never by file times, which a clone, a sync tool or
kbgraph's own page writes change; an undated note names people without making them active."""

from __future__ import annotations

import os

from kbgraph.access import LOCAL

from .conftest import kbg, run_kbg


def _quiet(vault, days="90"):
    return {e["name"] for e in kbg(vault, "entity", "stale", "--days", days)["entities"]}


def _vault(tmp_path):
    vault = tmp_path / "org"
    for folder in ("people", "meetings/2026/11/20", "notes"):
        (vault / folder).mkdir(parents=True)
    for name in ("Ada Byrne", "Tom Reyes", "Priya Raman"):
        slug = name.lower().replace(" ", "-")
        (vault / "people" / f"{slug}.md").write_text(f"---\ntype: person\nname: {name}\n---\n# {name}\n")
    (vault / "meetings/2026/11/20/sync.md").write_text("# Sync\n\nAda Byrne walked through the launch plan.\n")
    (vault / "notes" / "org-chart.md").write_text("# Everyone\n\nAda Byrne, Tom Reyes and Priya Raman.\n")
    assert run_kbg("init", str(vault)).returncode == 0
    return vault


def test_an_undated_note_naming_everyone_does_not_make_them_active(tmp_path):
    vault = _vault(tmp_path)
    assert run_kbg("index", "--vault", str(vault)).returncode == 0
    quiet = _quiet(vault, "30")  # today is after 2026-12-20 or not: only Ada has a dated mention
    assert {"Tom Reyes", "Priya Raman"} <= quiet


def test_file_times_do_not_count(tmp_path):
    vault = _vault(tmp_path)
    long_ago = 1_600_000_000  # 2020
    for path in vault.rglob("*.md"):
        os.utime(path, (long_ago, long_ago))
    assert run_kbg("index", "--vault", str(vault)).returncode == 0
    # Even against a cutoff centuries back, Tom and Priya have no dated mention: a file time is no date.
    assert _quiet(vault, "100000") == {"Tom Reyes", "Priya Raman"}
    by_name = {e["name"]: e for e in kbg(vault, "entity", "stale", "--days", "0")["entities"]}
    assert by_name["Ada Byrne"]["last_mentioned"] == "2026-11-20"
    assert by_name["Tom Reyes"]["last_mentioned"] is None


def test_an_accepted_suggestion_is_confirmed(unmapped_vault):
    pending = kbg(unmapped_vault, "entity", "suggest-relations")["pending"]
    first = pending[0]
    kbg(unmapped_vault, "entity", "accept", str(first["id"]))
    relations = kbg(unmapped_vault, "entity", "stale", "--include-relations")["relations"]
    mine = [r for r in relations if (r["source"], r["target"]) == (first["source"], first["target"])]
    assert all("never confirmed" not in r["why"] for r in mine)



def test_a_relation_goes_quiet_by_the_days_asked_and_says_so(tmp_path):
    from kbgraph.relations.staleness import stale_report
    from kbgraph.workspace import Workspace

    vault = _vault(tmp_path)
    page = vault / "people" / "ada-byrne.md"
    page.write_text(page.read_text() + "\n## Relations\n\n- reports-to [[Tom Reyes]]\n")
    (vault / "meetings/2026/11/20/sync.md").write_text("# Sync\n\nAda Byrne and Tom Reyes walked through the plan.\n")
    assert run_kbg("index", "--vault", str(vault)).returncode == 0
    with Workspace.open(str(vault)) as ws:  # 2027-03-01 is 101 days after the last mention of either
        def why(days: int) -> list[str]:
            report = stale_report(ws.store, days, include_relations=True, today="2027-03-01", access=LOCAL)
            return [r["why"] for r in report["relations"] if (r["source"], r["target"]) == ("Ada Byrne", "Tom Reyes")]

        assert why(90) == ["neither end mentioned in 90+ days"]
        assert why(120) == [], "mentioned 101 days ago: not quiet for 120"

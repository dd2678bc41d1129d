"""Co-occurrence suggests collaborators from who attended meetings together, not from names in the text."""

from __future__ import annotations

from .conftest import kbg, run_kbg


def test_co_occurrence_counts_who_attended_not_who_was_named(tmp_path):
    vault = tmp_path / "ones"
    (vault / "people").mkdir(parents=True)
    for name in ("Tom Reyes", "Priya Raman", "Alex Chen", "Ravi Shah"):
        (vault / "people" / f"{name.lower().replace(' ', '-')}.md").write_text(f"---\ntype: person\nname: {name}\n---\n")
    for day in ("03", "10", "17"):
        folder = vault / "meetings" / "2026" / "11" / day
        folder.mkdir(parents=True)
        (folder / "tom-priya-1on1.md").write_text(
            "---\nattendees: [Tom Reyes, Priya Raman]\n---\n# 1:1\n\nWe talked about Alex Chen and Ravi Shah.\n")
    assert run_kbg("init", str(vault)).returncode == 0
    assert run_kbg("index", "--vault", str(vault)).returncode == 0
    pairs = {frozenset((s["source"], s["target"])) for s in kbg(vault, "entity", "suggest-relations")["pending"]
             if s["type"] == "collaborates-with"}
    assert pairs == {frozenset(("Tom Reyes", "Priya Raman"))}

"""Contradictions the notes state themselves: `kbg index` finds them with relate's rules, records each
pair once however often it runs, and changes no relation."""

from __future__ import annotations

from .conftest import kbg, run_kbg


def _page(vault, folder, name, body="", front=""):
    (vault / folder).mkdir(parents=True, exist_ok=True)
    kind = {"people": "person", "projects": "project"}[folder]
    (vault / folder / f"{name.lower().replace(' ', '-')}.md").write_text(
        f"---\ntype: {kind}\nname: {name}\n{front}---\n# {name}\n\n{body}")


def _conflicts(vault):
    return sorted((c["kind"], c["status"], c["subject"], c["old"]["other"], c["new"]["other"])
                  for c in kbg(vault, "graph", "conflicts", "--all")["conflicts"])


def test_index_records_the_contradictions_pages_state_once_and_keeps_both(tmp_path):
    vault = tmp_path / "org"
    for name in ("Ana Lima", "Ben Okafor", "Chen Wei", "Lena Fischer"):
        _page(vault, "people", name)
    _page(vault, "people", "Dana Kowalski",  # two managers at once, undated; a third in another context
          "## Relations\n\n- reports-to [[Ana Lima]]\n- reports-to [[Ben Okafor]]\n"
          "- reports-to [[Lena Fischer]] [context: dotted line]\n")
    _page(vault, "people", "Sam Li", "## Relations\n\n- reports-to [[Chen Wei]] (since 2026-03-01)\n",
          front="reports_to: Ana Lima\n")  # the key, undated, and a dated line: a change of manager
    _page(vault, "people", "Arjun Mehta", "## Relations\n\n- leads [[Project Atlas]]\n")
    _page(vault, "projects", "Project Atlas")
    _page(vault, "people", "Maria Garcia", "## Relations\n\n- leads [[Project Atlas]]\n")  # a second lead
    assert run_kbg("init", str(vault)).returncode == 0
    assert run_kbg("index", "--vault", str(vault)).returncode == 0
    expected = [
        ("contextual", "resolved", "Dana Kowalski", "Ana Lima", "Lena Fischer"),
        ("contextual", "resolved", "Dana Kowalski", "Ben Okafor", "Lena Fischer"),
        ("factual", "open", "Dana Kowalski", "Ana Lima", "Ben Okafor"),
        ("factual", "open", "Project Atlas", "Arjun Mehta", "Maria Garcia"),
        ("temporal", "open", "Sam Li", "Ana Lima", "Chen Wei"),
    ]
    assert _conflicts(vault) == expected
    for again in (("index",), ("index", "--full")):
        assert run_kbg(*again, "--vault", str(vault)).returncode == 0
        assert _conflicts(vault) == expected  # recorded once
    dana = kbg(vault, "entity", "relations", "Dana Kowalski", "--type", "reports-to")
    assert {r["target"] for r in dana["relations"]} == {"Ana Lima", "Ben Okafor", "Lena Fischer"}  # nothing ended
    atlas = kbg(vault, "entity", "relations", "Project Atlas", "--type", "leads")
    assert {r["source"] for r in atlas["inverse_relations"]} == {"Arjun Mehta", "Maria Garcia"}


def test_settling_a_stated_conflict_ends_the_line_and_the_index_does_not_raise_it_again(tmp_path):
    vault = tmp_path / "org"
    for name in ("Ana Lima", "Ben Okafor"):
        _page(vault, "people", name)
    _page(vault, "people", "Dana Kowalski", "## Relations\n\n- reports-to [[Ana Lima]]\n- reports-to [[Ben Okafor]]\n")
    assert run_kbg("init", str(vault)).returncode == 0
    assert run_kbg("index", "--vault", str(vault)).returncode == 0
    (conflict,) = kbg(vault, "graph", "conflicts")["conflicts"]
    kbg(vault, "graph", "resolve", str(conflict["id"]), "--keep", "new")
    assert "- reports-to [[Ana Lima]] (until " in (vault / "people" / "dana-kowalski.md").read_text()
    assert run_kbg("index", "--full", "--vault", str(vault)).returncode == 0
    assert kbg(vault, "graph", "conflicts")["conflicts"] == []
    assert len(kbg(vault, "graph", "conflicts", "--all")["conflicts"]) == 1

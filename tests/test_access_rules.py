"""[access] in kbgraph.toml: who may read a note, from the vault's default, folder rules and frontmatter."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbgraph.access import LOCAL, SENSITIVITIES, VISIBILITIES, Access
from kbgraph.config import config_from_dict
from kbgraph.errors import ConfigError
from kbgraph.ingest.parse import governance

TEAM_VAULT = {"access": {"visibility": "team", "folders": {
    "hr": {"visibility": "private", "sensitivity": "restricted", "owner": "hr"},
    "hr/handbook": {"visibility": "public", "sensitivity": "normal"},
    "notes/public": {"visibility": "public"},
}}}


def _of(path: str, frontmatter: dict | None = None, raw: dict = TEAM_VAULT) -> tuple:
    found = governance(path, frontmatter or {}, config_from_dict(raw))
    return found["owner"], found["visibility"], found["sensitivity"]


def test_without_rules_a_note_is_private_and_normal():
    assert _of("notes/a.md", raw={}) == (None, "private", "normal")


def test_the_vault_default_then_the_deepest_folder_rule_then_frontmatter():
    assert _of("notes/a.md") == (None, "team", "normal")
    assert _of("hr/salaries.md") == ("hr", "private", "restricted")
    assert _of("hr/handbook/leave.md") == ("hr", "public", "normal")  # deeper wins; the owner stays hr's
    assert _of("notes/public/faq.md") == (None, "public", "normal")
    assert _of("hr/salaries.md", {"visibility": "team", "owner": "ana"}) == ("ana", "team", "restricted")


def test_a_folder_rule_matches_whole_folder_names_only():
    assert _of("hrx/a.md") == (None, "team", "normal")
    assert _of("hr.md") == (None, "team", "normal")


def test_frontmatter_visibility_kbgraph_does_not_know_reads_as_private():
    assert _of("notes/public/a.md", {"visibility": "everyone"})[1] == "private"


@pytest.mark.parametrize("raw, message", [
    ({"access": {"visibility": "world"}}, "visibility must be one of"),
    ({"access": {"sensitivity": "secret"}}, "sensitivity must be one of"),
    ({"access": {"folders": {"hr": "private"}}}, "must be a table"),
    ({"access": {"folders": {"../up": {"visibility": "team"}}}}, "inside the vault"),
    ({"access": {"folders": {"hr": {"visiblity": "team"}}}}, "unknown key 'visiblity'"),
    ({"access": {"owner": ""}}, "owner must be"),
    ({"access": {"readers": "team"}}, "unknown key"),
])
def test_bad_access_rules_are_one_line_config_errors(raw, message):
    with pytest.raises(ConfigError, match=message):
        config_from_dict(raw)


@given(visibility=st.sampled_from(VISIBILITIES), sensitivity=st.sampled_from(SENSITIVITIES),
       folder=st.sampled_from(["a", "a/b", "c"]), path=st.sampled_from(["a/x.md", "a/b/y.md", "c/z.md", "d/w.md"]))
def test_a_rule_applies_exactly_to_the_notes_under_its_folder(visibility, sensitivity, folder, path):
    raw = {"access": {"folders": {folder: {"visibility": visibility, "sensitivity": sensitivity}}}}
    under = path.startswith(folder + "/")
    assert _of(path, raw=raw) == (None, visibility if under else "private", sensitivity if under else "normal")


def test_a_team_reader_sees_the_team_folder_and_not_the_private_one(vault):
    """End to end: rules in kbgraph.toml decide what an access context reads in search."""
    from kbgraph.ingest.pipeline import index_vault
    from kbgraph.search.engine import search
    from kbgraph.workspace import Workspace

    with open(vault / "kbgraph.toml", "a", encoding="utf-8") as handle:
        handle.write('\n[access]\nvisibility = "team"\n\n[access.folders]\n"private-notes" = { visibility = "private" }\n')
    (vault / "private-notes").mkdir()
    (vault / "private-notes/quokka.md").write_text("# Quokka plans\n\nThe quokka budget is secret.\n")
    (vault / "notes/quokka-open.md").write_text("# Quokka\n\nThe quokka budget is open.\n")
    index_vault(vault)
    with Workspace.open(str(vault)) as ws:
        team = Access.of("bob", ("team", "public"), "internal")
        paths = {h.path for h in search(ws.store, "quokka", access=team, mode="bm25").hits}
        assert paths == {"notes/quokka-open.md"}
        everyone = {h.path for h in search(ws.store, "quokka", mode="bm25", access=LOCAL).hits}
        assert everyone == {"notes/quokka-open.md", "private-notes/quokka.md"}

"""An entity line says what its page is: `KEP-753 (project "Sidecar Containers"; ...)` in kbg context and
kbg slice, in a few words, only when the title says more than the name, and only to a reader of the page."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbgraph.access import LOCAL, Access
from kbgraph.config import load_config
from kbgraph.context.agent import build_context
from kbgraph.context.cards import TITLE_WORDS, page_title
from kbgraph.context.slice import slice_entities
from kbgraph.ingest.pipeline import index_vault
from kbgraph.store import open_store

from .conftest import run_kbg

CONFIG = """[[entities.pages]]
when = "kep-number"
type = "project"
name = "KEP-{kep-number:int}"
"""
PAGES = {
    "keps/kep-0753.md": "---\ntitle: Sidecar Containers\nkep-number: '753'\nvisibility: public\n---\n"
                        "# KEP-753: Sidecar Containers\n\nSidecar containers start before the main container.\n",
    "keps/kep-0961.md": "---\nkep-number: '961'\nvisibility: private\nowner: zed\n---\n"
                        "# KEP-961: Scheduler framework plugins for every extension point of the scheduler\n\n"
                        "Plugins for the sidecar scheduler.\n",
    "projects/project-atlas.md": "---\ntype: project\nvisibility: public\n---\n# Project Atlas\n\n"
                                 "Atlas runs sidecar containers, see [[KEP-753]] and [[KEP-961]].\n",
}


@pytest.fixture
def keps(tmp_path: Path):
    root = tmp_path / "vault"
    for rel, text in PAGES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / "kbgraph.toml").write_text(CONFIG)
    assert index_vault(root).errors == 0
    store = open_store(root)
    yield root, store
    store.close()


def test_a_context_line_says_what_the_page_is(keps):
    root, store = keps
    packed = build_context(store, load_config(root), "sidecar containers KEP-753 KEP-961 Project Atlas", 400, 10, access=LOCAL)
    lines = {e.name: e.line for e in packed.entities}
    assert lines["KEP-753"].startswith('KEP-753 (project "Sidecar Containers"')  # the frontmatter title, name cut
    long = lines["KEP-961"]  # no frontmatter title: the first heading, cut to a few words
    assert long.startswith('KEP-961 (project "Scheduler framework plugins for every extension…"'), long
    assert lines["Project Atlas"].startswith("Project Atlas (project")  # the title is the name: said once
    assert '"' not in lines["Project Atlas"]
    assert 'KEP-753 (project "Sidecar Containers"' in packed.text and packed.tokens <= 400


def test_a_slice_says_it_too_and_a_reader_of_no_page_learns_no_title(keps):
    root, store = keps
    config = load_config(root)
    who = slice_entities(store, config, ["KEP-753", "KEP-961"], access=LOCAL).entities
    assert who[0].lines[0] == 'KEP-753: project "Sidecar Containers"; mentioned 2x'
    assert who[1].lines[0].startswith('KEP-961: project "Scheduler framework')
    for entity_id in [e.id for e in store.list_entities(LOCAL)]:
        store.set_entity_governance(entity_id, None, "public", "normal")
    reader = Access.of("ana", ["public"], "normal")  # may not read KEP-961's page (zed's, private)
    seen = slice_entities(store, config, ["KEP-753", "KEP-961"], access=reader).entities
    assert seen[0].lines[0].startswith('KEP-753: project "Sidecar Containers"')
    assert seen[1].lines[0].startswith("KEP-961: project;") and "Scheduler" not in "\n".join(seen[1].lines)


def test_the_cli_lines_carry_the_title_within_the_budget(keps):
    root, _ = keps
    out = run_kbg("slice", "KEP-753", "--vault", str(root))
    assert out.returncode == 0 and out.stdout.startswith('KEP-753: project "Sidecar Containers"'), out.stdout
    small = run_kbg("context", "--for", "KEP-753 sidecar", "--budget", "60", "--vault", str(root), "--json")
    import json

    data = json.loads(small.stdout)
    assert data["tokens"] <= 60 and 'KEP-753 (project "Sidecar Containers"' in data["text"]


@pytest.mark.parametrize("name, kind, title, shown", [
    ("KEP-753", "project", "KEP-753: Sidecar Containers", "Sidecar Containers"),
    ("KEP-753", "project", "kep-753 — Sidecar Containers", "Sidecar Containers"),
    ("Project Atlas", "project", "Project Atlas", None),
    ("Atlas", "project", "Project Atlas", None),  # the type's word adds nothing
    ("Ana Lima", "person", "ana-lima", None),  # a title from the file name
    ("X", "project", None, None),
    ("X", "project", 'Say "hi"', "Say 'hi'"),  # the line's own quotes stay unambiguous
    ("X", "project", "one two three four five six seven eight", "one two three four five six…"),
    ("X", "project", "a" * 80, "a" * 48 + "…"),
])
def test_page_title(name, kind, title, shown):
    assert page_title(name, kind, title) == shown
    assert shown is None or len(shown.split()) <= TITLE_WORDS

"""A profile inferred from the vault's frontmatter (issue 28): key roles, meanings, identifiers, and the
index of a vault nobody configured."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, strategies as st

from kbgraph.access import LOCAL
from kbgraph.config import config_from_dict, load_config, merge_inferred
from kbgraph.entities.values import person_value, value_shape
from kbgraph.ingest.pipeline import index_vault
from kbgraph.profile.infer import infer_profile
from kbgraph.store import open_store


def _kep(number: int, authors, sig="sig-node", reviewers=(), see_also=(), extra: str = "") -> str:
    def items(values):
        return "".join(f"\n- '{v}'" for v in values) or " []"

    return (f"---\ntitle: Proposal {number}\nkep-number: '{number:04d}'\nauthors:{items(authors)}\n"
            f"owning-sig: {sig}\nreviewers:{items(reviewers)}\nsee-also:{items(see_also)}\nstatus: implemented\n"
            f"{extra}---\n# KEP-{number}: Proposal {number}\n\nBody of proposal {number}.\n")


def _kep_vault(root: Path) -> Path:
    root.mkdir()
    (root / "kep-0001.md").write_text(_kep(1, ["@ana", "@ben"], reviewers=["@cara"], see_also=["/keps/sig-node/2-two"]))
    (root / "kep-0002.md").write_text(_kep(2, ["@ben"], sig="sig-auth", reviewers=["@ana", "sig-node"],
                                           see_also=["KEP-3"]))
    (root / "kep-0003.md").write_text(_kep(3, ["@cara", "with input from @ana, @ben"], reviewers=["@ben"],
                                           see_also=["https://example.com/doc"], extra="shepherds:\n- sig-auth\n"))
    (root / "kep-0004.md").write_text(_kep(4, ["cara"], sig="sig-auth", reviewers=["@ana"],
                                           extra="shepherds:\n- sig-node\n"))
    (root / "kep-0005.md").write_text(_kep(5, ["@ana"], reviewers=["@cara"], extra="shepherds: [sig-node]\n"))
    return root


def _notes(root: Path):
    from kbgraph.base.vault import split_frontmatter

    return [(p.name, split_frontmatter(p.read_text())[0]) for p in sorted(root.glob("*.md"))]


def test_keys_get_roles_and_meanings(tmp_path):
    inferred = infer_profile(_notes(_kep_vault(tmp_path / "v")))
    roles = {r.key: (r.role, r.meaning) for r in inferred.roles}
    assert roles["kep-number"] == ("identifier", None)
    assert roles["authors"] == ("people", "authored")
    assert roles["reviewers"] == ("people", "reviews")
    assert roles["owning-sig"] == ("groups", "owned-by")
    assert roles["see-also"] == ("pages", "related-to")
    assert roles["shepherds"] == ("groups", "shepherds")  # unknown key holding references: named after it
    assert "status" not in roles  # a key that says what a note is, never whom it names
    assert [r for r in inferred.roles if r.key == "shepherds"][0].named_after_key
    rule = inferred.raw["entities"]["pages"][0]
    assert rule == {"when": "kep-number", "type": "kep", "name": "KEP-{kep-number:int}", "aliases": ["KEP {kep-number:int}"]}
    frontmatter = inferred.raw["relations"]["frontmatter"]
    assert frontmatter["authors"]["direction"] == "to-page" and frontmatter["authors"]["entity"] == "person"
    assert inferred.raw["relations"]["types"]["shepherds"]["inverse"] == "shepherds-of"
    config_from_dict(inferred.raw)  # the inferred profile is a valid kbgraph.toml


def test_a_key_the_user_configured_wins(tmp_path):
    user = {"relations": {"frontmatter": {"authors": {"type": "contributor", "entity": "person"}}}}
    inferred = infer_profile(_notes(_kep_vault(tmp_path / "v")), user)
    assert "authors" not in inferred.raw["relations"]["frontmatter"]
    merged = merge_inferred(user, inferred.raw)
    assert merged["relations"]["frontmatter"]["authors"] == {"type": "contributor", "entity": "person"}
    assert "reviewers" in merged["relations"]["frontmatter"]
    assert user == {"relations": {"frontmatter": {"authors": {"type": "contributor", "entity": "person"}}}}


def test_a_vault_of_ordinary_pages_infers_nothing_the_defaults_read(tmp_path):
    root = tmp_path / "v"
    (root / "people").mkdir(parents=True)
    for name, role in (("Ana Lima", "Engineering Manager"), ("Ben Okafor", "VP Engineering"),
                       ("Cara Diaz", "Staff Engineer")):
        (root / "people" / f"{name.split()[0].lower()}.md").write_text(
            f"---\ntype: person\nname: {name}\nrole: {role}\nteam: Platform\nreports_to: Ben Okafor\n---\n# {name}\n")
    assert infer_profile(_notes_nested(root)).raw == {}


def _notes_nested(root: Path):
    from kbgraph.base.vault import split_frontmatter

    return [(str(p.relative_to(root)), split_frontmatter(p.read_text())[0]) for p in sorted(root.rglob("*.md"))]


def test_the_unconfigured_vault_has_a_graph_from_its_first_index(tmp_path):
    root = _kep_vault(tmp_path / "v")
    index_vault(root)
    assert not (root / "kbgraph.toml").exists()  # nothing written to the user's config
    assert json.loads((root / ".kbgraph" / "profile.json").read_text())["profile"]
    store = open_store(root)
    try:
        entities = {(e.type, e.name) for e in store.list_entities(LOCAL)}
        relations = {(r["source"], r["type"], r["target"]) for r in store.relations_of_type(LOCAL, None)}
    finally:
        store.close()
    assert ("kep", "KEP-1") in entities and ("team", "sig-node") in entities
    assert ("person", "sig-node") not in entities  # a group listed among reviewers is no person
    assert not any("input from" in name for _, name in entities)  # a sentence names no one
    assert ("@ana", "authored", "KEP-1") in relations and ("KEP-1", "owned-by", "sig-node") in relations
    assert ("@cara", "authored", "KEP-4") in relations  # "cara" written bare is @cara
    assert ("KEP-1", "related-to", "KEP-2") in relations or ("KEP-2", "related-to", "KEP-1") in relations
    assert ("@cara", "reviews", "KEP-1") in relations and ("KEP-3", "shepherds", "sig-auth") in relations
    assert load_config(root).frontmatter_relations  # other commands read the same profile


def test_profile_inference_can_be_turned_off(tmp_path):
    root = _kep_vault(tmp_path / "v")
    (root / "kbgraph.toml").write_text("[profile]\ninfer = false\n")
    index_vault(root)
    store = open_store(root)
    try:
        assert store.relations_of_type(LOCAL, None) == []
    finally:
        store.close()


def test_value_shapes():
    assert person_value("@deads2k - For Kube API Server portion of KEP") == ("person", "@deads2k")
    assert person_value("@ahg-g") == ("person", "@ahg-g")
    assert person_value("with input from @bgrant0607, @dchen1107, @yujuhong") is None
    assert person_value("sig-node") == ("team", "sig-node")
    assert person_value("@kubernetes/wg-component-standard") == ("team", "@kubernetes/wg-component-standard")
    assert person_value("Kubelet garbage collection WG") == ("team", "Kubelet garbage collection WG")
    assert person_value("Jan van der Berg") == ("person", "Jan van der Berg")
    assert person_value("Okafor, Ben") == ("person", "Okafor, Ben")
    assert person_value("KEP-12") is None
    assert value_shape("/keps/sig-node/4381-dra") == "path"


_NAMES = st.sampled_from(["Ana Lima", "Ben Okafor", "Cara Diaz", "María García", "Dana Kowalski"])
_HANDLES = st.from_regex(r"@[a-z][a-z0-9]{2,8}", fullmatch=True)


@given(st.lists(st.one_of(_NAMES, _HANDLES), min_size=3, max_size=12), st.sampled_from(["authors", "approvers"]))
def test_a_key_of_people_is_people_whatever_they_are(values, key):
    notes = [(f"n{i}.md", {"kep-number": str(i), key: [v]}) for i, v in enumerate(values)]
    roles = {r.key: r for r in infer_profile(notes).roles}
    assert roles[key].role == "people"
    assert person_value(values[0]) == ("person", values[0])


@given(st.lists(st.from_regex(r"sig-[a-z]{3,9}", fullmatch=True), min_size=3, max_size=12))
def test_sig_values_are_groups_and_never_people(values):
    notes = [(f"n{i}.md", {"kep-number": str(i), "owning-sig": v, "reviewers": [v]}) for i, v in enumerate(values)]
    roles = {r.key: r for r in infer_profile(notes).roles}
    assert roles["owning-sig"].role == "groups"
    assert roles["reviewers"].role != "people"
    assert all(person_value(v) == ("team", v) for v in values)


def test_notes_named_by_their_number_are_identifier_pages(tmp_path):
    root = tmp_path / "v"
    (root / "docs" / "adr").mkdir(parents=True)
    for n, slug, extra in ((1, "record-decisions", ""), (2, "use-postgres", "supersedes: [0001-record-decisions.md]\n"),
                           (3, "use-kafka", "superseded-by: [ADR-0004]\n"), (4, "use-pulsar", "replaces: [ADR-3]\n")):
        (root / "docs" / "adr" / f"{n:04d}-{slug}.md").write_text(
            f"---\nstatus: accepted\ndeciders: [Ana Lima, Ben Okafor]\n{extra}---\n# {slug}\n")
    (root / "docs" / "adr" / "README.md").write_text("# Decisions\n")
    inferred = infer_profile(_notes_nested(root))
    assert inferred.raw["entities"]["pages"][0]["name"] == "ADR-{int}"
    assert inferred.raw["relations"]["frontmatter"]["deciders"]["type"] == "decides"
    import tomllib

    from kbgraph.profile.toml_text import profile_toml

    assert tomllib.loads(profile_toml(inferred)) == inferred.raw  # the path's regex survives TOML
    index_vault(root)
    store = open_store(root)
    try:
        entities = {(e.type, e.name) for e in store.list_entities(LOCAL)}
        relations = {(r["source"], r["type"], r["target"]) for r in store.relations_of_type(LOCAL, None)}
        kinds = dict(store.db.execute("SELECT path, kind FROM documents"))
    finally:
        store.close()
    assert {("adr", "ADR-1"), ("adr", "ADR-4")} <= entities and ("adr", "ADR-0") not in entities
    assert kinds["docs/adr/0002-use-postgres.md"] == "adr" and kinds["docs/adr/README.md"] == "note"
    assert ("Ana Lima", "decides", "ADR-2") in relations


def test_a_frontmatter_longer_than_the_head_read_is_read_whole(tmp_path):
    from kbgraph.profile.vault import HEAD_BYTES, infer_vault_profile

    root = _kep_vault(tmp_path / "v")
    long = "x" * (HEAD_BYTES + 100)
    for path in root.glob("*.md"):
        text = path.read_text()
        path.write_text(text.replace("status: implemented\n", f"status: implemented\nnotes: {long}\n"
                                     "approvers:\n- '@dee'\n- '@évé'\n", 1))
    roles = {r.key: r.role for r in infer_vault_profile(root).roles}
    assert roles["approvers"] == "people" and roles["authors"] == "people"


def test_a_kind_key_names_the_kind_where_no_folder_does(tmp_path):
    from kbgraph.config import config_from_dict
    from kbgraph.ingest.parse import document_kind

    config = config_from_dict({})
    assert document_kind("notes/a.md", {"kind": "Person"}, config) == "person"
    assert document_kind("people/a.md", {"kind": "contractor"}, config) == "person"  # the folder says first
    assert document_kind("people/a.md", {"type": "project", "kind": "x"}, config) == "project"


def _indexed_names(root: Path, entity_type: str) -> set[str]:
    """Index root; the names of its entities of entity_type."""
    index_vault(root)
    store = open_store(root)
    try:
        return {e.name for e in store.list_entities(LOCAL) if e.type == entity_type}
    finally:
        store.close()


def test_an_identifier_written_as_the_identifier_names_its_page_once(tmp_path):
    # `kep-number: KEP-4` made 'KEP-KEP-4' and `kep-number: -6` made 'KEP--6' ("KEP-{kep-number:int}" took
    # the value as it was when it was not a bare number); found in review.
    root = _kep_vault(tmp_path / "v")
    (root / "kep-0004.md").write_text(_kep(4, ["cara"]).replace("kep-number: '0004'", "kep-number: KEP-4"))
    (root / "kep-0006.md").write_text(_kep(6, ["@ana"]).replace("kep-number: '0006'", "kep-number: -6"))
    names = _indexed_names(root, "kep")
    assert {"KEP-1", "KEP-4"} <= names and not any(n.startswith(("KEP-KEP", "KEP--")) for n in names), names


def test_a_sentence_or_a_number_under_a_team_key_is_no_team(tmp_path):
    # owning-sig: "The node SIG, though storage folks ..." became a team with an owned-by relation, and
    # owning-sig: [sig-x, null, 3] a team named '3' (found in review).
    root = _kep_vault(tmp_path / "v")
    (root / "kep-0006.md").write_text(_kep(6, ["@ana"], sig="'The node SIG, though storage folks were also heavily"
                                                           " involved in the design work'"))
    (root / "kep-0007.md").write_text(_kep(7, ["@ben"], sig="[sig-auth, 3]"))
    teams = _indexed_names(root, "team")
    assert "sig-auth" in teams and "3" not in teams and not any("storage folks" in t for t in teams), teams

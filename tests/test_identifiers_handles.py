"""Identifiers are exact, handles are people (issue 28): KEP-1288 is never asked about as KEP-1488, a
KEP is found as 'kep 1288', @liggitt / liggitt / a page named Liggitt are one person, and a near-miss
handle (@liggit) is asked about, not made a new person silently."""

from __future__ import annotations

from kbgraph.access import LOCAL
from kbgraph.entities.lookup import find_entity
from kbgraph.ingest.pipeline import index_vault
from kbgraph.entities.keys import parse_name
from kbgraph.resolve.model import EntityProfile, MentionInfo
from kbgraph.resolve.resolver import ResolverIndex
from kbgraph.store import open_store


def test_an_identifier_is_matched_exactly_or_not_at_all():
    assert parse_name("KEP-1288").kind == "identifier" and parse_name("kep 1288").compact == "kep1288"
    assert parse_name("RFC 2119").kind == "identifier" and parse_name("PEP 8").kind == "identifier"
    assert parse_name("@msau42").kind == "handle" and parse_name("Ana Lima").kind == "name"
    index = ResolverIndex([EntityProfile(0, "kep", "KEP-1488"), EntityProfile(1, "kep", "KEP-1288"),
                           EntityProfile(2, "kep", "KEP-2497", ("Kubernetes Enhancement Process",)),
                           EntityProfile(3, "person", "Kuber Netes")])
    assert index.resolve(MentionInfo("KEP-1288")).best.entity_id == 1
    assert index.resolve(MentionInfo("kep 1288")).outcome == "auto-link"
    for surface in ("KEP-1289", "KEP-148", "ADR-1488"):
        decision = index.resolve(MentionInfo(surface))
        assert decision.outcome == "new" and not decision.candidates, surface
    assert all(c.entity_id != 2 for c in index.resolve(MentionInfo("kubernetes", "person")).candidates)
    assert index.resolve(MentionInfo("Kubernetes Enhancement Process")).best.entity_id == 2  # its exact alias


def _kep(number: int, reviewers: list[str], see_also: str = "n/a") -> str:
    listed = "".join(f"\n- '{r}'" for r in reviewers)
    return (f"---\ntitle: Proposal {number}\nkep-number: {number}\nauthors: ['@ana']\nowning-sig: sig-node\n"
            f"reviewers:{listed}\nsee-also: ['{see_also}']\n---\n# KEP-{number}\n\nText.\n")


def test_a_kep_vault_finds_its_pages_by_any_spelling_and_asks_only_the_handle_slip(tmp_path):
    root = tmp_path / "v"
    root.mkdir()
    for n in range(1, 8):
        reviewers = ["@liggit"] if n == 7 else ["@liggitt", "@cara"]
        (root / f"kep-{n:04d}.md").write_text(_kep(n, reviewers, see_also=f"/keps/sig-node/{n + 10}-other"))
    (root / "kep-0008.md").write_text(_kep(8, ["liggitt"], see_also="KEP-1288"))
    index_vault(root)
    store = open_store(root)
    try:
        for spelling in ("KEP-2", "kep 2", "KEP2", "kep-0002"):
            assert find_entity(store, spelling, access=LOCAL).name == "KEP-2", spelling
        asked = store.decisions(LOCAL, "asked")
        assert [(q["surface"], q["candidate_name"]) for q in asked] == [("@liggit", "@liggitt")]
        names = {e.name for e in store.list_entities(LOCAL) if e.type == "person"}
        assert {"@liggitt", "@liggit"} <= names and "liggitt" not in names  # asked, not merged; bare is @liggitt
        assert find_entity(store, "liggitt", access=LOCAL).name == "@liggitt"
        keps = {e.name for e in store.list_entities(LOCAL) if e.type == "kep"}
        assert {"KEP-11", "KEP-1288"} <= keps  # referenced identifiers, never asked about as KEP-1 or KEP-128
    finally:
        store.close()


def test_a_handle_names_the_page_named_by_it(tmp_path):
    root = tmp_path / "v"
    (root / "people").mkdir(parents=True)
    (root / "people" / "liggitt.md").write_text("---\ntype: person\nname: Liggitt\n---\n# Liggitt\n")
    (root / "notes").mkdir()
    (root / "notes" / "a.md").write_text("---\nreviewers: ['@liggitt']\n---\n# A\n\nAsk @liggitt first.\n")
    (root / "notes" / "b.md").write_text("---\nreviewers: [liggitt]\n---\n# B\n")
    index_vault(root)
    store = open_store(root)
    try:
        people = [e for e in store.list_entities(LOCAL) if e.type == "person"]
        assert [e.name for e in people] == ["Liggitt"]
        assert find_entity(store, "@liggitt", access=LOCAL).name == "Liggitt"
        mentions = store.db.execute("SELECT count(*) FROM mentions WHERE entity_id = ?", [people[0].id]).fetchone()[0]
        assert mentions >= 3  # two frontmatter references and @liggitt in the prose
    finally:
        store.close()

"""Entities on every backend: sync keeps ids by key, names answer lookups, mentions make the stats and
the documents an entity appears in, activity dates come from what people wrote."""

from __future__ import annotations

from kbgraph.access import LOCAL, Access
from kbgraph.model import Mention

from .builders import relation
from .core_builders import parsed, sync, write


def test_sync_keeps_ids_by_key_replaces_names_and_returns_what_no_record_keeps(store):
    page = write(store, parsed("people/ana.md", "Ana's page"))
    first = sync(store, ("Ana Lee", ("Annie",)), ("Ben Ortiz", ()), page_docs={"Ana Lee": page})
    ana, ben = first.ids["person:ana lee"], first.ids["person:ben ortiz"]
    assert first.gone == {}
    assert store.entity_ids_by_key() == {"person:ana lee": ana, "person:ben ortiz": ben}
    assert store.page_entity_ids() == {page: (ana, "Ana Lee", "person")}
    entity = store.get_entity(LOCAL, ana)
    assert (entity.name, entity.aliases, entity.page_path, entity.attributes) == (
        "Ana Lee", ("Annie",), "people/ana.md", {"team": "core"})
    assert sorted(store.entity_forms()) == sorted([(ana, "Ana Lee", "name"), (ana, "Annie", "alias"),
                                                   (ana, "Ana", "first-name"), (ben, "Ben Ortiz", "name"),
                                                   (ben, "Ben", "first-name")])
    assert store.name_kinds("annie") == [(ana, "alias")]
    assert store.known_name_keys(["ana", "annie", "nobody"]) == {"ana", "annie"}
    assert store.keys_by_loose_key(["analee", "benortiz", "x"]) == {"analee": {"ana lee"}, "benortiz": {"ben ortiz"}}
    assert [e.id for e in store.entities_by_name_key(LOCAL, "ana")] == [ana]

    second = sync(store, ("Ana Lee", ()), ("Cy", ()))
    assert second.ids["person:ana lee"] == ana and second.gone == {"person:ben ortiz": ben}
    assert store.name_kinds("annie") == [] and store.page_entity_ids() == {}
    with store.transaction():
        store.delete_entities([ben], "2026-03-02T00:00:00+00:00")
    assert set(store.entity_ids_by_key()) == {"person:ana lee", "person:cy"}


def test_lookups_order_by_mentions_then_name_and_read_through_access(store):
    ids = sync(store, ("Sam Li", ()), ("Sam Ortiz", ()), ("Ana", ())).ids
    li, ortiz = ids["person:sam li"], ids["person:sam ortiz"]
    doc = write(store, parsed("a.md", "Sam Ortiz and Sam Ortiz"))
    with store.transaction():
        store.replace_mentions([(doc, [(None, Mention(ortiz, 0, 9, "Sam Ortiz", "text")),
                                       (None, Mention(ortiz, 14, 23, "Sam Ortiz", "text"))])])
        store.refresh_entity_stats(((10, 3), (2, 2)))
        store.set_entity_governance(li, "ana", "private", "normal")
    assert [e.name for e in store.entities_by_name_key(LOCAL, "sam")] == ["Sam Ortiz", "Sam Li"]
    ben = Access.of("ben", ("public", "team", "private"))
    assert [e.name for e in store.entities_by_name_key(Access.of("ana"), "sam")] == ["Sam Li"]
    assert [e.name for e in store.entities_by_name_key(ben, "sam")] == ["Sam Ortiz", "Sam Li"]
    assert [e.name for e in store.list_entities(LOCAL, "person")] == ["Sam Ortiz", "Ana", "Sam Li"]
    assert [e.name for e in store.list_entities(LOCAL, "person", limit=1)] == ["Sam Ortiz"]
    assert sorted(n for _, n in store.all_entity_names(Access.of("ana"))) == ["Sam", "Sam Li"]


def test_stats_and_entity_documents_come_from_mentions_in_dated_documents(store):
    ids = sync(store, ("Ana", ()), ("Ben", ())).ids
    ana, ben = ids["person:ana"], ids["person:ben"]
    early = write(store, parsed("early.md", "Ana", date="2025-12-01"))
    late = write(store, parsed("late.md", "Ana and Ana", date="2026-02-01"))
    undated = write(store, parsed("undated.md", "Ana", date=None))
    with store.transaction():
        store.replace_mentions([
            (early, [(None, Mention(ana, 0, 3, "Ana", "text"))]),
            (late, [(None, Mention(ana, 0, 3, "Ana", "text")), (None, Mention(ana, 8, 11, "Ana", "wikilink")),
                    (None, Mention(ana, None, None, "Ana", "frontmatter"))]),
            (undated, [(None, Mention(ana, 0, 3, "Ana", "text"))])])
        store.refresh_entity_stats(((5, 3), (3, 2)))
    assert (store.get_entity(LOCAL, ana).mention_count, store.get_entity(LOCAL, ana).tier) == (5, 3)
    assert (store.get_entity(LOCAL, ben).mention_count, store.get_entity(LOCAL, ben).tier) == (0, 1)
    docs = store.entity_documents(LOCAL, ana)
    assert [(d["path"], d["mentions"], d["mention_kinds"]) for d in docs] == [
        ("early.md", 1, ["text"]), ("late.md", 3, ["frontmatter", "text", "wikilink"]), ("undated.md", 1, ["text"])]
    assert [d["path"] for d in store.entity_documents(LOCAL, ana, limit=1)] == ["early.md"]
    assert store.entity_documents(LOCAL, ben) == []


def test_activity_takes_the_later_of_the_page_date_and_a_user_relation(store):
    page = write(store, parsed("people/ana.md", "page", date="2026-01-05", frontmatter={"updated": "2026-02-10"}))
    plain = write(store, parsed("people/ben.md", "page", date="2026-01-07"))
    note = write(store, parsed("notes/n.md", "Ana", date="2026-03-03"))
    ids = sync(store, ("Ana", ()), ("Ben", ()), ("Cy", ()), page_docs={"Ana": page, "Ben": plain}).ids
    ana, ben, cy = ids["person:ana"], ids["person:ben"], ids["person:cy"]
    with store.transaction():
        store.replace_mentions([(note, [(None, Mention(ana, 0, 3, "Ana", "text"))]),
                                (page, [(None, Mention(ana, 0, 3, "Ana", "text"))])])  # its own page: not activity
    relation(store, cy, ben, "works-with", now="2026-01-20T08:00:00+00:00")
    got = {a["name"]: (a["last_mentioned"], a["last_updated"]) for a in store.entity_activity(LOCAL)}
    assert got == {"Ana": ("2026-03-03", "2026-02-10"), "Ben": (None, "2026-01-20"), "Cy": (None, "2026-01-20")}
    assert [a["id"] for a in store.entity_activity(LOCAL)] == [ana, ben, cy]


def test_entity_surfaces_lists_one_kind_of_spelling(store):
    """A profile shows the names a user confirmed for an entity: its "confirmed" spellings, sorted."""
    from kbgraph.store.base import EntityName
    from kbgraph.model import EntityRecord

    record = EntityRecord("person:tom becker", "person", "Tom Becker", ("Tommy",), None,
                          (("Tom Becker", "name"),), {})
    names = [EntityName("person:tom becker", "Tom Becker", "name", "tom becker", "tombecker"),
             EntityName("person:tom becker", "Tommy", "alias", "tommy", "tommy"),
             EntityName("person:tom becker", "T. Becker", "confirmed", "t. becker", "tbecker"),
             EntityName("person:tom becker", "Becker, T.", "confirmed", "becker, t.", "beckert")]
    with store.transaction():
        tom = store.sync_entities([record], names, "2026-01-01T00:00:00+00:00").ids["person:tom becker"]
    assert store.entity_surfaces(tom, "confirmed") == ["Becker, T.", "T. Becker"]
    assert store.entity_surfaces(tom, "alias") == ["Tommy"] and store.entity_surfaces(tom + 1, "alias") == []


def test_stats_of_some_entities_are_refreshed_and_the_others_kept(store):
    ids = sync(store, ("Ana", ()), ("Ben", ()), ("Cy", ())).ids
    ana, ben, cy = ids["person:ana"], ids["person:ben"], ids["person:cy"]
    one = write(store, parsed("one.md", "Ana Ben", date="2026-01-02"))
    two = write(store, parsed("two.md", "Ben Cy", date="2026-03-04"))
    with store.transaction():
        store.replace_mentions([
            (one, [(None, Mention(ana, 0, 3, "Ana", "text")), (None, Mention(ben, 4, 7, "Ben", "text"))]),
            (two, [(None, Mention(ben, 0, 3, "Ben", "text")), (None, Mention(cy, 4, 6, "Cy", "text"))])])
        store.refresh_entity_stats(((5, 3), (2, 2)))
    assert store.mentioned_entities([one]) == {ana, ben} and store.mentioned_entities([one, two]) == {ana, ben, cy}
    assert store.mentioned_entities([]) == set()
    with store.transaction():  # Ben leaves one.md; only Ben's stats are asked for, Cy's are left stale on purpose
        store.replace_mentions([(one, [(None, Mention(ana, 0, 3, "Ana", "text"))]),
                                (two, [(None, Mention(ben, 0, 3, "Ben", "text"))])])
        store.refresh_entity_stats(((5, 3), (2, 2)), [ben])
    stats = {e: store.get_entity(LOCAL, e) for e in (ana, ben, cy)}
    assert (stats[ben].mention_count, stats[ben].tier) == (1, 1)
    assert [d["path"] for d in store.entity_documents(LOCAL, ben)] == ["two.md"]
    assert stats[cy].mention_count == 1 and stats[ana].mention_count == 1  # not refreshed: as they were
    with store.transaction():
        store.refresh_entity_stats(((5, 3), (2, 2)), [])
        assert store.get_entity(LOCAL, cy).mention_count == 1
        store.refresh_entity_stats(((5, 3), (2, 2)))
    assert store.get_entity(LOCAL, cy).mention_count == 0

"""Fuzzy name lookup on every backend: the entities with a spelling like a mistyped name, by pg_trgm's
trigram similarity (PostgreSQL's own, SQLite's equal to it), the same candidates in the same order on
both, only what the reader may read, filtered before the limit."""

from __future__ import annotations

import pytest

from kbgraph.access import LOCAL, Access
from kbgraph.model import EntityRecord
from kbgraph.store.base import EntityName

from .core_builders import NOW

PEOPLE = [("person", "Arjun Mehta", ("AJ",)), ("person", "Arjun Mehra", ()), ("person", "Ben Okafor", ()),
          ("person", "Sam Li", ()), ("person", "Søren Kask", ()), ("person", "Jean-Luc Picard", ()),
          ("project", "Atlas", ()), ("project", "Atlas Mobile", ())]


def _entities(store) -> dict[str, int]:
    """The entities above, with their names, aliases and first names as lookup keys (folded: lower case)."""
    records, names = [], []
    for kind, name, aliases in PEOPLE:
        key = f"{kind}:{name.lower()}"
        records.append(EntityRecord(key=key, type=kind, name=name, aliases=aliases, page_doc_id=None,
                                    attributes={}, forms=((name, "name"),)))
        spellings = [(name, "name"), *((a, "alias") for a in aliases)]
        if kind == "person" and " " in name:
            spellings.append((name.split()[0], "first-name"))
        names += [EntityName(key, s, k, s.lower(), s.lower()) for s, k in spellings]
    with store.transaction():
        ids = store.sync_entities(records, names, NOW).ids
    return {name: ids[f"{kind}:{name.lower()}"] for kind, name, _ in PEOPLE}


def _found(matches) -> list[tuple[str, str, float]]:
    return [(m.name, m.spelling, round(m.similarity, 4)) for m in matches]


@pytest.mark.parametrize("typed, expected", [
    ("ben okafr", [("Ben Okafor", "Ben Okafor", 0.6154)]),  # 8 of 13 trigrams shared
    ("arjn", [("Arjun Mehra", "Arjun", 0.375), ("Arjun Mehta", "Arjun", 0.375)]),  # a tie: by name
    ("jean luc picard", [("Jean-Luc Picard", "Jean-Luc Picard", 1.0)]),  # '-' separates words, as a space
    ("soren kask", [("Søren Kask", "Søren Kask", 0.5714)]),  # ø is a letter of its own, not an o
    ("aj", [("Arjun Mehta", "AJ", 1.0)]),  # an alias is a spelling
    ("zzz", []),
])
def test_a_mistyped_name_finds_the_same_candidates_on_every_backend(store, typed, expected):
    _entities(store)
    assert _found(store.similar_entity_names(LOCAL, typed, "person")) == expected


def test_each_entity_once_with_its_closest_spelling_closest_first_and_the_limit_after(store):
    _entities(store)
    found = store.similar_entity_names(LOCAL, "arjun mehta")
    assert _found(found) == [("Arjun Mehta", "Arjun Mehta", 1.0), ("Arjun Mehra", "Arjun Mehra", 0.6)]
    assert _found(store.similar_entity_names(LOCAL, "arjun mehta", limit=1)) == [("Arjun Mehta", "Arjun Mehta", 1.0)]
    assert _found(store.similar_entity_names(LOCAL, "atlas mobil", "project")) == [
        ("Atlas Mobile", "Atlas Mobile", 0.7857), ("Atlas", "Atlas", 0.5)]  # 11 of 14, 6 of 12
    assert store.similar_entity_names(LOCAL, "atlas mobil", "person") == []


def test_only_what_the_reader_may_read_is_a_candidate_and_the_limit_comes_after(store):
    ids = _entities(store)
    with store.transaction():
        store.set_entity_governance(ids["Arjun Mehta"], "ana", "private", "normal")
        store.set_entity_governance(ids["Arjun Mehra"], "ben", "team", "normal")
    ben = Access.of("ben", ("public", "team"))
    # Ben may not read Ana's private Arjun Mehta, the closer one: the one he may read still fills the limit.
    assert _found(store.similar_entity_names(ben, "arjun mehta", limit=1)) == [("Arjun Mehra", "Arjun Mehra", 0.6)]
    assert [m.name for m in store.similar_entity_names(Access.of("ana"), "arjun mehta")] == ["Arjun Mehta"]
    assert store.similar_entity_names(Access.of("cy", ("public",)), "arjun mehta") == []

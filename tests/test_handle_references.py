"""A GitHub-style handle written with and without its @ in references is one person (the KEP vault
writes 59 of its 780 handles both ways, and they were two entities each)."""

from __future__ import annotations

from kbgraph.entities.assemble import assemble_entities
from kbgraph.model import EntityClaim


def _ref(doc_id: int, name: str, entity_type: str = "person") -> EntityClaim:
    return EntityClaim(doc_id, f"keps/{doc_id}.md", entity_type, name, (), "reference", "reviewers", {})


def _names(claims: list[EntityClaim]) -> dict[str, str]:
    records, resolved = assemble_entities(claims)
    by_key = {r.key: r.name for r in records}
    return {name: by_key[key] for (_, _, name), key in resolved.items()}


def test_a_bare_handle_names_the_entity_its_at_spelling_names_whichever_note_comes_first():
    for claims in ([_ref(1, "liggitt"), _ref(2, "@liggitt")], [_ref(1, "@liggitt"), _ref(2, "liggitt")]):
        assert _names(claims) == {"liggitt": "@liggitt", "@liggitt": "@liggitt"}


def test_a_bare_name_without_an_at_twin_and_other_types_stay_as_they_are():
    names = _names([_ref(1, "cjwagner"), _ref(2, "@verb"), _ref(3, "Ana Lima"), _ref(4, "verb", "technology")])
    assert names == {"cjwagner": "cjwagner", "@verb": "@verb", "Ana Lima": "Ana Lima", "verb": "verb"}


def test_a_page_named_by_the_bare_handle_keeps_its_references():
    page = EntityClaim(9, "people/liggitt.md", "person", "liggitt", (), "page", None, {})
    names = _names([page, _ref(1, "liggitt"), _ref(2, "@liggitt")])
    assert names["liggitt"] == "liggitt", "the page is who the bare name means"


def test_typographic_quotes_around_a_reference_are_not_part_of_the_name():
    """Four KEPs list reviewers as “@mortent”: an entity named with the quotes was a fifth person."""
    from kbgraph.entities.names import as_name_list

    assert as_name_list(["“@mortent”", "‘Ana Lima’", "«Ben»", "O'Neil", "'"]) == ["@mortent", "Ana Lima", "Ben",
                                                                                   "O'Neil", "'"]

"""Pages of one type and name that are two entities: their identifiers disagree.

Pages that carry one name are one entity, unless a birth date, id number, email or phone says two
people (entities/identifiers.py): then each group of agreeing pages is an entity of its own, and the
name is ambiguous (a lookup lists both, a reference by the name alone is asked about).

Pages are grouped in path order: a page joins the first group none of whose identifiers it disagrees
with (a page with no identifier joins the first group), else it starts a new group.

Keys. One group keeps the name's plain key (entity_key(type, name)), so what the user said about the
entity before a namesake page appeared (merges, answers) still holds; the others are the plain key
qualified by their first page's path ("person:john smith#people/john-smith-2.md"). `previous` (a page
path -> the key of the entity it was the own page of, at the last index) keeps each group's key from one
index to the next: a group takes a key one of its pages had, if no group before it took it; else the
group of the first page takes the plain key. Without a previous index (`index --full` into a fresh
store, an import) the keys depend on the files only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..model import EntityClaim
from .identifiers import disagreement, identifiers

AMBIGUOUS_SUFFIX = "#?"  # the key of the placeholder a reference by a split name alone makes


def qualified_key(plain: str, path: str) -> str:
    return f"{plain}#{path}"


def split_groups(pages: list[EntityClaim]) -> list[list[EntityClaim]]:
    """The pages of one type and name (path order) as groups of pages whose identifiers agree."""
    groups: list[tuple[list[EntityClaim], list[dict[str, frozenset[str]]]]] = []
    for page in pages:
        ids = identifiers(page.attributes)
        for members, seen in groups:
            if not ids or all(disagreement(ids, other) is None for other in seen):
                members.append(page)
                seen.append(ids)
                break
        else:
            groups.append(([page], [ids]))
    return [members for members, _ in groups]


def page_keys(pages: list[EntityClaim], plain_key: Callable[[EntityClaim], str],
              previous: Callable[[], Mapping[str, str]] = dict) -> dict[int, str]:
    """doc id -> the key of the entity each page is (plain for every page of a name not split)."""
    by_name: dict[str, list[EntityClaim]] = {}
    for page in sorted(pages, key=lambda c: c.doc_path):
        by_name.setdefault(plain_key(page), []).append(page)
    out: dict[int, str] = {}
    before: Mapping[str, str] | None = None
    for plain, named in by_name.items():
        groups = split_groups(named) if len({p.doc_id for p in named}) > 1 else [named]
        if len(groups) == 1:
            out.update((p.doc_id, plain) for p in named)
            continue
        before = previous() if before is None else before
        for members, key in zip(groups, _group_keys(plain, groups, before)):
            out.update((p.doc_id, key) for p in members)
    return out


def _group_keys(plain: str, groups: list[list[EntityClaim]], before: Mapping[str, str]) -> list[str]:
    mine = {plain} | {qualified_key(plain, p.doc_path) for g in groups for p in g}
    taken: set[str] = set()
    keys: list[str | None] = []
    for members in groups:
        had = [before[p.doc_path] for p in members if before.get(p.doc_path) in mine - taken]
        keys.append(had[0] if had else None)
        taken.update(had[:1])
    if plain not in taken:
        first = keys.index(None) if None in keys else None
        if first is not None:
            keys[first] = plain
            taken.add(plain)
    out = []
    for key, members in zip(keys, groups):
        if key is None:  # a page's own path, unless a group that had it as its key keeps it
            key = next((q for p in members if (q := qualified_key(plain, p.doc_path)) not in taken), None)
            key = key or qualified_key(plain, f"{members[0].doc_path}#{len(out)}")
            taken.add(key)
        out.append(key)
    return out

"""Entity records from what documents claim, and the forms used to find their mentions.

Assembly is pure: given every claim in the index (pages and frontmatter
references), it returns the entity set. Pages define an entity's canonical name,
aliases and attributes; a reference joins the entity whose name or alias it
spells (same type first, else a unique match of any type), and only otherwise
creates a referenced-only entity.
"""

from __future__ import annotations

import re

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .mentions import Form, derived_first_name
from ..model import EntityClaim, EntityRecord, Merge
from .names import listed_names, name_key, page_link_keys
from .namesakes import AMBIGUOUS_SUFFIX, page_keys

LINE_TARGET_FIELD = "relations"  # the field of a `## Relations` line's target claim (a frontmatter one: its key)


@dataclass
class _Builder:
    key: str
    type: str
    name: str
    aliases: list[str] = field(default_factory=list)
    page_doc_id: int | None = None
    attributes: dict = field(default_factory=dict)
    claim_docs: set[int] = field(default_factory=set)
    extra_pages: list[int] = field(default_factory=list)
    confirmed: list[str] = field(default_factory=list)


def entity_key(entity_type: str, name: str) -> str:
    return f"{entity_type}:{name_key(name)}"


def assemble_entities(
    claims: list[EntityClaim], merges: list[Merge] = (), links: dict[tuple[str, str, str], str] | None = None,
    confirmed: list[tuple[str, str]] = (), previous: Callable[[], Mapping[str, str]] = dict,
) -> tuple[list[EntityRecord], dict[tuple[int, str, str], str]]:
    """The entity set, and for each reference claim (doc, type, name) the key of the entity it names.

    Pages of one type and name are one entity unless their identifiers disagree (entities/namesakes.py):
    then each agreeing group is one, every page listed in its record's page_docs, and a reference by
    the name alone is a placeholder (key + AMBIGUOUS_SUFFIX) the resolver asks about.

    links: (document path, type, name key) -> entity key, the user's answer that in that document a
    name means that entity (`kbg resolve confirm` on a name too short to be an alias everywhere).

    Recorded merges are replayed last, in the order they were made: the merged entity's
    name and aliases become aliases of the one it was merged into, and its pages and
    references point there.

    confirmed: (surface, entity key), the names the user confirmed for an entity (resolve/answers.py):
    each becomes a "confirmed" form of the entity (or of the one it was merged into), so a lookup,
    a search and the mention scan find it, with a derived first name's weight, never an alias's.

    previous: page path -> the key of the entity it was the own page of (namesakes.page_keys), asked
    only when a name's pages are split.
    """
    specs: dict[str, _Builder] = {}
    pages = sorted((c for c in claims if c.role == "page"), key=lambda c: c.doc_path)
    keys_of = page_keys(pages, lambda c: entity_key(c.type, c.name), previous)
    split = {entity_key(c.type, c.name) for c in pages if keys_of[c.doc_id] != entity_key(c.type, c.name)}
    for claim in pages:
        key = keys_of[claim.doc_id]
        spec = specs.get(key)
        if spec is None:
            spec = specs[key] = _Builder(key, claim.type, claim.name, page_doc_id=claim.doc_id,
                                           attributes=dict(claim.attributes))
        elif claim.doc_id != spec.page_doc_id:
            spec.extra_pages.append(claim.doc_id)  # a second page of one entity still states its relations
        for alias in claim.aliases:
            if alias != spec.name and alias not in spec.aliases:
                spec.aliases.append(alias)
        spec.claim_docs.add(claim.doc_id)

    by_name: dict[str, list[str]] = {}
    for spec in specs.values():
        for spelling in (spec.name, *spec.aliases):
            keys = by_name.setdefault(name_key(spelling), [])
            if spec.key not in keys:
                keys.append(spec.key)

    # A [[link]] in a ## Relations line may name a page by its file ("ben-okafor") or a person by
    # first name ("Zoe"), as links in prose do; resolve those before inventing a new entity.
    by_link: dict[str, list[str]] = {}
    for claim in pages:
        for key in page_link_keys(claim.doc_path):
            by_link.setdefault(key, []).append(keys_of[claim.doc_id])
        first = derived_first_name(claim.name) if claim.type == "person" else None
        if first:
            by_link.setdefault(name_key(first), []).append(keys_of[claim.doc_id])

    handles = _handle_spellings(claims)
    resolved: dict[tuple[int, str, str], str] = {}
    for claim in sorted((c for c in claims if c.role != "page"), key=lambda c: (c.doc_path, c.name)):
        target = (links or {}).get((claim.doc_path, claim.type, name_key(claim.name)))
        if target not in specs:
            target = _resolve_reference(claim, specs, by_name) or _page_of_handle(claim, specs, by_name)
            handle = handles.get((claim.type, name_key(claim.name)))
            if handle is not None and (target is None or specs[target].page_doc_id is None):
                target = entity_key(claim.type, handle)  # "liggitt" where "@liggitt" is written too
                if target not in specs:
                    specs[target] = _Builder(target, claim.type, handle)
                    by_name.setdefault(name_key(handle), []).append(target)
        if target is None and claim.role == "relation-target":
            linked = set(by_link.get(name_key(claim.name), ()))
            target = linked.pop() if len(linked) == 1 else None
        if target is None:
            target = entity_key(claim.type, claim.name)
            if target in split:  # namesakes' name alone: a placeholder the resolver asks about, never one of them
                target += AMBIGUOUS_SUFFIX
            if target not in specs:
                specs[target] = _Builder(target, claim.type, claim.name)
                by_name.setdefault(name_key(claim.name), []).append(target)
        specs[target].claim_docs.add(claim.doc_id)
        resolved[(claim.doc_id, claim.type, claim.name)] = target
    redirect: dict[str, str] = {}
    for merge in [*_page_merges(pages, specs, by_name, keys_of), *merges]:
        into_key = merge.into_key
        while into_key in redirect and into_key != merge.from_key:  # B -> C, then A -> B: A goes to C
            into_key = redirect[into_key]
        if into_key == merge.from_key:
            continue  # a cycle: ignore the merge that would close it
        redirect[merge.from_key] = into_key
        _apply_merge(specs, resolved, merge if into_key == merge.into_key else Merge(
            merge.from_key, merge.from_type, merge.from_name, into_key, merge.into_type, merge.into_name))
    for surface, key in confirmed:
        while key in redirect:
            key = redirect[key]
        spec = specs.get(key)
        if spec is not None and surface not in spec.confirmed:
            spec.confirmed.append(surface)
    records = [
        EntityRecord(s.key, s.type, s.name, tuple(s.aliases), s.page_doc_id, _forms(s), s.attributes,
                     tuple(p for p in (s.page_doc_id, *s.extra_pages) if p is not None))
        for s in sorted(specs.values(), key=lambda s: s.key)
    ]
    return records, resolved


def without_unresolved_line_targets(
    records: list[EntityRecord], claims: list[EntityClaim], resolved: dict[tuple[int, str, str], str]
) -> tuple[list[EntityRecord], dict[tuple[int, str, str], str]]:
    """records and resolved without the entities that only `## Relations` line targets name.

    A `- mentors [[Nobody Here]]` line whose target no page, alias, user or frontmatter value stands
    behind is kept out of the graph instead of becoming a person of its own: the line stays stored by
    name (page_relation_lines), each index tries it again, and until it resolves the relations stage
    reports it ("relation target not found"). A graph query never shows such a phantom, and `kbg entity
    relate` refuses the same name without --create, so a page line is held to the same rule. Assembly
    still makes the record, and drops it only here, after the resolver has seen it: a misspelt
    `[[Ben Okafr]]` is still linked or asked about (a recorded merge makes it resolve).
    """
    line_only: dict[str, bool] = {}
    for claim in claims:
        if claim.role == "page":
            continue
        key = resolved.get((claim.doc_id, claim.type, claim.name))
        if key is not None:
            is_line = claim.role == "relation-target" and claim.ref_field == LINE_TARGET_FIELD
            line_only[key] = line_only.get(key, True) and is_line
    dropped = {r.key for r in records if r.page_doc_id is None and line_only.get(r.key)}
    if not dropped:
        return records, resolved
    return ([r for r in records if r.key not in dropped],
            {claim: key for claim, key in resolved.items() if key not in dropped})


SAME_AS_KEY = "same_as"  # page frontmatter: `same_as: "[[Other Page's Name]]"` -- this page's entity is that one


def _page_merges(pages: list[EntityClaim], specs: dict[str, _Builder], by_name: dict[str, list[str]],
                 keys_of: Mapping[int, str]) -> list[Merge]:
    """The merges pages state with `same_as:` (`kbg resolve duplicates` writes it when a duplicate is
    confirmed): replayed before the recorded ones, so the link lives in the user's file and survives
    `index --full` and export without the database. A target no page of the same type names, or one
    that names this entity itself, is ignored; a cycle is broken where the replay meets it. A target may
    be a page's vault path without .md ("[[people/john-smith]]"): how a name namesakes share is written."""
    by_path: dict[str, list[str]] = {}  # "[[people/john-smith]]": a page by its path, for a name namesakes share
    for claim in pages:
        by_path.setdefault(page_link_keys(claim.doc_path)[1], []).append(keys_of[claim.doc_id])
    merges = []
    for claim in pages:
        from_key = keys_of[claim.doc_id]
        for target in listed_names(claim.attributes.get(SAME_AS_KEY)):
            keys = [k for k in by_name.get(name_key(target), []) if specs[k].type == claim.type and k != from_key]
            named = [k for k in keys if name_key(specs[k].name) == name_key(target)]  # a name before an alias
            keys = named or keys or [k for k in by_path.get(name_key(target.removesuffix(".md")), [])
                                     if specs[k].type == claim.type and k != from_key]
            if len(keys) == 1 and from_key in specs:
                into = specs[keys[0]]
                merges.append(Merge(from_key, claim.type, claim.name, into.key, into.type, into.name))
    return merges


def _apply_merge(specs: dict[str, _Builder], resolved: dict, merge: Merge) -> None:
    merged = specs.pop(merge.from_key, None)
    if merged is None:
        return  # nothing claims the merged entity any more; the decision waits for it
    into = specs.get(merge.into_key)
    if into is None:
        into = specs[merge.into_key] = _Builder(merge.into_key, merge.into_type, merge.into_name)
    for alias in (merged.name, *merged.aliases):
        if alias != into.name and alias not in into.aliases:
            into.aliases.append(alias)
    into.claim_docs |= merged.claim_docs
    if into.page_doc_id is None:
        into.page_doc_id = merged.page_doc_id
    elif merged.page_doc_id is not None:
        into.extra_pages.append(merged.page_doc_id)
    into.extra_pages.extend(merged.extra_pages)
    for claim, key in resolved.items():
        if key == merge.from_key:
            resolved[claim] = merge.into_key


def _handle_spellings(claims: list[EntityClaim]) -> dict[tuple[str, str], str]:
    """(type, key of a bare handle) -> its "@handle" spelling, for every lone @handle some claim of that
    type writes (a name, an alias or a reference): a reference that writes the handle bare ("liggitt")
    names the same one ("@liggitt") rather than a second entity. The @ form is the entity's name, so
    text mentions keep needing the @ (a handle "verb" does not claim the English word)."""
    out: dict[tuple[str, str], str] = {}
    for claim in claims:
        for spelling in (claim.name, *claim.aliases):
            if _LONE_HANDLE.fullmatch(spelling):
                out.setdefault((claim.type, name_key(spelling[1:])), spelling)
    return out


_LONE_HANDLE = re.compile(r"@[^\W_][\w.-]*")


def _page_of_handle(claim: EntityClaim, specs: dict[str, _Builder], by_name: dict[str, list[str]]) -> str | None:
    """"@liggitt" names the person whose page is named Liggitt (one word, the handle without its @), and
    becomes an alias of that page's entity, so "@liggitt" in prose finds the page too."""
    if not _LONE_HANDLE.fullmatch(claim.name):
        return None
    paged = [k for k in by_name.get(name_key(claim.name[1:]), []) if specs[k].type == claim.type
             and specs[k].page_doc_id is not None]
    if len(paged) != 1:
        return None
    spec = specs[paged[0]]
    if claim.name not in spec.aliases:
        spec.aliases.append(claim.name)
        by_name.setdefault(name_key(claim.name), []).append(spec.key)
    return spec.key


def _resolve_reference(claim: EntityClaim, specs: dict[str, _Builder], by_name: dict[str, list[str]]) -> str | None:
    keys = by_name.get(name_key(claim.name), [])
    same_type = [k for k in keys if specs[k].type == claim.type]
    if len(same_type) == 1:
        return same_type[0]
    if not same_type and len(keys) == 1 and specs[keys[0]].page_doc_id is not None:
        return keys[0]  # `project: Kafka` joins Kafka's technology page; never another reference's guess
    return None


def _forms(spec: _Builder) -> tuple[tuple[str, str], ...]:
    """Surface forms that name the entity: its name, aliases, and (for people) a first name."""
    forms = [(spec.name, "name")] + [(alias, "alias") for alias in spec.aliases]
    if spec.type == "person":
        first = derived_first_name(spec.name)
        if first and all(name_key(first) != name_key(a) for a in spec.aliases):
            forms.append((first, "first-name"))
    spelled = {name_key(surface) for surface, kind in forms if kind != "first-name"}
    for surface in spec.confirmed:
        if name_key(surface) not in spelled:  # confirmed and since merged: an alias says it already
            spelled.add(name_key(surface))
            forms.append((surface, "confirmed"))
    return tuple(forms)


def matcher_forms(rows: list[tuple[int, str, str]]) -> list[Form]:
    return [Form(entity_id, surface, kind) for entity_id, surface, kind in rows]

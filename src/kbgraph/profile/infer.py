"""A profile inferred from the vault's own frontmatter: the kbgraph.toml a user would have written.

Looks at every note's frontmatter and decides, per key, what it holds (people, groups, other pages,
nothing to relate) and what it means (authors -> authored, owning-sig -> owned-by, see-also ->
related-to, ...), which key is the pages' identifier (kep-number: 2291 -> an entity KEP-2291), and
writes it as the dict `tomllib` would read from such a file. config.py merges it under the user's own
kbgraph.toml (a key the user configured always wins), so an inferred profile is the very same Config a
written one is. Pure: no files, no store.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable

from ..config import DEFAULT_FOLDER_KINDS, DEFAULT_FRONTMATTER_RELATIONS, DEFAULT_PAGE_KINDS, DEFAULT_REFERENCES
from ..entities.names import as_name_list
from ..entities.values import PLACEHOLDERS, identifier_of, value_shape
from ..vocabulary import SEED_TYPES as _SEED

# Keys that say what a note is or who may read it, never whom it names.
RESERVED = frozenset({"title", "name", "type", "kind", "date", "created", "updated", "modified", "tags", "tag",
                      "aliases", "alias", "status", "state", "stage", "visibility", "sensitivity", "owner",
                      "email", "emails", "phone", "url", "link", "links", "summary", "description", "id",
                      "same_as", "creation-date", "last-updated", "priority", "version", "language", "license",
                      "role", "roles", "position", "job", "job-title", "job_title", "location", "timezone"})
# What a key means, by its name: (relation type, inverse, direction, what the values name).
MEANINGS: dict[str, tuple[str, str | None, str, str]] = {}
for _keys, _meaning in (
    (("authors", "author", "created-by", "creator", "creators", "written-by"), ("authored", "authored-by", "to-page", "person")),
    (("reviewers", "reviewer", "reviewed-by"), ("reviews", "reviewed-by", "to-page", "person")),
    (("approvers", "approver", "approved-by"), ("approves", "approved-by", "to-page", "person")),
    (("editor", "editors", "edited-by"), ("edits", "edited-by", "to-page", "person")),
    (("deciders", "decider", "decided-by"), ("decides", "decided-by", "to-page", "person")),
    (("owning-sig", "owning-team", "owner-team", "owning-group", "owner-sig", "owners-team"),
     ("owned-by", "owns", "from-page", "team")),
    (("see-also", "related", "related-to", "references"), ("related-to", None, "from-page", "page")),
    (("replaces", "supersedes"), ("replaces", "replaced-by", "from-page", "page")),
    (("superseded-by", "replaced-by"), ("superseded-by", "supersedes", "from-page", "page")),
    (("depends-on", "dependencies", "depends"), ("depends-on", "depended-on-by", "from-page", "page")),
    (("requires", "required"), ("requires", "required-by", "from-page", "page")),
    (("parent", "part-of"), ("part-of", "has-part", "from-page", "page")),
    (("blocks",), ("blocks", "blocked-by", "from-page", "page")),
    (("blocked-by",), ("blocked-by", "blocks", "from-page", "page")),
):
    for _key in _keys:
        MEANINGS[_key] = _meaning
SEED_NAMES = frozenset({t.name for t in _SEED} | {t.inverse for t in _SEED if t.inverse})
_IDENTIFIER_KEY = re.compile(r"([a-z]{2,10})[-_ ]?(?:number|num|no|nr|id)")
MIN_NOTES = 3  # a key on fewer notes says nothing about the vault's shape
SHARE = 0.6  # the share of a key's values of one kind that decides its role


@dataclass
class KeyRole:
    """What inference decided about one frontmatter key, and why (shown by `kbg profile show`)."""

    key: str
    notes: int
    role: str  # "people", "groups", "pages", "identifier" or "none"
    shapes: dict[str, int] = field(default_factory=dict)
    meaning: str | None = None  # the relation type the key states on pages
    named_after_key: bool = False  # an unknown key that holds references: a relation named after it
    used: bool = False  # the profile maps it (not: on no page, configured by the user, or read by the defaults)


@dataclass
class Inferred:
    raw: dict  # kbgraph.toml's shape
    roles: list[KeyRole]
    notes: int

    def as_json(self) -> dict:
        return {"notes": self.notes, "profile": self.raw,
                "keys": [{"key": r.key, "notes": r.notes, "role": r.role, "relation": r.meaning,
                          "named_after_key": r.named_after_key, "mapped": r.used, "shapes": r.shapes} for r in self.roles]}


def infer_profile(notes: Iterable[tuple[str, dict]], user: dict | None = None) -> Inferred:
    """The profile notes' frontmatter suggests, leaving out whatever user (a kbgraph.toml dict) configures."""
    user = user or {}
    notes = [(path, fm) for path, fm in notes if isinstance(fm, dict)]
    taken = _configured_keys(user)
    values: dict[str, list[str]] = {}
    count: Counter = Counter()
    for _, fm in notes:
        for key, value in fm.items():
            if not isinstance(key, str):
                continue
            count[key] += 1
            items = [value] if isinstance(value, (int, float)) and not isinstance(value, bool) else value
            values.setdefault(key, []).extend(as_name_list(items))
    handles = {v[1:].casefold() for vs in values.values() for v in vs if v.startswith("@")}
    ident = _identifier_key(notes, count, taken) or _path_identifier(notes, user)
    prefixes = frozenset({ident[1]}) if ident else frozenset()
    stems = _note_names(notes)
    people = _known_people(notes, values)
    roles = []
    for key in sorted(values):
        if count[key] < MIN_NOTES or key.casefold() in RESERVED or (ident and key == ident[0]):
            continue
        roles.append(_role(key, count[key], values[key], handles | people, prefixes, stems))
    raw = _profile(notes, roles, ident, taken, user)
    mapped = ((raw.get("relations") or {}).get("frontmatter") or {})
    for role in roles:
        role.used = role.key in mapped
    if ident and not ident[0].startswith("path:"):
        roles.insert(0, KeyRole(ident[0], count[ident[0]], "identifier", meaning=None))
    return Inferred(raw, roles, len(notes))


def _configured_keys(user: dict) -> set[str]:
    entities = user.get("entities") or {}
    relations = user.get("relations") or {}
    keys = set((entities.get("references") or {}).keys()) | set((relations.get("frontmatter") or {}).keys())
    keys |= {r.get("when") for r in entities.get("pages") or [] if isinstance(r, dict)}
    return {k for k in keys if isinstance(k, str)}


def _identifier_key(notes, count: Counter, taken: set[str]) -> tuple[str, str] | None:
    """(key, PREFIX) of a key naming each note by a number: `kep-number: 2291` on most notes."""
    best = None
    for key, seen in count.items():
        found = _IDENTIFIER_KEY.fullmatch(key.casefold())
        if not found or key in taken or seen < max(MIN_NOTES, len(notes) // 5):
            continue
        numbers = [str(fm.get(key)).strip() for _, fm in notes if key in fm]
        if sum(n.isascii() and n.isdecimal() for n in numbers) >= SHARE * len(numbers):
            if best is None or seen > count[best[0]]:
                best = (key, found.group(1).upper())
    return best


# A note named by its number: adr-0208-use-postgres.md, 0001-record-decisions.md, pep-0008.md, rfc2119.md.
_NUMBERED = re.compile(r"(?:([a-z]{2,10})[-_]?)?0*(\d{1,6})(?:[-_.][^/]*)?")
_DATED = re.compile(r"\d{4}[-_]\d{2}")
# A folder of numbered notes without a prefix in their names: what its numbers are called.
_FOLDER_PREFIXES = {"adr": "ADR", "adrs": "ADR", "decisions": "ADR", "decision-records": "ADR", "rfc": "RFC",
                    "rfcs": "RFC", "kep": "KEP", "keps": "KEP", "pep": "PEP", "peps": "PEP"}


def _path_identifier(notes, user: dict) -> tuple[str, str] | None:
    """("path:REGEX", PREFIX) for the folder whose notes are named by a number (ADR-0208), when no key is."""
    if (user.get("entities") or {}).get("pages"):
        return None  # the user says which notes are pages
    folders: dict[str, list[str]] = {}
    for path, _ in notes:
        folder, _, name = path.rpartition("/")
        folders.setdefault(folder, []).append(name.rsplit(".", 1)[0].casefold())
    best = None
    for folder, stems in folders.items():
        found = [m for m in (_NUMBERED.fullmatch(s) for s in stems if not _DATED.match(s)) if m]
        if len(found) < MIN_NOTES or len(found) < SHARE * len(stems):
            continue
        named = Counter(m.group(1) for m in found if m.group(1))
        prefix, seen = named.most_common(1)[0] if named else (None, 0)
        if seen < SHARE * len(found):
            prefix = None
        label = (prefix.upper() if prefix else None) or _FOLDER_PREFIXES.get(folder.rsplit("/", 1)[-1].casefold())
        if label and (best is None or len(found) > best[2]):
            lead = f"{re.escape(folder)}/" if folder else ""
            optional = f"(?:{re.escape(prefix)}[-_]?)?" if prefix else ""
            best = (f"path:(?i)^{lead}{optional}0*(\\d{{1,6}})(?:[-_.][^/]*)?\\.(?:md|markdown)$", label, len(found))
    return (best[0], best[1]) if best else None


def _note_names(notes) -> set[str]:
    names = set()
    for path, fm in notes:
        stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        names.add(stem.casefold())
        for key in ("title", "name"):
            if isinstance(fm.get(key), str):
                names.add(fm[key].strip().casefold())
    return names


def _role(key: str, notes: int, values: list[str], handles: set[str], prefixes: frozenset[str],
          names: set[str]) -> KeyRole:
    shapes: Counter = Counter()
    for value in values:
        if value.casefold() in PLACEHOLDERS:
            shapes["placeholder"] += 1
            continue
        shape = value_shape(value)
        if shape == "word" and value.casefold() in handles:
            shape = "handle"  # a bare handle the vault writes with its @ elsewhere
        if shape == "name" and not _person_key(key) and value.casefold() not in handles:
            shape = "title"  # "Engineering Manager": a name only where the vault names that person elsewhere
        if shape in ("identifier", "path", "word", "text") and _names_a_page(value, prefixes, names):
            shape = "page"
        shapes[shape] += 1
    real = sum(n for s, n in shapes.items() if s != "placeholder")
    role = "none"
    if real:
        people = shapes["handle"] + shapes["name"]
        pages = shapes["page"] + shapes["link"]
        if people >= SHARE * real:
            role = "people"
        elif shapes["group"] >= SHARE * real or _shared_group_words(key, values, shapes, real):
            role = "groups"
        elif pages >= SHARE * real or (_means(key) == "page" and pages >= real / 4
                                         and pages + shapes["url"] + shapes["path"] >= SHARE * real):
            role = "pages"  # see-also: KEP-12, /keps/sig-x/12-name, and a URL or two
    meaning = MEANINGS.get(key.casefold().replace("_", "-"))
    if meaning and meaning[3] == "person" and role != "people":
        meaning = None
    if meaning and meaning[3] == "team" and role != "groups":
        meaning = None
    if meaning and meaning[3] == "page" and role != "pages":
        meaning = None
    named = role in ("people", "groups", "pages") and meaning is None
    return KeyRole(key, notes, role, dict(shapes.most_common()),
                   meaning[0] if meaning else (_type_name(key) if named else None), named)


_DEFAULT_RELATION_KEYS = frozenset(d.key for d in DEFAULT_FRONTMATTER_RELATIONS)


def _built_in(role: KeyRole, ident) -> bool:
    """A key the defaults read already: a default relation (team: member-of on a person's page), unless
    its values are identifiers the default would take for names (replaces: /keps/sig-x/12-name), and a
    default reference no meaning turns into a relation (attendees name people, as before)."""
    if role.key in _DEFAULT_RELATION_KEYS:
        return not (role.role == "pages" and ident)
    return role.key in DEFAULT_REFERENCES and role.named_after_key


def _person_key(key: str) -> bool:
    return DEFAULT_REFERENCES.get(key) == "person" or _means(key) == "person"


def _known_people(notes, values: dict[str, list[str]]) -> set[str]:
    """Names the vault gives people: person pages' names and aliases, and values of the keys that name
    people by default (attendees, authors, ...)."""
    known = {v.casefold() for key, vs in values.items() if DEFAULT_REFERENCES.get(key) == "person" for v in vs}
    for path, fm in notes:
        page = str(fm.get("type") or "").strip().lower() == "person" or any(
            DEFAULT_FOLDER_KINDS.get(f.lower()) == "person" for f in path.split("/")[:-1])
        if page:
            for key in ("name", "title", "aliases", "alias"):
                known |= {v.casefold() for v in as_name_list(fm.get(key))}
    return known


def _means(key: str) -> str | None:
    meaning = MEANINGS.get(key.casefold().replace("_", "-"))
    return meaning[3] if meaning else None


def _names_a_page(value: str, prefixes: frozenset[str], names: set[str]) -> bool:
    if prefixes and (identifier_of(value, prefixes) or _PATH_NUMBER.search(value)):
        return True
    last = value.rstrip("/").rsplit("/", 1)[-1].rsplit(".", 1)[0].casefold()
    return bool(last) and last in names


_PATH_NUMBER = re.compile(r"(?:^|/)\d{1,8}-[\w.-]+/?$")


def _shared_group_words(key: str, values: list[str], shapes: Counter, real: int) -> bool:
    """Values many notes share that are not people, under a key named for a group (sig, team, squad)."""
    if not re.search(r"sig|team|group|squad|committee|wg|guild|org", key.casefold()):
        return False
    distinct = {v.casefold() for v in values}
    return real >= 5 and len(distinct) <= real / 2 and shapes["handle"] + shapes["name"] < real / 4


def _type_name(key: str) -> str:
    name = re.sub(r"[^a-z0-9]+", "-", key.casefold()).strip("-")
    if not name or not name[0].isalpha():
        name = "key-" + name
    return name[:40]


def _page_types(notes, ident) -> dict[str, str]:
    """path -> the entity type of the note's page (its type, folder or identifier), for notes that are pages."""
    out = {}
    for path, fm in notes:
        kind = str(fm.get("type") or "").strip().lower()
        if not kind:
            kind = next((DEFAULT_FOLDER_KINDS[f.lower()] for f in reversed(path.split("/")[:-1])
                         if f.lower() in DEFAULT_FOLDER_KINDS), "") or str(fm.get("kind") or "").strip().lower()
        page = DEFAULT_PAGE_KINDS.get(kind)
        if page is None and ident and (re.search(ident[0][5:], path) if ident[0].startswith("path:")
                                       else str(fm.get(ident[0], "")).strip()):
            page = ident[1].lower()
        if page:
            out[path] = page
    return out


def _profile(notes, roles: list[KeyRole], ident, taken: set[str], user: dict) -> dict:
    entities: dict = {}
    relations: dict = {"types": {}, "frontmatter": {}}
    user_types = set(((user.get("relations") or {}).get("types") or {}).keys())
    page_of = _page_types(notes, ident)
    custom = []
    if ident:
        key, prefix = ident
        custom.append(prefix.lower())
        # No title alias: a title ("Apply", "Kustomize") is no name, and as one it claimed every "Apply"
        # in other proposals' prose (and cost the mention scan most of the index time).
        if key.startswith("path:"):
            entities["pages"] = [{"path": key[5:], "type": prefix.lower(), "name": f"{prefix}-{{int}}",
                                  "aliases": [f"{prefix} {{int}}"]}]
        else:
            entities["pages"] = [{"when": key, "type": prefix.lower(), "name": f"{prefix}-{{{key}:int}}",
                                  "aliases": [f"{prefix} {{{key}:int}}"]}]
    page_types_of: dict[str, set[str]] = {}
    for path, fm in notes:
        if path in page_of:
            for key in fm:
                page_types_of.setdefault(key, set()).add(page_of[path])
    needs_team = False
    for role in roles:
        on = sorted(page_types_of.get(role.key, ()))
        if role.meaning is None or not on or role.key in taken or _built_in(role, ident):
            continue
        target = {"people": "person", "groups": "team", "pages": None}[role.role]
        spec: dict = {"type": role.meaning, "entity": target or (on[0] if len(on) == 1 else "project"),
                      "pages": on}
        meaning = MEANINGS.get(role.key.casefold().replace("_", "-"))
        direction = meaning[2] if meaning else "from-page"
        if direction != "from-page":
            spec["direction"] = direction
        if role.role == "pages" and ident:
            prefix = ident[1]
            spec["pattern"] = rf"(?i)(?:\b{prefix}[-_ ]?|(?:^|/)(?=\d{{1,8}}-))0*(\d+)"
            spec["name"] = f"{prefix}-{{int}}"
            spec["entity"] = prefix.lower()
        relations["frontmatter"][role.key] = spec
        needs_team = needs_team or spec["entity"] == "team"
        if role.meaning not in SEED_NAMES and role.meaning not in user_types:
            values = [spec["entity"]]
            source, target_types = (values, on) if direction == "to-page" else (on, values)
            declared = relations["types"].setdefault(role.meaning, {})
            declared["inverse"] = meaning[1] if meaning and meaning[1] else f"{role.meaning}-of"
            declared["source"] = sorted(set(declared.get("source", [])) | set(source))
            declared["target"] = sorted(set(declared.get("target", [])) | set(target_types))
    if custom:
        entities["types"] = custom
        entities["like"] = {t: "project" for t in custom}
    out: dict = {}
    if entities:
        out["entities"] = entities
    relations = {k: v for k, v in relations.items() if v}
    if relations:
        out["relations"] = relations
    return out


"""One file's text into a ParsedDocument: kind, date, title, chunks, links, entity claims.

Pure: no database and no file I/O, so every rule here is testable on strings.
"""

from __future__ import annotations

import posixpath

from .chunking import chunk_sections
from ..config import Config
from ..errors import InvalidInput
from ..base.markdown import find_links, first_h1, parse_sections
from ..model import EntityDecl, PageRelationLine, ParsedDocument
from ..pages.relation_lines import parse_relation_lines
from ..entities.assemble import LINE_TARGET_FIELD
from ..entities.names import as_name_list, name_key
from ..entities.values import PLACEHOLDERS, names_nothing, person_value
from ..base.vault import RawFile, date_from_path, parse_date, split_frontmatter

GOVERNANCE_VISIBILITY = ("private", "team", "public")
# Page frontmatter keys that are not copied into an entity's attributes.
_NOT_ATTRIBUTES = {"type", "name", "title", "aliases", "alias", "tags", "date", "visibility", "sensitivity", "owner"}


def parse_document(path: str, raw: RawFile, config: Config) -> ParsedDocument:
    """Parse a file already read from the vault. Raises FrontmatterError for bad YAML."""
    is_markdown = not path.lower().endswith(".txt")
    frontmatter, body_start = split_frontmatter(raw.text) if is_markdown else ({}, 0)
    body = raw.text[body_start:]
    if is_markdown:
        sections, fences = parse_sections(body)
        links = find_links(body, fences)
    else:
        from ..model import Section

        sections, links = [Section((), 0, 0, len(body), body)], []
    stem = posixpath.splitext(posixpath.basename(path))[0]
    h1 = first_h1(sections) if is_markdown else None
    title = _text(frontmatter.get("title")) or _text(frontmatter.get("name")) or h1 or stem
    kind = document_kind(path, frontmatter, config)
    date = parse_date(frontmatter.get("date")) or date_from_path(path)
    tags = tuple(t.lstrip("#") for t in as_name_list(frontmatter.get("tags")))
    chunks = chunk_sections(sections, body_start, raw.text, config.chunk_chars)
    entities = declared_entities(kind, frontmatter, h1, stem, config, path)
    relation_lines = page_relations(raw.text, body_start, entities, config) if is_markdown else []
    if entities and entities[0].role == "page" and config.frontmatter_relations:
        mapped = frontmatter_relations(raw.text, frontmatter, entities[0], config)
        relation_lines = relation_lines + mapped
    return ParsedDocument(
        path=path,
        title=title,
        kind=kind,
        date=date,
        frontmatter=frontmatter,
        tags=tags,
        content_hash=raw.content_hash,
        size=raw.size,
        mtime=raw.mtime,
        body_offset=body_start,
        chunks=tuple(chunks),
        links=tuple(links),
        entities=tuple(entities) + tuple(_relation_targets(relation_lines, entities, config)),
        relation_lines=tuple(relation_lines),
        **governance(path, frontmatter, config),
    )


def governance(path: str, frontmatter: dict, config: Config) -> dict:
    """owner, visibility and sensitivity of a note: its frontmatter's, else the deepest `[access]` folder
    rule's that sets them, else the vault's; unset, a note is private and of normal sensitivity. A
    visibility kbgraph does not know reads as private; an unknown sensitivity is kept (it counts as the
    highest: unknown means careful)."""
    found: dict = {"owner": None, "visibility": "private", "sensitivity": "normal"}
    for rule in config.access_rules:  # the vault's first, deeper folders later: the last that applies wins
        if not rule.folder or path.startswith(rule.folder + "/"):
            found.update({k: v for k, v in (("owner", rule.owner), ("visibility", rule.visibility),
                                            ("sensitivity", rule.sensitivity)) if v is not None})
    owner, visibility = _text(frontmatter.get("owner")), _text(frontmatter.get("visibility"))
    sensitivity = _text(frontmatter.get("sensitivity"))
    if owner:
        found["owner"] = owner
    if visibility:
        found["visibility"] = visibility if visibility in GOVERNANCE_VISIBILITY else "private"
    if sensitivity:
        found["sensitivity"] = sensitivity
    return found


def document_kind(path: str, frontmatter: dict, config: Config) -> str:
    """Frontmatter `type:`, else the deepest folder with a kind rule, else `kind:`, else the type of the
    page rule it matches, else `note`."""
    declared = _text(frontmatter.get("type"))
    if declared:
        return declared.strip().lower()
    folders = path.split("/")[:-1]
    for folder in reversed(folders):
        kind = config.folder_kinds.get(folder.lower())
        if kind:
            return kind
    declared = _text(frontmatter.get("kind"))  # after the folder: people/x.md with kind: contractor is a person
    if declared:
        return declared.strip().lower()
    rule = next((r for r in config.page_rules if r.matches(path, frontmatter) is not None), None)
    return rule.type if rule else "note"  # a KEP page (kep-number: 2291) is a kep


def declared_entities(
    kind: str, frontmatter: dict, h1: str | None, stem: str, config: Config, path: str = ""
) -> list[EntityDecl]:
    """The entity a page is about (if it is a page), and every entity its frontmatter references."""
    decls: list[EntityDecl] = []
    rule, number = next(((r, n) for r in config.page_rules if (n := r.matches(path, frontmatter)) is not None),
                        (None, ""))
    page_type = config.page_kinds.get(kind)
    if page_type and not (rule and kind == rule.type and not _text(frontmatter.get("type"))
                          and not _text(frontmatter.get("kind"))):
        rule = None  # a page by its type or folder is named as such; a rule names the others
    if page_type or rule:
        name = _text(frontmatter.get("name")) or _text(frontmatter.get("title")) or h1 or stem
        aliases = as_name_list(frontmatter.get("aliases")) + as_name_list(frontmatter.get("alias"))
        if rule:
            page_type, title = rule.type, name
            given = {**frontmatter, "int": str(int(number))} if number.isdecimal() else frontmatter
            name = _render(rule.name, given) or title
            aliases = [a for a in (_render(t, given) for t in rule.aliases) if a and a != name] + aliases
        attributes = {
            k: v for k, v in frontmatter.items() if k not in _NOT_ATTRIBUTES and isinstance(v, (str, int, float, list))
        }
        decls.append(EntityDecl(page_type, name, tuple(dict.fromkeys(aliases)), "page", None, attributes))
    for field_name, entity_type in config.references.items():
        for name in as_name_list(frontmatter.get(field_name)):
            if name_key(name) in PLACEHOLDERS:
                continue
            read = person_value(name) if entity_type == "person" else (
                None if names_nothing(name) else (entity_type, name))
            if read is not None:  # a sentence names no one; a group (sig-node) is a team
                decls.append(EntityDecl(read[0], read[1], (), "reference", field_name))
    return decls


def page_relations(text: str, body_start: int, entities: list[EntityDecl], config: Config) -> list[PageRelationLine]:
    """The `## Relations` lines of an entity page (other documents' sections of that name are prose)."""
    if not entities or entities[0].role != "page":
        return []
    lines, problems = parse_relation_lines(text, body_start)
    out = [PageRelationLine(p.line, "", "", problem=p.message) for p in problems]
    for line in lines:
        problem = None
        try:
            config.vocabulary.normalise(line.type)
        except InvalidInput as exc:
            problem = str(exc)
        if line.valid_until is not None and parse_date(line.valid_until) != line.valid_until:
            problem = f"(until {line.valid_until}) is not a date; write YYYY-MM-DD"
        if line.valid_from is not None and parse_date(line.valid_from) != line.valid_from:
            problem = f"(since {line.valid_from}) is not a date; write YYYY-MM-DD"
        out.append(PageRelationLine(line.line, line.type, line.target, line.reason, line.valid_until, problem,
                                    valid_from=line.valid_from, context=line.context))
    return sorted(out, key=lambda r: r.line)


def _render(template: str, frontmatter: dict) -> str | None:
    """A name from a template over frontmatter keys ("KEP-{kep-number}"); None when a key is missing."""
    import re

    missing = False

    def value(match: re.Match) -> str:
        nonlocal missing
        text = _text(frontmatter.get(match.group(1)))
        if text is None:
            missing = True
            return ""
        if match.group(2) != ":int":
            return text
        # A number, also as the identifier it stands for ("KEP-4", "kep 0004"): "KEP-{kep-number:int}"
        # gave "KEP-KEP-4", and "-6" gave "KEP--6". What holds no such number names nothing.
        number = re.fullmatch(r"(?:[A-Za-z]+[-_ #]?)?0*(\d+)", text.strip())
        if number is None or not number.group(1).isascii():
            missing = True
            return ""
        return str(int(number.group(1)))

    rendered = re.sub(r"\{([^{}:]+)(:int)?\}", value, template).strip()
    return None if missing or not rendered else rendered


def frontmatter_relations(text: str, frontmatter: dict, page: EntityDecl, config: Config) -> list[PageRelationLine]:
    """Relations stated by frontmatter keys that kbgraph.toml maps to relation types."""
    import re

    out = []
    for mapping in config.frontmatter_relations:
        if mapping.key not in frontmatter or (mapping.pages and page.type not in mapping.pages):
            continue
        key_line = _key_line(text, mapping.key)
        normal = config.vocabulary.normalise(mapping.type)
        # A line reads from the page's side, so "to-page" is written with the opposite name.
        if mapping.direction == "from-page" or normal.type.symmetric:
            line_type = mapping.type
        else:
            line_type = normal.type.name if normal.swapped else normal.type.inverse
        values = frontmatter[mapping.key]
        if isinstance(values, (int, float, str)) and not isinstance(values, bool):
            values = [values]  # "replaces: 42" is one value, as "replaces: [42]" is
        for ordinal, raw in enumerate(as_name_list(values)):
            value = raw.strip().strip(mapping.strip).strip() if mapping.strip else raw.strip()
            if not value or value.casefold() in mapping.ignore:
                continue
            if mapping.pattern:
                found = re.search(mapping.pattern, value)
                if not found or not found.group(1):
                    continue
                value = found.group(1)
            elif mapping.entity == "person":
                read = person_value(value)
                if read is None or read[0] != "person":
                    continue  # a sentence or a group ("sig-node" approves nothing as a person)
                value = read[1]
            elif mapping.entity != "person" and "{int}" not in mapping.name and names_nothing(value):
                continue  # owning-sig: "The node SIG, though storage folks were also involved" is no team
            number = str(int(value)) if value.isascii() and value.isdecimal() else value
            name = mapping.name.replace("{int}", number).replace("{value}", value)
            out.append(PageRelationLine(key_line, line_type, name, source=f"frontmatter:{mapping.key}",
                                        ordinal=ordinal + 1))
    return out


def _key_line(text: str, key: str) -> int:
    import re

    match = re.search(rf"^{re.escape(key)}\s*:", text, re.MULTILINE)
    return text.count("\n", 0, match.start()) + 1 if match else 1


def _relation_targets(lines: list[PageRelationLine], entities: list[EntityDecl], config: Config) -> list[EntityDecl]:
    """Targets of a page's relation lines are entities too, when the vocabulary fixes their type."""
    page_type = entities[0].type if entities else None
    typed = {m.key: m.entity for m in config.frontmatter_relations if not m.pages or page_type in m.pages}
    out = []
    for line in lines:
        if line.problem is None and page_type:
            if line.source.startswith("frontmatter:"):
                hint = typed.get(line.source.split(":", 1)[1])
            else:
                hint = config.vocabulary.target_type_hint(line.type, page_type)
            if hint:
                # The field says where the name was written: a `## Relations` line's target that names no
                # entity is kept by name and reported, never created (entities/assemble.py); a frontmatter
                # value's is a referenced-only entity, as a frontmatter reference's is.
                field = line.source if line.source.startswith("frontmatter:") else LINE_TARGET_FIELD
                out.append(EntityDecl(hint, line.target, (), "relation-target", field))
    return out


def _text(value: object) -> str | None:
    if isinstance(value, str) and value.strip():
        return value.strip()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None

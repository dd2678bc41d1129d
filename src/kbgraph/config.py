"""kbgraph.toml: defaults, loading and validation.

Every setting has a default, so a vault without a kbgraph.toml (or with an empty
one) indexes sensibly; a kbx-style layout (memory/people, memory/meetings/...)
needs no configuration because folder rules match any path segment.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from .errors import ConfigError
from .vocabulary import Vocabulary

CONFIG_NAME = "kbgraph.toml"

BUILTIN_ENTITY_TYPES = ("person", "project", "team", "organization", "technology", "concept")

# A folder name anywhere in a document's path -> the document's kind.
DEFAULT_FOLDER_KINDS = {
    "people": "person",
    "person": "person",
    "projects": "project",
    "project": "project",
    "teams": "team",
    "team": "team",
    "meetings": "meeting",
    "meeting": "meeting",
    "decisions": "decision",
    "tech": "technology",
    "technologies": "technology",
    "technology": "technology",
    "orgs": "organization",
    "organizations": "organization",
    "companies": "organization",
    "concepts": "concept",
    "daily": "daily",
    "journal": "daily",
}

# Document kinds whose documents are an entity's own page.
DEFAULT_PAGE_KINDS = {
    "person": "person",
    "people": "person",
    "project": "project",
    "team": "team",
    "technology": "technology",
    "tech": "technology",
    "organization": "organization",
    "org": "organization",
    "company": "organization",
    "concept": "concept",
}

# Frontmatter keys whose values name entities of a type.
DEFAULT_REFERENCES = {
    "attendees": "person",
    "participants": "person",
    "people": "person",
    "lead": "person",
    "leads": "person",
    "owner_person": "person",
    "reports_to": "person",
    "manager": "person",
    "members": "person",
    "deciders": "person",
    "author": "person",
    # Document metadata people keep in frontmatter: RFCs, design docs, KEPs, ADRs (MADR's consulted and
    # informed), tickets and interviews. Placeholders ("TBD", "n/a") are no one (ingest/parse.py).
    "authors": "person",
    "reviewer": "person",
    "reviewers": "person",
    "approver": "person",
    "approvers": "person",
    "assignee": "person",
    "assignees": "person",
    "organizer": "person",
    "organizers": "person",
    "speakers": "person",
    "interviewers": "person",
    "stakeholders": "person",
    "contributors": "person",
    "maintainers": "person",
    "consulted": "person",
    "informed": "person",
    "team": "team",
    "teams": "team",
    "project": "project",
    "projects": "project",
    "organization": "organization",
    "company": "organization",
    "technologies": "technology",
}

DEFAULT_TEMPLATE = """\
# kbgraph configuration. Every key is optional; these are the defaults worth knowing.

[index]
# Glob patterns (relative to the vault) that are never indexed, in addition to
# .kbgraph/ and .git/.
ignore = []
# Files larger than this are reported and skipped.
max_file_mb = 10

# A folder name anywhere in a path decides a document's kind when its
# frontmatter has no `type:`. Add your own, e.g.:
# [kinds]
# standups = "meeting"

# Frontmatter keys whose values name entities, and the entity type they name:
# [entities.references]
# sponsor = "person"

# Entity types beyond person, project, team, organization, technology, concept:
# [entities]
# types = ["customer"]

# Relations of an entity without a page live in the index; set this to give such an
# entity a page (people/<name>.md, projects/..., tech/...) when you relate it:
# [relations]
# create_pages = true

# `kbg index` suggests relations stated in the text (`kbg entity suggest-relations`);
# turn that off with:
# [extract]
# patterns = false
# People seen together in this many meetings are suggested as collaborators (0: off):
# cooccurrence = 3

# A name that no page spells exactly ("Arjoon Mehta", "AJ") is compared with the known entities:
# at or above `auto` it is linked (a recorded merge: `kbg entity unmerge` undoes it), between
# `ask` and `auto` it becomes a question (`kbg resolve pending`), below it stays a new entity.
# [resolve]
# auto = 0.90
# ask = 0.55
# enabled = true

# Search: the embedder ("none" for text only; the model comes with `kbg model install`) and how
# keyword, vector and graph signals are fused (reciprocal rank fusion, k = rrf_k):
# [search]
# embedder = "minilm"
# rrf_k = 60
# passage_rrf_k = 10          # the passage unit's k: a section first in one signal is not outvoted by middling ranks
# weights = { bm25 = 1.0, vector = 1.0, graph = 1.0 }
# hop_decay = [1.0, 0.7, 0.4]
# recency_half_life_days = 0
# document_vectors = "auto"   # centroid, best-section, both; auto: centroid for a pasted paragraph, both otherwise

# Each index infers what the notes' frontmatter keys hold (people, teams, other pages) and mean
# (authors -> authored, see-also -> related-to): `kbg profile show` prints it as the TOML that would
# configure it, and what this file configures wins. Turn inference off with:
# [profile]
# infer = false

# Relation types beyond the built-in vocabulary (`kbg entity relate --type ...`):
# [relations.types.advises]
# inverse = "advised-by"
# source = ["person"]
# target = ["person", "project"]
"""


@dataclass(frozen=True)
class PageRule:
    """Documents with frontmatter key `when` are pages of an entity of `type`, named from templates."""

    when: str
    type: str
    name: str  # a template over frontmatter keys: "KEP-{kep-number}"; with path, "{int}" is its number
    aliases: tuple[str, ...] = ()
    path: str | None = None  # or: a regex over the note's vault path whose group is its number (ADR-0208)

    def matches(self, path: str, frontmatter: dict) -> str | None:
        """The number the path gives ("" for a `when` rule), or None when the rule is not this note's."""
        if self.path is None:
            value = frontmatter.get(self.when)
            present = isinstance(value, (int, float)) and not isinstance(value, bool) or (
                isinstance(value, str) and value.strip())
            return "" if present else None
        import re

        found = re.search(self.path, path)
        return found.group(1) if found and found.group(1) else None


@dataclass(frozen=True)
class FrontmatterRelation:
    """A frontmatter key whose values are relations of the page's entity (kbgraph.toml [relations.frontmatter])."""

    key: str
    type: str  # a relation type name, either direction
    entity: str  # the entity type the values name
    direction: str = "from-page"  # "from-page": page --type--> value; "to-page": value --type--> page
    pages: tuple[str, ...] = ()  # only on pages of these entity types (empty: every page)
    strip: str = ""  # characters stripped from each value ("@" for handles)
    ignore: tuple[str, ...] = ("n/a", "na", "none", "tbd", "-")
    pattern: str | None = None  # a regex whose first group is the name; values that do not match are skipped
    name: str = "{value}"  # the name from the value (or group): "{value}", or "KEP-{int}" for a number


def _default(key: str, type_name: str, entity: str, *pages: str) -> FrontmatterRelation:
    return FrontmatterRelation(key, type_name, entity, pages=pages)


# Keys people write on pages without being told to, each read as a relation of the page's entity
# (on the pages named; "reports_to: Ben Okafor" on a person's page is that person reports-to Ben).
# A [relations.frontmatter.KEY] table replaces one; `KEY = false` turns it off; `defaults = false`
# under [relations.frontmatter] turns them all off. Documented in docs/note-format.md.
DEFAULT_FRONTMATTER_RELATIONS = tuple(
    _default(key, type_name, entity, *pages) for keys, type_name, entity, pages in (
        (("reports_to", "reports-to", "manager"), "reports-to", "person", ("person",)),
        (("mentor", "mentors"), "mentored-by", "person", ("person",)),
        (("mentee", "mentees"), "mentors", "person", ("person",)),
        (("team", "teams"), "member-of", "team", ("person",)),
        (("lead", "leads", "owner", "owners"), "led-by", "person", ("project", "team")),
        (("members",), "has-member", "person", ("team",)),
        (("sponsor", "sponsors"), "sponsored-by", "person", ("project",)),
        (("contributors",), "contributor", "person", ("project",)),
        (("depends_on", "depends-on", "dependencies"), "depends-on", "project", ("project",)),
        (("blocked_by", "blocked-by"), "blocked-by", "project", ("project",)),
        (("blocks",), "blocks", "project", ("project",)),
        (("uses", "stack", "technologies"), "uses", "technology", ("project", "team", "person")),
        (("part_of", "part-of", "parent"), "part-of", "project", ("project",)),
        (("replaces",), "replaces", "project", ("project",)),
    ) for key in keys
)


@dataclass(frozen=True)
class InferenceRule:
    """[graph.rules.NAME]: a relation of type `gives` from a to c wherever a --path[0]--> b --path[1]--> c."""

    name: str
    path: tuple[str, str]
    gives: str


DEFAULT_INFERENCE_RULES = (
    InferenceRule("uses-then-depends-on", ("uses", "depends-on"), "indirectly-depends-on"),
    InferenceRule("depends-on-twice", ("depends-on", "depends-on"), "indirectly-depends-on"),
    InferenceRule("skip-level", ("reports-to", "reports-to"), "skip-level-reports-to"),
)


@dataclass(frozen=True)
class LlmConfig:
    """[extract.llm]: an OpenAI-compatible chat completions endpoint for the optional LLM extractor."""

    url: str
    model: str
    api_key_env: str | None = None
    timeout_s: float = 30.0


@dataclass(frozen=True)
class ResolveConfig:
    """[resolve]: entity resolution of names no page spells exactly (a score is a probability)."""

    enabled: bool = True
    auto: float = 0.90  # link without asking at or above
    ask: float = 0.55  # ask the user at or above; below, a new entity


@dataclass(frozen=True)
class SearchConfig:
    """[search]: the embedder and how the signals are fused (see docs/search.md)."""

    embedder: str = "minilm"  # "none": text search only; KBG_EMBEDDER overrides it
    rrf_k: int = 60
    passage_rrf_k: int = 10  # the passage unit's fusion k (bench/RESULTS.md, dialogue recall)
    weights: tuple[tuple[str, float], ...] = (("bm25", 1.0), ("vector", 1.0), ("graph", 1.0))
    hop_decay: tuple[float, float, float] = (1.0, 0.7, 0.4)  # a mentioned entity, one hop, two hops
    tier_boost: float = 0.05  # per tier above 1 of the query's entities a document mentions
    recency_half_life_days: float = 0.0  # 0: no recency weighting
    min_similarity: float = 0.2  # a document (its centroid) less similar than this to the query is no vector match
    document_vectors: str = "auto"  # how a document is near a query: auto, centroid, best-section or both

    def weight(self, signal: str) -> float:
        return dict(self.weights).get(signal, 0.0)


@dataclass(frozen=True)
class AccessRule:
    """Who may read the notes under a folder ("" for the whole vault) unless a note's frontmatter says
    otherwise: `[access]` and `[access.folders]` in kbgraph.toml. None: the rule does not set it."""

    folder: str
    owner: str | None = None
    visibility: str | None = None
    sensitivity: str | None = None


@dataclass(frozen=True)
class Config:
    ignore: tuple[str, ...] = ()
    extensions: tuple[str, ...] = (".md", ".markdown", ".txt")
    max_file_bytes: int = 10 * 1024 * 1024
    chunk_chars: int = 1500
    folder_kinds: dict = field(default_factory=lambda: dict(DEFAULT_FOLDER_KINDS))
    page_kinds: dict = field(default_factory=lambda: dict(DEFAULT_PAGE_KINDS))
    references: dict = field(default_factory=lambda: dict(DEFAULT_REFERENCES))
    entity_types: tuple[str, ...] = BUILTIN_ENTITY_TYPES
    vocabulary: Vocabulary = field(default_factory=Vocabulary)
    create_pages: bool = False  # give page-less entities a page when a relation is asserted for them
    page_rules: tuple[PageRule, ...] = ()
    frontmatter_relations: tuple[FrontmatterRelation, ...] = DEFAULT_FRONTMATTER_RELATIONS
    extract_patterns: bool = True  # run the pattern rules during `kbg index` (suggestions)
    cooccurrence: int = 3  # people together in this many meetings may collaborate (0: off)
    llm: LlmConfig | None = None  # the optional LLM extractor; off unless configured
    resolve: ResolveConfig = field(default_factory=lambda: ResolveConfig())
    search: SearchConfig = field(default_factory=lambda: SearchConfig())
    inference_rules: tuple[InferenceRule, ...] = DEFAULT_INFERENCE_RULES
    me: str | None = None  # [me] name: the person the vault belongs to ("my manager" is read from them)
    infer_profile: bool = True  # [profile] infer: each index infers a profile from the vault's frontmatter
    access_rules: tuple[AccessRule, ...] = ()  # [access]: the vault's default first, then folders, deepest last
    fingerprint: str = field(default_factory=lambda: _fingerprint({}))  # of the settings an index was read under; a change re-reads every note


def load_config(vault_root: Path) -> Config:
    """Read <vault>/kbgraph.toml over the profile the last index inferred from the vault's frontmatter
    (<vault>/.kbgraph/profile.json, written by the index, never by hand): a setting the file makes wins,
    an inferred one fills what it leaves; a missing file means the defaults and the inferred profile."""
    raw, source = user_config(vault_root)
    inferred = stored_profile(vault_root) if profile_inference_on(raw) else {}
    return config_from_dict(merge_inferred(raw, inferred), source=source)


def user_config(vault_root: Path) -> tuple[dict, str]:
    """The vault's own kbgraph.toml as a dict ({} when there is none) and the name errors give it."""
    path = vault_root / CONFIG_NAME
    if not path.exists():
        return {}, CONFIG_NAME  # the defaults, with what the environment overrides (KBG_EMBEDDER)
    try:
        return tomllib.loads(path.read_text(encoding="utf-8")), str(path)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: invalid TOML ({exc}); fix the file or delete it to use defaults") from exc


PROFILE_NAME = "profile.json"  # in the index folder: what the last index inferred from the vault


def profile_inference_on(raw: dict) -> bool:
    """`[profile] infer = false` in kbgraph.toml turns inference off (the vault is then read as configured)."""
    value = (raw.get("profile") or {}).get("infer", True) if isinstance(raw.get("profile"), dict) else True
    if not isinstance(value, bool):
        raise ConfigError(f"{CONFIG_NAME}: profile.infer must be true or false, got {value!r}")
    return value


def stored_profile(vault_root: Path) -> dict:
    """The inferred profile the last index wrote ({} when none, or when the file is unreadable: the next
    index infers it again)."""
    import json

    try:
        data = json.loads((vault_root / ".kbgraph" / PROFILE_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    profile = data.get("profile") if isinstance(data, dict) else None
    return profile if isinstance(profile, dict) else {}


def merge_inferred(user: dict, inferred: dict) -> dict:
    """user's settings with the inferred ones it leaves unset: a key, a relation type, a page rule's
    `when` or an entity type the user configured is theirs; the inferred profile only adds."""
    if not inferred:
        return user
    import copy

    out = copy.deepcopy(user)
    if not all(isinstance(out.get(t, {}), dict) for t in ("entities", "relations", "kinds")):
        return out  # config_from_dict says what is wrong with the user's file
    mine_entities = out.setdefault("entities", {})
    theirs = inferred.get("entities") or {}
    if theirs.get("types") and isinstance(mine_entities.get("types", []), list):
        mine_entities["types"] = list(mine_entities.get("types", [])) + [
            t for t in theirs["types"] if t not in mine_entities.get("types", [])]
    for table in ("like", "references"):
        if theirs.get(table) and isinstance(mine_entities.get(table, {}), dict):
            mine_entities[table] = {**theirs[table], **mine_entities.get(table, {})}
    if theirs.get("pages") and isinstance(mine_entities.get("pages", []), list):
        mine = [r for r in mine_entities.get("pages", []) if isinstance(r, dict)]
        whens, types = {r.get("when") for r in mine} - {None}, {r.get("type") for r in mine}
        mine_entities["pages"] = list(mine_entities.get("pages", [])) + [
            r for r in theirs["pages"] if r.get("when") not in whens and r.get("type") not in types]
    if not mine_entities:
        out.pop("entities", None)
    mine_relations = out.setdefault("relations", {})
    for table in ("types", "frontmatter"):
        found = (inferred.get("relations") or {}).get(table)
        if found and isinstance(mine_relations.get(table, {}), dict):
            mine_relations[table] = {**found, **mine_relations.get(table, {})}
    if not mine_relations:
        out.pop("relations", None)
    if inferred.get("kinds"):
        out["kinds"] = {**inferred["kinds"], **out.get("kinds", {})}
    return out


_KNOWN_KEYS = {
    "": {"index", "kinds", "entities", "relations", "extract", "resolve", "search", "graph", "me", "access",
         "profile"},
    "profile": {"infer"},
    "access": {"owner", "visibility", "sensitivity", "folders"},
    "graph": {"rules"},
    "index": {"ignore", "extensions", "max_file_mb", "chunk_chars"},
    "entities": {"types", "references", "pages", "like"},
    "relations": {"types", "create_pages", "frontmatter"},
    "extract": {"patterns", "cooccurrence", "llm"},
    "resolve": {"enabled", "auto", "ask"},
    "me": {"name"},
    "search": {"embedder", "rrf_k", "passage_rrf_k", "weights", "hop_decay", "tier_boost", "recency_half_life_days",
               "min_similarity", "document_vectors"},
}


def _check_keys(raw: dict, source: str) -> None:
    """Unknown keys are errors with a suggestion: a typo should not be silently ignored."""
    import difflib

    for table, known in _KNOWN_KEYS.items():
        keys = raw.keys() if not table else (raw.get(table) or {}).keys()
        for key in keys:
            if key not in known:
                where = f"[{table}] " if table else ""
                close = difflib.get_close_matches(key, sorted(known), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else f"; known: {', '.join(sorted(known))}"
                raise ConfigError(f"{source}: unknown key {where}{key!r}{hint}")


def config_from_dict(raw: dict, source: str = CONFIG_NAME) -> Config:
    _check_keys({k: v if isinstance(v, dict) else {} for k, v in raw.items()}, source)
    index = _table(raw, "index", source)
    relations = _table(raw, "relations", source)
    relation_types = _table(relations, "types", source)
    create_pages = relations.get("create_pages", False)
    if not isinstance(create_pages, bool):
        raise ConfigError(f"{source}: relations.create_pages must be true or false")
    entities = _table(raw, "entities", source)
    kinds = _table(raw, "kinds", source)
    extra_types = [_type_name(t, source) for t in _str_list(entities.get("types", []), "entities.types", source)]
    entity_types = BUILTIN_ENTITY_TYPES + tuple(t for t in extra_types if t not in BUILTIN_ENTITY_TYPES)
    references = dict(DEFAULT_REFERENCES)
    for key, value in _table(entities, "references", source).items():
        if value not in entity_types:
            raise ConfigError(
                f"{source}: entities.references.{key} = {value!r} is not an entity type "
                f"(known: {', '.join(entity_types)}; declare new ones in entities.types)"
            )
        references[key] = value
    page_kinds = dict(DEFAULT_PAGE_KINDS)
    page_kinds.update({t: t for t in extra_types})
    folder_kinds = dict(DEFAULT_FOLDER_KINDS)
    for folder, kind in kinds.items():
        if not isinstance(kind, str) or not kind.strip():
            raise ConfigError(f"{source}: kinds.{folder} must be a kind's name, as \"meeting\", got {kind!r}")
        folder_kinds[str(folder).lower()] = kind.strip().lower()
    max_mb = index.get("max_file_mb", 10)
    if not _finite(max_mb) or max_mb <= 0 or max_mb > MAX_FILE_MB:
        raise ConfigError(f"{source}: index.max_file_mb must be a number above 0 and at most {MAX_FILE_MB}, "
                          f"got {max_mb!r}")
    chunk_chars = index.get("chunk_chars", 1500)
    if not isinstance(chunk_chars, int) or chunk_chars < 200:
        raise ConfigError(f"{source}: index.chunk_chars must be an integer ≥ 200, got {chunk_chars!r}")
    extensions = tuple(
        e if e.startswith(".") else "." + e
        for e in _str_list(index.get("extensions", [".md", ".markdown", ".txt"]), "index.extensions", source)
    )
    config = Config(
        ignore=tuple(_str_list(index.get("ignore", []), "index.ignore", source)),
        extensions=tuple(e.lower() for e in extensions),
        max_file_bytes=int(max_mb * 1024 * 1024),
        chunk_chars=chunk_chars,
        folder_kinds=folder_kinds,
        page_kinds=page_kinds,
        references=references,
        entity_types=entity_types,
        vocabulary=(vocabulary := Vocabulary.from_config(relation_types, _like(entities, entity_types, source))),
        create_pages=create_pages,
        extract_patterns=_flag(_table(raw, "extract", source), "patterns", True, source),
        cooccurrence=_count(_table(raw, "extract", source), "cooccurrence", 3, source),
        llm=_llm(_table(raw, "extract", source).get("llm"), source),
        resolve=_resolve(_table(raw, "resolve", source), source),
        search=_search(_table(raw, "search", source), source),
        page_rules=tuple(_page_rules(entities.get("pages", []), entity_types, source)),
        frontmatter_relations=_frontmatter_relations(_table(relations, "frontmatter", source), entity_types,
                                                     vocabulary, source, _like(entities, entity_types, source)),
        inference_rules=_inference_rules(_table(_table(raw, "graph", source), "rules", source), vocabulary, source),
        me=_me(_table(raw, "me", source), source),
        infer_profile=profile_inference_on(raw),
        access_rules=_access_rules(_table(raw, "access", source), source),
        fingerprint=_fingerprint(raw),
    )
    return _without_retold_references(config, set(_table(entities, "references", source)))


def _without_retold_references(config: Config, declared: set[str]) -> Config:
    """A key the vault maps to relations with its own reading of the values (strip = "@", a pattern, a
    name template) is not also read as a plain default reference: "@lavalamp" would otherwise be one
    entity and the mapping's "lavalamp" another. A reference the vault declares itself stays."""
    retold = {m.key for m in config.frontmatter_relations if m.strip or m.pattern or m.name != "{value}"}
    dropped = {key for key in retold if key in DEFAULT_REFERENCES and key not in declared}
    if not dropped:
        return config
    return replace(config, references={k: v for k, v in config.references.items() if k not in dropped})


def _access_rules(table: dict, source: str) -> tuple[AccessRule, ...]:
    """[access] owner/visibility/sensitivity for the vault, and [access.folders] "path" = {...} for the
    notes under a folder; sorted so that a deeper folder's rule comes after (and wins over) its parents'."""
    vault = {k: v for k, v in table.items() if k != "folders"}
    rules = [_access_rule("", vault, "[access]", source)] if vault else []
    folders = _table(table, "folders", source)
    for folder, spec in folders.items():
        where = f"[access.folders] {folder!r}"
        if not isinstance(spec, dict):
            raise ConfigError(f'{source}: {where} must be a table, as {{ visibility = "private" }}')
        clean = "/".join(part for part in str(folder).strip().split("/") if part)
        if not clean or any(part in (".", "..") for part in clean.split("/")):
            raise ConfigError(f"{source}: {where} must be a folder inside the vault, as \"hr\" or \"people/ana\"")
        rules.append(_access_rule(clean, spec, where, source))
    return tuple(sorted(rules, key=lambda r: (r.folder.count("/") + bool(r.folder), r.folder)))


def _access_rule(folder: str, spec: dict, where: str, source: str) -> AccessRule:
    from .access import SENSITIVITIES, VISIBILITIES

    unknown = set(spec) - {"owner", "visibility", "sensitivity"}
    if unknown:
        raise ConfigError(f"{source}: {where}: unknown key {sorted(unknown)[0]!r}; known: owner, sensitivity, visibility")
    visibility, sensitivity, owner = spec.get("visibility"), spec.get("sensitivity"), spec.get("owner")
    if visibility is not None and visibility not in VISIBILITIES:
        raise ConfigError(f"{source}: {where}: visibility must be one of {', '.join(VISIBILITIES)}, got {visibility!r}")
    if sensitivity is not None and sensitivity not in SENSITIVITIES:
        raise ConfigError(f"{source}: {where}: sensitivity must be one of {', '.join(SENSITIVITIES)}, "
                          f"got {sensitivity!r}")
    if owner is not None and (not isinstance(owner, str) or not owner.strip()):
        raise ConfigError(f"{source}: {where}: owner must be a principal's name, got {owner!r}")
    return AccessRule(folder, owner.strip() if owner else None, visibility, sensitivity)


def _me(table: dict, source: str) -> str | None:
    name = table.get("name")
    if name is None:
        return None
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"{source}: [me] name must be the name of the person this vault belongs to, got {name!r}")
    return name.strip()


def _inference_rules(table: dict, vocabulary: Vocabulary, source: str) -> tuple[InferenceRule, ...]:
    """The default rules the table does not turn off, and its own; refused: unknown types, premises named
    from their target's side, paths other than two relations, and rules that feed each other in a cycle."""
    use_defaults = table.get("defaults", True)
    if not isinstance(use_defaults, bool):
        raise ConfigError(f"{source}: graph.rules.defaults must be true or false")
    rules = {r.name: r for r in DEFAULT_INFERENCE_RULES} if use_defaults else {}
    for name, spec in table.items():
        where = f"{source}: [graph.rules.{name}]"
        if name == "defaults":
            continue
        if spec is False:
            rules.pop(name, None)
            continue
        if not isinstance(spec, dict) or set(spec) != {"path", "gives"}:
            raise ConfigError(f"{where} needs path = [\"TYPE\", \"TYPE\"] and gives = \"TYPE\" (or = false)")
        path = spec["path"]
        if not isinstance(path, list) or len(path) != 2 or not all(isinstance(t, str) for t in path):
            raise ConfigError(f"{where}: path must name two relation types, as [\"uses\", \"depends-on\"]")
        names = []
        for type_name in (*path, spec["gives"]):
            from .errors import InvalidInput

            try:
                normal = vocabulary.normalise(str(type_name))
            except InvalidInput as exc:
                raise ConfigError(f"{where}: {exc}") from None
            if normal.swapped:
                raise ConfigError(f"{where}: name {type_name!r} as {normal.type.name!r}; rules read relations"
                                  " in their stored direction")
            names.append(normal.type.name)
        rules[name] = InferenceRule(name, (names[0], names[1]), names[2])
    _refuse_cycles(tuple(rules.values()), source)
    return tuple(rules.values())


def _refuse_cycles(rules: tuple[InferenceRule, ...], source: str) -> None:
    """A rule's output must never be (through other rules) one of its own premises."""
    feeds: dict[str, set[str]] = {}
    for rule in rules:
        for premise in rule.path:
            feeds.setdefault(premise, set()).add(rule.gives)
    for rule in rules:
        seen, todo = set(), [rule.gives]
        while todo:
            kind = todo.pop()
            if kind in rule.path:
                raise ConfigError(f"{source}: graph rule {rule.name!r} forms a cycle: what it gives ({rule.gives})"
                                  f" leads back to its premise {kind!r}")
            if kind not in seen:
                seen.add(kind)
                todo += feeds.get(kind, ())


def _like(entities: dict, entity_types: tuple[str, ...], source: str) -> dict[str, str]:
    """[entities.like]: a custom type -> the built-in type whose relations it may have ("service = project")."""
    like = _table(entities, "like", source)
    for custom, builtin in like.items():
        if custom not in entity_types or custom in BUILTIN_ENTITY_TYPES:
            raise ConfigError(f"{source}: entities.like.{custom}: declare {custom!r} in entities.types first"
                              if custom not in entity_types else
                              f"{source}: entities.like.{custom}: {custom!r} is built in already")
        if builtin not in BUILTIN_ENTITY_TYPES:
            raise ConfigError(f"{source}: entities.like.{custom} = {builtin!r}: give a built-in type"
                              f" ({', '.join(BUILTIN_ENTITY_TYPES)})")
    return dict(like)


def _frontmatter_relations(table: dict, entity_types, vocabulary, source: str,
                           like: dict[str, str]) -> tuple[FrontmatterRelation, ...]:
    """The user's [relations.frontmatter.KEY] mappings, then the defaults they neither replace nor turn
    off; a custom type that behaves like a built-in one gets its defaults (a service's depends_on names
    services, as a project's names projects)."""
    use_defaults = table.get("defaults", True)
    if not isinstance(use_defaults, bool):
        raise ConfigError(f"{source}: relations.frontmatter.defaults must be true or false")
    mine = []
    off = set()
    for key, spec in table.items():
        if key == "defaults":
            continue
        if isinstance(spec, bool):
            if spec is True and key not in {d.key for d in DEFAULT_FRONTMATTER_RELATIONS}:
                raise ConfigError(f"{source}: relations.frontmatter.{key} = true: {key!r} has no default mapping;"
                                  " give it a table with type and entity")
            if spec is False:
                off.add(key)
            continue
        mine.append(_frontmatter_relation(key, spec, entity_types, vocabulary, source))
    taken = off | {m.key for m in mine}
    defaults = [d for d in DEFAULT_FRONTMATTER_RELATIONS
                if use_defaults and d.key not in taken and d.entity in entity_types]
    for custom, builtin in like.items():
        defaults += [FrontmatterRelation(d.key, d.type, custom if d.entity == builtin else d.entity, pages=(custom,))
                     for d in DEFAULT_FRONTMATTER_RELATIONS
                     if use_defaults and d.key not in taken and builtin in d.pages]
    return tuple(mine + defaults)


# Bump when what kbgraph reads from notes changes meaning for the same kbgraph.toml (new defaults),
# so that the next `kbg index` reads every note again.
READING_RULES = "5"  # 3: `(since DATE)` and `[context: ...]` on relation lines; 4: a frontmatter
# relation's target claim says its key (an unknown `## Relations` target is no longer created); 5: a person
# key's value read by its shape (a sentence names no one, a group is a team), `kind:` and page rules give kinds


def _fingerprint(raw: dict) -> str:
    """What an index was built under: the settings that change what is read from notes (not [search],
    which is applied at query time, nor the embedder, whose vectors carry their own model tag, nor [me])."""
    import hashlib
    import json

    reading = {k: v for k, v in raw.items() if k not in ("search", "me")}
    text = json.dumps([READING_RULES, reading], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _flag(table: dict, key: str, default: bool, source: str) -> bool:
    value = table.get(key, default)
    if not isinstance(value, bool):
        raise ConfigError(f"{source}: {key} must be true or false, got {value!r}")
    return value


def _llm(raw: object, source: str) -> LlmConfig | None:
    if raw is None:
        return None
    where = f"{source}: [extract.llm]"
    if not isinstance(raw, dict) or set(raw) - {"url", "model", "api_key_env", "timeout"}:
        raise ConfigError(f"{where} takes url, model, api_key_env and timeout")
    url, model = raw.get("url"), raw.get("model")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ConfigError(f"{where}: url must be an http(s) address of a chat completions endpoint")
    if not isinstance(model, str) or not model:
        raise ConfigError(f"{where}: model must be a model name")
    timeout = raw.get("timeout", 30)
    if not _finite(timeout) or timeout <= 0:
        raise ConfigError(f"{where}: timeout must be a positive number of seconds")
    key_env = raw.get("api_key_env")
    if key_env is not None and not isinstance(key_env, str):
        raise ConfigError(f"{where}: api_key_env must be the name of an environment variable")
    return LlmConfig(url, model, key_env, float(timeout))


def _resolve(table: dict, source: str) -> ResolveConfig:
    auto, ask = table.get("auto", 0.90), table.get("ask", 0.55)
    for key, value in (("auto", auto), ("ask", ask)):
        if not _finite(value) or not 0 < value <= 1:
            raise ConfigError(f"{source}: resolve.{key} must be a probability above 0 and at most 1, got {value!r}")
    if not ask < auto:
        raise ConfigError(f"{source}: resolve.ask ({ask}) must be below resolve.auto ({auto})")
    return ResolveConfig(_flag(table, "enabled", True, source), float(auto), float(ask))


def _search(table: dict, source: str) -> SearchConfig:
    import os

    where = f"{source}: [search]"
    embedder = os.environ.get("KBG_EMBEDDER") or table.get("embedder", "minilm")
    if not isinstance(embedder, str) or not embedder:
        raise ConfigError(f"{where} embedder must be a name (minilm, minilm-onnx, fake) or \"none\"")
    rrf_k = table.get("rrf_k", 60)
    if isinstance(rrf_k, bool) or not isinstance(rrf_k, int) or not 1 <= rrf_k <= 10_000:
        raise ConfigError(f"{where} rrf_k must be a whole number from 1 to 10000, got {rrf_k!r}")
    passage_rrf_k = table.get("passage_rrf_k", SearchConfig.passage_rrf_k)
    if isinstance(passage_rrf_k, bool) or not isinstance(passage_rrf_k, int) or not 1 <= passage_rrf_k <= 10_000:
        raise ConfigError(f"{where} passage_rrf_k must be a whole number from 1 to 10000, got {passage_rrf_k!r}")
    weights = dict(SearchConfig.weights)
    raw_weights = table.get("weights", {})
    if not isinstance(raw_weights, dict) or set(raw_weights) - set(weights):
        raise ConfigError(f"{where} weights takes {', '.join(weights)} (numbers ≥ 0)")
    for key, value in raw_weights.items():
        if not _finite(value) or value < 0:
            raise ConfigError(f"{where} weights.{key} must be a number ≥ 0, got {value!r}")
        weights[key] = float(value)
    decay = table.get("hop_decay", [1.0, 0.7, 0.4])
    if (not isinstance(decay, list) or len(decay) != 3
            or not all(_finite(d) and 0 <= d <= 1 for d in decay)):
        raise ConfigError(f"{where} hop_decay must be three numbers from 0 to 1 (mentioned, one hop, two hops)")
    numbers = {}
    for key, default in (("tier_boost", 0.05), ("recency_half_life_days", 0.0), ("min_similarity", 0.2)):
        value = table.get(key, default)
        if not _finite(value) or value < 0:
            raise ConfigError(f"{where} {key} must be a number ≥ 0, got {value!r}")
        numbers[key] = float(value)
    document_vectors = table.get("document_vectors", SearchConfig.document_vectors)
    if document_vectors not in ("auto", "centroid", "best-section", "both"):
        raise ConfigError(f"{where} document_vectors must be \"auto\", \"centroid\", \"best-section\" or \"both\","
                          f" got {document_vectors!r}")
    return SearchConfig(embedder, rrf_k, passage_rrf_k, tuple(weights.items()), tuple(float(d) for d in decay),
                        **numbers, document_vectors=document_vectors)


MAX_FILE_MB = 1_000_000  # a terabyte: any larger number is a typo, and infinity cannot size a read


def _finite(value: object) -> bool:
    """A TOML number that arithmetic can use: not a bool (a Python int), not inf or nan (TOML allows both)."""
    import math

    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


_TYPE_NAME = r"[a-z][a-z0-9_-]{0,39}"


def _type_name(name: str, source: str) -> str:
    """An entity type names a folder of pages (people/, a custom type's own), so it must be one plain word:
    a `../` in it would place pages outside the vault."""
    import re

    if not re.fullmatch(_TYPE_NAME, name):
        raise ConfigError(f"{source}: entities.types: {name!r} is not a type name; use lowercase letters, digits,"
                          " '-' or '_', starting with a letter (as \"customer\")")
    return name


def _count(table: dict, key: str, default: int, source: str) -> int:
    value = table.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ConfigError(f"{source}: {key} must be a whole number (0 turns it off), got {value!r}")
    return value


def _page_rules(raw: object, entity_types, source: str) -> list[PageRule]:
    if not isinstance(raw, list) or not all(isinstance(r, dict) for r in raw):
        raise ConfigError(f"{source}: [[entities.pages]] must be an array of tables")
    rules = []
    for rule in raw:
        unknown = set(rule) - {"when", "type", "name", "aliases", "path"}
        keyed = isinstance(rule.get("when"), str) != isinstance(rule.get("path"), str)
        if unknown or not keyed or rule.get("type") not in entity_types:
            raise ConfigError(f"{source}: each [[entities.pages]] needs when = \"frontmatter key\" (or path ="
                              f" \"regex\") and a known type ({', '.join(entity_types)}); unknown keys:"
                              f" {', '.join(sorted(unknown)) or 'none'}")
        if not isinstance(rule.get("name", ""), str):
            raise ConfigError(f"{source}: [[entities.pages]] name must be a template string, as \"{{title}}\"")
        if "path" in rule:
            import re

            try:
                if re.compile(rule["path"]).groups < 1:
                    raise ConfigError(f"{source}: [[entities.pages]] path needs one (group) holding the number")
            except re.error as exc:
                raise ConfigError(f"{source}: [[entities.pages]] path is not a valid regex ({exc})") from None
        rules.append(PageRule(rule.get("when", ""), rule["type"], rule.get("name", "{title}"),
                              tuple(_str_list(rule.get("aliases", []), "entities.pages.aliases", source)),
                              rule.get("path")))
    return rules


def _frontmatter_relation(key: str, spec: object, entity_types, vocabulary, source: str) -> FrontmatterRelation:
    where = f"{source}: [relations.frontmatter.{key}]"
    if not isinstance(spec, dict):
        raise ConfigError(f"{where} must be a table with type and entity")
    known = {"type", "entity", "direction", "pages", "strip", "ignore", "pattern", "name"}
    if set(spec) - known:
        raise ConfigError(f"{where}: unknown keys {', '.join(sorted(set(spec) - known))}")
    from .errors import InvalidInput

    try:
        vocabulary.normalise(str(spec.get("type")))
    except InvalidInput as exc:
        raise ConfigError(f"{where}: {exc}") from None
    if spec.get("entity") not in entity_types:
        raise ConfigError(f"{where}: entity must be one of {', '.join(entity_types)}")
    if spec.get("direction", "from-page") not in ("from-page", "to-page"):
        raise ConfigError(f"{where}: direction must be from-page or to-page")
    for text_key in ("pattern", "strip", "name"):
        if text_key in spec and not isinstance(spec[text_key], str):
            raise ConfigError(f"{where}: {text_key} must be a string, got {spec[text_key]!r}")
    pattern = spec.get("pattern")
    if pattern is not None:
        import re

        try:
            if re.compile(pattern).groups < 1:
                raise ConfigError(f"{where}: pattern needs one (group) holding the name")
        except re.error as exc:
            raise ConfigError(f"{where}: pattern is not a valid regex ({exc})") from None
    defaults = FrontmatterRelation(key, "", "")
    return FrontmatterRelation(
        key=key, type=spec["type"], entity=spec["entity"], direction=spec.get("direction", "from-page"),
        pages=tuple(_str_list(spec.get("pages", []), f"relations.frontmatter.{key}.pages", source)),
        strip=str(spec.get("strip", "")),
        ignore=tuple(v.casefold() for v in _str_list(spec.get("ignore", list(defaults.ignore)),
                                                     f"relations.frontmatter.{key}.ignore", source)),
        pattern=pattern, name=str(spec.get("name", "{value}")),
    )


def _table(raw: dict, key: str, source: str) -> dict:
    value = raw.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{source}: [{key}] must be a table")
    return value


def _str_list(value: object, key: str, source: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{source}: {key} must be a list of strings")
    return value

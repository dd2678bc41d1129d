"""Domain values: frozen dataclasses shared by every layer.

Nothing here imports the rest of kbgraph, so any module may use these.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace
from typing import Any


def as_dict(value: Any) -> dict:
    """A JSON-ready dict of a domain value (tuples become lists)."""
    return asdict(value)


@dataclass(frozen=True)
class Section:
    """A heading-delimited slice of a markdown body."""

    heading_path: tuple[str, ...]
    level: int
    start: int  # character offset in the body, inclusive
    end: int  # exclusive
    text: str


@dataclass(frozen=True)
class Chunk:
    """The unit of search: a section, or one part of a long section."""

    key: str  # stable across re-index while heading, position and text are unchanged
    ordinal: int
    heading_path: tuple[str, ...]
    start: int  # character offsets in the whole file
    end: int
    line: int  # 1-based line in the whole file where the chunk starts
    text: str


@dataclass(frozen=True)
class Link:
    """A [[wikilink]] or markdown link found in a document body."""

    target: str
    alias: str | None
    start: int
    end: int
    kind: str  # "wikilink" | "markdown"


@dataclass(frozen=True)
class EntityDecl:
    """A document's claim that an entity exists: its page, or a frontmatter reference."""

    type: str
    name: str
    aliases: tuple[str, ...] = ()
    role: str = "reference"  # "page" | "reference"
    ref_field: str | None = None  # the frontmatter key of a reference
    attributes: dict = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class PageRelationLine:
    """A line of an entity page's `## Relations` section, or a list item there that is not one (problem set)."""

    line: int
    type: str
    target: str
    reason: str | None = None
    valid_until: str | None = None
    problem: str | None = None
    source: str = "section"  # "section" (## Relations) or "frontmatter:KEY"
    ordinal: int = 0  # several values of one frontmatter key share its line
    valid_from: str | None = None  # `(since DATE)`
    context: str | None = None  # `[context: ...]`


@dataclass(frozen=True)
class ParsedDocument:
    """Everything indexing learns from one file, before it touches the store."""

    path: str
    title: str
    kind: str
    date: str | None
    frontmatter: dict
    tags: tuple[str, ...]
    content_hash: str
    size: int
    mtime: float
    body_offset: int  # where the body starts in the file (after frontmatter)
    chunks: tuple[Chunk, ...]
    links: tuple[Link, ...]
    entities: tuple[EntityDecl, ...]
    relation_lines: tuple["PageRelationLine", ...] = ()
    owner: str | None = None
    visibility: str = "private"
    sensitivity: str = "normal"


@dataclass(frozen=True)
class Problem:
    """A file that could not be indexed, and why."""

    path: str
    reason: str
    severity: str = "error"  # "error" | "warning"


@dataclass(frozen=True)
class IndexReport:
    indexed: int
    skipped: int
    removed: int
    moved: int
    errors: int
    warnings: int
    seconds: float
    chunks: int
    entities: int
    mentions: int
    problems: tuple[Problem, ...] = ()
    config_changed: bool = False  # kbgraph.toml (or kbgraph's reading rules) changed: every note was read again
    ready: "TextReady | None" = None  # when text and graph search were ready, before any embedding
    embedded: int = 0  # sections given a vector in this run
    vectors_missing: int = 0  # sections still without one (embedding later, interrupted, or off)
    background: "EmbedStart | None" = None  # embed="background": the embedding process it started (or found)


@dataclass(frozen=True)
class TextReady:
    """What a run had committed when text and graph search became ready: everything but vectors."""

    seconds: float  # since the run began
    documents: int
    sections: int
    entities: int
    relations: int
    vectors_missing: int  # sections the embedding that follows (or `kbg embed`) still has to do


@dataclass(frozen=True)
class EmbedReport:
    """What `kbg embed` (embedding on its own, after `kbg index --embed later` or an interrupted run) did."""

    embedded: int  # sections given a vector
    vectors_missing: int  # sections left without one
    model: str | None  # the model that made the vectors (None: embeddings are off or unavailable)
    seconds: float
    problems: tuple[Problem, ...] = ()


@dataclass(frozen=True)
class EmbedStatus:
    """Where the vault's background embedding stands, from the status file its process keeps."""

    running: bool  # a background embedding process holds the vault's embed lock now
    # never (none was started), starting, waiting (for a running index), embedding, finishing, done,
    # stopped (asked to stop), failed (see error), or killed (it ended without saying so: kill -9, a crash)
    state: str
    pid: int | None
    done: int  # sections it gave a vector
    total: int  # sections it has to do, counting those an index added while it ran
    rate: float | None  # sections a second
    seconds_left: float | None
    started_at: str | None
    updated_at: str | None
    log: str  # where its output goes
    error: str | None = None


@dataclass(frozen=True)
class EmbedStart:
    """What asking for a background embedding did: started one, or found one running (started false)."""

    started: bool
    status: EmbedStatus


# mention count -> tier: 3 at 15 mentions, 2 at 5, else 1. The index stores each entity's tier for the
# reader of every note; a restricted reader's is computed in the query from the mentions it may read.
TIER_THRESHOLDS = ((15, 3), (5, 2))


@dataclass(frozen=True)
class Entity:
    id: int
    type: str
    name: str
    aliases: tuple[str, ...]
    page_path: str | None
    attributes: dict
    mention_count: int
    tier: int
    status: str = "active"


_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Term:
    """What a keyword query looks for: one word, or a phrase (these words, in this order). With
    prefix, the last word also matches the words it begins ("rotat" finds "rotation")."""

    words: tuple[str, ...]
    prefix: bool = False

    def __post_init__(self) -> None:
        if not self.words or not all(isinstance(w, str) and _WORD.fullmatch(w) for w in self.words):
            raise ValueError(f"a term is one or more words of letters and digits, got {self.words!r}")


@dataclass(frozen=True)
class TextQuery:
    """A keyword query in no backend's syntax: each store compiles it to its own (FTS5 MATCH for
    SQLite, a tsquery for PostgreSQL). Text matches when it holds every term (require "all") or at
    least one (require "any"), and none of the exclusions. A query with no terms matches nothing."""

    terms: tuple[Term, ...] = ()
    exclusions: tuple[Term, ...] = ()
    require: str = "all"  # "all" | "any"

    def __post_init__(self) -> None:
        if self.require not in ("all", "any"):
            raise ValueError(f"require is 'all' or 'any', got {self.require!r}")

    def requiring(self, require: str) -> TextQuery:
        return replace(self, require=require)


@dataclass(frozen=True)
class Snippet:
    """An excerpt of matching text, and where in it the query's words matched: (start, end) offsets,
    in order, not overlapping. Interfaces render the highlights their own way."""

    text: str
    highlights: tuple[tuple[int, int], ...] = ()

    def marked(self, before: str = "**", after: str = "**") -> str:
        out, at = [], 0
        for start, end in self.highlights:
            out += [self.text[at:start], before, self.text[start:end], after]
            at = end
        out.append(self.text[at:])
        return "".join(out)


@dataclass(frozen=True)
class SearchHit:
    doc_id: int
    path: str
    title: str
    kind: str
    date: str | None
    chunk_id: int
    heading: str
    line: int
    snippet: str  # an excerpt of the section, plain text
    score: float  # higher is better
    via: str | None = None  # the relation path that brought it in, when the graph did
    duplicates: tuple[str, ...] = ()  # near-duplicates of it collapsed into this hit (paths)
    explain: "HitExplain | None" = None
    passage: "Passage | None" = None  # with widen: the whole section the hit's chunk is part of
    highlights: tuple[tuple[int, int], ...] = ()  # (start, end) in snippet of each word the query matched

    def marked_snippet(self, before: str = "**", after: str = "**") -> str:
        """The snippet with its matched words wrapped, by default in markdown bold (as JSON shows it)."""
        return Snippet(self.snippet, self.highlights).marked(before, after)


@dataclass(frozen=True)
class Passage:
    """A hit widened along `continues` to the whole of a section that indexing split into chunks."""

    chunk_ids: tuple[int, ...]  # in reading order; the hit's own chunk among them
    line: int  # where the passage starts
    text: str


@dataclass(frozen=True)
class SignalExplain:
    """One signal's view of a hit: its rank there (1 = best), its own score, and what it added."""

    signal: str  # "bm25" | "vector" | "graph"
    rank: int
    score: float
    contribution: float  # weight / (k + rank), times the graph weight for the graph signal


@dataclass(frozen=True)
class HitExplain:
    """Why a hit scored what it did: the signals, their fusion, the boosts, the relation path."""

    signals: tuple[SignalExplain, ...]
    rrf_k: int
    fused: float
    boosts: tuple[tuple[str, float], ...]  # (name, factor) applied to the fused score in order
    score: float
    path: str | None
    formula: str


@dataclass(frozen=True)
class SearchResult:
    query: str
    text_query: TextQuery  # the query's keywords as parsed (no terms: nothing to match)
    mode: str  # keyword match: "all-terms" | "any-term" | "all-terms+any-term" | "none" | "empty"
    hits: tuple[SearchHit, ...]
    signals: tuple[str, ...] = ()  # the signals that ran: bm25, vector, graph
    entities: tuple[dict, ...] = ()  # entities the query names or --entity pins: {"id", "name", "type", "surface"}
    ambiguous: tuple[dict, ...] = ()  # names that fit several entities: {"surface", "candidates"}
    notes: tuple[str, ...] = ()  # what the search could not use, and why
    why_not: dict | None = None
    unit: str = "document"  # what a hit is: a "document" (its best section shown) or a "passage" (a section)


@dataclass(frozen=True)
class EntityClaim:
    """A stored EntityDecl with the document that made it."""

    doc_id: int
    doc_path: str
    type: str
    name: str
    aliases: tuple[str, ...]
    role: str  # "page" | "reference"
    ref_field: str | None
    attributes: dict = field(compare=False, hash=False)


@dataclass(frozen=True)
class EntityRecord:
    """An entity as assembled from claims, before it has an id."""

    key: str
    type: str
    name: str
    aliases: tuple[str, ...]
    page_doc_id: int | None
    forms: tuple[tuple[str, str], ...]  # (surface, "name" | "alias" | "first-name")
    attributes: dict = field(compare=False, hash=False)
    page_docs: tuple[int, ...] = ()  # every page, the merged-in entities' included


@dataclass(frozen=True)
class Merge:
    """A recorded decision: the entity from_key is the entity into_key."""

    from_key: str
    from_type: str
    from_name: str
    into_key: str
    into_type: str
    into_name: str


@dataclass(frozen=True)
class Mention:
    entity_id: int
    start: int | None
    end: int | None
    surface: str
    kind: str  # "text" | "prose" (another spelling, resolved) | "wikilink" | "link" (markdown) | "frontmatter"


@dataclass(frozen=True)
class Fact:
    """An append-only statement about an entity. A correction supersedes it (superseded_by, superseded_at,
    change), never rewrites it. source: the vault-relative path of the document it came from, or "manual"."""

    id: int
    entity_key: str
    entity: str  # the entity's name when the fact was recorded (or last read from its page)
    kind: str  # interest | role | note | event
    text: str
    date: str | None  # YYYY-MM-DD: when it was said or true
    source: str
    origin: str  # "page": a `## Facts` line is its home; "user": the index (and exports) keep it
    page: str | None  # the page whose line holds it
    recorded_at: str
    superseded_at: str | None = None
    superseded_by: int | None = None
    change: str | None = None  # superseded | edited | removed, once it is history
    owner: str | None = None
    visibility: str = "private"
    sensitivity: str = "normal"


@dataclass(frozen=True)
class Loop:
    """An open follow-up about an entity ("ask about the surgery", due 2026-08-15). Resolving it keeps it:
    status resolved, with the day; a line removed from its page leaves it dropped."""

    id: int
    entity_key: str
    entity: str
    text: str
    due: str | None  # YYYY-MM-DD
    status: str  # open | resolved | dropped
    resolved_on: str | None
    source: str
    origin: str
    page: str | None
    recorded_at: str
    updated_at: str
    owner: str | None = None
    visibility: str = "private"
    sensitivity: str = "normal"

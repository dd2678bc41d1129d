"""Pydantic models at the HTTP edge only: request bodies (unknown fields refused) and the response
shapes OpenAPI publishes. The keys are those of docs/json.md; the library never sees these classes."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

Name = Annotated[str, Field(min_length=1, max_length=500)]
Text = Annotated[str, Field(min_length=1, max_length=20_000)]
Short = Annotated[str, Field(max_length=500)]
RowId = Annotated[int, Field(ge=1, le=2**62)]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RelateBody(Body):
    """`kbg entity relate`: source --type--> target."""

    source: Name
    type: Name
    target: Name
    reason: Short | None = None
    source_doc: Short | None = Field(None, description="Evidence: a vault-relative path.")
    valid_until: Short | None = Field(None, description="YYYY-MM-DD; a past date expires the relation.")
    create: Short | None = Field(None, description="Create a missing target, of this entity type.")
    since: Short | None = Field(None, description="YYYY-MM-DD it became true.")
    context: Short | None = None


class UnrelateBody(Body):
    source: Name
    type: Name
    target: Name


class MergeBody(Body):
    """`kbg entity merge MERGED INTO`."""

    merged: Name = Field(description="The entity merged away: its names become aliases of `into`.")
    into: Name


class UnmergeBody(Body):
    merged: Name = Field(description="The name of the entity that was merged away.")


class MentionBody(Body):
    """`kbg entity link|unlink|relink ENTITY DOC`."""

    entity: Name
    doc: Annotated[str, Field(min_length=1, max_length=1000, description="A vault-relative path.")]


class ExtractBody(Body):
    paths: list[Annotated[str, Field(min_length=1, max_length=1000)]] = Field(
        default_factory=list, max_length=100, description="Vault-relative paths (none: every document).")


class NoteBody(Body):
    """`kbg note TEXT [--confirm]`."""

    text: Text
    confirm: bool = Field(False, strict=True, description="Accept the closest entity for a name kbgraph asked about.")


class FactBody(Body):
    entity: Name
    text: Text
    kind: Name = Field(description="interest, role, note or event.")
    date: Short | None = None
    source: Short = "manual"


class SupersedeBody(Body):
    text: Text
    kind: Short | None = None
    date: Short | None = None
    source: Short | None = None


class LoopBody(Body):
    entity: Name
    text: Text
    due: Short | None = None
    source: Short = "manual"


class LoopResolveBody(Body):
    on: Short | None = Field(None, description="YYYY-MM-DD it was done (default: today).")


class ConflictResolveBody(Body):
    """`kbg graph resolve ID --keep`."""

    # A plain string, not an enum: a bad value is the library's 400 with its hint, as the CLI words it.
    keep: Short = Field(description="old, new or both: which relation holds (the other is true until yesterday).")


class ErrorDetail(BaseModel):
    code: str = Field(description="Stable: ambiguous, not_found, invalid_input, invalid_request, unauthorized, "
                                  "too_large, busy, ... (docs/api.md).")
    message: str
    param: str | None = None
    hint: str | None = None
    candidates: list[dict[str, Any]] | None = None
    problems: list[dict[str, Any]] | None = None


class ErrorBody(BaseModel):
    error: ErrorDetail


class SearchHit(BaseModel):
    path: str
    line: int
    title: str
    kind: str
    date: str | None
    heading: str
    snippet: str
    score: float
    doc_id: int
    chunk_id: int
    via: str | None
    duplicates: list[str]
    explain: dict[str, Any] | None
    passage: dict[str, Any] | None


class SearchResponse(BaseModel):
    query: str
    unit: str
    mode: str
    signals: list[str]
    entities: list[dict[str, Any]]
    ambiguous: list[dict[str, Any]]
    notes: list[str]
    count: int
    hits: list[SearchHit]
    why_not: dict[str, Any] | None = None


class EntityProfile(BaseModel):
    """`kbg entity find --json`."""

    model_config = ConfigDict(extra="allow")
    entity: dict[str, Any]
    relations: dict[str, Any]
    connected: dict[str, Any]
    recent_documents: list[dict[str, Any]]


JSON = dict[str, Any]

"""Correcting who is who: merge and unmerge entities, link and unlink mentions, quiet entities, extraction."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ...model import as_dict
from ..deps import WS
from ..models import JSON, ExtractBody, MentionBody, MergeBody, UnmergeBody

router = APIRouter(tags=["curation"])


@router.post("/entities/merge")
def merge(ws: WS, body: MergeBody) -> JSON:
    """`kbg entity merge`: `merged`'s names become aliases of `into`; its mentions and relations move there
    (recorded, so it survives a full re-index; `POST /entities/unmerge` undoes it)."""
    from ...curation.merging import merge_entities

    return merge_entities(ws, body.merged, body.into)


@router.post("/entities/unmerge")
def unmerge(ws: WS, body: UnmergeBody) -> JSON:
    """`kbg entity unmerge`: the merged entity is its own again; the pair is never merged again."""
    from ...curation.merging import unmerge_entity

    return unmerge_entity(ws, body.merged)


@router.get("/entities/stale")
def stale(ws: WS, days: Annotated[int, Query(ge=0, le=365_000)] = 90,
          type: Annotated[str | None, Query(max_length=100)] = None, include_relations: bool = False) -> JSON:
    """`kbg entity stale`: entities neither updated nor mentioned in `days` days (and doubtful relations)."""
    from ...relations.staleness import stale_report

    return stale_report(ws.store, days, type, include_relations, access=ws.access)


@router.get("/mentions/unlinked")
def unlinked(ws: WS, entity: Annotated[str | None, Query(max_length=500)] = None,
             limit: Annotated[int, Query(ge=0, le=100_000)] = 100) -> JSON:
    """`kbg entity unlinked-mentions` (`kbg graph unlinked` without `entity`): documents whose text names an
    entity without linking it, with the first such mention (limit 0: all)."""
    from ...curation.mention_edits import unlinked_mentions

    rows = unlinked_mentions(ws, entity, limit or None)
    return {"count": len(rows), "mentions": rows}


@router.post("/mentions/link")
def link(ws: WS, body: MentionBody) -> JSON:
    """`kbg entity link`: the first unlinked mention of `entity` in `doc` becomes a [[wikilink]]."""
    from ...curation.mention_edits import link as run

    return run(ws, body.entity, body.doc)


@router.post("/mentions/unlink")
def unlink(ws: WS, body: MentionBody) -> JSON:
    """`kbg entity unlink`: `entity` is not what `doc`'s text means; those mentions are dropped for good."""
    from ...curation.mention_edits import unlink as run

    return run(ws, body.entity, body.doc)


@router.post("/mentions/relink")
def relink(ws: WS, body: MentionBody) -> JSON:
    """`kbg entity relink`: undo an unlink."""
    from ...curation.mention_edits import relink as run

    return run(ws, body.entity, body.doc)


@router.post("/extract")
def extract(ws: WS, body: ExtractBody) -> JSON:
    """`kbg entity extract`: run extraction again on these documents (none: all) and list what waits for
    review from them."""
    from ...relations.suggestions import extract_now

    result = extract_now(ws, body.paths)
    return {"documents": result["documents"], "pending": result["pending"],
            "problems": [as_dict(p) for p in result["report"].problems]}

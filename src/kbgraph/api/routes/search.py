"""GET /search, GET /recall."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query

from ..deps import WS
from ..models import JSON, SearchResponse
from ...shapes import recall_json, search_json
from . import Date, DateFrom, DateTo, Many, Words, doc_filter

router = APIRouter(tags=["search"])
Path = Annotated[str | None, Query(max_length=500, description="Only documents under this folder (or glob).")]


@router.get("/search", response_model=SearchResponse)
def search(ws: WS, q: Words, limit: Annotated[int, Query(ge=1, le=200)] = 10,
           mode: Literal["hybrid", "bm25", "vector"] = "hybrid", passages: bool = False,
           entity: Annotated[str | None, Query(max_length=500)] = None, expand_relations: bool = False,
           explain: bool = False, why_not: Annotated[str | None, Query(max_length=500)] = None, widen: bool = False,
           as_of: Date = None, type: Many = [], path: Path = None,  # noqa: B006  (FastAPI copies defaults)
           date_from: DateFrom = None, date_to: DateTo = None,
           tag: Many = []) -> JSON:  # noqa: B006
    """`kbg search`: documents (one hit each) or, with passages=true, sections across documents."""
    from ...search import search as run_search

    flt = doc_filter(type, path, date_from, date_to, tag)
    result = run_search(ws.store, q, flt, limit, config=ws.config, mode=mode, entity=entity,
                        expand_relations=expand_relations, explain=explain, why_not=why_not, widen=widen,
                        access=ws.access, as_of=as_of, unit="passage" if passages else "document")
    return search_json(result, why_not_asked=why_not is not None)


@router.get("/recall")
def recall(ws: WS, q: Words, limit: Annotated[int, Query(ge=1, le=200)] = 10, type: Many = [],  # noqa: B006
           path: Path = None, date_from: DateFrom = None, date_to: DateTo = None,
           tag: Many = []) -> JSON:  # noqa: B006
    """`kbg recall`: a question that says "my manager": the one person it names, their facts and passages."""
    from ...context.recall import recall as run_recall

    answer = run_recall(ws.store, ws.config, q, doc_filter(type, path, date_from, date_to, tag), limit,
                        access=ws.access)
    return recall_json(answer)

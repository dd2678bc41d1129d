"""GET /documents, GET /documents/view."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ..deps import WS
from ..models import JSON
from . import Date, DateFrom, DateTo, Many, doc_filter

router = APIRouter(tags=["documents"])


@router.get("/documents")
def list_documents(ws: WS, type: Many = [], path: Annotated[str | None, Query(max_length=500)] = None,  # noqa: B006
                   date_from: DateFrom = None, date_to: DateTo = None,
                   tag: Many = [], limit: Annotated[int, Query(ge=0, le=100_000)] = 0) -> JSON:  # noqa: B006
    """`kbg list`: indexed documents, newest first (limit 0: all)."""
    from ...documents.views import list_documents as run

    docs = run(ws.store, doc_filter(type, path, date_from, date_to, tag), limit or None, access=ws.access)
    return {"count": len(docs), "documents": docs}


@router.get("/documents/view")
def view(ws: WS, target: Annotated[str, Query(min_length=1, max_length=1000,
                                               description="A vault-relative path, path:LINE, or an id.")]) -> JSON:
    """`kbg view`: a document's metadata and text (only documents in the index: never a file outside it)."""
    from ...documents.views import view_document

    return view_document(ws.root, ws.store, target, access=ws.access)

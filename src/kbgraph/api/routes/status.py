"""GET /index/status."""

from __future__ import annotations

from fastapi import APIRouter

from ...shapes import index_status_json
from ..deps import WS
from ..models import JSON

router = APIRouter(tags=["index"])


@router.get("/index/status")
def status(ws: WS) -> JSON:
    """`kbg index status`: counts, sizes, the last run, and files with problems (the local user sees paths)."""
    return index_status_json(ws.store, ws.root, ws.access)

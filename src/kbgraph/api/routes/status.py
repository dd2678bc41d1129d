"""GET /index/status."""

from __future__ import annotations

from dataclasses import asdict

from fastapi import APIRouter

from ..deps import WS
from ..models import JSON

router = APIRouter(tags=["index"])


@router.get("/index/status")
def status(ws: WS) -> JSON:
    """`kbg index status`: counts, sizes, the last run, and files with problems (the local user sees paths)."""
    stats = ws.store.stats()
    stats.update(vault=str(ws.root), index_path=getattr(ws.store, "path", None), index_bytes=ws.store.size_on_disk(),
                 problems=[asdict(p) for p in ws.store.problems()])
    return stats

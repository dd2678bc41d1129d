"""One router per feature; each route calls one library function and returns its JSON shape."""

from __future__ import annotations

from typing import Annotated

from fastapi import Query

Limit = Annotated[int, Query(ge=1, le=1000)]
Date = Annotated[str | None, Query(max_length=40, description="YYYY-MM-DD")]
DateFrom = Annotated[str | None, Query(alias="from", max_length=40, description="Dated on or after (YYYY-MM-DD).")]
DateTo = Annotated[str | None, Query(alias="to", max_length=40, description="Dated on or before (YYYY-MM-DD).")]
Words = Annotated[str, Query(min_length=1, max_length=2000)]
Name = Annotated[str, Query(min_length=1, max_length=500)]
Many = Annotated[list[str], Query(max_length=20)]


def doc_filter(types: list[str], path: str | None, date_from: str | None, date_to: str | None, tags: list[str]):
    """The DocFilter `kbg search --type/--path/--from/--to/--tag` builds."""
    from ...documents.views import parse_date_option
    from ...store.base import DocFilter

    return DocFilter(kinds=tuple(t.lower() for t in types), path_prefix=path,
                     date_from=parse_date_option(date_from, "date_from"),
                     date_to=parse_date_option(date_to, "date_to", end=True), tags=tuple(t.lstrip("#") for t in tags))

"""Unknown query parameters are refused, as unknown body fields already are (models.Body forbids extras).

FastAPI ignores a query parameter no route declares, so `GET /relations?name=Ben&type_name=manages` (the
MCP tool's argument name, not the route's `type`) answered every relation of every type, as if the filter
had been read. The MCP door refuses an unknown argument (mcp/arguments.py); this is the same rule here."""

from __future__ import annotations

from fastapi import Request
from fastapi.exceptions import RequestValidationError

_declared: dict[int, frozenset[str]] = {}  # per route object: what it and its dependencies read


def _names(route) -> frozenset[str]:
    key = id(route)
    if key not in _declared:
        _declared[key] = frozenset(_walk(route.dependant))
    return _declared[key]


def _walk(dependant) -> set[str]:
    names = {param.alias for param in dependant.query_params}
    for sub in dependant.dependencies:
        names |= _walk(sub)
    return names


def refuse_unknown_query(request: Request) -> None:
    route = request.scope.get("route")
    if route is None or not hasattr(route, "dependant"):
        return
    known = _names(route)
    unknown = sorted(set(request.query_params) - known)
    if unknown:
        takes = ", ".join(sorted(known)) if known else "none"
        raise RequestValidationError([{"loc": ("query", name), "type": "extra_forbidden",
                                       "msg": f"unknown parameter; this route takes: {takes}"} for name in unknown])

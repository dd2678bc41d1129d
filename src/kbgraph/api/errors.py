"""The one place kbgraph's errors become HTTP: a status, a stable code, the library's message.

Every error body reads `{"error": {"code", "message", "param", "hint", "candidates"?}}`. The table is
most specific first; anything a route raises that is not a KbgError is a bug, answered 500 `internal`
without its text."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import errors as e
from .models import ErrorBody

log = logging.getLogger("kbgraph.api")

RETRY_AFTER_S = 5

# (error class, HTTP status, code): the first class the error is an instance of wins.
STATUS: tuple[tuple[type[e.KbgError], int, str], ...] = (
    (e.Ambiguous, 409, "ambiguous"),
    (e.NotFound, 404, "not_found"),
    (e.InvalidInput, 400, "invalid_input"),
    (e.VaultBusy, 503, "busy"),
    (e.SchemaTooNew, 503, "schema_too_new"),
    (e.ModelError, 503, "model_unavailable"),
    (e.MissingDependency, 503, "missing_dependency"),
    (e.ConfigError, 500, "config_error"),
    (e.VaultError, 500, "vault_error"),
    (e.StoreError, 503, "store_error"),
    (e.KbgError, 500, "error"),
)
_HTTP_CODES = {401: "unauthorized", 404: "not_found", 405: "method_not_allowed", 413: "too_large",
               415: "unsupported_media_type"}


def _methods(request: Request) -> list[str]:
    from starlette.routing import Match

    found: set[str] = set()
    for route in request.app.routes:
        methods = getattr(route, "methods", None)
        if methods and route.matches({**request.scope, "method": next(iter(methods))})[0] == Match.FULL:
            found |= set(methods)
    return sorted(found)


def status_of(exc: e.KbgError) -> tuple[int, str]:
    return next((status, code) for cls, status, code in STATUS if isinstance(exc, cls))


def error_body(code: str, message: str, **extra) -> dict:
    return {"error": {"code": code, "message": message, **{k: v for k, v in extra.items() if v is not None}}}


def kbg_error_response(exc: e.KbgError) -> JSONResponse:
    status, code = status_of(exc)
    body = error_body(code, exc.message, param=exc.param, hint=exc.hint,
                      candidates=exc.candidates if isinstance(exc, e.Ambiguous) else None)
    headers = {"Retry-After": str(RETRY_AFTER_S)} if status == 503 else None
    return JSONResponse(body, status_code=status, headers=headers)


def install(app: FastAPI) -> None:
    """Register the handlers: library errors, bad requests, HTTP errors, and anything unexpected."""

    @app.exception_handler(e.KbgError)
    def _kbg(request: Request, exc: e.KbgError) -> JSONResponse:
        return kbg_error_response(exc)

    @app.exception_handler(RequestValidationError)
    def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = [{"where": ".".join(str(p) for p in err.get("loc", ())), "problem": err.get("msg", "")}
                    for err in exc.errors()]
        message = "; ".join(f"{p['where']}: {p['problem']}" for p in problems[:5]) or "the request is not valid"
        return JSONResponse(error_body("invalid_request", message, problems=problems), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _HTTP_CODES.get(exc.status_code, "http_error")
        headers = dict(exc.headers or {})
        if exc.status_code == 405:  # one route per method: Allow names the methods of every route on the path
            headers["Allow"] = ", ".join(_methods(request))
        return JSONResponse(error_body(code, str(exc.detail)), status_code=exc.status_code, headers=headers or None)

    @app.exception_handler(Exception)
    def _bug(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return JSONResponse(error_body("internal", "unexpected error; the server log has the details"),
                            status_code=500)


# The error statuses any route may answer (a name may be ambiguous or unknown anywhere one is taken), for OpenAPI.
RESPONSES: dict[int | str, dict] = {
    status: {"model": ErrorBody, "description": text} for status, text in (
        (400, "invalid_input: the library refused an argument (`param` names it)"),
        (401, "unauthorized: a bearer token is needed, or the one sent is not valid"),
        (404, "not_found: no such document, entity, suggestion, question, fact or loop"),
        (409, "ambiguous: a name matches several entities (`candidates`)"),
        (413, "too_large: the request body is over the limit"),
        (421, "wrong_host: the request's Host is not an address this server answers to"),
        (422, "invalid_request: a missing, unknown or wrong-typed field"),
        (503, "busy (Retry-After) or the index or model cannot be used now"),
    )
}


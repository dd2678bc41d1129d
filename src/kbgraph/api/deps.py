"""What every route depends on: the workspace, read as the request's Access."""

from __future__ import annotations

import dataclasses
from typing import Annotated

from fastapi import Depends, HTTPException, Request

from ..workspace import Workspace
from .tokens import request_access


def workspace(request: Request) -> Workspace:
    """The app's workspace, as the caller: LOCAL on loopback without tokens, else the bearer token's principal."""
    state = request.app.state
    access = request_access(state.workspace.store, request.headers.get("authorization"), state.loopback)
    if access is None:
        raise HTTPException(401, "a bearer token is needed: send `Authorization: Bearer <token>`",
                            headers={"WWW-Authenticate": "Bearer"})
    return dataclasses.replace(state.workspace, access=access)


WS = Annotated[Workspace, Depends(workspace)]

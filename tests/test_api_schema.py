"""Schemathesis over the whole OpenAPI schema, in process (ASGI), on a copy of the indexed sample vault:
whatever it sends, the API answers without a server error, and as its schema says."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.checks import positive_data_acceptance  # noqa: E402

from kbgraph.api.app import create_app  # noqa: E402

from .conftest import copy_indexed  # noqa: E402

# The app is built before the vault exists (collection time); the fixture below gives it its workspace.
APP = create_app(None)  # type: ignore[arg-type]
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@pytest.fixture(scope="module", autouse=True)
def _vault(tmp_path_factory, indexed_sample):
    from kbgraph.workspace import Workspace

    vault = copy_indexed(indexed_sample, tmp_path_factory.mktemp("api-schema") / "vault")
    with Workspace.open(str(vault)) as ws:
        APP.state.workspace = ws
        yield


@schema.parametrize()
@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                 HealthCheck.function_scoped_fixture])
def test_no_server_error_and_responses_match_the_schema(case):
    # A schema-valid request the library refuses (an unknown relation type, a date that is not a date)
    # is a 400 with its reason, not a failure: every other check runs, the server-error check first.
    case.call_and_validate(excluded_checks=[positive_data_acceptance])

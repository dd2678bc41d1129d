"""The web view's files: served by the API app at / and /web/, the vendored graph library as recorded, no network."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the web view is served by the API: install the serve extra")

WEB = Path(__file__).resolve().parents[1] / "src" / "kbgraph" / "web"


@pytest.fixture(scope="module")
def client(tmp_path_factory, indexed_sample):
    from fastapi.testclient import TestClient

    from kbgraph.api.app import create_app
    from kbgraph.workspace import Workspace

    from .conftest import copy_indexed

    ws = Workspace.open(copy_indexed(indexed_sample, tmp_path_factory.mktemp("web") / "vault"))
    with TestClient(create_app(ws)) as c:
        yield c
    ws.close()


def test_the_page_is_served_at_the_root(client):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    for ref in re.findall(r'(?:src|href)="([^"]+)"', page.text):
        asset = client.get("/" + ref)
        assert asset.status_code == 200, ref
    assert 'id="graph"' in page.text and 'id="suggestions"' in page.text and 'id="conflicts"' in page.text


def test_the_vendored_library_is_served_as_javascript(client):
    response = client.get("/web/vendor/cytoscape.min.js")
    assert response.status_code == 200
    assert response.headers["content-type"].split(";")[0] in ("text/javascript", "application/javascript")
    assert response.content == (WEB / "vendor" / "cytoscape.min.js").read_bytes()
    assert client.get("/web/app.css").headers["content-type"].startswith("text/css")


def test_the_web_view_leaves_the_api_as_it_was(client):
    assert "/" not in client.get("/openapi.json").json()["paths"]
    missing = client.get("/no-such-route")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    assert client.post("/no-such-route").status_code == 404


def test_the_vendored_file_matches_its_record():
    record = json.loads((WEB / "vendor" / "VENDORED.json").read_text(encoding="utf-8"))["cytoscape.min.js"]
    data = (WEB / "vendor" / "cytoscape.min.js").read_bytes()
    assert hashlib.sha256(data).hexdigest() == record["sha256"], "vendor/cytoscape.min.js changed: re-vendor it"
    assert f'version="{record["version"]}"' in data.decode("utf-8"), "the file's version banner is not the recorded one"
    assert record["name"] == "cytoscape" and record["license"] == "MIT"
    assert record["integrity"].startswith("sha512-") and record["version"] in record["source"]


def test_the_page_and_its_script_name_no_external_url():
    for name in ("index.html", "app.js", "app.css"):
        text = (WEB / name).read_text(encoding="utf-8")
        assert not re.search(r"https?://", text), f"{name} names an external URL: the page must work offline"


def test_the_web_files_are_package_data():
    import tomllib

    pyproject = tomllib.loads((WEB.parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]["kbgraph.web"]
    files = [p.relative_to(WEB) for p in WEB.rglob("*") if p.is_file() and p.suffix != ".pyc" and p.suffix != ".py"]
    assert files and all(any(f.match(pattern) for pattern in patterns) for f in files), files

"""The web view in a real browser: Debian's chromium, headless, driven by Playwright, against `kbg serve`'s app.

Skips (with the reason) when chromium or playwright is missing, unless KBG_TEST_BROWSER=1 (then it fails).
KBG_WEB_SCREENSHOT=docs/web-graph.png also saves a screenshot of the graph view there.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from .conftest import copy_indexed

CHROMIUM = Path("/usr/bin/chromium")


def _missing() -> str | None:
    try:
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        return "the web view needs the serve extra (pip install -e '.[serve]')"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[test]'; never `playwright install`)"
    if not CHROMIUM.exists():
        return f"no {CHROMIUM}: apt-get install -y chromium (or set KBG_TEST_BROWSER=1 to make this a failure)"
    return None


@pytest.fixture(scope="module")
def server(tmp_path_factory, indexed_sample):
    """The API app with its web view, served by uvicorn on a free loopback port, over a copy of the sample vault."""
    reason = _missing()
    if reason:
        if os.environ.get("KBG_TEST_BROWSER") == "1":
            pytest.fail(f"KBG_TEST_BROWSER=1 but {reason}")
        pytest.skip(reason)
    import uvicorn

    from kbgraph.api.app import create_app
    from kbgraph.workspace import Workspace

    ws = Workspace.open(copy_indexed(indexed_sample, tmp_path_factory.mktemp("browser") / "vault"))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    uv = uvicorn.Server(uvicorn.Config(create_app(ws), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not uv.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert uv.started, "uvicorn did not start"
    yield f"http://127.0.0.1:{port}"
    uv.should_exit = True
    thread.join(5)
    ws.close()


@pytest.fixture(scope="module")
def page(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox", "--disable-gpu"])
        tab = browser.new_page(viewport={"width": 1500, "height": 950})
        errors: list[str] = []
        tab.on("pageerror", lambda exc: errors.append(str(exc)))
        tab.on("request", lambda req: errors.append(f"left the server: {req.url}")
               if not req.url.startswith(server) else None)
        tab.goto(server + "/")
        idle(tab)
        yield tab
        assert errors == []
        browser.close()


def idle(tab) -> None:
    """Wait until the page has no API call in flight."""
    tab.wait_for_function("window.kbg && window.kbg.pending === 0", timeout=10_000)


def graph(tab, expression: str):
    return tab.evaluate(f"(() => {{ const cy = window.kbg.graph.cy; return {expression}; }})()")


def click_node(tab, name: str) -> None:
    """A real mouse click on the node's drawn position."""
    x, y = tab.evaluate("""name => {
        const node = window.kbg.graph.cy.nodes().filter(n => n.data('name') === name)[0];
        const at = node.renderedPosition(), box = document.getElementById('graph').getBoundingClientRect();
        return [box.left + at.x, box.top + at.y];
    }""", name)
    tab.mouse.click(x, y)
    tab.wait_for_timeout(50)
    idle(tab)


def api(server: str, path: str, body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(server + path, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_search_shows_results_with_snippets(page):
    page.fill("#q", "token rotation")
    page.press("#q", "Enter")
    page.wait_for_selector("#hits li.hit")
    assert "Atlas weekly sync" in page.inner_text("#hits")
    assert page.locator("#hits .snippet mark").count() >= 2
    page.check("#passages")
    page.click("#search-form button")
    page.wait_for_function("document.querySelector('#results .hint').textContent.includes('passages')")
    assert page.locator("#hits li.hit").count() >= 1


def test_a_profile_and_its_graph_expand_on_click(page, server):
    page.click('#entity-chips [data-entity="Ben Okafor"]')
    idle(page)
    assert "Ben Okafor (person)" in page.inner_text("#profile-name")
    assert "VP Engineering" in page.inner_text("#profile-body")
    # Depth 2 reaches the inferred skip-level relations, drawn dotted.
    assert graph(page, "cy.nodes().length") > 5
    assert graph(page, "cy.edges('.inferred').length") > 0
    assert graph(page, "cy.edges('.inferred')[0].style('line-style')") == "dotted"
    assert graph(page, "cy.edges('[type = \"manages\"]')[0].style('label')") == "manages"
    if os.environ.get("KBG_WEB_SCREENSHOT"):
        page.screenshot(path=os.environ["KBG_WEB_SCREENSHOT"])
    page.uncheck("#show-inferred")
    idle(page)
    page.select_option("#depth", "1")
    idle(page)
    assert graph(page, "cy.nodes().map(n => n.data('name')).sort()") == [
        "Ana Lima", "Ben Okafor", "Chen Wei", "Lena Fischer", "María García"]
    assert graph(page, "cy.edges('.inferred').length") == 0
    click_node(page, "Ana Lima")
    names = graph(page, "cy.nodes().map(n => n.data('name'))")
    assert {"Arjun Mehta", "Dana Kowalski", "Project Atlas"} <= set(names)
    assert graph(page, "cy.edges('[type = \"leads\"]')[0].style('line-color')") != \
        graph(page, "cy.edges('[type = \"manages\"]')[0].style('line-color')")


def test_an_expired_relation_is_drawn_dashed(page, server):
    api(server, "/relations", {"source": "Lena Fischer", "type": "mentors", "target": "Omar Haddad",
                               "create": "person", "valid_until": "2020-01-01"})
    page.fill("#entity-name", "Lena Fischer")
    page.press("#entity-name", "Enter")
    idle(page)
    page.wait_for_function("window.kbg.graph.centre === 'Lena Fischer'")
    idle(page)
    assert graph(page, "cy.edges('.expired').map(e => e.target().data('name'))") == ["Omar Haddad"]
    assert graph(page, "cy.edges('.expired')[0].style('line-style')") == "dashed"


def test_accepting_a_suggestion_makes_it_a_relation(page, server):
    pending = api(server, "/suggestions")["suggestions"]
    chosen = next(s for s in pending if not s["new_source"] and not s["new_target"])
    item = page.locator(f'#suggestions li[data-id="{chosen["id"]}"]')
    assert chosen["target"] in item.inner_text()
    item.locator("button.accept").click()
    page.wait_for_selector(f'#suggestions li[data-id="{chosen["id"]}"]', state="detached")
    idle(page)
    assert "accepted" in page.inner_text("#message")
    rows = api(server, f"/relations?name={urllib.request.quote(chosen['source'])}&type={chosen['type']}")["relations"]
    assert chosen["target"] in [r.get("target") for r in rows]


def test_resolving_a_conflict_takes_it_off_the_list(page, server):
    # Chen Wei reports to Ben Okafor; a second manager with no date is a factual conflict, open for the user.
    made = api(server, "/relations", {"source": "Chen Wei", "type": "reports-to", "target": "Lena Fischer"})
    conflict = next(c for c in made["conflicts"] if c["status"] == "open")
    page.reload()  # the queues load with the page
    idle(page)
    item = page.locator(f'#conflicts li[data-id="{conflict["id"]}"]')
    assert "Ben Okafor" in item.inner_text() and "Lena Fischer" in item.inner_text()
    item.locator("button.keep-old").click()
    page.wait_for_selector(f'#conflicts li[data-id="{conflict["id"]}"]', state="detached")
    idle(page)
    assert "kept Ben Okafor" in page.inner_text("#message")
    assert conflict["id"] not in [c["id"] for c in api(server, "/relations/conflicts")["conflicts"]]
    settled = api(server, "/relations/conflicts?all=true")["conflicts"]
    assert next(c for c in settled if c["id"] == conflict["id"])["status"] == "resolved"

"""The web view: static files (index.html, app.js, app.css, vendor/) that `kbg serve` serves at `/`.

No Python here: the page calls the HTTP API (docs/api.md) from the browser, so it holds no rule of its
own. The graph library is vendored (vendor/VENDORED.json records its version and hashes), so the page
works offline. docs/web.md describes it.
"""

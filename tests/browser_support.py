"""Driving Debian's Chromium with Playwright against a built site.

Without a browser the browser tests are skipped, except under CI=true, where they fail: CI must
never pass by not running them.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from conftest import REPO, Project, make_project
from gbsite.docs import files as docs

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    # Without these Chromium keeps calling home, which this machine's closed network refuses.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
]


def chromium_path() -> str | None:
    """GBSITE_CHROMIUM, else Debian's chromium, else a Chromium installed by `playwright install`
    (GitHub's Ubuntu runners have no Debian package)."""
    found = (
        os.environ.get("GBSITE_CHROMIUM")
        or shutil.which("chromium")
        or shutil.which("chromium-browser")
    )
    if found:
        return found
    cache = Path(os.environ.get("PLAYWRIGHT_BROWSERS_PATH", "~/.cache/ms-playwright")).expanduser()
    bundled = sorted(cache.glob("chromium-*/chrome-linux*/chrome"))
    return str(bundled[-1]) if bundled else None


def require_browser() -> str:
    path = chromium_path()
    if path is None:
        message = "Chromium not found (apt-get install chromium, or set GBSITE_CHROMIUM)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{message}; under CI=true the browser tests must run")
        pytest.skip(message)
    return path


# axe-core (accessibility rules), from npm: .ci/install-axe puts it here. Tests only; the site
# never loads it.
AXE_VERSION = "4.14.1"
AXE_TAGS = ["wcag2a", "wcag2aa", "best-practice"]


def axe_path() -> Path | None:
    """GBSITE_AXE, else where .ci/install-axe caches the version the tests were written for."""
    if os.environ.get("GBSITE_AXE"):
        return Path(os.environ["GBSITE_AXE"])
    cache = Path(os.environ.get("XDG_CACHE_HOME", "~/.cache")).expanduser()
    path = cache / "gbsite" / f"axe-core-{AXE_VERSION}" / "axe.min.js"
    return path if path.is_file() else None


def require_axe() -> Path:
    path = axe_path()
    if path is None or not path.is_file():
        message = "axe-core not found (bash .ci/install-axe, or set GBSITE_AXE)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{message}; under CI=true the accessibility tests must run")
        pytest.skip(message)
    return path


def axe_violations(page: Any, path: Path) -> list[str]:
    """axe-core's violations of AXE_TAGS on the page as it is now, one line per rule: its id,
    impact and the first elements it failed on. Loaded from disk into the page. Only the
    violations are reported in full (resultTypes): axe then makes no selector for each node
    that passed, a fifth of its time on the dashboard; the violations are the same."""
    page.add_script_tag(path=str(path))
    return list(
        page.evaluate(
            """async (tags) => {
                const result = await axe.run(document, {
                    runOnly: {type: "tag", values: tags}, resultTypes: ["violations"]});
                return result.violations.map(v => `${v.id} (${v.impact}, ${v.nodes.length}): ` +
                    v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(" | "));
            }""",
            AXE_TAGS,
        )
    )


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site under `prefix` and answers a missing path with its 404.html, as GitHub
    Pages does."""

    prefix = "/"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def translate_path(self, path: str) -> str:
        inside = path.startswith(self.prefix)
        return super().translate_path(
            "/" + path[len(self.prefix) :] if inside else "/nothing-outside-the-prefix/"
        )

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


@contextmanager
def serve_folder(
    folder: Path, prefix: str = "/", *, pages: PageOpener | None = None
) -> Iterator[str]:
    """A static HTTP server on a free localhost port, the site under `prefix`; yields the
    site's URL. `pages`: the test's open_page, whose pages are closed before the server stops:
    a page still open could ask it for something after (a prefetch, an icon), and the refused
    request would be a console error of the page's, failing the test at its teardown."""
    handler_class = type("Handler", (QuietHandler,), {"prefix": prefix})
    handler = functools.partial(handler_class, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{prefix}"
    finally:
        if pages is not None:
            pages.close()
        server.shutdown()
        server.server_close()


@dataclass
class PageWatch:
    """What a page did that a test must check: console errors, exceptions, foreign requests."""

    errors: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    not_found_page: bool = False  # the page is the site's 404 page, answered with status 404

    def attach(self, page: Any, allowed_host: str | None) -> None:
        def on_console(message: Any) -> None:
            if self.not_found_page and "status of 404" in message.text:
                return
            if message.type == "error":
                self.errors.append(f"console: {message.text}")

        def on_request(request: Any) -> None:
            url = urlparse(request.url)
            if url.scheme in ("data", "blob", "about", "file"):
                return
            if url.hostname != allowed_host:
                self.foreign.append(request.url)

        page.on("console", on_console)
        page.on("pageerror", lambda exc: self.errors.append(f"exception: {exc}"))
        page.on("request", on_request)

    def assert_clean(self) -> None:
        assert not self.errors, self.errors
        assert not self.foreign, f"requests to other hosts: {self.foreign}"


# ---- fixtures (registered for all tests by conftest.py's pytest_plugins) ---------------

INFO = """
### A worked example

| option | effect |
| --- | --- |
| `fullgraph=True` | stops at the first break<br>one graph |

```python
torch._dynamo.graph_break()
```

Related: GB0029.
"""


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    executable = require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Project:
    proj = make_project(tmp_path_factory.mktemp("browser") / "proj", docs=True)
    doc = proj.docs / "gb0025.md"
    doc.write_text(docs.with_block(doc.read_text(), INFO))
    assert proj.run("build").code == 0
    return proj


@pytest.fixture(scope="session")
def history_site(tmp_path_factory: pytest.TempPathFactory, history_template: Project) -> Project:
    """The same site on the registry of the HISTORY releases (conftest.py), whose texts and
    removed ids no later import changes: for tests of what a search finds."""
    proj = Project(tmp_path_factory.mktemp("browser-history") / "proj")
    shutil.copytree(history_template.root, proj.root, symlinks=True)
    shutil.rmtree(proj.root / "docs")
    shutil.copytree(REPO / "docs", proj.root / "docs")
    for name in ("legacy-messages.json", "adjacent-messages.json"):  # older and adjacent texts
        shutil.copy(REPO / "registry" / name, proj.registry / name)
    doc = proj.docs / "gb0025.md"
    doc.write_text(docs.with_block(doc.read_text(), INFO))
    # Docs of ids added since, and generated parts of texts changed since, are warnings only.
    assert proj.run("build").code == 0
    return proj


@pytest.fixture(scope="session")
def base_url(built_site: Project) -> Iterator[str]:
    with serve_folder(built_site.site) as url:
        yield url


class PageOpener:
    """The open_page fixture: opens a page in a context of its own, watching what it does."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self.contexts: list[Any] = []
        self.watches: list[PageWatch] = []

    def __call__(
        self,
        url: str,
        *,
        width: int = 1280,
        height: int = 900,
        scheme: str = "light",
        not_found: bool = False,
    ) -> Any:
        context = self.browser.new_context(
            viewport={"width": width, "height": height}, color_scheme=scheme
        )
        self.contexts.append(context)
        page = context.new_page()
        watch = PageWatch(not_found_page=not_found)
        watch.attach(page, "127.0.0.1" if url.startswith("http") else None)
        self.watches.append(watch)
        page.goto(url)
        return page

    def close(self) -> None:
        """Close every page opened so far (closing one twice does nothing)."""
        for context in self.contexts:
            context.close()


@pytest.fixture
def open_page(browser: Any) -> Iterator[PageOpener]:
    opener = PageOpener(browser)
    yield opener
    opener.close()
    for watch in opener.watches:
        watch.assert_clean()

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

from conftest import Project, make_project
from gbsite import docs

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


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serve_folder(folder: Path) -> Iterator[str]:
    """A static HTTP server on a free localhost port; yields its base URL."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class PageWatch:
    """What a page did that a test must check: console errors, exceptions, foreign requests."""

    errors: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)

    def attach(self, page: Any, allowed_host: str | None) -> None:
        def on_console(message: Any) -> None:
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
def base_url(built_site: Project) -> Iterator[str]:
    with serve_folder(built_site.site) as url:
        yield url


@pytest.fixture
def open_page(browser: Any) -> Iterator[Any]:
    contexts: list[Any] = []
    watches: list[PageWatch] = []

    def opener(url: str, *, width: int = 1280, height: int = 900, scheme: str = "light") -> Any:
        context = browser.new_context(
            viewport={"width": width, "height": height}, color_scheme=scheme
        )
        contexts.append(context)
        page = context.new_page()
        watch = PageWatch()
        watch.attach(page, "127.0.0.1" if url.startswith("http") else None)
        watches.append(watch)
        page.goto(url)
        return page

    yield opener
    for context in contexts:
        context.close()
    for watch in watches:
        watch.assert_clean()

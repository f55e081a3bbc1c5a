"""`gbsite serve` as a user runs it: a real server process, real file edits, Ctrl-C."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import Project, interruptible, make_project, unknown_id
from gbsite.docs import files as docs

pytestmark = [pytest.mark.slow, pytest.mark.repo_data]

START = docs.START_MARKER
END = docs.END_MARKER


class Server:
    def __init__(self, project: Project) -> None:
        self.project = project
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gbsite", "--root", str(project.root), "serve", "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            preexec_fn=interruptible,  # stop() sends SIGINT
        )
        self.lines: list[str] = []
        self.url = ""
        deadline = time.monotonic() + 60
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            self.lines.append(line)
            if match := re.search(r"Serving on (http://\S+)", line):
                self.url = match.group(1)
                break
        assert self.url, "".join(self.lines)

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=10) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    def raw_status(self, path: str) -> int:
        """Send the path exactly as written, without any client-side normalisation."""
        import http.client

        host, port = self.url.split("//")[1].rstrip("/").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        conn.request("GET", path)
        status = conn.getresponse().status
        conn.close()
        return status

    def event(self) -> dict[str, object]:
        with urllib.request.urlopen(self.url + "__gbsite/events", timeout=10) as response:
            line = response.readline().decode()
        return json.loads(line.removeprefix("data: "))

    def wait_for(self, predicate, timeout: float = 20) -> float:  # type: ignore[no-untyped-def]
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            if predicate():
                return time.monotonic() - start
            time.sleep(0.05)
        raise AssertionError("timed out waiting for the server")

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            self.proc.wait(timeout=30)
        assert self.proc.stdout is not None
        return "".join(self.lines) + self.proc.stdout.read()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(make_project(tmp_path / "proj", docs=True))
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def reading_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for the tests that only request pages (each server is a copy and a build)."""
    srv = Server(make_project(tmp_path_factory.mktemp("reading") / "proj", docs=True))
    yield srv
    srv.stop()


def edit_block(project: Project, gb_id: str, text: str) -> Path:
    path = project.docs / f"{gb_id.lower()}.md"
    path.write_text(docs.with_block(path.read_text(), f"\n{text}\n"))
    return path


def test_serves_the_site(reading_server: Server) -> None:
    server = reading_server
    status, page = server.get("")
    assert status == 200 and "<h1>torch.compile graph breaks</h1>" in page
    status, page = server.get("gb/gb0025.html")
    assert status == 200 and "EventSource" in page  # live reload, injected when served
    assert "EventSource" not in (server.project.site / "gb" / "gb0025.html").read_text()
    status, page = server.get(f"gb/{unknown_id().lower()}.html")
    assert status == 404 and "Page not found" in page


def test_edit_rebuilds_and_the_page_changes(server: Server) -> None:
    edit_block(server.project, "GB0025", "A note saved while serving.")
    server.wait_for(lambda: "A note saved while serving." in server.get("gb/gb0025.html")[1])
    assert server.event() == {"build": 2, "error": None, "warnings": None}


def test_a_burst_of_saves_gives_one_rebuild(server: Server) -> None:
    for i in range(10):
        edit_block(server.project, "GB0025", f"save {i}")
        time.sleep(0.005)
    server.wait_for(lambda: "save 9" in server.get("gb/gb0025.html")[1])
    time.sleep(1.0)  # anything still pending would rebuild now
    # The first build, then the burst: one rebuild on a quiet machine. A loaded one can stall
    # the writer past the debounce once and split the burst in two, but never rebuild per save.
    assert server.event()["build"] in (2, 3)


def test_broken_file_keeps_the_last_good_site_and_recovers(server: Server) -> None:
    path = server.project.docs / "gb0025.md"
    good = path.read_text()
    path.write_text(good.replace(END, ""))
    server.wait_for(lambda: server.event()["error"] is not None)
    error = str(server.event()["error"])
    assert "gb0025.md:" in error and "without an END marker" in error
    status, page = server.get("gb/gb0025.html")
    assert status == 200 and '<span class="entry-id">GB0025</span> Call to' in page  # the last good
    path.write_text(good.replace(START + "\n", START + "\nFixed now.\n"))
    server.wait_for(lambda: "Fixed now." in server.get("gb/gb0025.html")[1])
    assert server.event()["error"] is None


def test_template_and_config_changes_rebuild(server: Server) -> None:
    template = server.project.root / "templates" / "index.html.j2"
    template.write_text(
        template.read_text().replace("<h1>torch.compile graph breaks</h1>", "<h1>Renamed</h1>")
    )
    server.wait_for(lambda: "<h1>Renamed</h1>" in server.get("index.html")[1])
    config = server.project.root / "gbsite.toml"
    config.write_text(
        config.read_text().replace('title = "torch.compile graph breaks"', 'title = "New title"')
    )
    server.wait_for(lambda: "· New title</title>" in server.get("index.html")[1])


def test_a_fresh_record_of_examples_reaches_the_preview(server: Server) -> None:
    """`gbsite check --examples` rewrites docs/verified-examples.yaml; the open preview then
    shows which examples are verified without a restart."""
    from gbsite.examples import record

    path = server.project.root / "docs" / "verified-examples.yaml"
    assert '<span class="verified">2.13.0 breaks</span>' in server.get("gb/gb0003.html")[1]
    runs = record.read(path)
    for row in runs.rows.values():
        if row.id == "GB0003" and row.kind == "gb-repro":
            row.outcomes["2.13.0"] = record.NO_BREAK
    record.write(path, runs)
    server.wait_for(lambda: "2.13.0 no break" in server.get("gb/gb0003.html")[1])


@pytest.mark.parametrize(
    "path",
    [
        "/../gbsite.toml",
        "/%2e%2e/gbsite.toml",
        "/..%2fgbsite.toml",
        "/gb/../../gbsite.toml",
        "/gb/%2e%2e/%2e%2e/registry/sources.yaml",
        "/..%5cgbsite.toml",
        "/%2e%2e%2f%2e%2e%2fetc/passwd",
        "/docs/gb/gb0025.md",
        "/registry/gb/GB0025.yaml",
        "/assets/../../gbsite.toml",
        "/gb/gb0025.html%00.png",
    ],
)
def test_only_site_files_are_served(reading_server: Server, path: str) -> None:
    assert reading_server.raw_status(path) == 404


def test_ctrl_c_stops_cleanly(server: Server) -> None:
    edit_block(server.project, "GB0025", "one more build")
    server.wait_for(lambda: "one more build" in server.get("gb/gb0025.html")[1])
    pid = server.proc.pid
    output = server.stop()
    assert server.proc.returncode == 0
    assert "stopped" in output and "Traceback" not in output
    leftovers = [p.name for p in server.project.root.iterdir() if p.name.startswith(".site")]
    assert leftovers == []
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    assert children.stdout.strip() == ""


def test_port_in_use_is_a_clear_error(reading_server: Server) -> None:
    server = reading_server
    port = server.url.rsplit(":", 1)[1].strip("/")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "gbsite",
            "--root",
            str(server.project.root),
            "serve",
            "--port",
            port,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.browser
def test_open_page_reloads_and_shows_build_errors(server: Server, browser) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page()
    page.goto(server.url + "gb/gb0029.html")
    page.wait_for_load_state("networkidle")
    edit_block(server.project, "GB0029", "### Reloaded by itself")
    page.wait_for_selector("h2#user-content-reloaded-by-itself", timeout=20000)

    path = server.project.docs / "gb0029.md"
    good = path.read_text()
    path.write_text(good.replace(END, ""))
    alert = page.locator("#gbsite-build-error")
    alert.wait_for(timeout=20000)
    assert "gb0029.md:" in alert.inner_text() and "without an END marker" in alert.inner_text()
    assert page.locator(
        "h2#user-content-reloaded-by-itself"
    ).is_visible()  # the last good page stays

    path.write_text(good.replace("### Reloaded by itself", "### Fixed again"))
    page.wait_for_selector("h2#user-content-fixed-again", timeout=20000)
    assert page.locator("#gbsite-build-error").count() == 0
    page.close()


@pytest.mark.browser
def test_text_outside_the_block_is_named_in_the_overlay(server: Server, browser) -> None:  # type: ignore[no-untyped-def]
    """The site shows only the block: a line written elsewhere in a docs file is a warning on
    the open page (and in the log), with its file and line, until it is moved into the block."""
    page = browser.new_page()
    page.goto(server.url + "gb/gb0029.html")
    page.wait_for_load_state("networkidle")
    path = server.project.docs / "gb0029.md"
    good = path.read_text()
    lines = good.split("\n")
    lines.insert(3, "A note written in the wrong place.")
    path.write_text("\n".join(lines))
    alert = page.locator("#gbsite-build-error")
    alert.wait_for(timeout=20000)
    text = alert.inner_text()
    assert "gbsite build warnings" in text
    assert "gb0029.md:4: not on the site: text added outside the ADDITIONAL INFORMATION" in text
    assert "gb0029.md:4: not on the site" in str(server.event()["warnings"])

    path.write_text(good)
    page.wait_for_function("!document.getElementById('gbsite-build-error')", timeout=20000)
    assert server.event()["warnings"] is None
    page.close()
    assert "warning: " in server.stop()

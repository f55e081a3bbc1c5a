"""`gbsite serve`: from saving a docs file to its new page served, beside `python -c pass`.

    python benchmarks/serve.py [--runs N] [--browser-runs N]

Runs `gbsite serve` on a copy of the project in a temporary folder (the repository is not
touched). Each round first times a bare `python -c pass` (this machine's speed at that moment),
then saves a new heading into docs/gb/gb0025.md and, from the start of the save, times:
  - the page served with the new text: a plain HTTP GET of its URL, repeated every few ms;
  - the page rewritten on disk in the output folder (polled beside it; absent if serve keeps
    its site in memory only).
Then, with Chromium (if found; --browser-runs 0 to skip), more rounds time the open page showing
the change after its automatic reload, in rounds of their own so that the browser's work does
not weigh on the figures above. Prints medians, and the ratio served / pass (the median of the
ratios within each round) against the target of 5 (issues 17 and 46), with PASS or MISS.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from gbsite.docs import files as docs
from timing import Runs, compile_bytecode, copy_project, run, verdict

TARGET = 5.0  # issues 17 and 46: new page served <= 5x `python3 -c pass`
PAGE = "gb0025"
HTTP_EVERY = 0.004  # s between GETs: each one takes the server's time from the rebuild
TIMEOUT = 30.0  # s for one change to show


def save_block(doc: Path, text: str) -> None:
    doc.write_text(docs.with_block(doc.read_text(), f"\n{text}\n"))


def served(url: str, marker: bytes) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return marker in response.read()
    except OSError:
        return False  # between two builds a server may refuse or reset: try again


def wait_for(start: float, marker: bytes, url: str, page_file: Path) -> tuple[float, float | None]:
    """Seconds from `start` until the served page, and the page on disk (None if never), have
    `marker`."""
    on_disk: float | None = None
    last_get = 0.0
    while (now := time.perf_counter()) - start < TIMEOUT:
        if on_disk is None:
            try:
                if marker in page_file.read_bytes():
                    on_disk = now - start
            except OSError:
                pass  # being replaced
        if now - last_get >= HTTP_EVERY:
            last_get = now
            if served(url, marker):
                # A last look at the disk, so a page written meanwhile is not missed.
                if on_disk is None and page_file.is_file() and marker in page_file.read_bytes():
                    on_disk = time.perf_counter() - start
                return time.perf_counter() - start, on_disk
        time.sleep(0.001)
    raise SystemExit(f"the change did not show at {url} within {TIMEOUT:.0f} s")


def start_serve(project: Path) -> tuple[subprocess.Popen[str], str, list[str]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "gbsite", "--root", str(project), "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    lines: list[str] = []
    while True:
        line = proc.stdout.readline()
        if not line:
            sys.exit("gbsite serve did not start:\n" + "".join(lines))
        lines.append(line)
        if match := re.search(r"Serving on (\S+)", line):
            break
    # Read what serve prints from now on, so that its output pipe never fills and blocks it.
    threading.Thread(target=lambda: lines.extend(proc.stdout or ()), daemon=True).start()
    return proc, match.group(1), lines


def browser_rounds(url: str, doc: Path, runs: int) -> list[float]:
    """Seconds from saving to the open page showing the change after its automatic reload."""
    from playwright.sync_api import sync_playwright

    from browser_support import CHROMIUM_ARGS, chromium_path

    executable = chromium_path()
    if executable is None:
        print("Chromium not found (apt-get install chromium): no browser rounds", file=sys.stderr)
        return []
    shown = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.goto(url)
        page.wait_for_load_state("networkidle")
        for i in range(runs):
            marker = f"benchmark-browser-{i}-{time.monotonic_ns()}"
            start = time.perf_counter()
            save_block(doc, f"### {marker}")
            # A heading at any level: the block's top headings become the page's h2.
            page.get_by_role("heading", name=marker).wait_for(timeout=TIMEOUT * 1000)
            shown.append(time.perf_counter() - start)
            page.wait_for_load_state("networkidle")
            time.sleep(0.3)  # let the server settle before the next save
        browser.close()
    return shown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--browser-runs", type=int, default=5)
    args = parser.parse_args()
    compile_bytecode()
    work = Path(tempfile.mkdtemp(prefix="gbsite-serve-"))
    project = copy_project(work / "proj")
    doc = project / "docs" / "gb" / f"{PAGE}.md"
    page_file = project / "site" / "gb" / f"{PAGE}.html"
    proc, base_url, output = start_serve(project)
    url = f"{base_url.rstrip('/')}/gb/{PAGE}.html"
    yardstick, http, disk = Runs(), [], []
    try:
        time.sleep(0.5)  # the first build's stragglers: watcher started, pages written
        for i in range(args.runs):
            run([sys.executable, "-c", "pass"], yardstick)
            marker = f"benchmark-save-{i}-{time.monotonic_ns()}"
            start = time.perf_counter()
            save_block(doc, f"### {marker}")
            seen, on_disk = wait_for(start, marker.encode(), url, page_file)
            http.append(seen)
            disk.append(on_disk)
            time.sleep(0.3)  # let the server settle before the next save
        shown = browser_rounds(url, doc, args.browser_runs) if args.browser_runs else []
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)
    after_start = "".join(output).partition("Serving on")[2]  # not the first build
    rebuilds = [float(m) for m in re.findall(r"rebuilt in (\d+) ms", after_start)]

    def row(name: str, values: list[float]) -> None:
        ms = [v * 1000 for v in values]
        print(f"{name:<44}{statistics.median(ms):>9.0f}{min(ms):>8.0f}{max(ms):>8.0f}")

    print(f"\n{args.runs} rounds, each `python -c pass` then one save; {sys.executable}")
    print(f"{'(ms)':<44}{'median':>9}{'min':>8}{'max':>8}")
    row("python -c pass (same rounds)", yardstick.wall)
    row("save -> new page served (HTTP)", http)
    written = [d for d in disk if d is not None]
    if written:
        row(f"save -> page rewritten on disk ({len(written)} of {len(disk)})", written)
    else:
        print("save -> page rewritten on disk: never (serve wrote no page to the output folder)")
    if rebuilds:
        row("rebuild time reported by serve", [ms / 1000 for ms in rebuilds])
    if shown:
        row(f"save -> open page reloaded ({len(shown)} rounds)", shown)
    ratio = statistics.median(v / p for v, p in zip(http, yardstick.wall, strict=True))
    print(f"\nserved / pass (median of the ratios in each round): {ratio:.1f}", end="")
    print(f"   target <= {TARGET:.0f}   {verdict(ratio, TARGET)}")


if __name__ == "__main__":
    main()

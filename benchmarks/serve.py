"""`gbsite serve`: time from saving a docs file to (a) its page rewritten on disk and (b) the
open page in Chromium showing the change after its automatic reload.

    python benchmarks/serve.py [--runs N]

Runs on a copy of the project in a temporary folder, so the repository is not touched.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from browser_support import CHROMIUM_ARGS, chromium_path  # noqa: E402
from gbsite.docs import files as docs  # noqa: E402


def save_block(doc: Path, text: str) -> None:
    doc.write_text(docs.with_block(doc.read_text(), f"\n{text}\n"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    executable = chromium_path()
    if executable is None:
        sys.exit("Chromium not found: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp()) / "proj"
    shutil.copytree(ROOT, work, ignore=shutil.ignore_patterns(".git", "site", ".venv*"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "gbsite", "--root", str(work), "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    url = ""
    while not url:
        line = proc.stdout.readline()
        if not line:
            sys.exit("gbsite serve did not start")
        if match := re.search(r"Serving on (\S+)", line):
            url = match.group(1)
    doc = work / "docs" / "gb" / "gb0025.md"
    page_file = work / "site" / "gb" / "gb0025.html"
    disk, shown, rebuilds = [], [], []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.goto(url + "gb/gb0025.html")
            page.wait_for_load_state("networkidle")
            for i in range(args.runs):
                marker = f"benchmark-save-{i}-{time.monotonic_ns()}"
                start = time.perf_counter()
                save_block(doc, f"### {marker}")
                while marker.encode() not in page_file.read_bytes():
                    time.sleep(0.001)
                disk.append(time.perf_counter() - start)
                page.wait_for_selector(f"h3#{marker}", timeout=30000)
                shown.append(time.perf_counter() - start)
                page.wait_for_load_state("networkidle")
                time.sleep(0.3)  # let the server settle before the next save
            browser.close()
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
        rebuilds = [float(m) for m in re.findall(r"rebuilt in (\d+) ms", out)]
        shutil.rmtree(work.parent, ignore_errors=True)

    def row(name: str, values: list[float]) -> str:
        ms = [v * 1000 for v in values]
        return f"{name:<40}{statistics.median(ms):>9.0f}{min(ms):>8.0f}{max(ms):>8.0f}"

    print(f"{'save -> (ms)':<40}{'median':>9}{'min':>8}{'max':>8}")
    print(row("page rewritten on disk", disk))
    print(row("reloaded page shows the change", shown))
    if rebuilds:
        print(
            f"{'rebuild time reported by serve':<40}{statistics.median(rebuilds):>9.0f}"
            f"{min(rebuilds):>8.0f}{max(rebuilds):>8.0f}"
        )


if __name__ == "__main__":
    main()

"""Search index size and keystroke-to-results time in Chromium, on the committed registry.

    python benchmarks/search.py [--runs N]

Builds the site into a temporary folder, serves it on localhost and drives Debian's Chromium:
for each query it presses the last key in the search box and measures, inside the page, from the
keydown event to the results being in the DOM. "first use" includes loading the index.
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from browser_support import CHROMIUM_ARGS, chromium_path, serve_folder  # noqa: E402
from gbsite import config  # noqa: E402
from gbsite.site import build  # noqa: E402

SCRIPTS = ("search-engine.js", "search.js")  # what the first use of the search box loads
QUERIES = {
    "id": "GB0025",
    "one word": "generator",
    "three words": "data dependent branching",
    "pasted log (4 breaks)": (ROOT / "tests/data/logs/multi.log").read_text(),
}

MEASURE = """async (query) => {
    const input = document.getElementById("search-input");
    input.focus();
    input.value = query.slice(0, -1);
    const done = new Promise(resolve => {
        const observer = new MutationObserver(() => { observer.disconnect(); resolve(); });
        observer.observe(document.getElementById("search-results"),
                         {childList: true, subtree: true, attributes: true});
    });
    const start = performance.now();
    input.dispatchEvent(new KeyboardEvent("keydown", {key: query.slice(-1)}));
    input.value = query;
    input.dispatchEvent(new Event("input", {bubbles: true}));
    await done;
    return performance.now() - start;
}"""


def measure(page: Any, query: str) -> float:
    return float(page.evaluate(MEASURE, query.replace("\n", " ")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    executable = chromium_path()
    if executable is None:
        sys.exit("Chromium not found: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    out = Path(tempfile.mkdtemp()) / "site"
    build.build(config.load(ROOT), out)
    index = (out / "assets" / "search-index.js").read_bytes()
    scripts = {name: (out / "assets" / name).read_bytes() for name in SCRIPTS}
    sizes = "; ".join(
        f"{name} {len(data) / 1024:.1f} KiB ({len(gzip.compress(data)) / 1024:.1f} KiB gzipped)"
        for name, data in scripts.items()
    )
    print(
        f"search index: {len(index) / 1024:.1f} KiB ({len(gzip.compress(index)) / 1024:.1f} "
        f"KiB gzipped); {sizes}"
    )
    rows = []
    with serve_folder(out) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        for name, query in QUERIES.items():
            first, warm = [], []
            for _ in range(max(3, args.runs // 3)):
                page = browser.new_page()
                page.goto(url + "index.html")  # nothing loaded yet but site.js
                first.append(measure(page, query))
                page.close()
            page = browser.new_page()
            page.goto(url + "index.html")
            page.wait_for_function("!!window.gbsiteSearch")
            page.evaluate("window.gbsiteSearch.loadIndex()")
            for _ in range(args.runs):
                warm.append(measure(page, query))
            page.close()
            rows.append((name, statistics.median(first), statistics.median(warm), max(warm)))
        browser.close()
    print(f"{'keystroke to results (ms)':<28}{'first use':>11}{'median':>9}{'max':>8}")
    for name, first_ms, median_ms, max_ms in rows:
        print(f"{name:<28}{first_ms:>11.1f}{median_ms:>9.1f}{max_ms:>8.1f}")
    shutil.rmtree(out.parent, ignore_errors=True)


if __name__ == "__main__":
    main()

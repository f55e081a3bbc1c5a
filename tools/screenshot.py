"""The README's screenshot, taken from the built site with headless Chromium, so that it shows
today's page and never goes stale.

    gbsite build && python tools/screenshot.py [--id GB0059] [--out docs/screenshot.png]

Needs Playwright (in the `test` extra) and a Chromium: Debian's `chromium`, or GBSITE_CHROMIUM.
The page is opened from disk (the site works there), 1280x900 at device scale 1, light scheme.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--no-first-run",
    # Without these Chromium keeps calling home, which a closed network refuses.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--id", default="GB0059", help="the entry page to show (default GB0059)")
    parser.add_argument("--site", type=Path, default=ROOT / "site", help="the built site")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshot.png")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=900)
    args = parser.parse_args()
    page = args.site / "gb" / f"{args.id.lower()}.html"
    if not page.is_file():
        print(f"screenshot: {page} not found: run `gbsite build` first", file=sys.stderr)
        return 2
    browser = os.environ.get("GBSITE_CHROMIUM") or shutil.which("chromium")
    if browser is None:
        print(
            "screenshot: no Chromium (apt-get install chromium, or GBSITE_CHROMIUM)",
            file=sys.stderr,
        )
        return 2
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=browser, args=ARGS)
        try:
            view = chromium.new_page(
                viewport={"width": args.width, "height": args.height},
                device_scale_factor=1,
                color_scheme="light",
            )
            view.goto(page.as_uri())
            view.screenshot(path=str(args.out))
        finally:
            chromium.close()
    print(f"screenshot: {args.out} ({args.id}, {args.width}x{args.height})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Make an MkDocs project with one Markdown page per registry id (every history item on it).

    python benchmarks/mkdocs_site.py OUT_DIR [--registry registry/] [--docs docs/gb/]

A baseline for benchmarks/build.py: the pages of benchmarks/pages.py (those Hugo gets too), an
index page linking to each, MkDocs' built-in `mkdocs` theme and its search plugin (gbsite's site
has search too), code highlighted on the server by Pygments (codehilite) as gbsite and Hugo do.
The navigation holds the index only: with every page in it, the theme would write a menu of
all ids into each page, work that neither gbsite nor the Hugo baseline does. `--full-nav`
leaves the navigation to MkDocs instead (its default: every page), as a project started with
`mkdocs new` would build. Pages are written as gb/gbXXXX.html, as gbsite writes them. Build
it with `mkdocs build -q -f OUT_DIR/mkdocs.yml`
(benchmarks/tools.py installs MkDocs 1.6.1).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
from pathlib import Path

import pages

ROOT = Path(__file__).resolve().parent.parent
# "```python gb-repro": CommonMark (gbsite, Hugo) takes the first word as the language;
# Python-Markdown would not see a fence at all, so the words after the language are dropped.
FENCE_WORDS = re.compile(r"^([ \t]*(?:`{3,}|~{3,})[ \t]*[\w+.-]+)[ \t]+[^`\n]*$", re.M)

CONFIG = """site_name: Graph breaks
site_url: https://example.org/
use_directory_urls: false
theme:
  name: mkdocs
plugins:
  - search
markdown_extensions:
  - codehilite
"""
INDEX_ONLY_NAV = """nav:
  - index.md
not_in_nav: |
  /gb/
"""


def make(
    out: Path, registry_dir: Path, docs_dir: Path | None = None, *, full_nav: bool = False
) -> int:
    if out.exists():
        shutil.rmtree(out)
    (out / "docs" / "gb").mkdir(parents=True)
    (out / "mkdocs.yml").write_text(CONFIG if full_nav else CONFIG + INDEX_ONLY_NAV)
    links = []
    for page in pages.pages(registry_dir, docs_dir):
        front = f"---\ntitle: {json.dumps(page.title)}\n---\n"  # JSON strings are YAML too
        text = FENCE_WORDS.sub(r"\1", page.body)
        (out / "docs" / "gb" / f"{page.slug}.md").write_text(f"{front}\n{text}")
        links.append(f"- [{page.title}](gb/{page.slug}.md)")
    (out / "docs" / "index.md").write_text("# All graph breaks\n\n" + "\n".join(links) + "\n")
    return len(links)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--registry", type=Path, default=ROOT / "registry")
    parser.add_argument("--docs", type=Path, help="add each id's Additional Information block")
    parser.add_argument("--full-nav", action="store_true", help="MkDocs' default navigation")
    args = parser.parse_args()
    count = make(args.out, args.registry, args.docs, full_nav=args.full_nav)
    print(f"MkDocs project with {count} pages in {args.out}; build it with: mkdocs build -q")


if __name__ == "__main__":
    main()

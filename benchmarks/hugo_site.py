"""Make a Hugo site with one Markdown page per registry id (every history item on it).

    python benchmarks/hugo_site.py OUT_DIR [--registry registry/] [--docs docs/gb/]

A baseline for benchmarks/build.py: what a general-purpose static site generator does with the
same registry (the pages come from benchmarks/pages.py). A minimal theme (a list page and a
single page) keeps the comparison about rendering pages, not about theme features. With --docs,
each page also carries its docs file's Additional Information block, as gbsite's pages do (Hugo
highlights its fenced code with Chroma).
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pages

ROOT = Path(__file__).resolve().parent.parent

CONFIG = """baseURL = "https://example.org/"
title = "Graph breaks"
disableKinds = ["taxonomy", "term", "RSS"]
"""

BASEOF = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ .Title }}</title></head>
<body><main>{{ block "main" . }}{{ end }}</main></body></html>
"""

SINGLE = """{{ define "main" }}<h1>{{ .Title }}</h1>{{ .Content }}{{ end }}
"""

LIST = """{{ define "main" }}<h1>{{ .Title }}</h1><ul>
{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}
</ul>{{ end }}
"""


def make(out: Path, registry_dir: Path, docs_dir: Path | None = None) -> int:
    if out.exists():
        shutil.rmtree(out)
    (out / "content" / "gb").mkdir(parents=True)
    (out / "layouts" / "_default").mkdir(parents=True)
    (out / "hugo.toml").write_text(CONFIG)
    (out / "layouts" / "_default" / "baseof.html").write_text(BASEOF)
    (out / "layouts" / "_default" / "single.html").write_text(SINGLE)
    (out / "layouts" / "_default" / "list.html").write_text(LIST)
    (out / "content" / "_index.md").write_text('{"title": "All graph breaks"}\n')
    count = 0
    for page in pages.pages(registry_dir, docs_dir):
        front = json.dumps({"title": page.title})  # Hugo reads JSON front matter
        (out / "content" / "gb" / f"{page.slug}.md").write_text(f"{front}\n{page.body}")
        count += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--registry", type=Path, default=ROOT / "registry")
    parser.add_argument("--docs", type=Path, help="add each id's Additional Information block")
    args = parser.parse_args()
    count = make(args.out, args.registry, args.docs)
    print(f"Hugo site with {count} pages in {args.out}; build it with: hugo -s {args.out}")


if __name__ == "__main__":
    main()

"""Make a Hugo site with one Markdown page per registry id (every history item on it).

    python benchmarks/hugo_site.py OUT_DIR [--registry registry/]

The baseline for benchmarks/build.py: what a general-purpose static site generator does with the
same registry. A minimal theme (a list page and a single page) keeps the comparison about
rendering pages, not about theme features.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from gbsite import registry

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


def page(gb_id: str, texts: list[dict[str, object]]) -> str:
    front = json.dumps({"title": f"{gb_id}: {texts[0]['gb_type']}"})
    body = []
    for i, text in enumerate(texts):
        body.append("## Current text\n" if i == 0 else f"## Earlier text {i}\n")
        body.append(
            f"**Type:** {text['gb_type']}\n\n**Context:** {text['context']}\n\n"
            f"**Explanation:** {text['explanation']}\n\n**Hints:**\n"
        )
        body.extend(f"- {h}" for h in text["hints"])  # type: ignore[attr-defined]
        body.append("")
    return front + "\n" + "\n".join(body) + "\n"


def make(out: Path, registry_dir: Path) -> int:
    reg = registry.load(registry_dir)
    if out.exists():
        shutil.rmtree(out)
    (out / "content" / "gb").mkdir(parents=True)
    (out / "layouts" / "_default").mkdir(parents=True)
    (out / "hugo.toml").write_text(CONFIG)
    (out / "layouts" / "_default" / "baseof.html").write_text(BASEOF)
    (out / "layouts" / "_default" / "single.html").write_text(SINGLE)
    (out / "layouts" / "_default" / "list.html").write_text(LIST)
    (out / "content" / "_index.md").write_text('{"title": "All graph breaks"}\n')
    for entry in reg.entries.values():
        texts: list[dict[str, object]] = [
            {
                "gb_type": r.text.gb_type,
                "context": r.text.context,
                "explanation": r.text.explanation,
                "hints": list(r.text.hints),
            }
            for r in (*entry.history, *entry.replaced)
        ]
        (out / "content" / "gb" / f"{entry.slug}.md").write_text(page(entry.id, texts))
    return len(reg.entries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--registry", type=Path, default=ROOT / "registry")
    args = parser.parse_args()
    count = make(args.out, args.registry)
    print(f"Hugo site with {count} pages in {args.out}; build it with: hugo -s {args.out}")


if __name__ == "__main__":
    main()

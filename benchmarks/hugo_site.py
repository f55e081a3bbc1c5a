"""Make a Hugo site with one Markdown page per registry id (every history item on it).

    python benchmarks/hugo_site.py OUT_DIR [--registry registry/] [--docs docs/gb/]

The baseline for benchmarks/build.py: what a general-purpose static site generator does with the
same registry. A minimal theme (a list page and a single page) keeps the comparison about
rendering pages, not about theme features. With --docs, each page also carries its docs file's
Additional Information block, as gbsite's pages do (Hugo highlights its fenced code with Chroma).
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from gbsite.docs import files as docs
from gbsite.registry import store as registry

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


def page(gb_id: str, texts: list[dict[str, object]], block: str = "") -> str:
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
    if block.strip():
        body.append(f"## Additional Information\n{block}")
    return front + "\n" + "\n".join(body) + "\n"


def make(out: Path, registry_dir: Path, docs_dir: Path | None = None) -> int:
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
        doc = docs_dir / f"{entry.slug}.md" if docs_dir else None
        block = docs.read(doc, outside=False).block if doc and doc.is_file() else ""
        (out / "content" / "gb" / f"{entry.slug}.md").write_text(page(entry.id, texts, block))
    return len(reg.entries)


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

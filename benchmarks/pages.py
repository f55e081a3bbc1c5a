"""The Markdown pages the other generators build, one per registry id, the same for each.

Each page has every text the registry holds for its id (type, context, explanation, hints), and
with a docs folder also that id's Additional Information block, as gbsite's pages do. Only the
front matter differs between generators, so each one adds its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from gbsite.docs import files as docs
from gbsite.registry import store as registry


@dataclass(frozen=True)
class Page:
    slug: str  # gb0025: the file name without .md
    title: str
    body: str  # Markdown without front matter


def body(texts: list[dict[str, object]], block: str = "") -> str:
    parts = []
    for i, text in enumerate(texts):
        parts.append("## Current text\n" if i == 0 else f"## Earlier text {i}\n")
        parts.append(
            f"**Type:** {text['gb_type']}\n\n**Context:** {text['context']}\n\n"
            f"**Explanation:** {text['explanation']}\n\n**Hints:**\n"
        )
        parts.extend(f"- {h}" for h in text["hints"])  # type: ignore[attr-defined]
        parts.append("")
    if block.strip():
        parts.append(f"## Additional Information\n{block}")
    return "\n".join(parts) + "\n"


def pages(registry_dir: Path, docs_dir: Path | None = None) -> Iterator[Page]:
    reg = registry.load(registry_dir)
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
        yield Page(entry.slug, f"{entry.id}: {texts[0]['gb_type']}", body(texts, block))

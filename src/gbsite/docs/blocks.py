"""Contributor blocks (Additional Information, Markdown) to sanitized HTML, every page at once.

The Markdown stack (markdown-it, Pygments, nh3) is the slowest part of a build to import and
to run, and it needs nothing from the registry but the list of its ids. So `gbsite build`
renders the blocks in a forked worker while it loads the registry and builds the page models
(build.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gbsite.examples import record
from gbsite.examples.record import Record

if TYPE_CHECKING:
    from gbsite.docs.markdown import Fence


# Section ids of an entry page (entry.html.j2); contributor headings are kept clear of them.
PAGE_SECTIONS = (
    "summary",
    "explanation",
    "hints",
    "additional-information",
    "context",
    "history",
    "lifecycle",
)


@dataclass(frozen=True, slots=True)
class RenderedBlock:
    html: str  # sanitized by nh3, so templates may insert it as it is
    classes: tuple[str, ...]  # the highlighting classes its code uses, for the stylesheet


class ExampleCaptions:
    """Says above a gb-repro or gb-fix block what it shows, and what it did with each torch
    release of the examples: `torch 2.13.0 breaks · 2.14.1 breaks · 2.15.0 no break`."""

    def __init__(self, runs: Record, releases: Sequence[str]) -> None:
        self.runs = runs
        self.releases = releases

    def __call__(self, fence: Fence, gb_id: str) -> str | None:
        from html import escape

        from gbsite.examples import annotations as examples

        if "gb-status" in fence.info.split():
            return (
                "The page's state, for <code>gbsite coverage</code>: no example was run "
                "here, for the reason given"
            )
        try:
            a = examples.parse_info(fence.info)
        except ValueError:
            return None  # `gbsite check` reports the bad info string
        if a is None:
            return None
        call = f"<code>torch.compile({escape(a.compile_name)}, fullgraph=True)</code>"
        if a.fullgraph == examples.NO_FULLGRAPH:
            plain = f"<code>torch.compile({escape(a.compile_name)})</code>"
            what = f"Logs {escape(gb_id)} as a graph break when compiled with {plain}"
        elif a.kind == "gb-repro":
            what = f"Breaks with {escape(gb_id)} when compiled with {call}"
        else:
            what = f"Fix: runs without a graph break with {call}"
        if a.backend != examples.DEFAULT_BACKEND:
            what += f", backend <code>{escape(a.backend)}</code>"
        if a.eager == examples.EAGER_RAISES:
            what += "; this code fails without torch.compile too"
        if a.needs:
            needs = escape(examples.needs_label(a.needs))
            return f'{what} · <span class="unverified">needs {needs}: shown, not run</span>'
        digest = examples.digest(
            a.kind, a.compile_name, a.backend, fence.code, a.eager, a.fullgraph
        )
        return f"{what} · {self.outcomes((gb_id, digest), a.kind)}"

    def outcomes(self, key: tuple[str, str], kind: str) -> str:
        """One line of outcomes by release, each in words (colour only repeats them)."""
        from html import escape

        row = self.runs.rows.get(key)
        if row is None:
            return '<span class="unverified">not verified yet</span>'
        parts = []
        for release in self.releases:
            outcome = row.outcomes.get(release)
            said = record.describe(outcome) if outcome else "not run"
            css = "verified" if outcome == record.passing(kind) else "unverified"
            parts.append(f'<span class="{css}">{escape(release)} {escape(said)}</span>')
        return '<span class="outcomes">torch ' + " · ".join(parts) + "</span>"


@dataclass(frozen=True, slots=True)
class RenderedBlocks:
    pages: dict[str, RenderedBlock]  # by id
    css: str  # the Pygments rules for the classes their code uses, both themes

    def replaced(self, fresh: dict[str, RenderedBlock], removed: Iterable[str]) -> RenderedBlocks:
        """These blocks with some re-rendered or gone (serve's rebuild after a docs edit)."""
        gone = set(removed)
        pages = {i: b for i, b in self.pages.items() if i not in gone}
        pages.update(fresh)
        return RenderedBlocks(pages, stylesheet_rules(pages))


def stylesheet_rules(pages: dict[str, RenderedBlock]) -> str:
    classes = {cls for block in pages.values() for cls in block.classes}
    if not classes:
        return ""
    from gbsite.docs.highlight import highlight_css

    return highlight_css(classes)


def render(
    sources: dict[str, str],
    known_ids: Iterable[str],
    verified_file: Path,
    releases: Sequence[str],
) -> RenderedBlocks:
    """Each id's block (Markdown) as HTML; entry pages are siblings, so links are file names."""
    runs = record.read(verified_file)  # read even when unused: a broken record is an error
    if not sources:
        return RenderedBlocks({}, "")  # nothing written yet: no need for the Markdown stack
    from gbsite.docs.highlight import used_classes
    from gbsite.docs.markdown import ContributorMarkdown

    markdown = ContributorMarkdown(
        known_ids=known_ids,
        link_for=lambda gb_id: f"{gb_id.lower()}.html",
        reserved_ids=PAGE_SECTIONS,
        fence_caption=ExampleCaptions(runs, releases),
    )
    pages = {}
    for gb_id, source in sources.items():
        html = markdown.render(source, gb_id)
        pages[gb_id] = RenderedBlock(html, tuple(sorted(used_classes([html]))))
    return RenderedBlocks(pages, stylesheet_rules(pages))

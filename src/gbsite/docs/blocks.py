"""Contributor blocks (Additional Information, Markdown) to sanitized HTML, with a caption
above each example saying what it did with each torch release, and the highlighting rules
their code needs. The build renders each entry page's block as it renders the page
(site/render.py)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gbsite.examples import record
from gbsite.examples.record import Record

if TYPE_CHECKING:
    from gbsite.docs.markdown import ContributorMarkdown, Fence


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


class BlockRenderer:
    """Renders contributor blocks one at a time; the Markdown stack is imported on first use.
    Entry pages are siblings, so links to other ids are file names."""

    def __init__(self, known_ids: Iterable[str], runs: Record, releases: Sequence[str]) -> None:
        self.known_ids = known_ids
        self.captions = ExampleCaptions(runs, releases)
        self._markdown: ContributorMarkdown | None = None

    def prepare(self) -> ContributorMarkdown:
        """The Markdown renderer, made (and the Markdown stack imported) on first use."""
        if self._markdown is None:
            from gbsite import urls
            from gbsite.docs.markdown import ContributorMarkdown

            page = urls.Links(urls.entry("GB0000"))  # every entry page is in gb/
            self._markdown = ContributorMarkdown(
                known_ids=self.known_ids,
                link_for=lambda other: page.near(urls.entry(other)),
                reserved_ids=PAGE_SECTIONS,
                fence_caption=self.captions,
            )
        return self._markdown

    def __call__(self, gb_id: str, source: str) -> RenderedBlock:
        from gbsite.docs.highlight import used_classes

        html = self.prepare().render(source, gb_id)
        return RenderedBlock(html, tuple(sorted(used_classes([html]))))


def stylesheet_rules(classes: Iterable[str]) -> str:
    """The Pygments rules for these highlighting classes, both themes ("" for none)."""
    wanted = set(classes)
    if not wanted:
        return ""
    from gbsite.docs.highlight import highlight_css

    return highlight_css(wanted)

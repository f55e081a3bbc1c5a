"""Contributor blocks (Additional Information, Markdown) to sanitized HTML, with the caption
it is handed above each fence (the build's: examples/captions.py), and the highlighting rules
their code needs. The build renders each entry page's block as it renders the page
(site/render.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gbsite.docs.fences import FenceCaption
    from gbsite.docs.highlight import Highlighter
    from gbsite.docs.markdown import ContributorMarkdown


# Section ids of an entry page (entry.html.j2); contributor headings are kept clear of them.
PAGE_SECTIONS = (
    "summary",
    "explanation",
    "hints",
    "additional-information",
    "context",
    "history",
    "lifecycle",
    "other-fixes",
    "why-more",
    "pytorch-text",
    "releases",
    "older-messages",
    "maintainers",
    "wrong-result",
    "status",
    "raised-in",
)


@dataclass(frozen=True, slots=True)
class RenderedPart:
    """A section of a contributor block as sanitized HTML, with the role it plays for the
    reader (sections.Role) and its heading's text."""

    role: str
    title: str  # the heading as plain text; "" for text before the first heading
    html: str
    anchor: str = ""  # an id of the page's for the section (the wrong-result warning's)

    def __html__(self) -> str:  # a template inserts it as the HTML it is
        return self.html


@dataclass(frozen=True, slots=True)
class RenderedReading:
    """A contributor block's sections as HTML, in the reader's order (sections.Reading)."""

    answer: tuple[RenderedPart, ...]
    why_more: tuple[RenderedPart, ...]
    example: tuple[RenderedPart, ...]
    more_fixes: tuple[RenderedPart, ...]
    rest: tuple[RenderedPart, ...]
    tried: tuple[RenderedPart, ...]

    @property
    def parts(self) -> tuple[RenderedPart, ...]:
        return self.answer + self.why_more + self.example + self.more_fixes + self.rest + self.tried

    @property
    def html(self) -> str:
        """Every section, in the reader's order."""
        return "".join(p.html for p in self.parts)


@dataclass(frozen=True, slots=True)
class RenderedBlock:
    reading: RenderedReading  # its sections, sanitized by nh3, in the reader's order
    classes: tuple[str, ...]  # the highlighting classes its code uses, for the stylesheet

    @property
    def html(self) -> str:
        """Every section's HTML, in the reader's order."""
        return self.reading.html


class BlockRenderer:
    """Renders contributor blocks one at a time; the Markdown stack is imported on first use.
    Entry pages are siblings, so links to other ids are file names."""

    def __init__(
        self,
        known_ids: Iterable[str],
        captions: FenceCaption | None = None,
        repository_link: Callable[[str], str] | None = None,
    ) -> None:
        self.known_ids = known_ids
        self.captions = captions  # what to say above a fence (examples/captions.py)
        self.repository_link = repository_link  # a repository file's URL (urls.github_source)
        self._markdown: ContributorMarkdown | None = None
        # Set before the first block: reuses code earlier builds highlighted (site/highlights.py).
        self.highlighter: Highlighter | None = None

    def prepare(self) -> ContributorMarkdown:
        """The Markdown renderer, made (and the Markdown stack imported) on first use."""
        if self._markdown is None:
            from gbsite import urls
            from gbsite.docs.highlight import highlight_code
            from gbsite.docs.markdown import ContributorMarkdown

            page = urls.Links(urls.entry("GB0000"))  # every entry page is in gb/
            self._markdown = ContributorMarkdown(
                known_ids=self.known_ids,
                link_for=lambda other: page.near(urls.entry(other)),
                reserved_ids=PAGE_SECTIONS,
                fence_caption=self.captions,
                repository_link=self.repository_link,
                highlight=self.highlighter or highlight_code,
            )
        return self._markdown

    def __call__(self, gb_id: str, source: str) -> RenderedBlock:
        from gbsite.docs.highlight import used_classes

        reading = self.prepare().render_reading(source, gb_id)
        return RenderedBlock(reading, tuple(sorted(used_classes([reading.html]))))


def stylesheet_rules(classes: Iterable[str]) -> str:
    """The Pygments rules for these highlighting classes, both themes ("" for none)."""
    wanted = set(classes)
    if not wanted:
        return ""
    from gbsite.docs.highlight import highlight_css

    return highlight_css(wanted)

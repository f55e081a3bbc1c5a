"""A fenced code block and how a page shows it: the caption above it and the code as it was
run. Apart from docs/markdown.py, which renders them, so that what reads fences without
rendering (examples/captions.py, site/ahead.py's worker) does not import the Markdown stack."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Fence:
    """A fenced code block: its code and its info string (`python gb-repro compile=model`)."""

    code: str
    info: str

    @property
    def language(self) -> str:
        """The first word of the info string, as GitHub highlights by it."""
        words = self.info.split()
        return words[0] if words else ""


@dataclass(frozen=True, slots=True)
class Caption:
    """A caption that shows its fence in a warning box, under a title of its own."""

    html: str
    warning: str  # the box's title, plain text


@dataclass(frozen=True, slots=True)
class FenceView:
    """How the page shows a fence: its caption, and the code as it was run when that differs
    from the fence's (the compile call the checker adds), with the added lines marked."""

    caption: str | Caption | None = None
    code: str | None = None  # None: the fence's own code
    added: tuple[int, ...] = ()  # 1-based lines of `code` that the fence does not have
    hidden: bool = False  # a status block: the page says it in words, the YAML stays in source


def shown_code(fence: Fence, view: FenceView) -> tuple[str, str, tuple[int, ...]]:
    """What a fence's code is highlighted as: the code the page shows, its language and the
    lines marked (site/ahead.py highlights by the same)."""
    return fence.code if view.code is None else view.code, fence.language, view.added


# (fence, page id) -> how to show it; None: as written, with no caption
FenceCaption = Callable[[Fence, str], FenceView | None]

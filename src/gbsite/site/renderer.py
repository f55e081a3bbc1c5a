"""Templates, contributor blocks and the stylesheet to text: what the render phase uses to make
each file of the page table (render.py). One Renderer serves a generation of the inputs
(cache.py): it holds the compiled templates and the Markdown renderer."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from gbsite import urls
from gbsite.errors import GbsiteError
from gbsite.fs.files import read_input_text

if TYPE_CHECKING:
    import jinja2

    from gbsite.config import Config
    from gbsite.examples.record import Record


class Renderer:
    """Templates and contributor blocks -> bytes."""

    def __init__(self, cfg: Config, known_ids: Iterable[str], runs: Record) -> None:
        from gbsite import templating
        from gbsite.docs.blocks import BlockRenderer
        from gbsite.examples.captions import ExampleCaptions

        self.cfg = cfg
        self.templating = templating
        self._base_css: str | None = None  # style.css minified, made by the first stylesheet()
        self.env: jinja2.Environment = templating.environment(cfg.templates_dir, html=True)
        self.env.globals["paths"] = urls  # where each file lives: urls.INDEX, urls.entry(id)...
        # Compiled now, before a worker is forked: it then shares them.
        templating.compile_all(self.env, cfg.templates_dir, ".html.j2")
        self.block = BlockRenderer(
            known_ids,
            ExampleCaptions(runs, cfg.example_releases),
            repository_link=functools.partial(urls.github_source, cfg),
        )
        from gbsite.site import highlights

        self.block.highlighter = highlights.load()  # code highlighted by earlier builds

    def page(self, path: str, template: str, **context: object) -> bytes:
        """The page at `path` (a path of the site) from `template`; every template gets the
        page's links (`url`) and where each file lives (`paths`, urls.py)."""
        html = self.templating.render(
            self.env, template, self.cfg.templates_dir, url=urls.Links(path), path=path, **context
        )
        return html.encode("utf-8")

    def stylesheet(self, classes: Iterable[str]) -> str:
        """templates/assets/style.css, minified, plus the highlighting rules the code uses."""
        if self._base_css is None:  # once a Renderer: templates/ is part of its generation
            path = self.cfg.templates_dir / urls.STYLESHEET
            try:
                self._base_css = minify_css(read_input_text(path))
            except FileNotFoundError:
                raise GbsiteError.at(path, None, "stylesheet not found") from None
        return self._base_css + _rules(frozenset(classes))


_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_CSS_SPACE = re.compile(r"\s*([{};:,>])\s*")


def minify_css(css: str) -> str:
    """Comments and white space out: a quarter of the stylesheet, on every page load.

    Safe for our stylesheet, which has no strings or url()s that contain these characters.
    """
    css = _CSS_COMMENT.sub("", css)
    css = _CSS_SPACE.sub(r"\1", " ".join(css.split()))
    return css.replace(";}", "}").strip() + "\n"


@functools.lru_cache(maxsize=64)
def _rules(classes: frozenset[str]) -> str:
    """The highlighting rules for these classes: the same set, build after build (serve)."""
    from gbsite.docs.blocks import stylesheet_rules

    return stylesheet_rules(classes)

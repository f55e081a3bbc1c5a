"""Contributor Markdown (the Additional Information blocks) to safe HTML, as GitHub shows it.

GitHub-flavoured: tables, task lists, alerts, autolinks, footnotes, heading anchors, inline
HTML. Fenced code is highlighted at build time with Pygments. A mention of another graph break
(`GB0025`) becomes a link to its page, and so does a link to its docs file (`[x](gb0025.md)`,
links.py). The result is sanitized with nh3, whatever was written:
no scripts, no event handlers, no javascript: URLs, nothing loaded from another host. The
highlighted code of fences is set aside while nh3 works and put back after: it is escaped text
in Pygments' `<span class>` tags, which nh3 would give back the same.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Iterable, Sequence
from html import escape

import nh3
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.anchors.index import slugify

from gbsite.docs import links
from gbsite.docs.blocks import RenderedPart, RenderedReading
from gbsite.docs.fences import Caption, Fence, FenceCaption, FenceView, shown_code
from gbsite.docs.highlight import Highlight, highlight_code

_MENTION = re.compile(r"\bGB([0-9]{4})\b")
_EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.I)
_C0_OR_SPACE = "".join(map(chr, range(0x21)))
_TAB_OR_NEWLINE = re.compile("[\t\n\r]")


def as_browsers_read(url: str) -> str:
    """A URL as a browser's parser takes it (WHATWG URL): leading and trailing control
    characters and spaces dropped, tabs and newlines anywhere removed, and, in an http(s) page,
    a backslash read as a slash. So `\\\\host/a.png`, ` //host/a.png` and `/\\host/a.png` are
    all `//host/...`: another host."""
    url = _TAB_OR_NEWLINE.sub("", url.strip(_C0_OR_SPACE))
    return url.replace("\\", "/")


def loads_elsewhere(url: str) -> bool:
    """Whether fetching `url` from a page of the site would be a request to another host (or
    to a scheme: data:, blob:...): anything but a path on the site itself."""
    return _EXTERNAL.match(as_browsers_read(url)) is not None


# Tags GitHub allows in Markdown that nh3's default list lacks, plus what our renderer emits.
# No <picture>/<source>: their srcset could load from another host.
_TAGS = set(nh3.ALLOWED_TAGS) | {
    "details",
    "summary",
    "input",
    "section",
    "kbd",
    "figure",
    "figcaption",
}
_COMMON = {"class", "id", "title", "lang", "dir"}
_ATTRIBUTES: dict[str, set[str]] = {tag: set(_COMMON) for tag in _TAGS}
_ATTRIBUTES["a"] |= {"href", "name"}
_ATTRIBUTES["img"] |= {"src", "alt", "width", "height"}
_ATTRIBUTES["input"] |= {"type", "checked", "disabled"}
_ATTRIBUTES["ol"] |= {"start", "reversed"}
_ATTRIBUTES["td"] |= {"colspan", "rowspan", "align"}
_ATTRIBUTES["th"] |= {"colspan", "rowspan", "align", "scope"}
_ATTRIBUTES["details"] |= {"open"}
# An annotated example's kind (gb-fix), for scripts and tests.
_ATTRIBUTES["figure"] |= {"data-kind"}
# The attributes allowed above that make a browser fetch something: only an image's source. (No
# srcset, style, <video>, <audio>, <source>, <object>, <link>: a request they make is harder to
# see, and no page needs them.) Each is checked by loads_elsewhere.
_LOADS = {"img": ("src",)}


# Prefix of every id a contributor's block defines (heading anchors, footnotes, raw HTML), as
# GitHub does: none of the layout's ids has it, so a heading "Main" or <div id="search-input">
# can never take the id the page's own script or anchors look for.
ID_PREFIX = "user-content-"


def _prefixed(value: str) -> str:
    return value if value.startswith(ID_PREFIX) else ID_PREFIX + value


def _attribute_filter(tag: str, attribute: str, value: str) -> str | None:
    if attribute in ("id", "name") and tag != "input":
        return _prefixed(value)
    if tag == "a" and attribute == "href" and value.startswith("#") and len(value) > 1:
        return "#" + _prefixed(value[1:])  # a link within the block follows its target's id
    if attribute in _LOADS.get(tag, ()):
        # Kept as the browser will read it, and only when that is a path on the site: an image
        # from another host would be a request to it.
        return None if loads_elsewhere(value) else as_browsers_read(value)
    if tag == "input" and attribute == "type":
        return value if value == "checkbox" else None
    return value


_CLEANER = nh3.Cleaner(
    tags=_TAGS,
    attributes=_ATTRIBUTES,
    url_schemes={"http", "https", "mailto"},
    attribute_filter=_attribute_filter,
    link_rel=None,  # we allow no target attribute, so rel=noopener protects nothing
)


def sanitize(html: str) -> str:
    return _CLEANER.clean(html)


# The env key under which a rendering keeps its highlighted code while the rest is sanitized.
_CODE_ASIDE = "gb_code_aside"
# Highlighted code that may skip the sanitizer: text (`<` and `&` escaped) in `<span class>`
# tags, all Pygments writes. Anything else, such as HTML from a highlight cache someone wrote
# by hand, is sanitized with the rest. Possessive: a long run of text fails without backtracking.
_PLAIN_CODE = re.compile(
    r'(?:[^<&]++|&(?:amp|lt|gt|quot|#39|#x27);|<span class="[\w -]*+">|</span>)*+'
)


_PRE_OPEN = re.compile(r"<pre\b")
_TABLE_OPEN = re.compile(r"<table\b")


def scroll_boxes(html: str) -> str:
    """Sanitized HTML with its wide parts in boxes that scroll by themselves on a phone: each
    table in a `div.table-scroll`; these boxes and code blocks are focusable, so that a
    keyboard can scroll them too (WCAG 2.1.1). After sanitizing, which drops `tabindex`; code
    is escaped by then, so only real tags match."""
    html = _PRE_OPEN.sub('<pre tabindex="0"', html)
    html = _TABLE_OPEN.sub('<div class="table-scroll" tabindex="0"><table', html)
    return html.replace("</table>", "</table></div>")


WRONG_ANCHOR = "wrong-result"  # the section of a page's first silent wrong result


class ContributorMarkdown:
    """One configured parser, reused for every block of a build."""

    def __init__(
        self,
        known_ids: Iterable[str],
        link_for: Callable[[str], str],
        reserved_ids: Sequence[str] = (),
        fence_caption: FenceCaption | None = None,
        repository_link: Callable[[str], str] | None = None,
        highlight: Highlight = highlight_code,
    ) -> None:
        self.known = set(known_ids)
        self.highlight = highlight  # code to HTML: Pygments, or a Highlighter that keeps it
        self.link_for = link_for
        # A repository file's page on GitHub (`README.md#x` -> https://github.com/.../README.md#x)
        self.repository_link = repository_link
        self.reserved = set(reserved_ids)
        self.fence_caption = fence_caption
        md = links.parser()
        md.use(
            anchors_plugin,
            min_level=1,
            max_level=6,
            slug_func=self._slug,
            permalink=True,
            permalinkSymbol="#",
            permalinkBefore=False,
        )
        md.core.ruler.after("inline", "gb_mentions", self._link_mentions)
        md.core.ruler.after("gb_mentions", "gb_doc_links", self._link_docs)
        md.core.ruler.after("gb_doc_links", "gb_repository_links", self._link_repository)
        # Render rules are bound to the renderer, so they are plain functions calling back here.
        md.add_render_rule(
            "fence",
            lambda r, tokens, i, options, env: self._render_fence(r, tokens, i, options, env),
        )
        md.add_render_rule(
            "image",
            lambda r, tokens, i, options, env: self._render_image(r, tokens, i, options, env),
        )
        self.md = md
        # Stands in for each fence's highlighted code while nh3 sanitizes the rest: random, so
        # no contributor text can take its place (see _set_aside).
        self._aside_prefix = f"gbcode{secrets.token_hex(16)}n"
        self._aside = re.compile(f"{self._aside_prefix}([0-9]+)x")

    def _slug(self, title: str) -> str:
        slug = slugify(title)
        # Keep contributor anchors clear of the page's own section ids.
        return f"{slug}-note" if slug in self.reserved else slug

    def render_reading(self, source: str, gb_id: str = "") -> RenderedReading:
        """The block cut into its sections, each rendered on its own, in the reader's order.
        The block's top headings (`###`) become the page's section headings (h2)."""
        from gbsite.docs import sections
        from gbsite.examples.annotations import Kind

        env: EnvType = {"gb_id": gb_id}
        tokens = self.md.parse(source, env)
        levels = [int(t.tag[1]) for t in tokens if t.type == "heading_open" and t.level == 0]
        shift = min(levels) - 2 if levels else 0
        for t in tokens:
            if t.type in ("heading_open", "heading_close"):
                t.tag = f"h{min(6, max(2, int(t.tag[1]) - shift))}"
        read = sections.reading(sections.cut(tokens))
        wrong = next((c for c in read.cuts if Kind.WRONG in sections.kinds(c.body)), None)

        def part(c: sections.Cut) -> RenderedPart:
            html = self.md.renderer.render([*c.heading, *c.body], self.md.options, env)
            title = c.heading[1].content if len(c.heading) > 1 else ""
            plain = re.sub(r"(`+)(.+?)\1", r"\2", title).strip()
            anchor = WRONG_ANCHOR if c is wrong else ""
            html = self._put_back(sanitize(html), env)
            return RenderedPart(str(c.role), plain, scroll_boxes(html), anchor)

        def parts(cuts: Iterable[sections.Cut]) -> tuple[RenderedPart, ...]:
            return tuple(p for p in map(part, cuts) if p.html.strip())

        return RenderedReading(
            parts(read.answer),
            parts(read.why_more),
            parts(read.example),
            parts(read.more_fixes),
            parts(read.rest),
            parts(read.tried),
        )

    def _link_mentions(self, state: StateCore) -> None:
        for token in state.tokens:
            if token.type != "inline" or not token.children:
                continue
            children: list[Token] = []
            depth = 0
            for child in token.children:
                if child.type == "link_open":
                    depth += 1
                elif child.type == "link_close":
                    depth -= 1
                if child.type != "text" or depth or not _MENTION.search(child.content):
                    children.append(child)
                    continue
                children.extend(self._split_mentions(child.content))
            token.children = children

    def _link_docs(self, state: StateCore) -> None:
        """`[x](gb0025.md#y)`, which GitHub resolves beside the docs file, to the id's page.
        Only ids with a page (the registry's, like mentions) are rewritten: that depends on the
        registry alone, never on which docs files exist, so a block renders the same in a full
        build and in serve's incremental one (site/cache.py). Others stay as written, and
        `gbsite check` reports them."""
        for token, gb_id, fragment, _line in links.found(state.tokens):
            if gb_id in self.known:
                token.attrSet("href", self.link_for(gb_id) + self._fragment(fragment))

        def html_link(gb_id: str, fragment: str) -> str | None:
            return self.link_for(gb_id) + self._fragment(fragment) if gb_id in self.known else None

        for html in {id(t): t for t, _id, _line in links.found_in_html(state.tokens)}.values():
            html.content = links.rewrite_html(html.content, html_link)

    def _link_repository(self, state: StateCore) -> None:
        """`[x](../../README.md#y)`, a repository file GitHub resolves beside the docs file: on
        the site, which has no such file, the link goes to that file on GitHub."""
        if self.repository_link is None:
            return
        for token in state.tokens:
            for child in token.children or ():
                if child.type != "link_open":
                    continue
                path = links.repository_path(str(child.attrGet("href") or ""))
                if path is not None:
                    child.attrSet("href", self.repository_link(path))

    def _fragment(self, fragment: str) -> str:
        """A fragment of a link to another page: one of the page's own sections (`#hints`, as
        GitHub names the docs file's heading), else a heading of its block, whose id carries
        the prefix on the site as on GitHub."""
        if not fragment:
            return ""
        if fragment in self.reserved:
            return "#" + fragment
        return "#" + _prefixed(fragment)

    def _split_mentions(self, text: str) -> list[Token]:
        out: list[Token] = []
        pos = 0
        for match in _MENTION.finditer(text):
            gb_id = match.group()
            if gb_id not in self.known:
                continue  # `gbsite check` reports unknown ids; here they stay plain text
            if match.start() > pos:
                out.append(_text(text[pos : match.start()]))
            link = Token("link_open", "a", 1)
            link.attrs = {"href": self.link_for(gb_id), "class": "gb-mention"}
            out += [link, _text(gb_id), Token("link_close", "a", -1)]
            pos = match.end()
        if pos < len(text):
            out.append(_text(text[pos:]))
        return out

    def _render_fence(
        self,
        renderer: RendererHTML,
        tokens: Sequence[Token],
        idx: int,
        options: OptionsDict,
        env: EnvType,
    ) -> str:
        token = tokens[idx]
        fence = Fence(token.content, token.info.strip())
        view = self.fence_caption(fence, env.get("gb_id", "")) if self.fence_caption else None
        view = view or FenceView()
        if view.hidden:
            return ""
        language = escape(fence.language, quote=True)
        cls = f' class="language-{language}"' if language else ""
        code = self.highlight(*shown_code(fence, view))
        if _PLAIN_CODE.fullmatch(code):
            code = self._set_aside(code, env)
        body = f'<pre class="highlight"><code{cls}>{code}</code></pre>\n'
        caption = view.caption
        words = fence.info.split()
        kind = f' data-kind="{escape(words[1], quote=True)}"' if words[1:2] else ""
        if isinstance(caption, Caption):  # the alert style GitHub's `> [!CAUTION]` has
            title = f'<p class="markdown-alert-title">{escape(caption.warning)}</p>'
            figure = (
                f'<figure class="code-example markdown-alert markdown-alert-caution"{kind}>\n'
                f"<figcaption>{title}{caption.html}</figcaption>\n"
            )
            return f"{figure}{body}</figure>\n"
        if caption:
            figure = f'<figure class="code-example"{kind}>\n<figcaption>{caption}</figcaption>\n'
            return f"{figure}{body}</figure>\n"
        return body

    def _set_aside(self, code: str, env: EnvType) -> str:
        """A stand-in for highlighted code, put back after sanitizing (_put_back). Pygments'
        HTML is escaped text in `<span class>` tags (_PLAIN_CODE), which nh3 gives back the same
        (a test holds that for every committed fence), and sanitizing it was most of nh3's work:
        ~350 ms of CPU a build, mostly calls of the attribute filter for each span's class."""
        kept: list[str] = env.setdefault(_CODE_ASIDE, [])
        kept.append(code)
        return f"{self._aside_prefix}{len(kept) - 1}x"

    def _put_back(self, html: str, env: EnvType) -> str:
        kept: list[str] = env.get(_CODE_ASIDE, [])
        return self._aside.sub(lambda m: kept[int(m.group(1))], html)

    def _render_image(
        self,
        renderer: RendererHTML,
        tokens: Sequence[Token],
        idx: int,
        options: OptionsDict,
        env: EnvType,
    ) -> str:
        token = tokens[idx]
        src = str(token.attrGet("src") or "")
        alt = renderer.renderInlineAsText(token.children or [], options, env)
        if loads_elsewhere(src):
            # Loading it would be a request to another host: link to it instead.
            label = escape(alt or "image", quote=False)
            return f'<a href="{escape(src, quote=True)}">[image: {label}]</a>'
        return renderer.image(tokens, idx, options, env)


def _text(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token

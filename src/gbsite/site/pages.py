"""The page table: one row per file of the site, saying where it goes, what it is made from and
what its bytes depend on. Every later phase walks this one list (render.py, output.py).

Rows are grouped by what the files are: entry pages and their JSON, the index, the dashboard,
the release pages, the search index and registry.json, the assets, the stylesheet and the 404
page that carries it inline, the sitemap.

A row's `key` is what its bytes depend on besides the inputs every page shares (registry,
record, templates, settings: the cache's generation, cache.py). `serve` renders a file again
only when its key changed since the last build; a build test checks that this gives the same
bytes as a full build, so a key must name everything its template or function reads.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from gbsite import urls
from gbsite.fs.files import input_files, read_input

if TYPE_CHECKING:
    from pathlib import Path

    from gbsite.config import Config
    from gbsite.registry.model import Registry
    from gbsite.search.model import SearchEntry
    from gbsite.site.content import SiteModel


class FileKind(StrEnum):
    """What a file of the site is, grouped as the plan lists them."""

    ENTRY = "entry"
    ENTRY_JSON = "entry JSON"
    INDEX = "index"
    DASHBOARD = "dashboard"
    RELEASE = "release"
    DATA = "data"
    ASSET = "asset"
    STYLESHEET = "stylesheet"
    NOT_FOUND = "404"
    SITEMAP = "sitemap"


@dataclass(frozen=True, slots=True)
class OutputFile:
    path: str  # where it goes in the site (urls.py)
    kind: FileKind
    key: object  # what its bytes depend on, within a generation (see above)
    template: str | None = None  # rendered from this template with `context`...
    context: Mapping[str, object] = field(default_factory=dict)
    make: Callable[[], str | bytes] | None = None  # ...or made by this function
    block: str | None = None  # an entry page's id, when it shows its contributor block...
    markdown: str | None = None  # ...whose source this is
    styled: bool = False  # needs the stylesheet, known once every block is rendered


def plan(cfg: Config, site: SiteModel) -> list[OutputFile]:
    """Every file of the site, in the order a build renders them: the stylesheet and the 404
    page last, as they need the highlighting rules of every contributor block."""
    from gbsite.search import adjacent, legacy
    from gbsite.site import exports

    entries = site.entries
    has_info = tuple(sorted(gb_id for gb_id, yes in site.has_info.items() if yes))
    searched = tuple((p.view.id, p.info_block) for p in entries)
    rows: list[OutputFile] = []
    # An older message whose id a row of adjacent-messages.json corrects is listed there only.
    fixed = adjacent.corrected(site.adjacent)
    older = legacy.by_id(m for m in site.legacy if " ".join(m.template.split()) not in fixed)
    beside = adjacent.by_id(site.adjacent)
    for p in entries:
        rows.append(
            OutputFile(
                p.path,
                FileKind.ENTRY,
                p,
                "entry.html.j2",
                {"page": p, "older": older.get(p.view.id, []), "beside": beside.get(p.view.id, [])},
                block=p.view.id if p.info_block is not None else None,
                markdown=p.info_block,
            )
        )
        make = functools.partial(exports.entry_json, p, site)
        rows.append(OutputFile(p.json_path, FileKind.ENTRY_JSON, p, make=make))
    rows += [
        OutputFile(
            urls.INDEX,
            FileKind.INDEX,
            tuple(row.key for row in site.index),
            "index.html.j2",
            {"model": site},
        ),
        OutputFile(
            urls.DASHBOARD,
            FileKind.DASHBOARD,
            site.dashboard,
            "dashboard.html.j2",
            {"dashboard": site.dashboard, "model": site},
        ),
        OutputFile(
            urls.RELEASES, FileKind.RELEASE, None, "releases.html.j2", {"releases": site.releases}
        ),
        *(
            OutputFile(
                r.path,
                FileKind.RELEASE,
                tuple(v.id for v in r.fixes),
                "release.html.j2",
                {"release": r},
            )
            for r in site.releases
        ),
        OutputFile(
            urls.SEARCH_INDEX, FileKind.DATA, searched, make=functools.partial(search_index, site)
        ),
        OutputFile(
            urls.REGISTRY_JSON,
            FileKind.DATA,
            has_info,
            make=functools.partial(exports.registry_json, site.registry, site),
        ),
        *assets(cfg),
        OutputFile(
            urls.SITEMAP, FileKind.SITEMAP, None, make=functools.partial(exports.sitemap, cfg, site)
        ),
        OutputFile(urls.NOJEKYLL, FileKind.DATA, None, make=bytes),
        OutputFile(urls.STYLESHEET, FileKind.STYLESHEET, None, styled=True),
        OutputFile(
            urls.NOT_FOUND,
            FileKind.NOT_FOUND,
            None,
            "404.html.j2",
            {"not_found": site.not_found},
            styled=True,
        ),
    ]
    return rows


def assets(cfg: Config) -> list[OutputFile]:
    """templates/assets/ but the stylesheet (made from it, see render.py): regular files
    inside the project only, hidden ones left out, as the fingerprint does."""
    folder = cfg.templates_dir / urls.ASSETS
    return [
        OutputFile(
            urls.asset(path.relative_to(folder).as_posix()),
            FileKind.ASSET,
            None,
            make=_reader(path),
        )
        for path in input_files(folder, cfg.root)
        if path.name != "style.css"
    ]


def _reader(path: Path) -> Callable[[], bytes]:
    def read_asset() -> bytes:
        data = read_input(path)
        if path.suffix == ".css":  # page-specific rules (index.css, dashboard.css)
            from gbsite.site.renderer import minify_css

            data = minify_css(data.decode("utf-8")).encode("utf-8")
        return data

    return read_asset


def search_index(site: SiteModel) -> str:
    """assets/search-index.js: every entry's texts and contributed text, for the browser."""
    from gbsite.search import adjacent, legacy
    from gbsite.search import index as search

    global _SEARCHED
    if _SEARCHED is None or _SEARCHED.registry is not site.registry:  # once per registry (serve)
        older = adjacent.merged(legacy.aliases(site.legacy), adjacent.aliases(site.adjacent))
        entries_for = search.entries_for(site.registry, site.views, {}, older)
        _SEARCHED = _Searched(site.registry, entries_for)
    found = {p.view.id: _searched_text(p.info_block) for p in site.entries if p.info_block}
    info = [found.get(e.id, "") for e in _SEARCHED.entries]
    categories, labels = [c.key for c in site.categories], site.registry.labels
    made_of = (tuple(map(bool, info)), tuple(categories), tuple(labels))
    if _SEARCHED.head_made_of != made_of:
        entries = [
            e._replace(has_info=bool(text), info=text)
            for e, text in zip(_SEARCHED.entries, info, strict=True)
        ]
        _SEARCHED.head = search.index_head(entries, categories, labels)
        _SEARCHED.head_made_of = made_of
    return _SEARCHED.head + search.index_tail(info)


@dataclass
class _Searched:
    """The registry's texts as the search index has them, for the last registry seen, and the
    index's text up to the contributed text (~60 % of making the index): serve builds again
    after every save, and a save changes contributed text, not the registry."""

    registry: Registry
    entries: list[SearchEntry]
    head: str = ""
    head_made_of: tuple[object, ...] = ()


_SEARCHED: _Searched | None = None


@functools.lru_cache(maxsize=4096)
def _searched_text(markdown: str) -> str:
    """A block's words for the search index; kept per source, as serve builds again and again
    and a save changes one block."""
    from gbsite.search import index as search

    return search.plain_markdown(markdown)

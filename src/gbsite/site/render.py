"""The build's render phase: each row of the page table to bytes, written into the new site.

Parallelism lives here and nowhere else: on a platform that can fork, a forked worker and this
process share the rows in runs of eight (worker.Tickets), each rendering and writing the runs
it takes, so whichever is faster does more. The worker sends back only what the parent needs:
each file's size, how many changed, the highlighting classes of the blocks it rendered (the
stylesheet, rendered last, has the rules for all of them), and what it rendered anew for the
caches of the next command. With a BuildCache (serve, one process), rows whose key is unchanged
are not rendered at all, and the bytes are kept. Contributor blocks rendered by an earlier
command of the same generation are reused (site/blockcache.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gbsite.site import pages
from gbsite.site.cache import KeptBlock
from gbsite.site.pages import OutputFile
from gbsite.site.worker import Tickets, Worker, can_fork, cancelled_on_error, chunks

if TYPE_CHECKING:
    from gbsite.docs.blocks import RenderedBlock
    from gbsite.site.blockcache import Store
    from gbsite.site.cache import BuildCache
    from gbsite.site.content import SiteModel
    from gbsite.site.output import Target
    from gbsite.site.renderer import Renderer


@dataclass
class Rendered:
    """What the render phase wrote: every file's size, how many changed, and with a cache,
    every file's bytes."""

    sizes: dict[str, int] = field(default_factory=dict)
    changed: int = 0
    classes: dict[str, tuple[str, ...]] = field(default_factory=dict)  # by id: of its block
    outputs: dict[str, bytes] = field(default_factory=dict)
    highlighted: dict[str, str] = field(default_factory=dict)  # code highlighted anew, by key
    highlights_used: set[str] = field(default_factory=set)  # the keys of all the code shown
    blocks: dict[str, str] = field(default_factory=dict)  # blocks rendered anew, for blockcache

    def add(self, target: Target, files: dict[str, bytes], *, apart: bool = False) -> None:
        """Write `files` into the site, and count them."""
        self.changed += target.write(files, apart=apart)
        self.sizes.update((path, len(data)) for path, data in files.items())
        self.outputs.update(files)

    def merge(self, other: Rendered) -> None:
        self.sizes.update(other.sizes)
        self.changed += other.changed
        self.classes.update(other.classes)
        self.outputs.update(other.outputs)
        self.highlighted.update(other.highlighted)
        self.highlights_used |= other.highlights_used
        self.blocks.update(other.blocks)


def render(
    table: Sequence[OutputFile],
    renderer: Renderer,
    site: SiteModel,
    target: Target,
    cache: BuildCache,
    *,
    parallel: bool,
    keep: bool,
    highlighted: dict[str, str] | None = None,
) -> Rendered:
    """Render and write every row; `keep`: keep the bytes in `cache` for the next build;
    `highlighted`: code highlighted ahead of this phase, by key (ahead.py)."""
    highlighted = highlighted or {}
    if highlighted and renderer.block.highlighter is not None:  # before the fork: both use it
        renderer.block.highlighter.kept.update(highlighted)
    reuse = cache.files if cache.written_to == target.out_dir else {}
    rows = [r for r in table if not r.styled and reuse.get(r.path, (_NONE,))[0] != r.key]
    # The site-wide files first: one costs many pages' time (the search index ~140 ms), and
    # taken last it kept one process busy while the other had nothing left (~0.2 s a build).
    rows.sort(key=lambda r: r.kind in _PAGES)
    runs = chunks(rows, size=8)
    # Blocks kept by an earlier command: read when this process keeps none (a command's build,
    # serve's first of a generation); serve's later builds keep theirs in `cache.blocks`.
    stored = None
    if not cache.blocks and any(row.markdown is not None for row in rows):
        from gbsite.site import blockcache

        stored = blockcache.load(cache.generation)

    def share(numbers: Iterable[int], apart: bool) -> Rendered:
        done = Rendered()
        for n in numbers:
            files = {
                row.path: produce(
                    renderer, row, site, _block(renderer, cache, stored, row, done), ""
                )
                for row in runs[n]
            }
            done.add(target, files, apart=apart)
            if not keep:
                done.outputs.clear()  # the worker would send them through a pipe: ~30 ms
        kept = renderer.block.highlighter
        if kept is not None:  # this process's: the worker's go back to the parent in `done`
            done.highlighted.update(kept.new)
            done.highlights_used |= kept.used
        if stored is not None:
            done.blocks.update(stored.new)
        return done

    if parallel and len(runs) > 1 and can_fork():
        if any(_renders_block(cache, stored, row) for row in rows):
            renderer.block.prepare()  # the Markdown stack, imported once for both processes
        tickets = Tickets(len(runs))
        try:
            worker = Worker(lambda: share(tickets, apart=True))
            with cancelled_on_error(worker):
                rendered = share(tickets, apart=True)
            rendered.merge(worker.result())
        finally:
            tickets.close()
    else:
        rendered = share(range(len(runs)), apart=False)
    if renderer.block.highlighter is not None:
        from gbsite.site import highlights

        kept, used = renderer.block.highlighter.kept, rendered.highlights_used
        for key in highlighted.keys() - used:
            del kept[key]  # a fence the worker's scan misread: no page shows it
        new = {key: html for key, html in highlighted.items() if key in used}
        highlights.save(renderer.block.highlighter, new | rendered.highlighted, used)
    if stored is not None:
        blockcache.save(stored, rendered.blocks)
    for row in table:  # the files reused as they were, and their blocks' classes
        if not row.styled and row.path not in rendered.sizes:
            rendered.sizes[row.path] = len(reuse[row.path][1])
            rendered.outputs[row.path] = reuse[row.path][1]
            if row.block is not None and row.block in cache.blocks:
                rendered.classes[row.block] = cache.blocks[row.block].rendered.classes
    # Last, the stylesheet and the 404 page that inlines it: rules for every block's code.
    css = renderer.stylesheet(c for group in rendered.classes.values() for c in group)
    for row in table:
        if not row.styled:
            continue
        data = reuse[row.path][1] if reuse.get(row.path, (_NONE,))[0] == css else None
        if data is None:
            rendered.add(target, {row.path: produce(renderer, row, site, None, css)})
        else:
            rendered.sizes[row.path] = len(data)
            rendered.outputs[row.path] = data
    if keep:
        keys = {row.path: css if row.styled else row.key for row in table}
        cache.files = {path: (key, rendered.outputs[path]) for path, key in keys.items()}
        cache.written_to = target.out_dir
    return rendered


_NONE = object()  # a key no row has
_PAGES = (pages.FileKind.ENTRY, pages.FileKind.ENTRY_JSON)  # one of many: each cheap


def produce(
    renderer: Renderer, row: OutputFile, site: SiteModel, block: RenderedBlock | None, css: str
) -> bytes:
    """One row of the page table as bytes; `css` only for the styled rows."""
    if row.kind == pages.FileKind.STYLESHEET:
        return css.encode("utf-8")
    if row.template is None:
        made = row.make() if row.make is not None else b""
        return made.encode("utf-8") if isinstance(made, str) else made
    from markupsafe import Markup

    extra: dict[str, object] = {}
    if row.kind == pages.FileKind.ENTRY:
        extra["info"] = block.reading if block is not None else None
    if row.styled:
        extra["inline_css"] = Markup(css)
    return renderer.page(row.path, row.template, site=site.info, **row.context, **extra)


def _renders_block(cache: BuildCache, stored: Store | None, row: OutputFile) -> bool:
    """Whether the row's block is to be rendered, not reused."""
    if row.block is None or row.markdown is None:
        return False
    kept = cache.blocks.get(row.block)
    if kept is not None and kept.source == row.markdown:
        return False
    return stored is None or not stored.has(row.block, row.markdown)


def _block(
    renderer: Renderer, cache: BuildCache, stored: Store | None, row: OutputFile, done: Rendered
) -> RenderedBlock | None:
    """The row's contributor block as HTML, rendered once per version of its source (and
    generation: `stored` holds what earlier commands rendered)."""
    source = row.markdown
    if row.block is None or source is None:
        return None
    kept = cache.blocks.get(row.block)
    if kept is not None and kept.source == source:
        block = kept.rendered
    else:
        found = stored.get(row.block, source) if stored is not None else None
        block = found or renderer.block(row.block, source)
        if stored is not None and found is None:
            stored.add(row.block, source, block)
        cache.blocks[row.block] = KeptBlock(source, block)
    done.classes[row.block] = block.classes
    return block

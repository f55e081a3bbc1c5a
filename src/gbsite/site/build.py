"""`gbsite build`: registry + preserved blocks + templates -> a static site, in named phases.

    fingerprint  read and hash every input; if the output folder was built from the same
                 inputs, stop. Then a forked worker starts rendering the contributor blocks
                 (Markdown to sanitized HTML, blocks.py) from those bytes
    load         registry/ and the docs of docs/gb/, validated
    model        what every page shows, as dataclasses (content.py)
    templates    every template compiled
    others       every page that needs no blocks (index, dashboard, search index, ...) rendered
                 and written into a new folder beside the site (output.py), while the worker
                 renders the blocks
    blocks       the worker's rendered blocks (the wait for it, if any)
    entries      the entry pages and the stylesheet, rendered and written; a second forked
                 worker shares the entry pages with this process
    swap         the new folder replaces the old site in one step

Without fork (other platforms, or serve, which runs threads) the same phases run in one process.

A build that fails or is killed leaves the previous site as it was. Reading touches only
registry/, the blocks of docs/gb/, templates/ and gbsite.toml; nothing there is written.
Modules that are slow to import (Jinja, YAML, Markdown) are imported by the phases that use
them, so a build with nothing to do stays cheap.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from gbsite.config import Config
from gbsite.docs import blocks
from gbsite.docs.blocks import RenderedBlocks
from gbsite.errors import GbsiteError, Problem
from gbsite.fs.files import input_files
from gbsite.fs.lock import locked
from gbsite.site import fingerprint, output
from gbsite.site.worker import Tickets, Worker, can_fork, cancelled_on_error, chunks

if TYPE_CHECKING:
    import jinja2
    from markupsafe import Markup

    from gbsite.docs.files import Doc
    from gbsite.fs.files import ReadBytes
    from gbsite.registry.model import Registry
    from gbsite.registry.views import EntryView
    from gbsite.search.engine import SearchEntry
    from gbsite.site.content import EntryPage, Examples, SiteModel

ASSETS = "assets"


@dataclass
class BuildReport:
    out_dir: Path
    files: int = 0
    written: int = 0
    unchanged: bool = False  # nothing to do: the output was built from the same inputs
    # Every file of the site, kept by builds in one process (serve's); see Builder._entries.
    outputs: dict[str, bytes] = field(default_factory=dict)
    warnings: list[Problem] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] = time.perf_counter() - start


@dataclass
class Written:
    """What a build wrote into the new folder: every file's size, how many files changed, and
    with `keep`, their bytes."""

    keep: bool
    sizes: dict[str, int] = field(default_factory=dict)
    changed: int = 0
    outputs: dict[str, bytes] = field(default_factory=dict)

    def write(
        self, staging: output.Staging, files: dict[str, bytes], *, apart: bool = False
    ) -> None:
        self.changed += staging.write(files, apart=apart)
        self.sizes.update((rel, len(data)) for rel, data in files.items())
        if self.keep:
            self.outputs.update(files)

    def merge(self, other: Written) -> None:
        self.changed += other.changed
        self.sizes.update(other.sizes)
        self.outputs.update(other.outputs)


@dataclass
class Inputs:
    """Everything a build reads, validated."""

    registry: Registry
    docs: dict[str, Doc]
    examples: Examples  # each page's examples and status block, and the record of runs


def read_examples(cfg: Config, registry: Registry, docs: dict[str, Doc]) -> Examples:
    """Every page's annotated blocks and status block (a malformed one stops the build, with
    its file and line), and the record of verified blocks."""
    from gbsite.examples import coverage, record
    from gbsite.site.content import Examples

    runs = record.read(cfg.verified_file)
    pages = coverage.read_pages(docs, registry.entries)
    releases = tuple(coverage.registry_labels(cfg.example_releases, registry.labels))
    return Examples(pages, runs, releases or (registry.labels[-1],))


def read_doc(path: Path, read: ReadBytes = Path.read_bytes) -> Doc:
    from gbsite.docs.files import read as read_docs_file

    return read_docs_file(path, outside=False, read=read)  # the site needs only the block


def registry_ids(cfg: Config) -> list[str]:
    """The ids the registry has files for: all the Markdown renderer needs to link mentions.

    Known before the registry is loaded, so the blocks can be rendered meanwhile; when a file
    turns out to be invalid, loading the registry fails and the blocks are not used.
    """
    from gbsite.registry import store as registry

    files, _ = registry.entry_files(cfg.registry_dir / registry.ENTRIES_DIR)
    return [gb_id for gb_id, _ in files]


def load_docs(
    cfg: Config, snapshot: fingerprint.ReadInputs, known_ids: Iterable[str], report: BuildReport
) -> dict[str, Doc]:
    from gbsite.docs.files import scan

    known = set(known_ids)
    files, unexpected = scan(cfg.docs_dir)
    report.warnings.extend(unexpected)
    problems: list[Problem] = []
    docs: dict[str, Doc] = {}
    for gb_id, path in files.items():
        if gb_id not in known:
            report.warnings.append(Problem(f"{gb_id} is not in the registry; not built", path))
            continue
        try:
            docs[gb_id] = read_doc(path, snapshot.read)
        except GbsiteError as exc:
            problems.extend(exc.problems)
    if problems:
        raise GbsiteError(problems)
    return docs


def render_blocks(cfg: Config, snapshot: fingerprint.ReadInputs) -> RenderedBlocks:
    """Every contributor block as HTML, from the snapshot alone: the worker forked right after
    the fingerprint runs this while the build loads the registry and builds the models. Its
    warnings and errors are the build's own, which reports them."""
    known = registry_ids(cfg)
    return render_docs(cfg, load_docs(cfg, snapshot, known, BuildReport(cfg.output_dir)), known)


def render_docs(cfg: Config, docs: dict[str, Doc], known_ids: Iterable[str]) -> RenderedBlocks:
    """The blocks of these docs as HTML (blocks.py); mentions of known ids become links."""
    sources = {gb_id: doc.block for gb_id, doc in docs.items() if doc.has_content}
    return blocks.render(sources, known_ids, cfg.verified_file, cfg.example_releases)


class Renderer:
    """Templates -> bytes. One per build: it holds the Jinja environment and the stylesheet."""

    def __init__(self, cfg: Config) -> None:
        from gbsite.site import content as site
        from gbsite.site import templating

        self.cfg = cfg
        self.blocks = blocks.RenderedBlocks({}, "")  # set before rendering (blocks.py)
        self.templating = templating
        self.env: jinja2.Environment = templating.environment(cfg.templates_dir, html=True)
        self.env.filters["release_path"] = lambda label: f"releases/{site.release_slug(label)}.html"
        self.css = ""  # set before styled(): it depends on the code in contributor blocks

    def compile(self) -> None:
        """Compile every template now, before a worker is forked: it then shares them."""
        self.templating.compile_all(self.env, self.cfg.templates_dir, ".html.j2")

    def info_html(self, page: EntryPage) -> Markup | None:
        """The page's contributor block as HTML, sanitized by blocks.render."""
        if page.info_block is None:
            return None
        from markupsafe import Markup

        return Markup(self.blocks.pages[page.view.id].html)

    def page(self, site_model: SiteModel, path: str, template: str, **context: object) -> bytes:
        root = "../" * path.count("/")
        html = self.templating.render(
            self.env,
            template,
            self.cfg.templates_dir,
            site=site_model.info,
            root=root,
            path=path,
            **context,
        )
        return html.encode("utf-8")

    def entries(self, model: SiteModel, pages: Iterable[EntryPage]) -> dict[str, bytes]:
        """Each entry's page, and its JSON beside it (gb/gbXXXX.json)."""
        from gbsite.site import content as site

        out = {}
        for p in pages:
            out[p.path] = self.page(
                model,
                p.path,
                "entry.html.j2",
                page=p,
                has_info=model.has_info,
                info_html=self.info_html(p),
            )
            out[p.json_path] = site.entry_json(p, model).encode("utf-8")
        return out

    def info_dependent(self, model: SiteModel) -> dict[str, bytes]:
        """The files that change when a contributor block does, besides its own page."""
        from gbsite.site import content as site

        return {
            "index.html": self.page(model, "index.html", "index.html.j2", model=model),
            "dashboard.html": self.page(
                model, "dashboard.html", "dashboard.html.j2", dashboard=model.dashboard, model=model
            ),
            f"{ASSETS}/search-index.js": search_index(model).encode("utf-8"),
            "registry.json": site.registry_json(model.registry, model).encode("utf-8"),
        }

    def others(self, model: SiteModel) -> dict[str, bytes]:
        """Every file but the entry pages, the stylesheet and the 404 page that carries it: the
        files that do not depend on the rendered blocks. By path relative to the site root."""
        from gbsite.site import content as site

        out = self.info_dependent(model)
        out["releases/index.html"] = self.page(
            model, "releases/index.html", "releases.html.j2", releases=model.releases
        )
        for release in model.releases:
            out[release.path] = self.page(model, release.path, "release.html.j2", release=release)
        assets = self.cfg.templates_dir / ASSETS
        # Regular files inside the project only, hidden ones left out, as the fingerprint does.
        for path in input_files(assets, self.cfg.root):
            if path.name != "style.css":
                data = path.read_bytes()
                if path.suffix == ".css":  # page-specific rules (index.css, dashboard.css)
                    data = minify_css(data.decode("utf-8")).encode("utf-8")
                out[f"{ASSETS}/{path.relative_to(assets).as_posix()}"] = data
        out["sitemap.xml"] = site.sitemap(self.cfg, model).encode("utf-8")
        out[".nojekyll"] = b""  # GitHub Pages: serve files as they are
        return out

    def styled(self, model: SiteModel) -> dict[str, bytes]:
        """The stylesheet (self.css), and the 404 page that carries it inline."""
        from markupsafe import Markup

        from gbsite.site import content as site

        return {
            f"{ASSETS}/style.css": self.css.encode("utf-8"),
            "404.html": self.page(
                model,
                "404.html",
                "404.html.j2",
                not_found=site.not_found(self.cfg, model.registry),
                inline_css=Markup(self.css),
            ),
        }

    def stylesheet(self) -> str:
        """templates/assets/style.css, minified, plus the highlighting rules the code uses."""
        path = self.cfg.templates_dir / ASSETS / "style.css"
        try:
            base = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise GbsiteError.at(path, None, "stylesheet not found") from None
        return minify_css(base) + self.blocks.css


_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_CSS_SPACE = re.compile(r"\s*([{};:,>])\s*")


def minify_css(css: str) -> str:
    """Comments and white space out: a quarter of the stylesheet, on every page load.

    Safe for our stylesheet, which has no strings or url()s that contain these characters.
    """
    css = _CSS_COMMENT.sub("", css)
    css = _CSS_SPACE.sub(r"\1", " ".join(css.split()))
    return css.replace(";}", "}").strip() + "\n"


def search_entries(model: SiteModel) -> list[SearchEntry]:
    from gbsite.search import engine as search

    info_text = {
        p.view.id: search.plain_markdown(p.info_block) for p in model.entries if p.info_block
    }
    return search.entries_for(model.registry, model.views, info_text)


def search_index(model: SiteModel) -> str:
    from gbsite.search import engine as search

    entries = search_entries(model)
    return search.index_js(entries, [c.key for c in model.categories], model.registry.labels)


def _refuse_dangerous_output(cfg: Config, out_dir: Path) -> None:
    """The output folder is replaced wholesale: never let it be a source folder or a parent."""
    if out_dir.exists() and not out_dir.is_dir():
        raise GbsiteError(f"{out_dir}: is a file, not a folder; choose another --out")
    sources = [cfg.root, cfg.registry_dir, cfg.docs_dir, cfg.templates_dir]
    for source in sources:
        source = source.resolve()
        if out_dir == source or source.is_relative_to(out_dir):
            raise GbsiteError(f"{out_dir}: the output folder cannot be {source} or contain it")


class Builder:
    """Builds the site and keeps what it read and wrote, so that `serve` can rebuild only the
    pages a docs change touches (its own page, the index, dashboard, search index, registry.json)
    instead of all of them."""

    def __init__(self, cfg: Config, out_dir: Path | None = None, *, parallel: bool = False) -> None:
        self.cfg = cfg
        self.parallel = parallel  # fork a render worker (never with other threads running)
        self.out_dir = (out_dir or cfg.output_dir).resolve()
        _refuse_dangerous_output(cfg, self.out_dir)
        self.inputs: Inputs | None = None
        self.model: SiteModel | None = None
        self.renderer: Renderer | None = None
        self.outputs: dict[str, bytes] = {}

    def build(self, *, skip_unchanged: bool = True) -> BuildReport:
        # One build of a site at a time: a second one waits instead of removing the first's
        # staging folder (lock.py). Holding the lock, what killed builds left goes first, also
        # when there is nothing else to do.
        with locked(self.out_dir.parent, "build"):
            output.remove_leftovers(self.out_dir)
            return self._build(skip_unchanged=skip_unchanged)

    def _build(self, *, skip_unchanged: bool) -> BuildReport:
        report = BuildReport(self.out_dir)
        with report.phase("fingerprint"):
            snapshot = fingerprint.inputs(self.cfg)
        if skip_unchanged and fingerprint.up_to_date(self.out_dir, snapshot.digest):
            report.unchanged = True
            return report
        # The blocks need only the snapshot: on two cores, a worker renders them meanwhile.
        worker = (
            Worker(lambda: render_blocks(self.cfg, snapshot))
            if self.parallel and can_fork()
            else None
        )
        staging: output.Staging | None = None
        try:
            with cancelled_on_error(worker):
                inputs, model, renderer = self._prepare(snapshot, report)
                staging = output.Staging(self.out_dir)
                # Only serve, which builds in one process, keeps the bytes (see _entries).
                written = Written(keep=not self.parallel)
                with report.phase("others"):  # they need no blocks: done while the worker works
                    written.write(staging, renderer.others(model))
                with report.phase("blocks"):  # with a worker: the wait for it, if any
                    renderer.blocks = (
                        worker.result()
                        if worker
                        else render_docs(self.cfg, inputs.docs, inputs.registry.entries)
                    )
            with report.phase("entries"):
                renderer.css = renderer.stylesheet()
                written.write(staging, renderer.styled(model))
                written.merge(self._entries(renderer, model, staging))
                marker = fingerprint.marker(snapshot.digest, written.sizes)
                written.write(staging, {fingerprint.MARKER: marker})
            with report.phase("swap"):
                staging.commit(written.sizes, written.changed)
        finally:
            if staging is not None:
                staging.discard()
        self.inputs, self.model, self.renderer = inputs, model, renderer
        self.outputs = written.outputs
        report.files, report.written, report.outputs = (
            len(written.sizes),
            written.changed,
            written.outputs,
        )
        return report

    def _entries(self, renderer: Renderer, model: SiteModel, staging: output.Staging) -> Written:
        """Render the entry pages and write them into the new folder.

        In parallel, a forked worker and this process share them in runs of eight (Tickets):
        whichever is faster takes more runs, which matters because how long a file takes to
        write varies tenfold on the build machine. Each process writes the pages it renders.
        The worker does not send its pages back: 8 MB through a pipe costs ~30 ms, and only
        serve, which builds in one process, keeps the bytes of a build.
        """
        runs = chunks(model.entries, size=8)
        if not (self.parallel and len(runs) > 1 and can_fork()):
            written = Written(keep=not self.parallel)
            for run in runs:
                written.write(staging, renderer.entries(model, run))
            return written

        tickets = Tickets(len(runs))

        def share() -> Written:
            mine = Written(keep=False)
            for n in tickets:
                mine.write(staging, renderer.entries(model, runs[n]), apart=True)
            return mine

        try:
            worker = Worker(share)
            with cancelled_on_error(worker):
                written = share()
            written.merge(worker.result())
        finally:
            tickets.close()
        return written

    def _prepare(
        self, snapshot: fingerprint.ReadInputs, report: BuildReport
    ) -> tuple[Inputs, SiteModel, Renderer]:
        from gbsite.registry import store as registry

        with report.phase("load"):
            reg = registry.load(self.cfg.registry_dir, read=snapshot.read)
            docs = load_docs(self.cfg, snapshot, reg.entries, report)
            inputs = Inputs(reg, docs, read_examples(self.cfg, reg, docs))
        with report.phase("model"):
            model = self._model(inputs)
        with report.phase("templates"):
            renderer = Renderer(self.cfg)
            renderer.compile()
        return inputs, model, renderer

    def docs_changed(self, paths: Iterable[Path]) -> BuildReport:
        """Rebuild after edits to docs files only; needs a previous build()."""
        from gbsite.docs.files import DOC_NAME

        if self.inputs is None or self.model is None or self.renderer is None:
            raise RuntimeError("docs_changed() rebuilds after a build(); there was none")
        report = BuildReport(self.out_dir)
        docs = dict(self.inputs.docs)
        changed: set[str] = set()
        with report.phase("load"):
            for path in paths:
                match = DOC_NAME.fullmatch(path.name)
                gb_id = f"GB{match.group(1)}" if match else ""
                if gb_id not in self.inputs.registry.entries:
                    continue
                if path.is_file():
                    docs[gb_id] = read_doc(path)  # a marker error stops here, nothing changes
                else:
                    docs.pop(gb_id, None)
                changed.add(gb_id)
        with report.phase("model"):
            from gbsite.examples import coverage
            from gbsite.site.content import Examples

            # Only the edited pages are read again: the others' examples have not changed.
            old = self.inputs.examples
            edited = {gb_id: doc for gb_id, doc in docs.items() if gb_id in changed}
            read = coverage.read_pages(edited, self.inputs.registry.entries)
            kept = {i: page for i, page in old.pages.items() if i not in changed}
            examples = Examples({**kept, **read}, old.record, old.releases)
            inputs = Inputs(self.inputs.registry, docs, examples)
            model = self._model(inputs, self.model.views)
        with report.phase("blocks"):
            fresh = render_docs(self.cfg, edited, self.inputs.registry.entries)
            self.renderer.blocks = self.renderer.blocks.replaced(fresh.pages, changed)
        with report.phase("render"):
            # The edited pages first: they are what the person saving the file looks at.
            pages = self.renderer.entries(model, [p for p in model.entries if p.view.id in changed])
            written = self._write(pages)
            rest = self.renderer.info_dependent(model)
            css = self.renderer.stylesheet()
            if css != self.renderer.css:  # new code brought new token classes
                self.renderer.css = css
                rest.update(self.renderer.styled(model))
            outputs = {**self.outputs, **pages, **rest}
            # The marker no longer describes a full build's inputs: the next `gbsite build`
            # must not skip, so it records none.
            sizes = {rel: len(data) for rel, data in outputs.items()}
            marker = fingerprint.marker("-", sizes)
            rest[fingerprint.MARKER] = outputs[fingerprint.MARKER] = marker
        with report.phase("write"):
            written += self._write(rest)
        self.inputs, self.model, self.outputs = inputs, model, outputs
        report.files, report.outputs, report.written = len(outputs), outputs, written
        return report

    def _model(self, inputs: Inputs, views: list[EntryView] | None = None) -> SiteModel:
        from gbsite.registry.views import entry_views
        from gbsite.site import content as site

        views = views if views is not None else entry_views(inputs.registry)
        return site.model(self.cfg, inputs.registry, views, inputs.docs, inputs.examples)

    def _write(self, files: dict[str, bytes]) -> int:
        """Write changed files in place, each atomically (serve's incremental rebuilds)."""
        from gbsite.fs.files import write_if_changed

        with locked(self.out_dir.parent, "build"):
            return sum(write_if_changed(self.out_dir / rel, data) for rel, data in files.items())


def build(
    cfg: Config, out_dir: Path | None = None, *, skip_unchanged: bool = True, parallel: bool = False
) -> BuildReport:
    return Builder(cfg, out_dir, parallel=parallel).build(skip_unchanged=skip_unchanged)

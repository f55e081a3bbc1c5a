"""`gbsite build`: registry + preserved blocks + templates -> a static site, in named phases.

    fingerprint  hash every input; if the output folder was built from the same inputs, stop
    load         registry/ and the blocks of docs/gb/, validated
    model        what every page shows, as dataclasses (site.py)
    render       templates -> bytes of every file, in memory; each page renders its
                 contributor block (Markdown to sanitized HTML), so on two cores a forked
                 worker shares that work too
    write        into a temporary folder that replaces the old site in one step

A build that fails or is killed leaves the previous site as it was. Reading touches only
registry/, the blocks of docs/gb/, templates/ and gbsite.toml; nothing there is written.
Modules that are slow to import (Jinja, YAML, Markdown) are imported by the phases that use
them, so a build with nothing to do stays cheap.
"""

from __future__ import annotations

import contextlib
import ctypes
import marshal
import os
import pickle
import re
import shutil
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from gbsite import fingerprint
from gbsite.config import Config
from gbsite.errors import GbsiteError, Problem

if TYPE_CHECKING:
    import jinja2
    from markupsafe import Markup

    from gbsite.docs import Doc
    from gbsite.markdown import ContributorMarkdown, Fence
    from gbsite.model import Registry
    from gbsite.search import SearchEntry
    from gbsite.site import EntryPage, SiteModel
    from gbsite.views import EntryView

ASSETS = "assets"
OUTPUT_MARKER = fingerprint.MARKER


@dataclass
class BuildReport:
    out_dir: Path
    files: int = 0
    written: int = 0
    unchanged: bool = False  # nothing to do: the output was built from the same inputs
    outputs: dict[str, bytes] = field(default_factory=dict)  # every file of the site
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
class Inputs:
    """Everything a build reads, validated."""

    registry: Registry
    docs: dict[str, Doc]
    verified: dict[str, str] = field(default_factory=dict)  # example digest -> torch version


def read_doc(path: Path) -> Doc:
    from gbsite.docs import read

    return read(path, outside=False)  # the site needs only the block


def load(cfg: Config, report: BuildReport) -> Inputs:
    from gbsite import registry
    from gbsite.docs import scan

    reg = registry.load(cfg.registry_dir)
    files, unexpected = scan(cfg.docs_dir)
    report.warnings.extend(unexpected)
    problems: list[Problem] = []
    docs: dict[str, Doc] = {}
    for gb_id, path in files.items():
        if gb_id not in reg.entries:
            report.warnings.append(Problem(f"{gb_id} is not in the registry; not built", path))
            continue
        try:
            docs[gb_id] = read_doc(path)
        except GbsiteError as exc:
            problems.extend(exc.problems)
    if problems:
        raise GbsiteError(problems)
    from gbsite.examples import read_record

    return Inputs(reg, docs, read_record(cfg.verified_file))


class ExampleCaptions:
    """Says above a gb-repro or gb-fix block what it shows, and whether that was verified."""

    def __init__(self, verified: dict[str, str]) -> None:
        self.verified = verified  # block digest -> torch version

    def __call__(self, fence: Fence, gb_id: str) -> str | None:
        from html import escape

        from gbsite import examples

        try:
            parsed = examples.parse_info(fence.info)
        except ValueError:
            return None  # `gbsite check --examples` reports the bad info string
        if parsed is None:
            return None
        kind, options = parsed
        name = escape(options.get("compile", "fn"))
        backend = options.get("backend", "eager")
        call = f"<code>torch.compile({name}, fullgraph=True)</code>"
        if kind == "gb-repro":
            what = f"Breaks with {escape(gb_id)} when compiled with {call}"
        else:
            what = f"Fix: runs without a graph break with {call}"
        if backend != "eager":
            what += f", backend <code>{escape(backend)}</code>"
        torch = self.verified.get(
            examples.digest(kind, options.get("compile", "fn"), backend, fence.code)
        )
        status = (
            f'<span class="verified">verified with torch {escape(torch)}</span>'
            if torch
            else '<span class="unverified">not verified yet</span>'
        )
        return f"{what} · {status}"


class Renderer:
    """Templates -> bytes. One per build: it holds the Jinja environment and the stylesheet."""

    def __init__(self, cfg: Config, inputs: Inputs) -> None:
        from gbsite import site, templating

        self.cfg = cfg
        self.inputs = inputs
        self.templating = templating
        self.env: jinja2.Environment = templating.environment(cfg.templates_dir, html=True)
        self.env.filters["release_path"] = lambda label: f"releases/{site.release_slug(label)}.html"
        self.css = ""  # set by site(): it depends on the code in contributor blocks
        self.markdown: ContributorMarkdown | None = None
        self.used: dict[str, list[str]] = {}  # highlighting classes each page's code uses

    def info_html(self, page: EntryPage) -> Markup | None:
        """The page's contributor block as sanitized HTML; records the classes its code uses."""
        if page.info_block is None:
            return None
        from markupsafe import Markup

        from gbsite.highlight import used_classes

        if self.markdown is None:
            # Imported here: markdown-it, its plugins, Pygments and nh3 take ~50 ms to import,
            # needless when nobody has written anything yet.
            from gbsite.markdown import ContributorMarkdown
            from gbsite.site import PAGE_SECTIONS

            self.markdown = ContributorMarkdown(
                known_ids=self.inputs.registry.entries,
                link_for=lambda gb_id: f"{gb_id.lower()}.html",  # entry pages are siblings
                reserved_ids=PAGE_SECTIONS,
                fence_caption=ExampleCaptions(self.inputs.verified),
            )
        html = self.markdown.render(page.info_block, page.view.id)
        self.used[page.view.id] = sorted(used_classes([html]))
        # Sanitized by nh3 in render(), so it is safe to mark as such for the templates.
        return Markup(html)

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
        return {
            p.path: self.page(
                model,
                p.path,
                "entry.html.j2",
                page=p,
                has_info=model.has_info,
                info_html=self.info_html(p),
            )
            for p in pages
        }

    def info_dependent(self, model: SiteModel) -> dict[str, bytes]:
        """The files that change when a contributor block does, besides its own page."""
        from gbsite import site

        return {
            "index.html": self.page(model, "index.html", "index.html.j2", model=model),
            "dashboard.html": self.page(
                model, "dashboard.html", "dashboard.html.j2", dashboard=model.dashboard, model=model
            ),
            f"{ASSETS}/search-index.js": search_index(model).encode("utf-8"),
            "registry.json": site.registry_json(model.registry, model).encode("utf-8"),
        }

    def site(self, model: SiteModel, *, parallel: bool = False) -> dict[str, bytes]:
        """Every output file, by path relative to the site root.

        With `parallel`, a forked worker renders two of every three entry pages (and their
        contributor blocks) while this process renders the rest and every other page: on two
        cores, the render phase takes about half as long.
        """
        self.env.get_template("entry.html.j2")  # compiled once, before the worker is forked
        worker: Worker | None = None
        mine = model.entries
        # A fork copies only the calling thread; with other threads running (serve, a test
        # runner, a browser driver) a lock they hold could stay locked forever in the worker.
        if (
            parallel
            and len(model.entries) > 100
            and hasattr(os, "fork")
            and (threading.active_count() == 1)
        ):
            theirs = model.entries[1::3] + model.entries[2::3]
            worker = Worker(lambda: (self.entries(model, theirs), self.used))
            mine = model.entries[0::3]
        try:
            out = self._all_but_the_workers_pages(model, mine)
        except BaseException:
            if worker is not None:
                worker.cancel()  # never leave it blocked on a pipe nobody reads
            raise
        if worker is not None:
            pages, used = cast(tuple[dict[str, bytes], dict[str, list[str]]], worker.result())
            out.update(pages)
            self.used.update(used)
        # Last: the highlighting rules depend on the code every page turned out to contain.
        self.css = self.stylesheet()
        out.update(self.styled(model))
        return out

    def _all_but_the_workers_pages(
        self, model: SiteModel, mine: list[EntryPage]
    ) -> dict[str, bytes]:
        from gbsite import site

        out = self.info_dependent(model)
        out["releases/index.html"] = self.page(
            model, "releases/index.html", "releases.html.j2", releases=model.releases
        )
        for release in model.releases:
            out[release.path] = self.page(model, release.path, "release.html.j2", release=release)
        out.update(self.entries(model, mine))
        assets = self.cfg.templates_dir / ASSETS
        for path in sorted(assets.rglob("*")) if assets.is_dir() else []:
            if path.is_file() and path.name != "style.css":
                data = path.read_bytes()
                if path.suffix == ".css":  # page-specific rules (index.css, dashboard.css)
                    data = minify_css(data.decode("utf-8")).encode("utf-8")
                out[f"{ASSETS}/{path.relative_to(assets).as_posix()}"] = data
        out["sitemap.xml"] = site.sitemap(self.cfg, model).encode("utf-8")
        out[".nojekyll"] = b""  # GitHub Pages: serve files as they are
        return out

    def styled(self, model: SiteModel) -> dict[str, bytes]:
        """The stylesheet, and the 404 page that carries it inline."""
        from markupsafe import Markup

        return {
            f"{ASSETS}/style.css": self.css.encode("utf-8"),
            "404.html": self.page(
                model,
                "404.html",
                "404.html.j2",
                site_url=self.cfg.site_url,
                inline_css=Markup(self.css),
            ),
        }

    def stylesheet(self) -> str:
        """templates/assets/style.css, minified, plus the highlighting rules the code uses."""
        from gbsite.highlight import highlight_css

        path = self.cfg.templates_dir / ASSETS / "style.css"
        try:
            base = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise GbsiteError.at(path, None, "stylesheet not found") from None
        used = {cls for classes in self.used.values() for cls in classes}
        return minify_css(base) + highlight_css(used)


class Worker:
    """Runs `task` in a forked process; `result()` returns what it returned (anything marshal
    can carry: here the pages it rendered and the highlighting classes they use).

    Only for single-threaded callers (the build command): a fork copies only the calling
    thread, so `serve`, which has more, never uses it. A GbsiteError in the worker (a template
    error, say) is raised again here with its problems.
    """

    def __init__(self, task: Callable[[], Any]) -> None:
        read, write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the worker
            os.close(read)
            status = 0
            try:
                payload = marshal.dumps((True, task()))
            except GbsiteError as exc:
                payload, status = marshal.dumps((False, [pickle.dumps(exc.problems)])), 1
            except BaseException:
                payload = marshal.dumps((False, traceback.format_exc()))
                status = 2
            with os.fdopen(write, "wb") as pipe:
                pipe.write(payload)
            os._exit(status)  # no cleanup handlers: they belong to the parent
        os.close(write)
        self.read = read

    def cancel(self) -> None:
        os.close(self.read)
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)

    def result(self) -> Any:
        with os.fdopen(self.read, "rb") as pipe:
            payload = pipe.read()
        os.waitpid(self.pid, 0)
        if not payload:
            raise RuntimeError("the build worker died without a result")
        ok, value = marshal.loads(payload)
        if ok:
            return value
        if isinstance(value, list):
            raise GbsiteError(pickle.loads(value[0]))  # our own worker wrote it
        raise RuntimeError(f"build worker failed:\n{value}")


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
    from gbsite import search

    info_text = {
        p.view.id: search.plain_markdown(p.info_block) for p in model.entries if p.info_block
    }
    return search.entries_for(model.registry, model.views, info_text)


def search_index(model: SiteModel) -> str:
    from gbsite import search

    entries = search_entries(model)
    return search.index_js(entries, [c.key for c in model.categories], model.registry.labels)


def write_site(outputs: dict[str, bytes], out_dir: Path) -> int:
    """Replace `out_dir` with exactly `outputs`; returns how many files had new bytes.

    Unchanged files are hard-linked from the old site (same inode, mtime kept), so a rebuild
    with nothing changed writes nothing, and one with a few changes writes a few files.
    """
    _refuse_foreign_folder(out_dir)
    changed = [p for p, data in outputs.items() if _read(out_dir / p) != data]
    stale = out_dir.is_dir() and _existing(out_dir) != set(outputs)
    if not changed and not stale:
        return 0
    parent = out_dir.parent
    parent.mkdir(parents=True, exist_ok=True)
    for leftover in parent.glob(f".{out_dir.name}.*-*"):  # from a killed build
        shutil.rmtree(leftover, ignore_errors=True)
    tmp = parent / f".{out_dir.name}.new-{os.getpid()}"
    old = parent / f".{out_dir.name}.old-{os.getpid()}"
    try:
        changed_set = set(changed)
        for rel, data in outputs.items():
            target = tmp / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if rel not in changed_set:
                try:
                    os.link(out_dir / rel, target)
                    continue
                except OSError:
                    pass  # another file system, or no hard links: write it
            target.write_bytes(data)
        if not out_dir.exists():
            tmp.rename(out_dir)
        elif _exchange(tmp, out_dir):
            tmp.rename(old)  # tmp now holds the previous site
        else:
            out_dir.rename(old)  # not atomic: for a moment there is no site at all
            tmp.rename(out_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)
    return len(changed)


def _refuse_foreign_folder(out_dir: Path) -> None:
    if out_dir.exists() and not (out_dir / OUTPUT_MARKER).exists() and any(out_dir.iterdir()):
        raise GbsiteError.at(
            out_dir,
            None,
            "exists and was not written by gbsite build; choose another output folder or remove it",
        )


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one atomic step (Linux renameat2 RENAME_EXCHANGE), if possible.

    With it, the site folder always holds a complete site: the old one or the new one.
    """
    if sys.platform != "linux":
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    result = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)
    return bool(result == 0)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def _existing(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def _refuse_dangerous_output(cfg: Config, out_dir: Path) -> None:
    """The output folder is replaced wholesale: never let it be a source folder or a parent."""
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
        report = BuildReport(self.out_dir)
        with report.phase("fingerprint"):
            inputs_hash = fingerprint.inputs(self.cfg)
        if skip_unchanged and fingerprint.up_to_date(self.out_dir, inputs_hash):
            report.unchanged = True
            return report
        with report.phase("load"):
            inputs = load(self.cfg, report)
        with report.phase("model"):
            model = self._model(inputs)
        with report.phase("render"):
            renderer = Renderer(self.cfg, inputs)
            outputs = renderer.site(model, parallel=self.parallel)
            outputs[OUTPUT_MARKER] = fingerprint.marker(inputs_hash, outputs)
        with report.phase("write"):
            report.written = write_site(outputs, self.out_dir)
        self.inputs, self.model, self.renderer = inputs, model, renderer
        self.outputs = outputs
        report.files, report.outputs = len(outputs), outputs
        return report

    def docs_changed(self, paths: Iterable[Path]) -> BuildReport:
        """Rebuild after edits to docs files only; needs a previous build()."""
        from gbsite.docs import DOC_NAME

        assert self.inputs and self.model and self.renderer
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
            inputs = Inputs(self.inputs.registry, docs, self.inputs.verified)
            model = self._model(inputs, self.model.views)
        with report.phase("render"):
            self.renderer.inputs = inputs
            for gb_id in changed:
                self.renderer.used.pop(gb_id, None)
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
            rest[OUTPUT_MARKER] = outputs[OUTPUT_MARKER] = fingerprint.marker("-", outputs)
        with report.phase("write"):
            written += self._write(rest)
        self.inputs, self.model, self.outputs = inputs, model, outputs
        report.files, report.outputs, report.written = len(outputs), outputs, written
        return report

    def _model(self, inputs: Inputs, views: list[EntryView] | None = None) -> SiteModel:
        from gbsite import site
        from gbsite.views import entry_views

        views = views if views is not None else entry_views(inputs.registry)
        return site.model(self.cfg, inputs.registry, views, inputs.docs)

    def _write(self, files: dict[str, bytes]) -> int:
        """Write changed files in place, each atomically (serve's incremental rebuilds)."""
        from gbsite.fsutil import write_if_changed

        return sum(write_if_changed(self.out_dir / rel, data) for rel, data in files.items())


def build(
    cfg: Config, out_dir: Path | None = None, *, skip_unchanged: bool = True, parallel: bool = False
) -> BuildReport:
    return Builder(cfg, out_dir, parallel=parallel).build(skip_unchanged=skip_unchanged)

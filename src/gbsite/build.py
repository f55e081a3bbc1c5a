"""`gbsite build`: registry + preserved blocks + templates -> a static site, in named phases.

Everything is read, validated and rendered in memory first; only then is the site written, into
a temporary folder that replaces the old site in one rename. A build that fails or is killed
leaves the previous site as it was. Reading touches only registry/, the blocks of docs/gb/ and
templates/; nothing there is ever written.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from markupsafe import Markup

from gbsite import docs as docs_mod
from gbsite import registry as registry_mod
from gbsite import search, templating
from gbsite import site as site_mod
from gbsite.config import Config
from gbsite.errors import GbsiteError, Problem
from gbsite.markdown import ContributorMarkdown, highlight_css
from gbsite.model import Registry
from gbsite.sync import scan
from gbsite.views import entry_views

# Marks a folder as a gbsite output, so a build never replaces a folder it did not create.
OUTPUT_MARKER = ".gbsite-output"
ASSETS = "assets"


@dataclass
class BuildReport:
    out_dir: Path
    files: int = 0
    written: int = 0
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
    docs: dict[str, docs_mod.Doc]


def load(cfg: Config, report: BuildReport) -> Inputs:
    reg = registry_mod.load(cfg.registry_dir)
    files, unexpected = scan(cfg.docs_dir)
    report.warnings.extend(unexpected)
    problems: list[Problem] = []
    docs: dict[str, docs_mod.Doc] = {}
    for gb_id, path in files.items():
        if gb_id not in reg.entries:
            report.warnings.append(Problem(f"{gb_id} is not in the registry; not built", path))
            continue
        try:
            docs[gb_id] = docs_mod.read(path)
        except GbsiteError as exc:
            problems.extend(exc.problems)
    if problems:
        raise GbsiteError(problems)
    return Inputs(reg, docs)


def render_info(inputs: Inputs) -> dict[str, Markup]:
    """Contributor blocks to sanitized HTML (only the blocks that have content)."""
    md = ContributorMarkdown(
        known_ids=inputs.registry.entries,
        link_for=lambda gb_id: f"{gb_id.lower()}.html",  # entry pages are siblings in gb/
        reserved_ids=site_mod.PAGE_SECTIONS,
    )
    # The HTML is sanitized by nh3, so it is safe to mark as such for the templates.
    return {
        gb_id: Markup(md.render(doc.block)) for gb_id, doc in inputs.docs.items() if doc.has_content
    }


def render_site(cfg: Config, model: site_mod.SiteModel) -> dict[str, bytes]:
    """Every output file, by path relative to the site root."""
    env = templating.environment(cfg.templates_dir, html=True)
    env.filters["release_path"] = lambda label: f"releases/{site_mod.release_slug(label)}.html"
    out: dict[str, str | bytes] = {}

    def page(path: str, template: str, **context: object) -> None:
        root = "../" * path.count("/")
        out[path] = templating.render(
            env, template, cfg.templates_dir, site=model.info, root=root, path=path, **context
        )

    page("index.html", "index.html.j2", model=model)
    page("dashboard.html", "dashboard.html.j2", dashboard=model.dashboard, model=model)
    page("releases/index.html", "releases.html.j2", releases=model.releases)
    for release in model.releases:
        page(release.path, "release.html.j2", release=release)
    for entry in model.entries:
        page(entry.path, "entry.html.j2", page=entry, has_info=model.has_info)
    css = _stylesheet(cfg)
    page("404.html", "404.html.j2", site_url=cfg.site_url, inline_css=Markup(css))
    out[f"{ASSETS}/style.css"] = css
    assets = cfg.templates_dir / ASSETS
    for path in sorted(assets.rglob("*")) if assets.is_dir() else []:
        if path.is_file() and path.name != "style.css":
            out[f"{ASSETS}/{path.relative_to(assets).as_posix()}"] = path.read_bytes()
    out[f"{ASSETS}/search-index.js"] = search_index(model)
    out["registry.json"] = site_mod.registry_json(model.registry, model)
    out["sitemap.xml"] = site_mod.sitemap(cfg, model)
    out[".nojekyll"] = b""  # GitHub Pages: serve files as they are
    out[OUTPUT_MARKER] = b"written by gbsite build; this folder is replaced on every build\n"
    return {
        path: data.encode("utf-8") if isinstance(data, str) else data for path, data in out.items()
    }


def search_index(model: site_mod.SiteModel) -> str:
    info_text = {
        p.view.id: search.plain_text(str(p.info_html)) for p in model.entries if p.info_html
    }
    entries = search.entries_for(model.registry, model.views, info_text)
    return search.index_js(entries, [c.key for c in model.categories], model.registry.labels)


def _stylesheet(cfg: Config) -> str:
    path = cfg.templates_dir / ASSETS / "style.css"
    try:
        base = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GbsiteError.at(path, None, "stylesheet not found") from None
    return base + "\n/* Code highlighting (Pygments) */\n" + highlight_css()


def write_site(outputs: dict[str, bytes], out_dir: Path) -> int:
    """Replace `out_dir` with exactly `outputs`; returns how many files had new bytes.

    Unchanged files are hard-linked from the old site (same inode, mtime kept), so a rebuild
    with nothing changed writes nothing, and one with a few changes writes a few files.
    """
    if out_dir.exists() and not (out_dir / OUTPUT_MARKER).exists() and any(out_dir.iterdir()):
        raise GbsiteError.at(
            out_dir,
            None,
            "exists and was not written by gbsite build; choose another output folder or remove it",
        )
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


def build(cfg: Config, out_dir: Path | None = None) -> BuildReport:
    out_dir = (out_dir or cfg.output_dir).resolve()
    _refuse_dangerous_output(cfg, out_dir)
    report = BuildReport(out_dir)
    with report.phase("load"):
        inputs = load(cfg, report)
    with report.phase("markdown"):
        info_html = render_info(inputs)
    with report.phase("model"):
        views = entry_views(inputs.registry)
        model = site_mod.model(cfg, inputs.registry, views, inputs.docs, info_html)
    with report.phase("render"):
        outputs = render_site(cfg, model)
    with report.phase("write"):
        report.written = write_site(outputs, out_dir)
    report.files = len(outputs)
    report.outputs = outputs
    return report


def _refuse_dangerous_output(cfg: Config, out_dir: Path) -> None:
    """The output folder is replaced wholesale: never let it be a source folder or a parent."""
    sources = [cfg.root, cfg.registry_dir, cfg.docs_dir, cfg.templates_dir]
    for source in sources:
        source = source.resolve()
        if out_dir == source or source.is_relative_to(out_dir):
            raise GbsiteError(f"{out_dir}: the output folder cannot be {source} or contain it")

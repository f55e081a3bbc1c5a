"""`gbsite build`: registry + docs blocks + templates -> a static site, in named phases.

    fingerprint  read every input and hash it; stop if the output folder was built from the
                 same inputs (fingerprint.py)
    load         the registry, the docs of docs/gb/ and the record of examples, validated
                 (load.py); in a cold build a forked worker highlights the docs' code in the
                 meantime, from here to the end of the plan (ahead.py)
    derive       what every page shows, as dataclasses (content.py, dashboard.py)
    plan         the page table: one row per file of the site (pages.py), and the templates
                 compiled
    render       every row rendered and written into a new folder beside the site, shared with
                 a forked worker (render.py)
    swap         the new folder replaces the old site in one step (output.py)

`serve` runs the same phases, keeping a BuildCache from one build to the next (cache.py): what
did not change is neither parsed, derived, rendered nor written again.

A build that fails or is killed leaves the previous site as it was. Reading touches only
registry/, the blocks of docs/gb/, templates/ and gbsite.toml; nothing there is written.
Modules that are slow to import (Jinja, YAML, Markdown) are imported by the phases that use
them, so a build with nothing to do stays cheap.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from gbsite import parsed
from gbsite.config import Config
from gbsite.errors import GbsiteError, Problem
from gbsite.fs.lock import locked
from gbsite.site import fingerprint, output
from gbsite.site.cache import BuildCache
from gbsite.site.worker import cancelled_on_error


@dataclass
class BuildReport:
    out_dir: Path
    files: int = 0
    written: int = 0
    unchanged: bool = False  # nothing to do: the output was built from the same inputs
    outputs: dict[str, bytes] = field(default_factory=dict)  # every file, when kept (serve)
    warnings: list[Problem] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    highlighted_ahead: int = 0  # code blocks highlighted while the build loaded (ahead.py)

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] = time.perf_counter() - start


def build(
    cfg: Config,
    out_dir: Path | None = None,
    *,
    skip_unchanged: bool = True,
    parallel: bool = False,
    cache: BuildCache | None = None,
    changed: Collection[Path] | None = None,
) -> BuildReport:
    """Build the site into `out_dir` (default: the configured output folder). `parallel`:
    render with a forked worker too; `cache`: keep what this build parsed and rendered, and
    reuse what the last one kept (serve builds in one process, and serves the bytes);
    `changed`: with a cache, the only files changed since its build (serve's watcher knows)."""
    from gbsite.site import ahead

    out = output_folder(cfg, out_dir)
    report = BuildReport(out)
    keep = cache is not None or not parallel  # a forked worker's bytes would cost a pipe
    cache = cache if cache is not None else BuildCache()
    # One build of a site at a time: a second one waits instead of removing the first's new
    # folder (lock.py). Holding the lock, what killed builds left goes first. What the build
    # parses (YAML, blocks' scans, examples' bindings) is kept for the next one (parsed.py): a
    # command's session, or the build's own when it is called as a function (serve, tests).
    with locked(out.parent, "build"), parsed.session():
        output.remove_leftovers(out)
        with report.phase("fingerprint"):
            since = cache.snapshot if changed is not None else None
            snapshot = cache.snapshot = fingerprint.inputs(cfg, since, changed or ())
        if skip_unchanged and fingerprint.up_to_date(out, snapshot.digest):
            report.unchanged = True
            return report
        cache.renew(snapshot.generation)
        # A cold build's code is highlighted by a second process until the render phase.
        early = ahead.start(snapshot) if parallel else None
        # The phases' modules (~50 ms), once a build is needed, and while that process works.
        from gbsite.site import content, load, pages, render, renderer

        with cancelled_on_error(early.worker if early is not None else None):
            with report.phase("load"):
                read = load.load(cfg, snapshot, cache, report.warnings)
            with report.phase("derive"):
                site = cache.model = content.model(cfg, read, cache.model)
            with report.phase("plan"):
                table = pages.plan(cfg, site)
                if cache.renderer is None:  # compiles every template: errors show before writing
                    cache.renderer = renderer.Renderer(
                        cfg, read.registry.entries, read.examples.record
                    )
                found = early.collect() if early is not None else {}
                report.highlighted_ahead = len(found)
        target = output.target(out, cache)
        try:
            with report.phase("render"):
                done = render.render(
                    table,
                    cache.renderer,
                    site,
                    target,
                    cache,
                    parallel=parallel,
                    keep=keep,
                    highlighted=found,
                )
            with report.phase("swap"):
                marker = fingerprint.marker(snapshot.digest, done.sizes)
                done.add(target, {fingerprint.MARKER: marker})
                target.commit(done.sizes, done.changed)
        finally:
            target.discard()
    report.files, report.written, report.outputs = len(done.sizes), done.changed, done.outputs
    return report


def output_folder(cfg: Config, out_dir: Path | None) -> Path:
    """The output folder, refused when it is a file, a source folder or one of their parents:
    it is replaced wholesale."""
    out = (out_dir or cfg.output_dir).resolve()
    if out.exists() and not out.is_dir():
        raise GbsiteError(f"{out}: is a file, not a folder; choose another --out")
    for source in (cfg.root, cfg.registry_dir, cfg.docs_dir, cfg.templates_dir):
        source = source.resolve()
        if out == source or source.is_relative_to(out):
            raise GbsiteError(f"{out}: the output folder cannot be {source} or contain it")
    return out

"""Where a cold build's work goes: one `gbsite build` in this process, without its forked
workers and with an empty cache folder, each library call it spends its time in timed.

    python benchmarks/cold_profile.py            # a cold build
    python benchmarks/cold_profile.py --warm     # then one with the cache folder it left

The forked build (what `gbsite build` runs) does the same work on two cores: a worker
highlights code while the build loads (site/ahead.py) and another renders half the pages
(site/render.py). Its CPU is this build's plus the forking, so this table is the work to cut.
A call inside another timed call counts only in the outer one's row ("of which" rows excepted,
which are inside the row above them). The project is copied, and its copy built, in a
temporary folder.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import os
import shutil
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from timing import ROOT, compile_bytecode, copy_project

# (module, attribute path, what it is). Timed where it is called from outside the others.
TIMED = (
    ("markdown_it.main", "MarkdownIt.parse", "Markdown parsed (markdown-it)"),
    ("markdown_it.renderer", "RendererHTML.render", "Markdown to HTML (markdown-it)"),
    ("gbsite.docs.highlight", "highlight_code", "code highlighted (Pygments)"),
    ("gbsite.docs.markdown", "sanitize", "HTML sanitized (nh3)"),
    ("jinja2.environment", "Template.render", "pages rendered (Jinja)"),
    ("gbsite.registry.yamlio", "load", "registry YAML parsed"),
    ("gbsite.site.pages", "search_index", "search index"),
    ("gbsite.site.renderer", "Renderer.__init__", "templates compiled"),
)
INSIDE = {"code highlighted (Pygments)": "Markdown to HTML (markdown-it)"}


class Clock:
    """Wall time per timed call; a call made while another timed call runs counts in that one
    (the highlighting inside Markdown's rendering is reported apart: `inner`)."""

    def __init__(self) -> None:
        self.spent: defaultdict[str, float] = defaultdict(float)
        self.calls: Counter[str] = Counter()
        self.inner: defaultdict[str, float] = defaultdict(float)
        self._running: list[str] = []

    def wrap(self, function: Callable[..., Any], what: str) -> Callable[..., Any]:
        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            outer = self._running[-1] if self._running else None
            if outer is not None and INSIDE.get(what) != outer:
                return function(*args, **kwargs)
            self._running.append(what)
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                took = time.perf_counter() - start
                self._running.pop()
                (self.inner if outer is not None else self.spent)[what] += took
                self.calls[what] += 1

        return timed


@contextlib.contextmanager
def timing(clock: Clock) -> Iterator[None]:
    """Every TIMED attribute replaced by its timed version while the block runs."""
    undo = []
    for module, path, what in TIMED:
        owner: Any = importlib.import_module(module)
        *parents, name = path.split(".")
        for parent in parents:
            owner = getattr(owner, parent)
        original = getattr(owner, name)
        setattr(owner, name, clock.wrap(original, what))
        undo.append((owner, name, original))
    try:
        yield
    finally:
        for owner, name, original in reversed(undo):
            setattr(owner, name, original)


def profile(project: Path, out: Path) -> tuple[float, float, dict[str, float], Clock]:
    """One sequential build of `project` into `out`: wall and CPU seconds, its phases, the
    clock."""
    from gbsite import config
    from gbsite.site import build

    clock = Clock()
    with timing(clock):
        start, cpu = time.perf_counter(), time.process_time()
        report = build.build(config.load(project), out, parallel=False)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return wall, cpu, report.timings, clock


def show(title: str, wall: float, cpu: float, phases: dict[str, float], clock: Clock) -> None:
    print(f"\n{title}: {wall * 1000:.0f} ms wall, {cpu * 1000:.0f} ms CPU, one process")
    print("  phases: " + ", ".join(f"{n} {s * 1000:.0f}" for n, s in phases.items()))
    print(f"  {'ms':>6} {'share':>6} {'calls':>6}  where")
    for what, spent in sorted(clock.spent.items(), key=lambda item: -item[1]):
        print(f"  {spent * 1000:6.0f} {100 * spent / wall:5.1f}% {clock.calls[what]:6d}  {what}")
        for inner, outer in INSIDE.items():
            if outer == what and clock.inner[inner]:
                took = clock.inner[inner]
                print(f"  {took * 1000:6.0f} {100 * took / wall:5.1f}% {clock.calls[inner]:6d}"
                      f"    of which {inner}")  # fmt: skip
    rest = wall - sum(clock.spent.values())
    print(f"  {rest * 1000:6.0f} {100 * rest / wall:5.1f}%         the rest (reading, "
          "deriving, JSON, writing files, caches)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warm", action="store_true", help="then a build with the cache kept")
    args = parser.parse_args()
    compile_bytecode()
    work = Path(tempfile.mkdtemp(prefix="gbsite-profile-"))
    try:
        os.environ["GBSITE_CACHE_DIR"] = str(work / "cache")  # empty: a cold build
        project = copy_project(work / "project")
        show("cold build", *profile(project, work / "out1"))
        if args.warm:
            show("build with the cache folder kept", *profile(project, work / "out2"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n(project: {ROOT})")


if __name__ == "__main__":
    main()

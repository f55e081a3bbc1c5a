"""Build speed against MkDocs and Hugo, and the rebuild with nothing changed, side by side.

    python benchmarks/build.py [--runs N]

On the committed registry and docs, each round times once, in an order that turns by one place
every round so that no tool always runs after the same one:
  - `python -c pass`, the yardstick of this machine's speed at that moment;
  - the floor: Python starting, importing the libraries a build uses and PyYAML reading the
    registry, the part of a cold build gbsite's own code cannot remove;
  - a cold `gbsite build`: new interpreter, a project copied anew, a new output folder and an
    empty cache folder (gbsite's modules byte-compiled, as an install leaves them);
  - a cold MkDocs 1.6.1 build and a cold Hugo build of the same pages (one Markdown page per id:
    every registry text and the docs block, benchmarks/mkdocs_site.py and hugo_site.py), each
    into a new folder; benchmarks/tools.py installs both into the cache folder on first use.
    MkDocs twice: with a navigation of the index only (the target's yardstick: no menu of all
    ids on every page, which gbsite and Hugo do not write either) and with its default one;
  - `gbsite build` again into a folder built before, with nothing changed;
  - `gbsite build` of a project copied anew into a new folder, with the cache folder of an
    earlier build: every page rendered, the blocks rendered, the code highlighted and the YAML
    parsed before reused (site/blockcache.py, site/highlights.py, parsed.py), as after
    `rm -rf site/`;
  - the same with one docs file changed (a sentence added to GB0003's block): a contributor's
    build after an edit, which renders that one block;
  - the same with a template changed (a Jinja comment added), which starts a generation of
    its own: every block rendered again, its code highlighted before (a change that touches
    every page).
Prints each one's wall time (median, minimum and maximum over the rounds), CPU time (user and
system, with the child processes it waited for) and peak RSS, then the ratios issues 17 and 46 set
targets for, each the median of the ratios within a round (both figures then come from the same
moment of a shared, noisy machine), with PASS or MISS on wall time; the CPU ratio beside it
shows the work apart from how busy the machine was. Scaling, memory and page weight:
benchmarks/scaling.py.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import hugo_site
import mkdocs_site
import tools
from timing import (
    ROOT,
    Runs,
    compile_bytecode,
    copy_project,
    fresh_env,
    gbsite,
    run,
    verdict,
)

# What no change to gbsite's own code can remove: Python starting, the libraries a build uses
# being imported, and PyYAML's C loader reading the registry. It renders and writes nothing.
FLOOR = """
import sys
from pathlib import Path
import jinja2, markdown_it, mdit_py_plugins, nh3, yaml
import pygments.formatters.html, pygments.lexers.python
for path in sorted(Path(sys.argv[1]).glob("gb/*.yaml")):
    yaml.load(path.read_bytes(), Loader=yaml.CSafeLoader)
"""

PASS = "python -c pass"
FLOOR_ROW = "floor: imports + registry parsed"
COLD = "gbsite build, cold"
MKDOCS = "mkdocs 1.6.1 build, cold"
MKDOCS_FULL = "mkdocs 1.6.1, default nav, cold"
HUGO = "hugo 0.168.0, cold"
NOOP = "gbsite build, nothing changed"
KEPT = "gbsite build, new folder, all kept"
ONE_DOC = "gbsite build, one docs file changed"
TEMPLATE = "gbsite build, a template changed"

# (numerator, denominator, target, what the ratio is): the speed targets of issue 46 (cold
# builds; issue 17 had Hugo at 3x) and issue 17 (nothing changed).
TARGETS = (
    (COLD, MKDOCS, 0.2, "gbsite cold / MkDocs cold"),
    (COLD, HUGO, 1.5, "gbsite cold / Hugo cold"),
    (NOOP, COLD, 0.2, "nothing changed / cold"),
)
INFO = (
    (COLD, MKDOCS_FULL, "gbsite cold / MkDocs default nav"),
    (COLD, PASS, "gbsite cold / python -c pass"),
    (NOOP, PASS, "nothing changed / python -c pass"),
    (KEPT, MKDOCS, "all kept / MkDocs cold"),
    (KEPT, HUGO, "all kept / Hugo cold"),
    (ONE_DOC, HUGO, "one docs file changed / Hugo cold"),
    (TEMPLATE, HUGO, "a template changed / Hugo cold"),
    (FLOOR_ROW, COLD, "floor / gbsite cold"),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="rounds (default 9)")
    args = parser.parse_args()
    found = tools.ensure()
    compile_bytecode()
    work = Path(tempfile.mkdtemp(prefix="gbsite-bench-"))
    try:
        registry, docs = ROOT / "registry", ROOT / "docs" / "gb"
        ids = mkdocs_site.make(work / "mkdocs", registry, docs)
        mkdocs_site.make(work / "mkdocs-full", registry, docs, full_nav=True)
        hugo_site.make(work / "hugo", registry, docs)
        noop_project = copy_project(work / "noop")
        noop_env = fresh_env(work / "noop-cache")
        run(gbsite(noop_project, work / "noop-out"), Runs(), noop_env)  # built once, untimed
        names = (PASS, FLOOR_ROW, COLD, MKDOCS, MKDOCS_FULL, HUGO, NOOP, KEPT, ONE_DOC, TEMPLATE)
        runs = {name: Runs() for name in names}

        def mkdocs(project: str, i: int) -> None:
            config = work / project / "mkdocs.yml"
            out = work / f"{project}-out{i}"
            run(
                [str(found.mkdocs), "build", "-q", "-f", str(config), "-d", str(out)],
                runs[MKDOCS if project == "mkdocs" else MKDOCS_FULL],
            )

        def cold(i: int) -> None:
            # Everything new, so that nothing an earlier build left can be found: the project
            # (in case gbsite keeps something beside its inputs), the cache and output folders.
            project = copy_project(work / f"cold{i}")
            run(gbsite(project, work / f"out{i}"), runs[COLD], fresh_env(work / f"cache{i}"))

        def kept(name: str, i: int) -> None:
            project = copy_project(work / f"{name}{i}")
            if name == ONE_DOC:
                path = project / "docs" / "gb" / "gb0003.md"
                end = "<!-- ADDITIONAL INFORMATION END -->"
                path.write_text(path.read_text().replace(end, f"One more sentence ({i}).\n\n{end}"))
            elif name == TEMPLATE:
                with (project / "templates" / "entry.html.j2").open("a") as template:
                    template.write(f"{{# changed ({i}) #}}")
            run(gbsite(project, work / f"{name}-out{i}"), runs[name], noop_env)

        steps: dict[str, Callable[[int], None]] = {
            PASS: lambda i: run([sys.executable, "-c", "pass"], runs[PASS]),
            FLOOR_ROW: lambda i: run([sys.executable, "-c", FLOOR, str(registry)], runs[FLOOR_ROW]),
            COLD: cold,
            MKDOCS: lambda i: mkdocs("mkdocs", i),
            MKDOCS_FULL: lambda i: mkdocs("mkdocs-full", i),
            HUGO: lambda i: run(
                [str(found.hugo), "--quiet", "-s", str(work / "hugo"),
                 "-d", str(work / f"hugo-out{i}")],
                runs[HUGO],
            ),
            NOOP: lambda i: run(gbsite(noop_project, work / "noop-out"), runs[NOOP], noop_env),
            KEPT: lambda i: kept(KEPT, i),
            ONE_DOC: lambda i: kept(ONE_DOC, i),
            TEMPLATE: lambda i: kept(TEMPLATE, i),
        }  # fmt: skip
        order = list(runs)
        # Every cold run writes into a folder of its own, kept to the end: deleting a site just
        # before timing a build would time the file system's clean-up (this disk discards on
        # delete), not the build.
        for i in range(args.runs):
            for name in order[i % len(order) :] + order[: i % len(order)]:
                steps[name](i)
            print(f"round {i + 1} of {args.runs} done", file=sys.stderr)

        print(f"\n{ids} ids with their docs blocks; {args.runs} rounds, each tool once a round")
        print(f"{'':34}{'wall ms':>9}{'min':>7}{'max':>7}{'cpu ms':>8}{'peak MiB':>10}")
        for name, r in runs.items():
            print(
                f"{name:34}{r.median():>9.0f}{min(r.wall) * 1000:>7.0f}{max(r.wall) * 1000:>7.0f}"
                f"{statistics.median(r.cpu) * 1000:>8.0f}{max(r.rss) / 1024:>10.0f}"
            )

        def ratio(top: str, bottom: str, cpu: bool = False) -> float:
            a, b = (runs[top].cpu, runs[bottom].cpu) if cpu else (runs[top].wall, runs[bottom].wall)
            return statistics.median(x / y for x, y in zip(a, b, strict=True))

        print(f"\nmedian of the ratios within each round{'wall':>9}{'cpu':>8}")
        for top, bottom, target, what in TARGETS:
            value = ratio(top, bottom)
            print(
                f"  {what:36}{value:>9.2f}{ratio(top, bottom, cpu=True):>8.2f}"
                f"   target <= {target} (wall): {verdict(value, target)}"
            )
        for top, bottom, what in INFO:
            print(f"  {what:36}{ratio(top, bottom):>9.2f}{ratio(top, bottom, cpu=True):>8.2f}")
        phases = runs[COLD].phases
        if phases:
            inside = sum(runs[COLD].phase(n) for n in phases[0])
            print(
                "\nphases of the cold build (ms, as gbsite reports them): "
                + ", ".join(f"{n} {runs[COLD].phase(n):.0f}" for n in phases[0])
                + f"; outside them (start-up, imports, exit) {runs[COLD].median() - inside:.0f}"
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

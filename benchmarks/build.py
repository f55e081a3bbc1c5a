"""Build speed: gbsite against Hugo, warm rebuilds, phases, memory and scaling.

    python benchmarks/build.py [--runs N] [--sizes 600,5000,10000] [--no-hugo]

For the committed registry, a cold `gbsite build` (new interpreter, no output folder, nothing
cached; gbsite's modules byte-compiled, as an install leaves them) and `hugo` on a site with one
Markdown page per id (benchmarks/hugo_site.py), with and without the docs blocks, run
alternately, N times each, with a floor: Python starting, importing the libraries a build uses
and parsing the registry with PyYAML, the part of a cold build gbsite's own code cannot remove.
Then rebuilds with nothing changed.
For synthetic registries of the given sizes (benchmarks/synth.py), cold builds show how the
cost per id scales. Every figure is a median. Peak RSS is the build process's own; for the
synthetic registries, peak memory is that of the build and its forked workers together (PSS).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import hugo_site  # noqa: E402
import synth  # noqa: E402

PHASES = re.compile(r"\[(.*)\]")

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


@dataclass
class Runs:
    wall: list[float] = field(default_factory=list)  # seconds
    rss: list[int] = field(default_factory=list)  # KiB
    phases: list[dict[str, float]] = field(default_factory=list)  # ms

    def median(self) -> float:
        return statistics.median(self.wall) * 1000

    def phase(self, name: str) -> float:
        return statistics.median(p.get(name, 0.0) for p in self.phases)


def run(command: list[str], runs: Runs) -> None:
    # Flush what the previous run wrote: otherwise each run pays for writing back the files of
    # the one before it, and the order in which the tools take turns decides part of the result.
    os.sync()
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    output = proc.stdout.read().decode() if proc.stdout else ""
    proc.stdout.close() if proc.stdout else None
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{output}")
    runs.wall.append(wall)
    runs.rss.append(usage.ru_maxrss)
    if match := PHASES.search(output):
        runs.phases.append(
            {name: float(ms) for name, ms in re.findall(r"(\w+) (\d+) ms", match.group(1))}
        )


def _tree(pid: int) -> list[int]:
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return [pid]
    return [pid, *(p for child in children for p in _tree(int(child)))]


def peak_memory(command: list[str]) -> int:
    """Peak memory (KiB) of a build and its forked workers together: the sum of their PSS, so
    the pages they share are counted once. Sampled every 5 ms, in a run that is not timed."""
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while proc.poll() is None:
        total = 0
        for pid in _tree(proc.pid):
            try:
                rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
            except OSError:
                continue  # it just ended
            if match := re.search(r"^Pss:\s+(\d+)", rollup, re.M):
                total += int(match.group(1))
        peak = max(peak, total)
        time.sleep(0.005)
    return peak


def gbsite(project: Path, out: Path) -> list[str]:
    """`gbsite build`, as the README runs it: the console script of this interpreter."""
    script = Path(sys.executable).with_name("gbsite")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "gbsite"]
    return [*command, "--root", str(project), "build", "--out", str(out)]


def compile_bytecode() -> None:
    """Byte-compile gbsite's modules, as `pip install` does for a wheel. An editable install
    compiles them on first use and keeps the bytecode, unless PYTHONDONTWRITEBYTECODE is set (it
    is on the build machine): then every run would compile gbsite again (~30 ms), which an
    installed gbsite never does. Hugo's binary is compiled too."""
    import compileall

    import gbsite as package

    compileall.compile_dir(Path(package.__file__).parent, quiet=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--sizes", default="600,5000,10000")
    parser.add_argument("--no-hugo", action="store_true")
    args = parser.parse_args()
    hugo = None if args.no_hugo else shutil.which("hugo")
    compile_bytecode()
    work = Path(tempfile.mkdtemp(prefix="gbsite-bench-"))
    try:
        project = work / "real"
        shutil.copytree(ROOT, project, ignore=shutil.ignore_patterns(".git", "site", ".venv*"))
        cold, warm, hugo_runs, hugo_docs_runs, floor = Runs(), Runs(), Runs(), Runs(), Runs()
        if hugo:
            hugo_site.make(work / "hugo", ROOT / "registry")
            hugo_site.make(work / "hugo-docs", ROOT / "registry", ROOT / "docs" / "gb")
        # Every cold run writes into a folder of its own: deleting a site just before timing a
        # build measures the file system's clean-up (this disk discards on delete), not the build.
        for i in range(args.runs):  # alternate, so both see the same machine
            run(gbsite(project, work / f"out{i}"), cold)
            run([sys.executable, "-c", FLOOR, str(project / "registry")], floor)
            if hugo:
                for site, runs in (("hugo", hugo_runs), ("hugo-docs", hugo_docs_runs)):
                    public = str(work / f"{site}-public{i}")
                    run([hugo, "--quiet", "-s", str(work / site), "-d", public], runs)
        out = work / "out0"
        for _ in range(args.runs):
            run(gbsite(project, out), warm)
        ids = len(list((project / "registry" / "gb").glob("GB*.yaml")))
        site_dir = work / "out0"
        assets = sum((site_dir / "assets" / f).stat().st_size for f in ("style.css", "site.js"))
        pages = sorted((p.stat().st_size, p.name) for p in (site_dir / "gb").glob("gb*.html"))

        print(f"Committed registry: {ids} ids; medians of {args.runs} runs\n")
        print(f"{'':34}{'wall ms':>9}{'peak RSS MiB':>14}")
        print(f"{'gbsite build, cold':34}{cold.median():>9.0f}{max(cold.rss) / 1024:>14.0f}")
        print(
            f"{'gbsite build, nothing changed':34}{warm.median():>9.0f}"
            f"{max(warm.rss) / 1024:>14.0f}"
        )
        if hugo:
            for title, runs in (
                ("hugo, registry texts, cold", hugo_runs),
                ("hugo, + docs blocks, cold", hugo_docs_runs),
            ):
                print(f"{title:34}{runs.median():>9.0f}{max(runs.rss) / 1024:>14.0f}")
        print(
            f"{'floor: imports + registry parsed':34}{floor.median():>9.0f}"
            f"{max(floor.rss) / 1024:>14.0f}"
        )
        if hugo:
            print(
                f"\ngbsite / hugo, cold: {cold.median() / hugo_runs.median():.2f} "
                f"(registry texts only), {cold.median() / hugo_docs_runs.median():.2f} "
                "(with the docs blocks gbsite's pages also render)"
            )
            print(
                f"floor / hugo: {floor.median() / hugo_runs.median():.2f} (Python start-up, "
                "importing the build's libraries and parsing the registry, in one process)"
            )
        print(f"nothing changed / cold: {warm.median() / cold.median():.2f}")
        print(
            f"page weight: heaviest entry page ({pages[-1][1]}, {pages[-1][0] / 1024:.1f} KiB) "
            f"with style.css and site.js: {(pages[-1][0] + assets) / 1024:.1f} KiB; median "
            f"page {(pages[len(pages) // 2][0] + assets) / 1024:.1f} KiB\n"
        )
        names = list(cold.phases[0]) if cold.phases else []
        print(
            "phases of the cold build (ms, in process): "
            + ", ".join(f"{n} {cold.phase(n):.0f}" for n in names)
        )
        inside = sum(cold.phase(n) for n in names)
        print(
            f"in process {inside:.0f} ms; interpreter start-up, imports and exit "
            f"{cold.median() - inside:.0f} ms\n"
        )

        sizes = [int(s) for s in args.sizes.split(",") if s]
        if sizes:
            print(
                f"{'ids':>6}{'texts':>7}{'cold ms':>9}{'in-process ms':>15}{'per id ms':>11}"
                f"{'vs smallest':>13}{'peak MiB':>10}"
            )
            base = None
            for size in sizes:
                texts = 2 if size >= 10_000 else 1
                proj = synth.make(size, work / f"synth{size}", texts_per_id=texts)
                runs = Runs()
                for i in range(max(3, args.runs // 3)):
                    run(gbsite(proj, work / f"sout{size}-{i}"), runs)
                in_process = sum(runs.phase(n) for n in runs.phases[0])
                per_id = in_process / size
                base = base or per_id
                memory = peak_memory(gbsite(proj, work / f"sout{size}-memory"))
                print(
                    f"{size:>6}{size * texts:>7}{runs.median():>9.0f}{in_process:>15.0f}"
                    f"{per_id:>11.3f}{per_id / base:>13.2f}{memory / 1024:>10.0f}"
                )
                shutil.rmtree(proj, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

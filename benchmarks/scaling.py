"""Build cost per id on synthetic registries, peak memory, and the weight of the pages.

    python benchmarks/scaling.py [--runs N] [--sizes 600,5000,10000]

For synthetic registries of the given sizes (benchmarks/synth.py), cold builds (new interpreter,
new output folder, empty cache folder) show how the cost per id scales; each figure is a median.
Peak memory is that of the build and its forked workers together (PSS). Page weight is that of
the committed registry's site. Speed against MkDocs and Hugo: benchmarks/build.py.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import synth
from timing import Runs, compile_bytecode, copy_project, fresh_env, gbsite, run


def _tree(pid: int) -> list[int]:
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return [pid]
    return [pid, *(p for child in children for p in _tree(int(child)))]


def peak_memory(command: list[str], env: dict[str, str]) -> int:
    """Peak memory (KiB) of a build and its forked workers together: the sum of their PSS, so
    the pages they share are counted once. Sampled every 5 ms, in a run that is not timed."""
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
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


def page_weight(work: Path) -> str:
    project = copy_project(work / "real")
    site = work / "real-out"
    run(gbsite(project, site), Runs(), fresh_env(work / "real-cache"))
    assets = sum((site / "assets" / f).stat().st_size for f in ("style.css", "site.js"))
    pages = sorted((p.stat().st_size, p.name) for p in (site / "gb").glob("gb*.html"))
    size, name = pages[-1]
    return (
        f"page weight: heaviest entry page ({name}, {size / 1024:.1f} KiB) with style.css and "
        f"site.js: {(size + assets) / 1024:.1f} KiB; median page "
        f"{(pages[len(pages) // 2][0] + assets) / 1024:.1f} KiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="600,5000,10000")
    args = parser.parse_args()
    compile_bytecode()
    work = Path(tempfile.mkdtemp(prefix="gbsite-scaling-"))
    try:
        print(page_weight(work) + "\n")
        print(
            f"{'ids':>6}{'texts':>7}{'cold ms':>9}{'in-process ms':>15}{'per id ms':>11}"
            f"{'vs smallest':>13}{'peak MiB':>10}"
        )
        base = None
        for size in [int(s) for s in args.sizes.split(",") if s]:
            texts = 2 if size >= 10_000 else 1
            project = synth.make(size, work / f"synth{size}", texts_per_id=texts)
            runs = Runs()
            for i in range(args.runs):
                out, cache = work / f"out{size}-{i}", work / f"cache{size}-{i}"
                run(gbsite(project, out), runs, fresh_env(cache))
            # What gbsite reports as its phases; without them, the whole run.
            in_process = (
                sum(runs.phase(n) for n in runs.phases[0]) if runs.phases else runs.median()
            )
            per_id = in_process / size
            base = base or per_id
            memory = peak_memory(
                gbsite(project, work / f"out{size}-memory"), fresh_env(work / f"mcache{size}")
            )
            print(
                f"{size:>6}{size * texts:>7}{runs.median():>9.0f}{in_process:>15.0f}"
                f"{per_id:>11.3f}{per_id / base:>13.2f}{memory / 1024:>10.0f}"
            )
            shutil.rmtree(project, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

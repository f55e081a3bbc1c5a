"""`gbsite lookup` beside a bare `python -c pass`, timed alternately in the same run.

    python benchmarks/lookup.py [--runs N]

Copies the project (registry, docs, templates, gbsite.toml) into a temporary folder and builds it
there (lookup reads the built search index; the checkout's own site/ is left alone), runs one
lookup of each kind once with bytecode caching on (as an installed gbsite has its .pyc files),
then times N runs of each, interleaved: the same interpreter with `-c pass`, `gbsite lookup --help`
(what the command line costs before any search), and `gbsite lookup` of a short log, an exception
header line, a Reason line and some words. Prints the median wall time and the CPU time
(user + system) of each, and their ratio to `pass` (the target is <= 6).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOG = ROOT / "tests" / "data" / "logs" / "multi.log"
HEADER = "torch._dynamo.exc.Unsupported: Failed to trace builtin operator\n"
REASON = (
    "Graph Break Reason: Encountered graph break when attempting to trace CALL: a function call, "
    "e.g. f(x, y):\n\nlogging.Logger method not supported for non-export cases\n"
)


def timed(command: list[str], stdin: str | None, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of `command`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, input=stdin, text=True, env=env, check=False, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    project = Path(tempfile.mkdtemp(prefix="gbsite-lookup-"))
    try:
        for name in ("registry", "docs", "templates"):
            shutil.copytree(ROOT / name, project / name)
        shutil.copy(ROOT / "gbsite.toml", project / "gbsite.toml")
        gbsite = [sys.executable, "-m", "gbsite", "--root", str(project)]
        subprocess.run([*gbsite, "build"], env=env, check=True, capture_output=True)
        run(gbsite, env, args.runs)
    finally:
        shutil.rmtree(project, ignore_errors=True)


def run(gbsite: list[str], env: dict[str, str], runs: int) -> None:
    cases: dict[str, tuple[list[str], str | None]] = {
        "python -c pass": ([sys.executable, "-c", "pass"], None),
        # The command line alone: its imports and argument parsers, no search.
        "gbsite lookup --help": ([*gbsite, "lookup", "--help"], None),
        "lookup multi.log (4 breaks)": ([*gbsite, "lookup", str(LOG)], None),
        "lookup exception header": ([*gbsite, "lookup"], HEADER),
        "lookup Reason line": ([*gbsite, "lookup"], REASON),
        "lookup --words data dependent": (
            [*gbsite, "lookup", "--words", "data", "dependent"],
            None,
        ),
    }
    for command, stdin in cases.values():  # .pyc files written, disk cache warm
        subprocess.run(command, input=stdin, text=True, env=env, check=False, capture_output=True)
    walls: dict[str, list[float]] = {name: [] for name in cases}
    cpus: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(runs):
        for name, (command, stdin) in cases.items():
            wall, cpu = timed(command, stdin, env)
            walls[name].append(wall)
            cpus[name].append(cpu)
    base_wall = statistics.median(walls["python -c pass"])
    base_cpu = statistics.median(cpus["python -c pass"])
    print(f"{runs} runs each, interleaved; {sys.executable}")
    print(f"{'':34} {'wall (median)':>14} {'x pass':>7} {'cpu (median)':>13} {'x pass':>7}")
    for name in cases:
        wall, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
        print(
            f"{name:34} {wall * 1000:11.1f} ms {wall / base_wall:7.2f} "
            f"{cpu * 1000:10.1f} ms {cpu / max(base_cpu, 1e-9):7.2f}"
        )


if __name__ == "__main__":
    main()

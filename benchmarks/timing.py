"""What the build benchmarks share: timing a process, the gbsite command, a copy of the project."""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PHASES = re.compile(r"\[(.*)\]")
# Not inputs of a build: copying them would only make each copy slower.
NOT_INPUTS = (".git", "site", ".venv*", ".*_cache", ".hypothesis", "__pycache__", "*.egg-info")


@dataclass
class Runs:
    wall: list[float] = field(default_factory=list)  # seconds
    cpu: list[float] = field(default_factory=list)  # seconds, user + system
    rss: list[int] = field(default_factory=list)  # KiB
    phases: list[dict[str, float]] = field(default_factory=list)  # ms

    def median(self) -> float:
        """Median wall time in ms."""
        return statistics.median(self.wall) * 1000

    def phase(self, name: str) -> float:
        return statistics.median(p.get(name, 0.0) for p in self.phases)


def run(command: list[str], runs: Runs, env: dict[str, str] | None = None) -> None:
    """Time one run of `command` from its start to its exit, output read and kept aside."""
    # Flush what the previous run wrote: otherwise each run pays for writing back the files of
    # the one before it, and the order in which the tools take turns decides part of the result.
    os.sync()
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    assert proc.stdout is not None
    output = proc.stdout.read().decode(errors="replace")  # a full pipe would stall it
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.stdout.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{output}")
    runs.wall.append(wall)
    runs.cpu.append(usage.ru_utime + usage.ru_stime)
    runs.rss.append(usage.ru_maxrss)
    if match := PHASES.search(output):
        runs.phases.append(
            {name: float(ms) for name, ms in re.findall(r"(\w+) (\d+) ms", match.group(1))}
        )


def command() -> list[str]:
    """`gbsite` as the README runs it: the console script beside this interpreter (which skips
    `-m`'s runpy), or `python -m gbsite` where there is none."""
    script = Path(sys.executable).with_name("gbsite")
    return [str(script)] if script.exists() else [sys.executable, "-m", "gbsite"]


def gbsite(project: Path, out: Path) -> list[str]:
    """`gbsite build` of `project` into `out`."""
    return [*command(), "--root", str(project), "build", "--out", str(out)]


def fresh_env(cache: Path) -> dict[str, str]:
    """The environment with gbsite's cache folder moved to `cache`: a cold build finds nothing
    that an earlier build left there, wherever in the cache folder gbsite keeps it."""
    cache.mkdir(parents=True, exist_ok=True)
    return {**os.environ, "GBSITE_CACHE_DIR": str(cache), "XDG_CACHE_HOME": str(cache)}


def copy_project(to: Path) -> Path:
    shutil.copytree(ROOT, to, ignore=shutil.ignore_patterns(*NOT_INPUTS))
    return to


def compile_bytecode() -> None:
    """Byte-compile gbsite's modules, as `pip install` does for a wheel. An editable install
    compiles them on first use and keeps the bytecode, unless PYTHONDONTWRITEBYTECODE is set (it
    is on the build machine): then every run would compile gbsite again (~30 ms), which an
    installed gbsite never does. Hugo's binary is compiled too, and pip compiled MkDocs."""
    import compileall

    import gbsite as package

    compileall.compile_dir(Path(package.__file__).parent, quiet=1)


def verdict(value: float, target: float) -> str:
    return "PASS" if value <= target else "MISS"

"""`gbsite lookup` beside a bare `python -c pass`, timed alternately in the same run.

    python benchmarks/lookup.py [--runs N]

Copies the project (registry, docs, templates, gbsite.toml) into two temporary folders: one
built (lookup reads the built search index; the checkout's own site/ is left alone), one not, as
a fresh clone is, with a cache folder of its own that starts empty (GBSITE_CACHE_DIR: lookup
builds the index there on first use and reads it after). Runs `gbsite` as the README does (the
console script, timing.command). Runs one lookup of each kind once with
bytecode caching on (as an installed gbsite has its .pyc files), then times N runs of each,
interleaved: the same interpreter with `-c pass`, `gbsite lookup --help` (what the command line
costs before any search), `gbsite lookup` of a short log, an exception header line, a Reason
line and some words in the built project, the same in the fresh clone, and the fresh clone's
first lookup (its cache emptied before each run). Prints the median wall time and the CPU time
(user + system) of each, and their ratio to `pass`; then, for the built project and for the
fresh clone, its slowest lookup's ratio (the median of the ratios within each round) against
issue 46's target of 5, with PASS or MISS. The first lookup of a fresh clone builds the index:
it is printed, not judged.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import command as gbsite_command
from timing import verdict

ROOT = Path(__file__).resolve().parent.parent
LOG = ROOT / "tests" / "data" / "logs" / "multi.log"
HEADER = "torch._dynamo.exc.Unsupported: Failed to trace builtin operator\n"
REASON = (
    "Graph Break Reason: Encountered graph break when attempting to trace CALL: a function call, "
    "e.g. f(x, y):\n\nlogging.Logger method not supported for non-export cases\n"
)
TARGET = 5.0  # issue 46: one lookup <= 5x `python -c pass`, after a build and in a fresh clone


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
    parser.add_argument(
        "--corpus",
        action="store_true",
        help="instead of timing: score the lookup on tests/data/corpus/posts.json (right first, "
        "by format and by family)",
    )
    args = parser.parse_args()
    if args.corpus:
        corpus()
        return
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    temp = Path(tempfile.mkdtemp(prefix="gbsite-lookup-"))
    try:
        built, clone, cache = temp / "built", temp / "clone", temp / "cache"
        for project in (built, clone):
            for name in ("registry", "docs", "templates"):
                shutil.copytree(ROOT / name, project / name)
            shutil.copy(ROOT / "gbsite.toml", project / "gbsite.toml")
        # The built project's lookups must not fall back on a cache: give it an empty one.
        built_env = {**env, "GBSITE_CACHE_DIR": str(temp / "unused")}
        clone_env = {**env, "GBSITE_CACHE_DIR": str(cache)}
        gbsite = [*gbsite_command(), "--root"]
        subprocess.run([*gbsite, str(built), "build"], env=env, check=True, capture_output=True)
        run([*gbsite, str(built)], [*gbsite, str(clone)], built_env, clone_env, cache, args.runs)
    finally:
        shutil.rmtree(temp, ignore_errors=True)


Case = tuple[list[str], str | None, dict[str, str], Path | None]  # command, stdin, env, emptied


def run(
    built: list[str],
    clone: list[str],
    built_env: dict[str, str],
    clone_env: dict[str, str],
    cache: Path,
    runs: int,
) -> None:
    kinds: dict[str, tuple[list[str], str | None]] = {
        "multi.log (4 breaks)": (["lookup", str(LOG)], None),
        "exception header": (["lookup"], HEADER),
        "Reason line": (["lookup"], REASON),
        "--words data dependent": (["lookup", "--words", "data", "dependent"], None),
    }
    cases: dict[str, Case] = {
        "python -c pass": ([sys.executable, "-c", "pass"], None, built_env, None),
        # The command line alone: its imports and argument parsers, no search.
        "gbsite lookup --help": ([*built, "lookup", "--help"], None, built_env, None),
    }
    for name, (args, stdin) in kinds.items():
        cases[f"built: {name}"] = ([*built, *args], stdin, built_env, None)
    for name, (args, stdin) in kinds.items():
        cases[f"clone: {name}"] = ([*clone, *args], stdin, clone_env, None)
    # The first lookup in a fresh clone: it builds the index and caches it.
    header = kinds["exception header"]
    cases["clone, empty cache: header"] = ([*clone, *header[0]], header[1], clone_env, cache)
    for command, stdin, env, _ in cases.values():  # .pyc files written, disk cache warm
        subprocess.run(command, input=stdin, text=True, env=env, check=False, capture_output=True)
    walls: dict[str, list[float]] = {name: [] for name in cases}
    cpus: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(runs):
        for name, (command, stdin, env, emptied) in cases.items():
            if emptied is not None:
                shutil.rmtree(emptied, ignore_errors=True)
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
    print()
    base = walls["python -c pass"]
    for project in ("built", "clone"):
        # Each round's ratio to that round's `pass`, so both come from the same moment.
        ratios = {
            name: statistics.median(w / p for w, p in zip(walls[name], base, strict=True))
            for name in cases
            if name.startswith(f"{project}: ")
        }
        worst = max(ratios, key=ratios.__getitem__)
        print(
            f"slowest lookup, {project:6} {ratios[worst]:5.2f} x pass ({worst.split(': ', 1)[1]})"
            f"   target <= {TARGET:g}: {verdict(ratios[worst], TARGET)}"
        )


def corpus() -> None:
    """Right first on the messages people posted, as `gbsite lookup` ranks them with the
    checkout's registry, older wordings and adjacent messages; then the posts it misses."""
    import json
    from collections import Counter

    from gbsite import config
    from gbsite.search import cache
    from gbsite.search.engine import find

    posts = json.loads((ROOT / "tests" / "data" / "corpus" / "posts.json").read_text())["posts"]
    _, built = cache.build(config.load(ROOT))
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    missed = []
    for post in posts:
        found = [m.entry.id for m in find(post["text"], built.entries).matches]
        ok = bool(found) and found[0] in post["ids"]
        for key in ("all", f"format {post['format']}", f"family {post['family']}"):
            right[key] += ok
            total[key] += 1
        if not ok:
            missed.append(f"  {post['url']}: {'/'.join(post['ids'])}, found {found[:3]}")
    print(f"right first on {len(posts)} posts from {len({p['source'] for p in posts})} sources")
    for key in sorted(total, key=lambda k: (k != "all", not k.startswith("format"), k)):
        print(f"  {key:40} {right[key]:4}/{total[key]:<4} {right[key] / total[key]:6.1%}")
    print("missed:", *missed, sep="\n")


if __name__ == "__main__":
    main()

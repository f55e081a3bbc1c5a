"""How fast `gbsite check --examples` runs blocks: the fork server against fresh interpreters.

    python benchmarks/examples.py [--blocks N] [--fresh-blocks M] [--jobs J] [--torch all]

Takes every annotated block of docs/gb/ that can run here, repeats them until there are at
least N (default 300), and runs them all through the fork server (what `check --examples` does
by default); then, in the same run as a yardstick, the first M of them (default 24) each in a
fresh interpreter (`check --examples --fresh`, the way every block ran before). Prints blocks
per second for both, side by side, and how many passed. Needs torch (the [examples] extra).
Target: 1,000 blocks in 5 minutes on 2 cores, that is 3.3 blocks/s.

With `--torch all` (or a release), it then runs every distinct block once through the fork
server of each torch release of gbsite.toml's [examples] (the environments `check --examples
--torch` uses, created on first use) and prints blocks per second per release, in the same run.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from gbsite import config
from gbsite.docs import files as docs
from gbsite.examples import annotations as examples
from gbsite.examples import runner, torchenv

ROOT = Path(__file__).resolve().parent.parent


def all_blocks() -> list[examples.Block]:
    cfg = config.load(ROOT)
    files, _ = docs.scan(cfg.docs_dir)
    found: list[examples.Block] = []
    for gb_id, path in sorted(files.items()):
        found += [b for b in examples.blocks_of(gb_id, docs.read(path)) if b.runnable]
    return found


def timed(
    blocks: list[examples.Block], jobs: int, *, fresh: bool, python: str = sys.executable
) -> tuple[float, int]:
    started = time.perf_counter()
    results = runner.run_all(blocks, python, jobs, 180.0, fresh=fresh)
    return time.perf_counter() - started, sum(r.passed for r in results)


def per_release(which: str, blocks: list[examples.Block], jobs: int) -> None:
    releases = config.load(ROOT).example_releases
    wanted = releases if which == "all" else (which,)
    print(f"\n{'torch':<12}{'blocks':>8}{'as promised':>13}{'seconds':>10}{'blocks/s':>10}")
    for release in wanted:
        python = torchenv.python_for(release, releases)
        secs, ok = timed(blocks, jobs, fresh=False, python=python)
        print(f"{release:<12}{len(blocks):>8}{ok:>13}{secs:>10.1f}{len(blocks) / secs:>10.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=300, help="blocks for the fork server")
    parser.add_argument("--fresh-blocks", type=int, default=24, help="blocks for the yardstick")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--torch", help="also time each release of the examples (`all`) or one")
    args = parser.parse_args()
    unique = all_blocks()
    blocks = (unique * (args.blocks // max(1, len(unique)) + 1))[: max(args.blocks, len(unique))]
    version = torchenv.torch_info(sys.executable)[0]
    print(
        f"{len(unique)} distinct blocks in docs/gb/, repeated to {len(blocks)}; torch {version}, "
        f"{args.jobs} jobs, {os.cpu_count()} cores"
    )
    forked, forked_ok = timed(blocks, args.jobs, fresh=False)
    sample = blocks[: args.fresh_blocks]
    fresh, fresh_ok = timed(sample, args.jobs, fresh=True)
    print(f"{'runner':<36}{'blocks':>8}{'passed':>8}{'seconds':>10}{'blocks/s':>10}")
    for name, n, ok, secs in (
        ("fork server (default)", len(blocks), forked_ok, forked),
        ("fresh interpreter per block", len(sample), fresh_ok, fresh),
    ):
        print(f"{name:<36}{n:>8}{ok:>8}{secs:>10.1f}{n / secs:>10.2f}")
    rate = len(blocks) / forked
    print(
        f"fork server: {rate / (len(sample) / fresh):.1f}x the fresh interpreters; "
        f"1,000 blocks would take {1000 / rate / 60:.1f} min (target 5 min, 3.3 blocks/s)"
    )
    if args.torch:
        per_release(args.torch, unique, args.jobs)


if __name__ == "__main__":
    main()

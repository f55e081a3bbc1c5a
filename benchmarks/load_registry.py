"""How long loading and validating the committed registry takes.

    python benchmarks/load_registry.py [--runs N]

Prints the in-process time of `registry.load()` (median and best of N runs) and the time of a
fresh interpreter that imports gbsite and loads the registry once, as a command would.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from gbsite.registry import store as registry

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    folder = ROOT / "registry"

    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        reg = registry.load(folder)
        times.append(time.perf_counter() - start)

    cold = []
    code = (
        "from pathlib import Path; from gbsite.registry import store; store.load(Path(sys.argv[1]))"
    )
    for _ in range(max(3, args.runs // 4)):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", f"import sys; {code}", str(folder)], check=True)
        cold.append(time.perf_counter() - start)

    print(f"registry: {len(reg.entries)} ids, {len(reg.sources)} sources")
    print(f"{'measure':<42}{'median':>10}{'best':>10}")
    print(
        f"{'registry.load() in process':<42}"
        f"{statistics.median(times) * 1000:>8.1f}ms{min(times) * 1000:>8.1f}ms"
    )
    print(
        f"{'new interpreter: import + load':<42}"
        f"{statistics.median(cold) * 1000:>8.1f}ms{min(cold) * 1000:>8.1f}ms"
    )


if __name__ == "__main__":
    main()

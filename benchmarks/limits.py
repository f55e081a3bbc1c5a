"""Inputs that used to take minutes (issues 18 and 35), timed before and after, side by side.

A docs file may now have at most 1 MB: the 10 MB cases are refused, and the 1 MB one shows the
mentions counted in linear time.

    python benchmarks/limits.py                   # this tree, and the commit before the fixes
    python benchmarks/limits.py --before REV      # compare with another commit
    python benchmarks/limits.py --timeout 300     # let the old code run longer (default 120 s)
    python benchmarks/limits.py --only nested     # the cases whose title has this text
    python benchmarks/limits.py --only lookup --before d23ead9   # issue 35's lookups

Each case runs `gbsite` in a fresh interpreter on a copy of this project, from this tree's src/
and from REV's (extracted with `git archive`). A yardstick, `python3 -c pass`, is timed in the
same run: on a busy machine every figure grows, and the yardstick shows by how much.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
import hostile_logs  # noqa: E402  (tests/: the inputs of issue 35, made from the registry)

BEFORE = "3d71313"  # main when issue 18's fixes began (issue 35's: d23ead9)

Case = tuple[str, Callable[[Path], list[str]], bytes | None]


def project(root: Path) -> Path:
    """A copy of this repository's project (registry, docs, templates) under `root`."""
    proj = root / "proj"
    proj.mkdir()
    shutil.copy(REPO / "gbsite.toml", proj)
    for folder in ("registry", "docs", "templates"):
        shutil.copytree(REPO / folder, proj / folder)
    return proj


def many_keys(proj: Path) -> list[str]:
    path = proj / "registry" / "gb" / "GB0001.yaml"
    extra = "".join(f"unknown_{n:04d}: x\n" for n in range(4000))
    path.write_text(path.read_text() + extra)
    return ["check"]


def many_bad_ids(proj: Path) -> list[str]:
    item = {"Gb_type": "t", "Context": "c", "Explanation": "e", "Hints": []}
    data = {f"X{n:05d}": [item] for n in range(4000)}
    source = proj / "bad.json"
    source.write_text(json.dumps(data, indent=2))
    return ["import", str(source), "--label", "9.0.0"]


def block(proj: Path, size: int, line: str) -> None:
    path = proj / "docs" / "gb" / "gb0001.md"
    end = "<!-- ADDITIONAL INFORMATION END -->"
    path.write_text(path.read_text().replace(end, line * (size // len(line)) + end))


MENTIONS = "See GB0002 and GB0003 for the same break in another form, and what fixes it.\n"
CODE = "```python\n" + "def f(x):\n    return torch.sin(x) + 3  # GB0002\n" * 40 + "```\n\n"


def mentions_10mb(proj: Path) -> list[str]:
    block(proj, 10 * 1024 * 1024, MENTIONS)  # now refused: more than a docs file may have
    return ["check"]


def mentions_1mb(proj: Path) -> list[str]:
    block(proj, 1000 * 1024, MENTIONS)  # the most a docs file may have
    return ["check"]


def code_10mb(proj: Path) -> list[str]:
    block(proj, 10 * 1024 * 1024, CODE)
    return ["build"]


def nested_divs(proj: Path) -> list[str]:
    """150,000 `<div>`s opened in a block: 0.75 MB, under the 1 MB a docs file may have. The
    sanitizer's time grew faster than the square of the depth; now refused beyond 400 levels."""
    block(proj, 750_000, "<div>")
    return ["build"]


def huge_record(proj: Path) -> list[str]:
    """A 38 MB record of outcomes: it took a minute and 1.9 GB; now refused beyond 32 MB."""
    path = proj / "docs" / "verified-examples.yaml"
    text = path.read_text()
    rows = text[text.index("blocks:\n") + len("blocks:\n") :]
    path.write_text(text + rows * (38 * 2**20 // len(rows)))
    return ["check", "--record"]


def training_log(proj: Path) -> list[str]:
    rng = random.Random(18)
    words = ["epoch", "step", "loss", "lr", "batch", "grad", "norm", "warmup", "saved"]
    lines = [
        f"epoch {rng.randint(0, 99)} step {rng.randint(0, 99999)} loss={rng.random():.4f} "
        + " ".join(rng.choices(words, k=8))
        for _ in range(5000)
    ]
    path = proj / "train.log"
    path.write_text("\n".join(lines))
    return ["lookup", str(path)]


def binary(proj: Path) -> list[str]:
    path = proj / "binary.bin"
    path.write_bytes(random.Random(18).randbytes(400_000))
    return ["lookup", str(path)]


def hostile(make: Callable[[], str]) -> Callable[[Path], list[str]]:
    """A lookup of one of tests/hostile_logs.py's inputs (issue 35), from a file."""

    def case(proj: Path) -> list[str]:
        path = proj / "hostile.log"
        path.write_text(make())
        return ["lookup", str(path)]

    return case


CASES: list[tuple[str, Callable[[Path], list[str]]]] = [
    ("check: a registry file with 4,000 unknown keys", many_keys),
    ("import: a registry JSON with 4,000 bad ids", many_bad_ids),
    ("check: a 10 MB docs block, a mention every 40 bytes", mentions_10mb),
    ("check: a 1 MB docs block, a mention every 40 bytes", mentions_1mb),
    ("build: a 10 MB docs block of code", code_10mb),
    ("build: 150,000 nested <div>s in a 0.75 MB block", nested_divs),
    ("check --record: a 38 MB record", huge_record),
    ("lookup: a 400 KB training log, no graph break", training_log),
    ("lookup: 400 KB of random bytes", binary),
    *((f"lookup: {title}", hostile(make)) for title, make in hostile_logs.CASES.items()),
]


def timed(command: list[str], timeout: float) -> str:
    started = time.perf_counter()
    try:
        subprocess.run(command, capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return f"> {timeout:.0f} s"
    return f"{time.perf_counter() - started:.2f} s"


def gbsite(src: Path, proj: Path, args: list[str]) -> list[str]:
    """`gbsite --root PROJ ARGS` with the package from `src` first on the path."""
    code = (
        f"import sys; sys.path.insert(0, {str(src)!r}); import gbsite.cli as c; "
        f"assert c.__file__.startswith({str(src)!r}); sys.exit(c.main(sys.argv[1:]))"
    )
    return [sys.executable, "-c", code, "--root", str(proj), *args]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", default=BEFORE, help=f"commit to compare with ({BEFORE})")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per run (120)")
    parser.add_argument("--only", default="", help="only the cases whose title has this text")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old_src = Path(tmp) / "before"
        old_src.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", args.before, "src"],
            capture_output=True,
            check=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(old_src)], input=archive, check=True)
        trees = {"before": old_src / "src", "after": REPO / "src"}
        print(f"{'case':55} {'before (' + args.before + ')':>18} {'after':>10}")
        print(f"{'yardstick: python3 -c pass':55} {timed(['python3', '-c', 'pass'], 10):>18}")
        for title, make in [(t, m) for t, m in CASES if args.only in t]:
            row = {}
            for which, src in trees.items():
                work = Path(tmp) / which
                shutil.rmtree(work / "proj", ignore_errors=True)
                work.mkdir(exist_ok=True)
                proj = project(work)
                row[which] = timed(gbsite(src, proj, make(proj)), args.timeout)
            print(f"{title:55} {row['before']:>18} {row['after']:>10}", flush=True)
        print(f"{'yardstick: python3 -c pass':55} {timed(['python3', '-c', 'pass'], 10):>18}")


if __name__ == "__main__":
    main()

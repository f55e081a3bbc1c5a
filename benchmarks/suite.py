"""Where the test suite spends its time: per file and per test, from pytest's JUnit XML.

    python benchmarks/suite.py                      # run `python -m pytest` and profile it
    python benchmarks/suite.py -- -m "not browser"  # the same, with pytest's arguments after --
    python benchmarks/suite.py --from report.xml    # profile a run made earlier (--junitxml)

With pytest-xdist (both cores, the project's addopts), the wall time is about the tests' total
time divided by the workers, unless one file's tests (a file runs on one worker) outlast the
others: the file table shows which. A test's time includes its fixtures' setup and teardown.
The suite's goal is in issue 46 (docs/development.md has the figures).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Case:
    file: str  # tests/test_build.py
    name: str  # test_any_change_means_a_real_build[docs]
    seconds: float
    outcome: str  # passed, failed, skipped


def read_report(path: Path) -> list[Case]:
    cases = []
    for case in ET.parse(path).iter("testcase"):
        module = case.get("classname", "")
        outcome = "passed"
        for child, word in (("failure", "failed"), ("error", "failed"), ("skipped", "skipped")):
            if case.find(child) is not None:
                outcome = word
        cases.append(
            Case(
                file=module.replace(".", "/") + ".py",
                name=case.get("name", ""),
                seconds=float(case.get("time", "0")),
                outcome=outcome,
            )
        )
    return cases


def run_suite(args: list[str], report: Path) -> tuple[float, int]:
    """Run pytest in the project with `args`; its wall time and exit status."""
    start = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--junitxml={report}",
            *args,
        ],
        cwd=ROOT,
    )
    return time.perf_counter() - start, done.returncode


def show(cases: list[Case], wall: float | None, top: int) -> None:
    total = sum(c.seconds for c in cases)
    counts: dict[str, int] = defaultdict(int)
    for c in cases:
        counts[c.outcome] += 1
    print(
        f"{len(cases)} tests ({', '.join(f'{n} {w}' for w, n in sorted(counts.items()))}), "
        f"{total:.0f} s of test time"
        + (f" in {wall:.0f} s wall ({total / wall:.2f} tests at a time)" if wall else "")
    )
    by_file: dict[str, list[Case]] = defaultdict(list)
    for c in cases:
        by_file[c.file].append(c)
    print(f"\nfiles, by time ({top} of {len(by_file)}):")
    ranked = sorted(by_file.items(), key=lambda item: -sum(c.seconds for c in item[1]))
    for name, group in ranked[:top]:
        spent = sum(c.seconds for c in group)
        print(f"  {spent:7.1f} s  {100 * spent / total:5.1f}%  {len(group):4d} tests  {name}")
    print(f"\ntests, by time ({top} of {len(cases)}):")
    for c in sorted(cases, key=lambda c: -c.seconds)[:top]:
        print(f"  {c.seconds:7.1f} s  {c.file}::{c.name}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--from", dest="report", type=Path, help="a JUnit XML report to read")
    parser.add_argument("--top", type=int, default=20, help="rows of each table (20)")
    parser.add_argument("pytest_args", nargs="*", help="pytest's arguments (after --)")
    options = parser.parse_args()
    if options.report is not None:
        show(read_report(options.report), None, options.top)
        return 0
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.xml"
        wall, status = run_suite(options.pytest_args, report)
        if not report.is_file():
            print(f"pytest wrote no report (exit {status})", file=sys.stderr)
            return status or 1
        print()
        show(read_report(report), wall, options.top)
    return status


if __name__ == "__main__":
    sys.exit(main())

"""Running annotated examples: every block in a process of its own, `jobs` at a time.

Where the platform can fork (Linux, macOS), one fork server (driver.py --serve) imports
torch once and warms Dynamo up, then forks a child per run: a block costs a fork, not a fresh
`import torch` (~2.5 s). Elsewhere, or with `fresh=True`, each run is a fresh interpreter. Both
give a run the same isolation: its own process, folder, output files, Dynamo state and random
seed, and an environment without the variables that make torch talk.

A gb-repro is run twice, compiled and in plain eager PyTorch: a repro must break only when
compiled (judging.judge). A `compile=none` block is run once, as written (mode "script").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from gbsite.errors import GbsiteError
from gbsite.examples import annotations as examples
from gbsite.examples.annotations import Block
from gbsite.examples.judging import Outcome, Result, judge

DRIVER = Path(__file__).with_name("driver.py")
QUIET_ENV = ("TORCH_LOGS", "TORCHDYNAMO_VERBOSE", "TORCH_COMPILE_DEBUG", "TORCHDYNAMO_DISABLE")


def example_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in QUIET_ENV}
    # CPU only, reproducible hashing, and one OpenMP thread: a forked child cannot use the
    # server's thread pool, and tiny examples gain nothing from threads.
    env.update(PYTHONHASHSEED="0", CUDA_VISIBLE_DEVICES="", OMP_NUM_THREADS="1")
    return env


@dataclass(frozen=True, slots=True)
class Run:
    """One execution of a block: its program in a folder of its own."""

    key: str
    block: Block
    mode: str  # "compiled", "logged" (without fullgraph), "eager" or "script" (as written)
    folder: Path

    @property
    def program(self) -> Path:
        return self.folder / "example.py"

    @property
    def result(self) -> Path:
        return self.folder / "result.json"

    @property
    def stdout(self) -> Path:
        return self.folder / "stdout.txt"

    @property
    def stderr(self) -> Path:
        return self.folder / "stderr.txt"

    def job(self, timeout: float) -> dict[str, object]:
        return {
            "key": self.key,
            "cwd": str(self.folder),
            "program": str(self.program),
            "result": str(self.result),
            "stdout": str(self.stdout),
            "stderr": str(self.stderr),
            "name": self.block.compile_name,
            "backend": self.block.backend,
            "mode": self.mode,
            "timeout": timeout,
        }


@dataclass(frozen=True, slots=True)
class Ended:
    """How a run's process ended, and what it left."""

    run: Run
    seconds: float
    timed_out: bool = False
    exit_code: int = 0

    def outcome(self, timeout: float) -> Outcome:
        def text(path: Path) -> str:
            try:
                return path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                return ""

        stdout, stderr = text(self.run.stdout), text(self.run.stderr)
        if self.timed_out:
            return Outcome.failed(f"did not finish within {timeout:.0f} s", stdout, stderr)
        try:
            data = json.loads(self.run.result.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return Outcome.failed(
                f"the interpreter died (exit {self.exit_code})", stdout, stderr[-3000:]
            )
        return Outcome(data, stdout, stderr)


def plan(blocks: list[Block], root: Path) -> list[Run]:
    """The runs of these blocks, each with its program written in a folder of its own."""
    runs: list[Run] = []
    for n, block in enumerate(blocks):
        compiled = "logged" if block.fullgraph == examples.NO_FULLGRAPH else "compiled"
        if block.script:
            modes = ["script"]
        else:
            modes = [compiled, "eager"] if block.kind == "gb-repro" else [compiled]
        for mode in modes:
            folder = root / f"{n:05d}-{mode}"
            folder.mkdir()
            run = Run(f"{n}:{mode}", block, mode, folder)
            run.program.write_text(block.code, encoding="utf-8")
            runs.append(run)
    return runs


def can_fork() -> bool:
    return sys.platform != "win32" and hasattr(os, "fork")


class ForkServer:
    """driver.py --serve under `python`: jobs in on its stdin, ends out on its stdout."""

    def __init__(self, python: str, timeout: float) -> None:
        self.timeout = timeout
        try:
            self.proc = subprocess.Popen(
                [python, str(DRIVER), "--serve"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=example_env(),
                text=True,
                bufsize=1,
            )
        except OSError as exc:
            raise GbsiteError(f"cannot run {python}: {exc.strerror}") from None
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
        line = self.stdout.readline()  # torch imported and Dynamo warm
        if not line:
            self.proc.wait()
            err = self.proc.stderr.read() if self.proc.stderr else ""
            raise GbsiteError(
                f"the example server did not start under {python}: {err.strip()[-500:]}"
            )

    def submit(self, run: Run) -> None:
        self.stdin.write(json.dumps(run.job(self.timeout)) + "\n")
        self.stdin.flush()

    def next_end(self) -> dict[str, object]:
        line = self.stdout.readline()
        if not line:
            err = self.proc.stderr.read() if self.proc.stderr else ""
            raise GbsiteError(f"the example server stopped: {err.strip()[-500:]}")
        data: dict[str, object] = json.loads(line)
        return data

    def close(self) -> None:
        if self.proc.poll() is None:
            self.stdin.close()
            try:
                self.proc.wait(timeout=self.timeout + 10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stderr:
            self.proc.stderr.close()
        self.stdout.close()


def _forked(runs: list[Run], python: str, jobs: int, timeout: float) -> Iterator[Ended]:
    server = ForkServer(python, timeout)
    try:
        by_key = {run.key: run for run in runs}
        queue = list(reversed(runs))
        started: dict[str, float] = {}
        while queue or started:
            while queue and len(started) < jobs:
                run = queue.pop()
                started[run.key] = time.monotonic()
                server.submit(run)
            end = server.next_end()
            key = str(end["key"])
            seconds = time.monotonic() - started.pop(key)
            yield Ended(
                by_key[key], seconds, bool(end.get("timeout")), int(str(end.get("exit", 0)))
            )
    finally:
        server.close()


def _fresh_one(run: Run, python: str, timeout: float) -> Ended:
    started = time.monotonic()
    mode = run.mode
    argv = [python, str(DRIVER), str(run.program), str(run.result)]
    argv += [run.block.compile_name, run.block.backend, mode]
    with run.stdout.open("wb") as out, run.stderr.open("wb") as err:
        try:
            proc = subprocess.run(
                argv,
                cwd=run.folder,
                env=example_env(),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return Ended(run, time.monotonic() - started, timed_out=True)
        except OSError as exc:
            raise GbsiteError(f"cannot run {python}: {exc.strerror}") from None
    return Ended(run, time.monotonic() - started, exit_code=proc.returncode)


def _fresh(runs: list[Run], python: str, jobs: int, timeout: float) -> Iterator[Ended]:
    from concurrent.futures import ThreadPoolExecutor, as_completed

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(_fresh_one, run, python, timeout) for run in runs]
        for future in as_completed(futures):
            yield future.result()


def run_all(
    blocks: list[Block],
    python: str,
    jobs: int,
    timeout: float,
    progress: Callable[[Result], None] | None = None,
    *,
    fresh: bool = False,
) -> list[Result]:
    """Run and judge every block; results in the order of `blocks`."""
    jobs = max(1, jobs)
    results: dict[int, Result] = {}
    with tempfile.TemporaryDirectory(prefix="gbsite-examples-") as tmp:
        runs = plan(blocks, Path(tmp))
        expected = Counter(int(run.key.split(":")[0]) for run in runs)  # runs of each block
        ends = (_fresh if fresh or not can_fork() else _forked)(runs, python, jobs, timeout)
        pending: dict[int, dict[str, Ended]] = {}
        for ended in ends:
            n = int(ended.run.key.split(":")[0])
            got = pending.setdefault(n, {})
            got[ended.run.mode] = ended
            block = blocks[n]
            if len(got) < expected[n]:
                continue
            compiled = got.get("compiled") or got.get("logged") or got["script"]
            eager = got["eager"].outcome(timeout) if "eager" in got else None
            result = judge(block, compiled.outcome(timeout), compiled.seconds, eager)
            results[n] = result
            del pending[n]
            if progress is not None:
                progress(result)
    return [results[n] for n in range(len(blocks))]

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

import contextlib
import itertools
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from gbsite.errors import GbsiteError
from gbsite.examples import annotations as examples
from gbsite.examples.annotations import Block
from gbsite.examples.judging import Result, RunOutput, judge

DRIVER = Path(__file__).with_name("driver.py")
WITHOUT_ENV = "GBSITE_WITHOUT"  # driver.py reads it: the package to hide
QUIET_ENV = ("TORCH_LOGS", "TORCHDYNAMO_VERBOSE", "TORCH_COMPILE_DEBUG", "TORCHDYNAMO_DISABLE")


def example_env(without: str = "") -> dict[str, str]:
    """The environment of a run; `without`: a package its program must not find
    (needs=without:NAME), which the driver hides before anything imports it."""
    env = {k: v for k, v in os.environ.items() if k not in QUIET_ENV}
    if without:
        env[WITHOUT_ENV] = without
    # CPU only, reproducible hashing, and one OpenMP thread: a forked child cannot use the
    # server's thread pool, and tiny examples gain nothing from threads.
    env.update(PYTHONHASHSEED="0", CUDA_VISIBLE_DEVICES="", OMP_NUM_THREADS="1")
    # Inductor compiles in this process, not in a pool of workers that the server would start
    # and its forked children could not use (they hang waiting for it).
    env["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
    return env


class Mode(StrEnum):
    """How the driver runs a block's program (driver.py's MODE, the same words)."""

    COMPILED = "compiled"  # its function compiled with fullgraph=True, its calls counted
    LOGGED = "logged"  # compiled without fullgraph, the graph breaks logged (fullgraph=false)
    EAGER = "eager"  # nothing compiled: a repro must run in plain PyTorch too
    SCRIPT = "script"  # as written (compile=none, gb-wrong)


@dataclass(frozen=True, slots=True)
class Run:
    """One execution of a block: its program in a folder of its own."""

    index: int  # of its block, in the blocks run
    block: Block
    mode: Mode
    folder: Path

    @property
    def key(self) -> str:
        """The run's name in the fork server's jobs and ends."""
        return f"{self.index}:{self.mode}"

    @property
    def program(self) -> Path:
        return self.folder / "example.py"

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
            "stdout": str(self.stdout),
            "stderr": str(self.stderr),
            "name": self.block.compile_name,
            "backend": self.block.runs_with,
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
    # What the driver reported, through a channel of its own (never a file the program could
    # write); None when it reported nothing (the process died first).
    data: dict[str, Any] | None = None
    failure: str = ""  # why the run could not be judged at all, when gbsite knows

    def outcome(self, timeout: float) -> RunOutput:
        def text(path: Path) -> str:
            try:
                return path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                return ""

        stdout, stderr = text(self.run.stdout), text(self.run.stderr)
        if self.timed_out:
            return RunOutput.failed(f"did not finish within {timeout:g} s", stdout, stderr)
        if self.failure:
            return RunOutput.failed(self.failure, stdout, stderr[-3000:])
        if not isinstance(self.data, dict):
            return RunOutput.failed(
                f"the interpreter died (exit {self.exit_code})", stdout, stderr[-3000:]
            )
        return RunOutput(self.data, stdout, stderr)


def plan(blocks: list[Block], root: Path) -> list[Run]:
    """The runs of these blocks, each with its program written in a folder of its own."""
    runs: list[Run] = []
    for n, block in enumerate(blocks):
        compiled = Mode.LOGGED if block.fullgraph == examples.NO_FULLGRAPH else Mode.COMPILED
        if block.script:
            modes = [Mode.SCRIPT]
        else:
            modes = [compiled, Mode.EAGER] if block.kind == examples.REPRO else [compiled]
        for mode in modes:
            folder = root / f"{n:05d}-{mode}"
            folder.mkdir()
            run = Run(n, block, mode, folder)
            run.program.write_text(block.code, encoding="utf-8")
            runs.append(run)
    return runs


def can_fork() -> bool:
    return sys.platform != "win32" and hasattr(os, "fork")


# How long a server told to stop may take to kill its runs before it is killed: Ctrl-C must
# stop gbsite within a second or two.
STOP_SECONDS = 1.5


class ServerStopped(Exception):
    """The fork server ended while runs were in flight (a block killed it, say)."""


class ForkServer:
    """driver.py --serve under `python`: jobs in on its stdin, ends out on its stdout."""

    def __init__(self, python: str, timeout: float, warm: Sequence[str] = ()) -> None:
        self.timeout = timeout
        try:
            self.proc = subprocess.Popen(
                [python, str(DRIVER), "--serve", *warm],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=example_env(),
                text=True,
                bufsize=1,
                # Out of the terminal's reach: its Ctrl-C is gbsite's, which then stops the
                # server; had the server died of it too, gbsite could take it for a block's doing.
                start_new_session=True,
            )
        except OSError as exc:
            raise GbsiteError(f"cannot run {python}: {exc.strerror}") from None
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
        try:
            line = self.stdout.readline()  # torch imported and Dynamo warm
        except BaseException:  # Ctrl-C while it starts: no one else knows of this server
            self.close(stop=True)
            raise
        if not line:
            self.proc.wait()
            err = self.proc.stderr.read() if self.proc.stderr else ""
            raise GbsiteError(
                f"the example server did not start under {python}: {err.strip()[-500:]}"
            )

    def submit(self, run: Run) -> None:
        try:
            self.stdin.write(json.dumps(run.job(self.timeout)) + "\n")
            self.stdin.flush()
        except BrokenPipeError:
            raise ServerStopped from None

    def next_end(self) -> dict[str, object]:
        line = self.stdout.readline()
        if not line:
            raise ServerStopped
        data: dict[str, object] = json.loads(line)
        return data

    def close(self, *, stop: bool = False) -> None:
        """Let the server finish (its runs have ended), or `stop` it: it kills its runs, or,
        when it does not end at once, is killed with its group (its runs die with it, and the
        subreaper of run_all kills what they started)."""
        if self.proc.poll() is None:
            if stop:
                self.proc.terminate()
            with contextlib.suppress(BrokenPipeError):
                self.stdin.close()
            try:
                self.proc.wait(timeout=STOP_SECONDS if stop else self.timeout + 10)
            except subprocess.TimeoutExpired:
                _kill_group(self.proc)
                self.proc.wait()
        with contextlib.suppress(BrokenPipeError):
            self.stdin.close()
        if self.proc.stderr:
            self.proc.stderr.close()
        self.stdout.close()


KILLED_SERVER = (
    "the example server was killed while this block ran alone: a block must not kill the "
    "processes that run it"
)


def _forked(runs: list[Run], python: str, jobs: int, timeout: float) -> Iterator[Ended]:
    """Runs `jobs` at a time in a fork server. When the server dies (a block killed it), a new
    one takes over; the runs it had are run again one at a time, and a run that was alone with
    it when it died is the one that killed it: it fails."""
    # The backends other than eager the runs compile with, warmed up in the server too.
    warm = sorted({run.block.runs_with for run in runs} - {examples.DEFAULT_BACKEND})
    server = ForkServer(python, timeout, warm)
    done = False
    try:
        by_key = {run.key: run for run in runs}
        queue = list(reversed(runs))
        suspects: list[Run] = []  # in flight when a server died: each now runs alone
        started: dict[str, float] = {}
        while queue or suspects or started:
            alone = any(by_key[k] in suspects for k in started)
            while not alone and len(started) < jobs and (queue or suspects):
                if suspects:
                    if started:
                        break  # a suspect waits until it can run alone
                    run = suspects[-1]
                    alone = True
                else:
                    run = queue.pop()
                started[run.key] = time.monotonic()
                server.submit(run)
            try:
                end = server.next_end()
            except ServerStopped:
                server.close(stop=True)
                for key, at in started.items():
                    run = by_key[key]
                    if alone:  # run alone: it killed the server
                        suspects.remove(run)
                        yield Ended(run, time.monotonic() - at, failure=KILLED_SERVER)
                    else:
                        suspects.insert(0, run)
                started.clear()
                server = ForkServer(python, timeout, warm)
                continue
            key = str(end["key"])
            seconds = time.monotonic() - started.pop(key)
            if by_key[key] in suspects:
                suspects.remove(by_key[key])
            data = end.get("result")
            yield Ended(
                by_key[key],
                seconds,
                bool(end.get("timeout")),
                int(str(end.get("exit", 0))),
                data if isinstance(data, dict) else None,
            )
        done = True
    finally:
        server.close(stop=not done)  # Ctrl-C or an error: the server kills the runs it has


# The fresh interpreters running now: killed when gbsite stops early (Ctrl-C).
_LIVE: set[subprocess.Popen[bytes]] = set()
_LIVE_LOCK = threading.Lock()


def _kill_group(proc: subprocess.Popen[Any]) -> None:
    for kill in (os.killpg, os.kill):
        with contextlib.suppress(OSError):
            kill(proc.pid, signal.SIGKILL)


def _fresh_one(run: Run, python: str, timeout: float, stopping: threading.Event) -> Ended:
    started = time.monotonic()
    # The result comes back in an unnamed file: the program cannot find it in its folder.
    with (
        tempfile.TemporaryFile() as result,
        run.stdout.open("wb") as out,
        run.stderr.open("wb") as err,
    ):
        argv = [python, str(DRIVER), str(run.program), str(result.fileno())]
        argv += [run.block.compile_name, run.block.runs_with, run.mode]
        try:
            proc = subprocess.Popen(
                argv,
                cwd=run.folder,
                env=example_env(run.block.without),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                pass_fds=[result.fileno()],
                start_new_session=True,  # a group of its own, killed whole on timeout
            )
        except OSError as exc:
            raise GbsiteError(f"cannot run {python}: {exc.strerror}") from None
        with _LIVE_LOCK:
            _LIVE.add(proc)
            # Started while gbsite was stopping, after it killed the live ones: not to run on.
            if stopping.is_set():
                _kill_group(proc)
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            proc.wait()
            return Ended(run, time.monotonic() - started, timed_out=True)
        finally:
            with _LIVE_LOCK:
                _LIVE.discard(proc)
        _kill_group(proc)  # what it left in its group
        result.seek(0)
        try:
            data = json.loads(result.read(4 * 2**20) or b"null")
        except ValueError:
            data = None
    return Ended(
        run,
        time.monotonic() - started,
        exit_code=code,
        data=data if isinstance(data, dict) else None,
    )


def _fresh(runs: list[Run], python: str, jobs: int, timeout: float) -> Iterator[Ended]:
    from concurrent.futures import ThreadPoolExecutor, as_completed

    stopping = threading.Event()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(_fresh_one, run, python, timeout, stopping) for run in runs]
        try:
            for future in as_completed(futures):
                yield future.result()
        finally:  # stopped early (Ctrl-C): no run goes on, and none starts
            stopping.set()
            for future in futures:
                future.cancel()
            with _LIVE_LOCK:
                for proc in _LIVE:
                    _kill_group(proc)


@contextlib.contextmanager
def _reaping() -> Iterator[None]:
    """While examples run, gbsite is a subreaper (Linux): what a run leaves when its
    interpreter or the fork server is killed becomes gbsite's child, not init's, and is killed
    at the end with everything it started. Children gbsite had before are left alone."""
    from gbsite.examples import driver_procs

    before = frozenset(driver_procs.children_of(os.getpid()))
    reaper = driver_procs.become_subreaper()
    try:
        yield
    finally:
        if reaper:
            driver_procs.kill_descendants(before)
            driver_procs.prctl(driver_procs.PR_SET_CHILD_SUBREAPER, 0)  # off again


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Ctrl-C and SIGTERM (CI cancelling a job) raise KeyboardInterrupt in gbsite, which then
    stops the example server and kills what the runs started. Only the first: a second Ctrl-C
    while that is under way is ignored, so that the killing finishes. Ctrl-C counts even where
    gbsite inherited SIGINT ignored (a script's `gbsite ... &`): the example server ignores it,
    and gbsite is then the one process that can stop the runs. A no-op off the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    stopping = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        if not stopping:
            stopping = True
            raise KeyboardInterrupt

    before = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in before.items():
            if handler is not None:  # None: not set from Python, nothing to put back
                signal.signal(sig, handler)


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
    with tempfile.TemporaryDirectory(prefix="gbsite-examples-") as tmp, _reaping():
        runs = plan(blocks, Path(tmp))
        expected = Counter(run.index for run in runs)  # runs of each block
        # A run that must not find a package starts afresh: the fork server imported it; so
        # does one that sets an environment variable before importing torch, which torch
        # read when the fork server started.
        forked = (
            [r for r in runs if not r.block.without and not r.block.sets_environment]
            if can_fork() and not fresh
            else []
        )
        alone = [r for r in runs if r not in forked]
        ends = itertools.chain(
            _forked(forked, python, jobs, timeout) if forked else (),
            _fresh(alone, python, jobs, timeout) if alone else (),
        )
        pending: dict[int, dict[Mode, Ended]] = {}
        for ended in ends:
            n = ended.run.index
            got = pending.setdefault(n, {})
            got[ended.run.mode] = ended
            block = blocks[n]
            if len(got) < expected[n]:
                continue
            compiled = got.get(Mode.COMPILED) or got.get(Mode.LOGGED) or got[Mode.SCRIPT]
            eager = got[Mode.EAGER].outcome(timeout) if Mode.EAGER in got else None
            result = judge(block, compiled.outcome(timeout), compiled.seconds, eager)
            results[n] = result
            del pending[n]
            if progress is not None:
                progress(result)
    return [results[n] for n in range(len(blocks))]

"""The example driver's fork server (driver.py --serve; Linux, macOS). Standard library and
torch only: driver.py imports it as a sibling when run as a script under a Python without
gbsite.

It imports torch once and warms Dynamo up, then reads one job per line on stdin (JSON: the
program, its folder, its output files, NAME, BACKEND, MODE, a timeout) and runs each in a
forked child of its own, so a block costs a fork instead of a fresh `import torch`. Each child
gets its own process group, folder, output files and fresh Dynamo state, then runs the job
through the driver; one line per finished job goes to stdout (its key, exit code, whether it
timed out, and the driver's result).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING or __package__:  # imported as part of gbsite
    from gbsite.examples.driver_procs import (
        PR_SET_PDEATHSIG,
        become_subreaper,
        kill_descendants,
        prctl,
    )
else:  # run by driver.py as a script: its folder is sys.path[0], gbsite may not be installed
    from driver_procs import PR_SET_PDEATHSIG, become_subreaper, kill_descendants, prctl

# Runs one job in the child and writes its result to the file descriptor given.
Run = Callable[[dict[str, Any], int], None]


def quiet_cuda_home() -> None:
    """Import what Inductor's C++ code generation imports, without the warning a CUDA build of
    torch logs on import where a CUDA toolkit is installed but no GPU runs ("No CUDA runtime is
    found, using CUDA_HOME=..."): it is about the machine, not the example, and a fix must
    leave stderr empty."""
    import logging

    log = logging.getLogger("torch.utils.cpp_extension")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        import torch.utils.cpp_extension  # noqa: F401 - for its import-time warning only
    finally:
        log.setLevel(level)


def warm_up(backends: list[str]) -> None:
    """Pay Dynamo's first-use imports once, in the server, instead of once per block; and
    those of the `backends` the jobs will compile with (inductor: its code generation)."""
    import torch

    # OpenMP's thread pool does not survive a fork: the server and its children use one thread,
    # from OMP_NUM_THREADS=1 (runner.example_env). Not torch.set_num_threads(1): it records a
    # count that every new thread of a child applies again, through a thread pool that is
    # invalid after a fork, and torch 2.14.1 aborts ("Invalid thread pool!").

    class Warm(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(4, 4)

        def forward(self, x: Any) -> Any:
            return torch.relu(self.linear(x)).sum()

    torch.compile(Warm(), fullgraph=True, backend="eager")(torch.randn(2, 4))
    for backend in backends:
        if backend == "inductor":
            quiet_cuda_home()
        # No autograd: its engine's threads would not survive the fork (torch refuses to run
        # backward in a child of a process that has used them).
        with torch.no_grad():
            torch.compile(lambda x: torch.relu(x).sum(), fullgraph=True, backend=backend)(
                torch.randn(2, 4)
            )

    def breaks(x: Any) -> Any:
        print(end="")  # a graph break: loads the registry and the error formatting
        return x + 1

    with contextlib.suppress(Exception):  # the break is the point
        torch.compile(breaks, fullgraph=True, backend="eager")(torch.randn(2))
    torch._dynamo.reset()


def child(job: dict[str, Any], result_fd: int, run: Run) -> None:
    """In the forked child: the job's own folder, files for its output, fresh Dynamo state."""
    os.setpgid(0, 0)  # a timeout kills the whole group, with anything the example started
    import signal

    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # the server gone (killed by a block): die too
    # The signals as a fresh interpreter has them, not as the server set them.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.chdir(job["cwd"])
    for fd, name in ((0, os.devnull), (1, job["stdout"]), (2, job["stderr"])):
        flags = os.O_RDONLY if fd == 0 else os.O_WRONLY | os.O_CREAT | os.O_TRUNC
        target = os.open(name, flags, 0o644)
        os.dup2(target, fd)
        os.close(target)
    sys.argv = [job["program"]]
    import random

    random.seed()  # as a fresh interpreter would be: not the server's state
    try:
        import torch

        torch.seed()
        torch._dynamo.reset()
        from torch._dynamo.utils import counters

        counters.clear()
    except Exception:  # a stand-in torch without Dynamo
        pass
    run(job, result_fd)


def serve(run: Run, warm: list[str]) -> None:
    """Serve jobs until stdin closes, each run by `run` in a forked child; `warm`: the
    backends other than eager that they compile with."""
    import selectors
    import signal
    import tempfile

    # Orphans of the runs (a run killed on timeout, or one that exited abruptly) become this
    # server's children, killed as each run ends; and the server ends with gbsite.
    become_subreaper()
    prctl(PR_SET_PDEATHSIG, signal.SIGTERM)

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)  # how gbsite stops us early (Ctrl-C, an error)
    # gbsite starts us in a session of its own, out of reach of the terminal's Ctrl-C: gbsite
    # handles it and stops us. Dying of a SIGINT sent to us anyway would look to gbsite like a
    # block that killed the server, and it would start another.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        warm_up(warm)
        import torch

        version = torch.__version__
    except Exception:  # a stand-in torch, or no torch: gbsite reports the latter itself
        version = None
    out = sys.stdout
    print(json.dumps({"ready": True, "torch": version}), file=out, flush=True)
    selector = selectors.DefaultSelector()
    selector.register(0, selectors.EVENT_READ, None)
    # pid -> job, deadline, pidfd, the unnamed file its result is written to
    running: dict[int, tuple[dict[str, Any], float, int | None, Any]] = {}
    stdin_open = True
    pending = b""  # jobs arrive as lines; a read may hold several, or part of one

    def kill_run(pid: int) -> None:
        for kill in (os.killpg, os.kill):
            with contextlib.suppress(OSError):
                kill(pid, signal.SIGKILL)

    def finished(pid: int, status: int, timed_out: bool) -> None:
        job, _, fd, result_file = running.pop(pid)
        if fd is not None:
            selector.unregister(fd)
            os.close(fd)
        kill_descendants(frozenset(running))  # orphans: what the run left, and only that
        report: dict[str, Any] = {"key": job["key"], "exit": os.waitstatus_to_exitcode(status)}
        if timed_out:
            report["timeout"] = True
        result_file.seek(0)
        raw = result_file.read(4 * 2**20)
        result_file.close()
        with contextlib.suppress(ValueError):
            report["result"] = json.loads(raw) if raw else None
        print(json.dumps(report), file=out, flush=True)

    try:
        while stdin_open or running:
            now = time.monotonic()
            wait = min((d for _, d, _, _ in running.values()), default=now + 1.0) - now
            # Without pidfds (macOS) a child's end is noticed by polling.
            if any(fd is None for _, _, fd, _ in running.values()):
                wait = min(wait, 0.02)
            for key, _ in selector.select(timeout=max(0.0, wait)):
                if key.data is not None:
                    continue  # a child ended: reaped below
                chunk = os.read(0, 1 << 16)
                if not chunk:
                    # gbsite closes our stdin once every run has ended, or is gone: then the
                    # runs still going are nobody's.
                    stdin_open = False
                    selector.unregister(0)
                    for pid in running:
                        kill_run(pid)
                *lines, pending = (pending + chunk).split(b"\n")
                for line in lines:
                    job = json.loads(line)
                    result_file = tempfile.TemporaryFile()  # noqa: SIM115 - closed in finished()
                    pid = os.fork()
                    if pid == 0:  # the child never returns into the server loop
                        code = 0
                        try:
                            for _, _, other_fd, other_file in running.values():
                                other_file.close()  # not another run's result to write
                                if other_fd is not None:
                                    os.close(other_fd)
                            child(job, result_file.fileno(), run)
                        except BaseException:
                            code = 70
                        os._exit(code)
                    try:
                        fd: int | None = os.pidfd_open(pid)
                    except (AttributeError, OSError):
                        fd = None
                    if fd is not None:
                        selector.register(fd, selectors.EVENT_READ, pid)
                    deadline = time.monotonic() + float(job["timeout"])
                    running[pid] = (job, deadline, fd, result_file)
            for pid in list(running):
                # Ended, but not reaped yet (WNOWAIT): its process group cannot be another's
                # while finished() kills what is left of it.
                if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                    with contextlib.suppress(OSError):
                        os.killpg(pid, signal.SIGKILL)
                    _, status = os.waitpid(pid, 0)
                    finished(pid, status, False)
                elif running[pid][1] <= time.monotonic():
                    kill_run(pid)
                    _, status = os.waitpid(pid, 0)
                    finished(pid, status, True)
    finally:  # stopped by gbsite (Ctrl-C, an error) or by a signal: nothing left running
        for pid in running:
            kill_run(pid)
        kill_descendants()

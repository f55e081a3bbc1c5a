"""Runs annotated examples. Standard library and torch only: it runs under whatever Python has
torch, which need not have gbsite installed. Two modes:

    python driver.py PROGRAM RESULT_FD NAME BACKEND MODE
        runs one program in this fresh interpreter (the portable way, and the fallback)
    python driver.py --serve
        a fork server (Linux, macOS): imports torch once, warms Dynamo up, then reads one job
        per line on stdin (JSON) and runs each in a forked child of its own, so a block costs a
        fork instead of a fresh `import torch`; one line per finished job goes to stdout

A program's top-level statements run one by one in one namespace. In MODE `compiled`, right
after the statement that binds NAME, NAME is rebound to `torch.compile(NAME, fullgraph=True,
backend=BACKEND)`, so any graph break in it becomes an error, and its calls are counted (a
fix must call it twice); in MODE `eager` nothing is
compiled (a repro must run to the end in plain PyTorch), nor in MODE `script` (a program that
compiles or exports by itself); in MODE `logged`, NAME is compiled
without fullgraph and the graph breaks that TORCH_LOGS=graph_breaks reports are kept. The
outcome goes to RESULT as JSON, so that what the program itself prints can be judged
separately.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import sys
import time
import traceback
import types
from typing import Any


def binds(statement: ast.stmt, name: str) -> bool:
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return statement.name == name
    if isinstance(statement, ast.Import | ast.ImportFrom):
        return any((alias.asname or alias.name.split(".")[0]) == name for alias in statement.names)
    targets: list[ast.expr] = []
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, ast.AnnAssign | ast.AugAssign):
        targets = [statement.target]
    return any(
        isinstance(node, ast.Name) and node.id == name
        for target in targets
        for node in ast.walk(target)
    )


def chain(error: BaseException) -> list[str]:
    """Messages of the exceptions `error` was raised from: what a traceback prints too.

    Some graph breaks surface as another exception (GB0039's FailOnRecompileLimitHit) whose
    cause carries the link to the page.
    """
    out: list[str] = []
    seen = {id(error)}
    current = error.__cause__ or error.__context__
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        out.append(f"{type(current).__module__}.{type(current).__qualname__}: {current}")
        current = current.__cause__ or current.__context__
    return out


def capture_graph_break_logs() -> list[str]:
    """The messages of TORCH_LOGS=graph_breaks from now on, kept instead of printed: how a
    break that only a non-fullgraph compile reports is seen."""
    import logging

    import torch
    import torch._dynamo.symbolic_convert

    torch._logging.set_logs(graph_breaks=True)  # type: ignore[attr-defined]
    messages: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            messages.append(record.getMessage())

    for logger_name in list(logging.Logger.manager.loggerDict):
        if logger_name.endswith("__graph_breaks"):
            logger = logging.getLogger(logger_name)
            for handler in list(logger.handlers):
                logger.removeHandler(handler)
            logger.addHandler(Keep())
            logger.propagate = False  # torch's own handler, on a parent, would print it
    return messages


def counted(compiled: Any, result: dict[str, Any]) -> Any:
    """`compiled`, counting its calls in result["calls"]: a fix must show that the compiled code
    serves more than one input. A module stays the very OptimizedModule torch.compile returned
    (its class, attributes, parameters and state_dict untouched): only the `forward` that
    OptimizedModule keeps on the instance is wrapped, which both `model(x)` and
    `model.forward(x)` go through. A function is wrapped in a function that looks like it."""
    import functools

    from torch._dynamo.utils import counters

    result["calls"] = result["compiles"] = 0
    inner = vars(compiled).get("forward") if hasattr(compiled, "_orig_mod") else None

    def count(target: Any) -> Any:
        @functools.wraps(target)
        def call(*args: Any, **kwargs: Any) -> Any:
            result["calls"] += 1
            # The graphs compiled during this call are NAME's: not those of any other
            # function the program compiles by itself.
            before = int(counters["stats"]["unique_graphs"])
            try:
                return target(*args, **kwargs)
            finally:
                result["compiles"] += int(counters["stats"]["unique_graphs"]) - before

        return call

    if callable(inner):
        object.__setattr__(compiled, "forward", count(inner))
        return compiled
    return count(compiled)


def execute(program: str, name: str, backend: str, mode: str) -> dict[str, Any]:
    """Run the program; what happened, as the JSON-able outcome gbsite judges.

    MODE: `compiled` (fullgraph=True), `logged` (fullgraph=False, the graph-break log kept in
    the outcome) or `eager` (nothing compiled)."""
    compiled = mode in ("compiled", "logged")
    result: dict[str, Any] = {
        "bound": False,
        "status": None,
        "error_type": None,
        "message": "",
        "chain": [],
        "graphs": None,
        "torch": None,
        "logged": [],
        "calls": None,  # of the compiled NAME, in the compiled modes
        "compiles": None,  # graphs Dynamo compiled in NAME's calls: over one, it recompiled
        "recompile_limit": None,
        "last": False,  # the statement that raised was the program's last (a gb-wrong's assert)
    }
    try:
        logged = capture_graph_break_logs() if mode == "logged" else []
        source = open(program, encoding="utf-8").read()  # noqa: PTH123, SIM115 - stdlib only
        module = ast.parse(source, filename="<example>")
        # A module of its own, standing as __main__ while it runs, as `python example.py`
        # would have it: torch.export and pickle look a class's module up in sys.modules.
        main = types.ModuleType("__main__")
        main.__file__ = "<example>"
        namespace: dict[str, Any] = main.__dict__
        sys.modules["__main__"] = main
        try:
            for n, statement in enumerate(module.body, 1):
                result["last"] = n == len(module.body)
                code = compile(ast.Module(body=[statement], type_ignores=[]), "<example>", "exec")
                exec(code, namespace)  # running the example is the point
                if not result["bound"] and binds(statement, name):
                    result["bound"] = True
                    if compiled:
                        import torch

                        namespace[name] = counted(
                            torch.compile(
                                namespace[name], fullgraph=mode == "compiled", backend=backend
                            ),
                            result,
                        )
            result["status"] = "completed"
            result["last"] = False
            result["logged"] = logged
        except BaseException as error:  # every outcome is reported
            result["status"] = "raised"
            result["error_type"] = f"{type(error).__module__}.{type(error).__qualname__}"
            result["message"] = str(error)
            result["chain"] = chain(error)
        try:
            import torch
            from torch._dynamo.utils import counters

            result["torch"] = torch.__version__
            # With fullgraph=True Dynamo counts captured graphs: zero means never called.
            result["graphs"] = int(counters["stats"]["unique_graphs"]) + int(
                counters["frames"]["total"]
            )
            result["recompile_limit"] = int(torch._dynamo.config.recompile_limit)
        except Exception:  # no torch, or counters moved
            pass
    except BaseException:  # the program could not even be parsed
        result["status"] = "driver-error"
        result["message"] = traceback.format_exc()
    return result


MAX_TEXT = 20_000  # characters of a message kept (its start and its end, where links are)


def write_result(fd: int, result: dict[str, Any]) -> None:
    """The outcome, as JSON, to the file descriptor the caller reads it from."""
    for key in ("message",):
        text = str(result.get(key) or "")
        if len(text) > MAX_TEXT:
            result[key] = text[: MAX_TEXT // 2] + "\n[...]\n" + text[-MAX_TEXT // 2 :]
    result["chain"] = [str(m)[:MAX_TEXT] for m in result.get("chain") or []][:20]
    data = json.dumps(result).encode("utf-8")
    while data:
        data = data[os.write(fd, data) :]


# ---- containing what a run starts ---------------------------------------------------------------

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def prctl(option: int, value: int) -> bool:
    """Linux's prctl(2), through ctypes; False where there is none."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def become_subreaper() -> bool:
    """Orphans among this process's descendants become its children (not init's)."""
    return prctl(_PR_SET_CHILD_SUBREAPER, 1)


def children_of(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux: /proc), zombies included."""
    found: list[int] = []
    try:
        names = os.listdir("/proc")  # noqa: PTH208 - stdlib only, and fast
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:  # noqa: PTH123
                stat = f.read()
        except OSError:
            continue  # gone meanwhile
        fields = stat[stat.rfind(b")") + 2 :].split()  # after "pid (comm) ": state, ppid, ...
        if len(fields) > 1 and int(fields[1]) == pid:
            found.append(int(name))
    return found


def kill_descendants(keep: frozenset[int] = frozenset()) -> None:
    """Kill this process's children but `keep`, and everything they started. In a subreaper
    the orphans of a killed child become children of this process: repeat until none is left
    (each round waits for the children it killed, so a round sees their orphans)."""
    import signal

    me = os.getpid()
    for _ in range(10_000):
        found = [pid for pid in children_of(me) if pid not in keep]
        if not found:
            return
        for pid in found:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in found:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def contained(run: Any) -> Any:
    """`run()` in this process made a subreaper, killing whatever it started before returning."""
    reaper = become_subreaper()
    try:
        return run()
    finally:
        if reaper:
            kill_descendants()


def main() -> None:
    program, result_fd, name, backend, mode = sys.argv[1:6]
    result = contained(lambda: execute(program, name, backend, mode))
    sys.stdout.flush()
    sys.stderr.flush()
    write_result(int(result_fd), result)


# ---- the fork server ---------------------------------------------------------------------------


def warm_up() -> None:
    """Pay Dynamo's first-use imports once, in the server, instead of once per block."""
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

    def breaks(x: Any) -> Any:
        print(end="")  # a graph break: loads the registry and the error formatting
        return x + 1

    with contextlib.suppress(Exception):  # the break is the point
        torch.compile(breaks, fullgraph=True, backend="eager")(torch.randn(2))
    torch._dynamo.reset()


def child(job: dict[str, Any], result_fd: int) -> None:
    """In the forked child: the job's own folder, files for its output, fresh Dynamo state."""
    os.setpgid(0, 0)  # a timeout kills the whole group, with anything the example started
    import signal

    prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)  # the server gone (killed by a block): die too
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
    result = contained(lambda: execute(job["program"], job["name"], job["backend"], job["mode"]))
    sys.stdout.flush()
    sys.stderr.flush()
    write_result(result_fd, result)


def serve() -> None:
    import selectors
    import signal
    import tempfile

    # Orphans of the runs (a run killed on timeout, or one that exited abruptly) become this
    # server's children, killed as each run ends; and the server ends with gbsite.
    become_subreaper()
    prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)  # Ctrl-C reaches gbsite too: the runs die with us
    try:
        warm_up()
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
                            child(job, result_file.fileno())
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


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve()
    else:
        main()

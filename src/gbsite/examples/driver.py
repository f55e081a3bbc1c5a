"""Runs annotated examples. Standard library and torch only: it runs under whatever Python has
torch, which need not have gbsite installed. Two modes:

    python driver.py PROGRAM RESULT_FD NAME BACKEND MODE
        runs one program in this fresh interpreter (the portable way, and the fallback)
    python driver.py --serve
        a fork server (Linux, macOS): imports torch once, warms Dynamo up, then reads one job
        per line on stdin (JSON) and runs each in a forked child of its own, so a block costs a
        fork instead of a fresh `import torch`; one line per finished job goes to stdout
        (driver_server.py)

Either way, the run is contained (driver_procs.py): what the program starts is killed when it
ends.

A program's top-level statements run one by one in one namespace. In MODE `compiled`, right
after the statement that binds NAME, NAME is rebound to `torch.compile(NAME, fullgraph=True,
backend=BACKEND)`, so any graph break in it becomes an error, and its calls are counted (a
fix must call it twice); in MODE `eager` nothing is
compiled (a repro must run to the end in plain PyTorch), nor in MODE `script` (a program that
compiles or exports by itself); in MODE `logged`, NAME is compiled
without fullgraph and the graph breaks that TORCH_LOGS=graph_breaks reports are kept. The
outcome goes to RESULT as JSON, so that what the program itself prints can be judged
separately.

In the compiled modes the program also runs once without compiling anything, in a forked
twin (compare.py), with the same random seeds: each call of NAME returns, in the compiled run,
what it returns in the twin, and the gradients the program leaves are the same, within the
tolerances of torch.testing.assert_close for their dtypes (RESULT's "compared").
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import sys
import traceback
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

# Siblings, stdlib and torch only like this file. As a script (how gbsite runs it) this folder is
# sys.path[0] and gbsite may not be installed: they are imported by their own names.
if TYPE_CHECKING or __package__:  # imported as part of gbsite
    from gbsite.examples import compare, driver_procs, driver_server
else:
    import compare
    import driver_procs
    import driver_server


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


def counted(compiled: Any, result: dict[str, Any], values: list[Any] | None = None) -> Any:
    """`compiled`, counting its calls in result["calls"]: a fix must show that the compiled code
    serves more than one input. A module stays the very OptimizedModule torch.compile returned
    (its class, attributes, parameters and state_dict untouched): only the `forward` that
    OptimizedModule keeps on the instance is wrapped, which both `model(x)` and
    `model.forward(x)` go through. A function is wrapped in a function that looks like it.
    `values`: each call's return value is kept there, as compare.snapshot takes it."""
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
                value = target(*args, **kwargs)
            finally:
                result["compiles"] += int(counters["stats"]["unique_graphs"]) - before
            if values is not None:
                values.append(compare.snapshot(value))
            return value

        return call

    if callable(inner):
        object.__setattr__(compiled, "forward", count(inner))
        return compiled
    return count(compiled)


def as_main() -> dict[str, Any]:
    """The namespace of a module of its own, standing as __main__ while the program runs, as
    `python example.py` would have it: torch.export and pickle look a class's module up in
    sys.modules."""
    main = types.ModuleType("__main__")
    main.__file__ = "<example>"
    sys.modules["__main__"] = main
    return main.__dict__


def run_statements(
    module: ast.Module,
    namespace: dict[str, Any],
    name: str,
    bound: Callable[[Any], Any],
    starting: Callable[[int], None] | None = None,
) -> None:
    """The program's top-level statements one by one; right after the first that binds NAME,
    NAME is rebound to what `bound` makes of its value. `starting(n)`: before statement n
    (from 1)."""
    done = False
    for n, statement in enumerate(module.body, 1):
        if starting is not None:
            starting(n)
        code = compile(ast.Module(body=[statement], type_ignores=[]), "<example>", "exec")
        exec(code, namespace)  # running the example is the point
        if not done and binds(statement, name):
            done = True
            namespace[name] = bound(namespace[name])


def run_twin(module: ast.Module, name: str) -> dict[str, Any]:
    """The program uncompiled, as the compiled run runs it (seeds, a module of its own), each
    call of NAME's return value and the gradients it leaves kept: compare.eager_twin's work."""
    compare.seed_all()
    namespace = as_main()
    values: list[Any] = []
    status, error = "completed", ""
    try:
        run_statements(module, namespace, name, lambda value: compare.recorded(value, values))
    except BaseException as exc:  # the compiled run's calls are compared with those done
        status, error = "raised", f"{type(exc).__module__}.{type(exc).__qualname__}: {exc}"
    grads = compare.gradients(namespace) if status == "completed" else None
    return {"status": status, "error": error[:2000], "values": values, "grads": grads}


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
        "compared": None,  # with the uncompiled twin: compare.compare's report
    }
    try:
        source = open(program, encoding="utf-8").read()  # noqa: PTH123, SIM115 - stdlib only
        module = ast.parse(source, filename="<example>")
        # The same program uncompiled, first, in a forked twin: what the compiled calls and
        # the gradients must equal.
        twin = compare.eager_twin(lambda: run_twin(module, name)) if compiled else None
        logged = capture_graph_break_logs() if mode == "logged" else []
        compare.seed_all()
        values: list[Any] = []
        namespace = as_main()

        def bound(value: Any) -> Any:
            result["bound"] = True
            if not compiled:
                return value
            import torch

            if backend == "inductor":  # the random numbers eager draws
                driver_server.quiet_cuda_home()
                import torch._inductor.config

                torch._inductor.config.fallback_random = True
            compiled_value = torch.compile(value, fullgraph=mode == "compiled", backend=backend)
            return counted(compiled_value, result, values)

        def starting(n: int) -> None:
            result["last"] = n == len(module.body)

        try:
            run_statements(module, namespace, name, bound, starting)
            result["status"] = "completed"
            result["last"] = False
            result["logged"] = logged
        except BaseException as error:  # every outcome is reported
            result["status"] = "raised"
            result["error_type"] = f"{type(error).__module__}.{type(error).__qualname__}"
            result["message"] = str(error)
            result["chain"] = chain(error)
        if twin is not None:
            done = result["status"] == "completed"
            grads = compare.gradients(namespace) if done else None
            result["compared"] = compare.compare(twin, values, grads)
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


def run_and_report(program: str, name: str, backend: str, mode: str, result_fd: int) -> None:
    """Run the program, containing what it starts, and write its outcome to `result_fd`."""
    result = driver_procs.contained(lambda: execute(program, name, backend, mode))
    sys.stdout.flush()
    sys.stderr.flush()
    write_result(result_fd, result)


def run_job(job: dict[str, Any], result_fd: int) -> None:
    """One job of the fork server, in its forked child."""
    run_and_report(job["program"], job["name"], job["backend"], job["mode"], result_fd)


def main() -> None:
    # needs=without:NAME: the program runs as on an install without NAME, hidden before torch
    # (or anything) imports it; torch then takes its paths for a missing package.
    for missing in filter(None, os.environ.get("GBSITE_WITHOUT", "").split(",")):
        sys.modules[missing] = None  # type: ignore[assignment]
    program, result_fd, name, backend, mode = sys.argv[1:6]
    run_and_report(program, name, backend, mode, int(result_fd))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        code = 0
        try:
            driver_server.serve(run_job, warm=sys.argv[2:])
        except SystemExit as stopped:  # SIGTERM: gbsite stops us (Ctrl-C), the runs are killed
            code = stopped.code if isinstance(stopped.code, int) else 1
        # No interpreter teardown: with torch loaded it takes a second, which gbsite waits for
        # at the end of every check and after Ctrl-C. Every report is flushed by now.
        with contextlib.suppress(OSError):  # gbsite is gone
            sys.stderr.flush()
        os._exit(code)
    else:
        main()

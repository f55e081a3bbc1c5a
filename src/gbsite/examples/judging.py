"""Judging a run: did an annotated block do what its fence promises, and what did it do (its
outcome for the record)? A gb-repro must break with its page's id when compiled and run in plain
PyTorch; a gb-fix must run to the end without any graph break, having called its callable at
least twice (a fix that serves one input says nothing of the next), and without recompiling
more than once unless its fence says `recompiles=yes`. A `compile=none` block is judged on its
one run as written, and so is a gb-wrong: it documents a wrong value while it runs to the end
(its last statement, an assert that the compiled value differs from the eager one, holds), and
says that torch computes the value right when that assertion fails."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from gbsite.examples import record
from gbsite.examples.annotations import EAGER_RAISES, NO_FULLGRAPH, RECOMPILES, REPRO, WRONG, Block
from gbsite.examples.vocabulary import Outcome

_URL_ID = re.compile(r"/gb/gb(\d{4})\.html")
MIN_CALLS = 2  # of a fix's compiled callable: real code calls it again, with other inputs
# Compiles a fix may make without saying so: the first, and the one a first change of sizes
# makes (Dynamo then compiles the sizes as dynamic).
QUIET_COMPILES = 2


@dataclass(frozen=True, slots=True)
class RunOutput:
    """What one run of a program left: the driver's report and what the program printed."""

    data: dict[str, Any]  # driver.execute's result; {} when the process failed
    stdout: str
    stderr: str
    failure: str = ""  # set when the process itself failed (timeout, crash)

    @classmethod
    def failed(cls, failure: str, stdout: str, stderr: str) -> RunOutput:
        return cls({}, stdout, stderr, failure)


@dataclass(frozen=True, slots=True)
class Result:
    block: Block
    passed: bool
    summary: str  # one line
    details: str  # what the program printed or raised, for a failure
    seconds: float
    torch: str | None
    outcome: Outcome | None = None  # for the record (record.py); None when the process failed


# A line torch's own loggers write (glog's form: level, date, time, thread, torch file), and a
# Python warning issued in torch's own files (with the source line Python prints under it).
_TORCH_LOG = re.compile(
    r"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ torch/\S+\] .*\n?"
    r"|^\S*/torch/\S+\.py:\d+: \w*Warning: .*\n(?:  .*\n?)?",
    re.M,
)


def backend_logs(stderr: str) -> str:
    """stderr without what torch itself logs or warns while a backend other than the fix's
    own compiles (Inductor's cache warnings, say): the fix's code was held to an empty stderr
    in its own run; a backend's log says nothing about it."""
    return _TORCH_LOG.sub("", stderr)


def once(block: Block, outcome: dict[str, Any]) -> str:
    """Why a repro that ran without a break says nothing yet ("" if it does): it called its
    function once. That a newer torch compiles the first call does not show that it fixes the
    break: a second call with other inputs may break again (with another id, say)."""
    calls = outcome.get("calls")
    if block.script or calls is None or calls >= MIN_CALLS:
        return ""
    return (
        f"ran without a graph break, having called `{block.compile_name}` once; a repro that "
        f"stops breaking must have called it at least {MIN_CALLS} times, with inputs that "
        "differ, before its page may say that this torch fixes the break: add a second call"
    )


def judge(block: Block, run: RunOutput, seconds: float, eager: RunOutput | None = None) -> Result:
    """Did the program do what its annotation promises, and what did it do (its outcome for
    the record)? `eager`: a repro's uncompiled run."""
    outcome = run.data
    torch = str(outcome["torch"]) if outcome.get("torch") else None

    def result(what: Outcome | None, summary: str, details: str = "") -> Result:
        passed = what == record.passing(block.kind)
        return Result(block, passed, summary, details, seconds, torch, what)

    def repro_broke(summary: str) -> Result:
        """A repro that did what it promises compiled; it must also do so uncompiled."""
        problem = eager_problem(block, eager) if eager is not None else None
        if problem is None:
            # Calls that completed before the break and returned other than eager's: a silent
            # wrong result beside the break, said (the break is still what the repro shows).
            wrong = silent_difference(outcome.get("compared"))
            return result(record.BREAKS, summary + wrong)
        return result(None if eager and eager.failure else record.EAGER_FAILS, *problem)

    if run.failure:
        return result(None, run.failure, run.stderr)
    message = str(outcome.get("message") or "")
    chained = "\n".join(str(m) for m in outcome.get("chain") or [])
    ids = linked_ids(message + "\n" + chained)
    name = block.compile_name
    raised = f"graph break {', '.join(ids)}" if ids else str(outcome["error_type"])  # if any
    error = record.ERROR

    if outcome["status"] == "driver-error":
        return result(error, "the program could not be run", message)
    # (compile=none binds nothing: the program compiles or exports by itself)
    if not block.script and not outcome["bound"]:
        if outcome["status"] == "raised":  # it failed before the binding (an import, say)
            return result(
                error, f"raised {outcome['error_type']} before `{name}` was bound", message[:1500]
            )
        return result(
            error,
            f"no top-level statement binds `{name}`, so nothing was compiled "
            "(name another callable with compile=NAME)",
        )
    if run.stdout.strip():
        return result(
            error, "the program printed output; examples must be quiet", run.stdout[-1500:]
        )
    if block.kind == WRONG:
        return result(*wrong_value(block, outcome))
    if block.kind == REPRO and block.fullgraph == NO_FULLGRAPH:
        if outcome["status"] != "completed":
            return result(
                error,
                f"raised {raised}; with fullgraph=false a repro runs to the end and the break "
                "shows in the graph-break log",
                message[:1500],
            )
        logged = "\n".join(str(m) for m in outcome.get("logged") or [])
        found = linked_ids(logged)
        if not found and once(block, outcome):
            return result(record.ONCE, once(block, outcome))
        if block.gb_id not in found:
            return result(
                record.other_break(found) if found else record.NO_BREAK,
                f"logged {', '.join(found) or 'no graph break'} instead of {block.gb_id}",
                logged[:1500],
            )
        return repro_broke(f"logs {block.gb_id} as a graph break")
    if block.kind == REPRO:
        if outcome["status"] != "raised":
            if once(block, outcome):
                return result(record.ONCE, once(block, outcome))
            return result(
                record.NO_BREAK,
                f"ran without a graph break (expected {block.gb_id}); with this torch "
                "the code compiles, so the example no longer shows the break",
            )
        if block.gb_id not in ids:
            return result(
                record.other_break(ids) if ids else error,
                f"raised {raised} instead of {block.gb_id}",
                message[:1500],
            )
        return repro_broke(f"breaks with {block.gb_id}")
    if outcome["status"] != "completed":
        return result(
            record.other_break(ids) if ids else error,
            f"raised {raised}; a gb-fix must run without any graph break",
            message[:1500],
        )
    # What torch itself logs while another backend compiles, or warns on an install without
    # an optional package, is about those, not about the fix's code.
    stderr = backend_logs(run.stderr) if block.run_backend or block.without else run.stderr
    if stderr.strip():
        return result(
            error, "the program wrote to stderr; a fix must run cleanly", run.stderr[-1500:]
        )
    if block.script:
        return result(record.RUNS, "runs without a graph break")
    calls = outcome.get("calls")
    if calls == 0 or (calls is None and not outcome.get("graphs")):
        return result(error, f"`{name}` was compiled but never called")
    if calls is not None and calls < MIN_CALLS:
        return result(
            record.ONCE,
            f"called `{name}` once; a gb-fix calls it at least {MIN_CALLS} times, with inputs "
            "that differ as real ones do (other values, other sizes)",
        )
    compiles = outcome.get("compiles") or 0
    if compiles > QUIET_COMPILES and block.recompiles != RECOMPILES:
        limit = outcome.get("recompile_limit")
        return result(
            record.RECOMPILES,
            f"{calls} calls of `{name}` compiled it {compiles} times: a fix that recompiles "
            f"as its inputs change says so with `recompiles=yes` on its fence, and its page "
            f"names torch._dynamo.config.recompile_limit ({limit} here)",
        )
    problem = eager_values_problem(outcome.get("compared"))
    if problem is not None:
        return result(*problem)
    compared = outcome.get("compared") or {}
    same = f", the same values as eager ({compared.get('calls', 0)} calls"
    grads = compared.get("grads") or 0
    same += f", {grads} gradients)" if grads else ")"
    return result(
        record.RUNS, f"runs without a graph break, {calls} calls{same if compared else ''}"
    )


def silent_difference(compared: Any) -> str:
    """What a repro's completed calls returned other than eager's, as a clause of its summary
    ("" when they agree, or none completed)."""
    if not isinstance(compared, dict) or compared.get("eager") != "completed":
        return ""
    difference = compared.get("difference")
    if not isinstance(difference, dict):
        return ""
    return (
        f"; before it, a silent wrong result: {difference.get('where')} differs from eager "
        f"({difference.get('what')})"
    )


def eager_values_problem(compared: Any) -> tuple[Outcome, str, str] | None:
    """Why a fix that ran without a break fails the comparison with its uncompiled twin
    (driver.py, compare.py), if it does: the twin failed (a fix must work without
    torch.compile too), or a call or a gradient differs. None when the twin could not run (a
    platform without fork): nothing was compared."""
    if not isinstance(compared, dict):
        return None
    if compared.get("eager") != "completed":
        error = str(compared.get("error") or "")
        return (
            record.EAGER_FAILS,
            "fails without torch.compile: a fix must compute, uncompiled, what it computes "
            f"compiled ({error.split(chr(10))[0][:200]})",
            error[:1500],
        )
    difference = compared.get("difference")
    if not isinstance(difference, dict):
        return None
    largest = difference.get("largest")
    size = f"; largest difference {largest:.3g}" if isinstance(largest, int | float) else ""
    return (
        record.DIFFERS,
        f"differs from eager: {difference.get('where')}: {difference.get('what')}{size}",
        str(difference.get("what") or ""),
    )


def wrong_value(block: Block, outcome: dict[str, Any]) -> tuple[Outcome, str, str]:
    """A gb-wrong's outcome, summary and details. Only its own last statement, an assert, may
    fail: an AssertionError from anywhere else (a bug in the example, or in torch) says nothing
    about the value."""
    try:
        last = ast.parse(block.code).body[-1:]
    except SyntaxError:  # it ran, with a newer Python than this one
        last = []
    if not (last and isinstance(last[0], ast.Assert)):
        return (
            record.ERROR,
            "a gb-wrong ends with an assert that the compiled value differs from the eager one",
            "",
        )
    message = str(outcome.get("message") or "")
    if outcome["status"] == "completed":
        return record.WRONG, "torch.compile gives a wrong value, without a graph break", ""
    if outcome["error_type"] == "builtins.AssertionError" and outcome.get("last"):
        return (
            record.CORRECT,
            "its final assert failed: with this torch the compiled value is right",
            message[:1500],
        )
    ids = linked_ids(message + "\n" + "\n".join(str(m) for m in outcome.get("chain") or []))
    raised = f"graph break {', '.join(ids)}" if ids else str(outcome["error_type"])
    return record.ERROR, f"raised {raised}; a gb-wrong runs to its final assert", message[:1500]


def linked_ids(text: str) -> list[str]:
    """The graph breaks whose pages a message links to, sorted."""
    return sorted({f"GB{n}" for n in _URL_ID.findall(text)})


def eager_problem(block: Block, eager: RunOutput) -> tuple[str, str] | None:
    """Why a repro's uncompiled run disqualifies it, if it does: a repro must show a graph
    break, not a bug that plain PyTorch hits too (unless the fence says eager=raises)."""
    if eager.failure:
        return f"without torch.compile: {eager.failure}", eager.stderr
    data = eager.data
    if data.get("status") == "driver-error":
        return None  # the compiled run already reported it
    if block.eager == EAGER_RAISES:
        if data.get("status") == "raised":
            return None
        return (
            "runs without error in plain eager PyTorch, but the fence says eager=raises; "
            "remove the option",
            "",
        )
    if data.get("status") == "raised":
        return (
            f"fails without torch.compile too ({data.get('error_type')}): a repro must run in "
            "plain eager PyTorch and break only when compiled (if failing in eager is the "
            "point, say so with eager=raises)",
            str(data.get("message") or "")[:1500],
        )
    return None  # what it prints does not count: a print may be the very break it shows

"""judging.judge: the outcome a run gets, and whether it passes, from the driver's report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gbsite.examples import record
from gbsite.examples.annotations import RECOMPILES, Block
from gbsite.examples.judging import MIN_CALLS, QUIET_COMPILES, RunOutput, judge, linked_ids


def block(kind: str, **options: str) -> Block:
    code = "def fn(x):\n    return x + 1\n"
    return Block("GB0003", Path("docs/gb/gb0003.md"), 12, kind, code, "fn", "eager", **options)


def link(gb_id: str) -> str:
    return f"https://meta-pytorch.org/compile-graph-break-site/gb/{gb_id.lower()}.html"


# What the driver reports (driver.execute) before a run fills it in.
REPORT: dict[str, Any] = {
    "bound": True,
    "status": None,
    "error_type": None,
    "message": None,
    "chain": [],
    "graphs": None,
    "logged": [],
    "calls": None,
    "compiles": None,
    "recompile_limit": None,
    "torch": "2.13.0+cpu",
}


def raised(*ids: str, error_type: str = "Unsupported") -> RunOutput:
    message = "Unsupported: something Dynamo cannot trace\n" + "\n".join(
        f"For more details about this graph break, please visit: {link(i)}" for i in ids
    )
    report = {**REPORT, "status": "raised", "message": message, "error_type": error_type}
    return RunOutput(report, "", "")


def completed(**report: Any) -> RunOutput:
    return RunOutput({**REPORT, "status": "completed", **report}, "", "")


# ---- a gb-repro ---------------------------------------------------------------------------------


def test_a_repro_that_raises_its_id_breaks_and_passes() -> None:
    result = judge(block("gb-repro"), raised("GB0003"), 0.5)
    assert (result.outcome, result.passed) == (record.BREAKS, True)
    assert result.torch == "2.13.0+cpu"
    assert "GB0003" in result.summary


def test_a_repro_that_raises_another_id_records_that_id() -> None:
    result = judge(block("gb-repro"), raised("GB0059", "GB0007"), 0.5)
    assert result.outcome == record.other_break(["GB0007", "GB0059"])
    assert str(result.outcome) == "breaks GB0007 GB0059"  # sorted, as the record writes them
    assert not result.passed
    assert "instead of GB0003" in result.summary


def test_a_repro_that_raises_no_graph_break_is_an_error() -> None:
    result = judge(block("gb-repro"), raised(error_type="ValueError"), 0.5)
    assert (result.outcome, result.passed) == (record.ERROR, False)
    assert "ValueError" in result.summary


def test_a_repro_that_runs_to_the_end_no_longer_breaks() -> None:
    result = judge(block("gb-repro"), completed(calls=2, compiles=1), 0.5)
    assert (result.outcome, result.passed) == (record.NO_BREAK, False)


def test_a_repro_that_also_fails_in_eager_is_not_a_repro() -> None:
    eager = RunOutput({"status": "raised", "error_type": "RuntimeError", "message": "bad"}, "", "")
    result = judge(block("gb-repro"), raised("GB0003"), 0.5, eager)
    assert (result.outcome, result.passed) == (record.EAGER_FAILS, False)
    # unless its fence says so
    result = judge(block("gb-repro", eager="raises"), raised("GB0003"), 0.5, eager)
    assert (result.outcome, result.passed) == (record.BREAKS, True)


def test_a_repro_that_prints_is_an_error() -> None:
    run = raised("GB0003")
    result = judge(block("gb-repro"), RunOutput(run.data, "hello\n", ""), 0.5)
    assert (result.outcome, result.passed) == (record.ERROR, False)


def test_a_failed_process_has_no_outcome() -> None:
    result = judge(block("gb-repro"), RunOutput.failed("timed out after 60 s", "", "trace"), 60.0)
    assert result.outcome is None and not result.passed
    assert (result.summary, result.details) == ("timed out after 60 s", "trace")


# ---- a gb-fix -----------------------------------------------------------------------------------


def test_a_fix_called_often_enough_runs() -> None:
    result = judge(block("gb-fix"), completed(calls=MIN_CALLS, compiles=1), 0.5)
    assert (result.outcome, result.passed) == (record.RUNS, True)


def test_a_fix_called_once_says_nothing_of_the_next_input() -> None:
    result = judge(block("gb-fix"), completed(calls=1, compiles=1), 0.5)
    assert (result.outcome, result.passed) == (record.ONCE, False)
    assert "once" in result.summary


def test_a_fix_never_called_is_an_error() -> None:
    result = judge(block("gb-fix"), completed(calls=0, compiles=0), 0.5)
    assert (result.outcome, result.passed) == (record.ERROR, False)


@pytest.mark.parametrize("compiles", [QUIET_COMPILES + 1, 8])
def test_a_fix_that_recompiles_must_say_so(compiles: int) -> None:
    run = completed(calls=10, compiles=compiles, recompile_limit=8)
    result = judge(block("gb-fix"), run, 0.5)
    assert (result.outcome, result.passed) == (record.RECOMPILES, False)
    assert "recompiles=yes" in result.summary
    said = judge(block("gb-fix", recompiles=RECOMPILES), run, 0.5)
    assert (said.outcome, said.passed) == (record.RUNS, True)


def test_a_fix_may_compile_twice_without_saying_so() -> None:
    result = judge(block("gb-fix"), completed(calls=3, compiles=QUIET_COMPILES), 0.5)
    assert (result.outcome, result.passed) == (record.RUNS, True)


def test_a_fix_that_breaks_records_the_break() -> None:
    result = judge(block("gb-fix"), raised("GB0003"), 0.5)
    assert (str(result.outcome), result.passed) == ("breaks GB0003", False)


def test_a_fix_that_writes_to_stderr_is_an_error() -> None:
    run = completed(calls=2, compiles=1)
    result = judge(block("gb-fix"), RunOutput(run.data, "", "a warning\n"), 0.5)
    assert (result.outcome, result.passed) == (record.ERROR, False)


def test_linked_ids_are_the_pages_a_message_links_to() -> None:
    text = f"see {link('GB0123')} and {link('GB0007')}, again {link('GB0123')}; not GB0999"
    assert linked_ids(text) == ["GB0007", "GB0123"]


# ---- a gb-fix against its uncompiled twin (compare.py) ----------------------------------------


def compared(**report: Any) -> dict[str, Any]:
    return {"eager": "completed", "error": "", "calls": 2, "grads": 0, "difference": None, **report}


def test_a_fix_with_the_values_of_eager_runs() -> None:
    result = judge(block("gb-fix"), completed(calls=2, compiles=1, compared=compared(grads=3)), 1)
    assert (result.outcome, result.passed) == (record.RUNS, True)
    assert result.summary.endswith("the same values as eager (2 calls, 3 gradients)")


def test_a_fix_that_computes_another_value_differs() -> None:
    difference = {
        "where": "call 2's result[0]",
        "what": "Tensor-likes are not close!",
        "largest": 2.5,
    }
    run = completed(calls=2, compiles=1, compared=compared(difference=difference))
    result = judge(block("gb-fix"), run, 1)
    assert (result.outcome, result.passed) == (record.DIFFERS, False)
    assert result.summary == (
        "differs from eager: call 2's result[0]: Tensor-likes are not close!; "
        "largest difference 2.5"
    )


def test_a_fix_that_fails_without_torch_compile_fails() -> None:
    twin = compared(eager="raised", error="builtins.ValueError: vmap needs tensors\nmore")
    result = judge(block("gb-fix"), completed(calls=2, compiles=1, compared=twin), 1)
    assert (result.outcome, result.passed) == (record.EAGER_FAILS, False)
    assert "(builtins.ValueError: vmap needs tensors)" in result.summary


def test_without_a_twin_nothing_is_compared() -> None:
    """A platform without fork runs no twin: the fix is judged as before, and says nothing of
    values."""
    result = judge(block("gb-fix"), completed(calls=2, compiles=1, compared=None), 1)
    assert (result.outcome, result.passed) == (record.RUNS, True)
    assert "eager" not in result.summary


def test_a_repro_whose_completed_calls_differ_says_so() -> None:
    """The calls before the break returned other than eager's: the repro still shows its break,
    and its summary names the silent wrong result beside it."""
    difference = {"where": "call 1's result", "what": "eager gives 1, compiled 2", "largest": 1}
    report = {**raised("GB0003").data, "compared": compared(calls=1, difference=difference)}
    result = judge(block("gb-repro"), RunOutput(report, "", ""), 1)
    assert (result.outcome, result.passed) == (record.BREAKS, True)
    assert result.summary.endswith(
        "; before it, a silent wrong result: call 1's result differs from eager "
        "(eager gives 1, compiled 2)"
    )


@pytest.mark.parametrize(
    ("code", "fresh"),
    [
        ('import os\nos.environ["TENSORIFY_PYTHON_SCALARS"] = "0"\nimport torch\n', True),
        ('import os\nos.putenv("X", "1")\nfrom torch import nn\n', True),
        ('import os\nos.environ.update(X="1")\nimport torch.nn\n', True),
        # Set after torch is imported, or never: the fork server's torch is the same.
        ('import torch\nimport os\nos.environ["TORCH_LOGS"] = "graph_breaks"\n', False),
        ("import torch\n\ndef fn(x):\n    return x\n", False),
        ("def broken(:\n", False),
    ],
)
def test_a_program_that_sets_the_environment_before_torch_runs_fresh(
    code: str, fresh: bool
) -> None:
    found = Block("GB0224", Path("docs/gb/gb0224.md"), 40, "gb-repro", code, "fn", "eager")
    assert found.sets_environment is fresh

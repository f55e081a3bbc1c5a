"""Parts of real torch 2.13.0 logs (tests/data/logs) that carry no `Explanation:` line, each with
the id it must find first: `gbsite lookup` (tests/test_search.py) and the browser
(tests/test_browser_search.py) are held to the same list."""

from __future__ import annotations

from conftest import DATA

REASON = (
    "Graph Break Reason: Encountered graph break when attempting to trace CALL: a function call, "
    "e.g. f(x, y):\n\n"
)


def lines(log: str, start: int, stop: int) -> str:
    """Lines [start, stop) of a log, as a user would copy them."""
    return "".join((DATA / "logs" / log).read_text().splitlines(True)[start:stop])


# (shape, text, id PyTorch linked for it)
CASES: list[tuple[str, str, str]] = [
    # 1. An uncaught exception's header line alone.
    (
        "header",
        "torch._dynamo.exc.Unsupported: Attempted to use `torch.nn.functional.one_hot` with "
        "data-dependent output shape",
        "GB0246",
    ),
    ("header", lines("fullgraph-recompile-limit.log", 15, 16), "GB0039"),
    ("header", "torch._dynamo.exc.Unsupported: Failed to trace builtin operator", "GB0059"),
    ("header", "torch._dynamo.exc.Unsupported: Call to `torch._dynamo.graph_break()`", "GB0025"),
    ("header", "Unsupported: logging.Logger method not supported for non-export cases", "GB0291"),
    ("header", "torch._dynamo.exc.Unsupported: Data-dependent branching\n", "GB0170"),
    # 2. A Reason line whose type comes two lines later.
    (
        "reason",
        REASON + "logging.Logger method not supported for non-export cases\n",
        "GB0291",
    ),
    ("reason", REASON + "Failed to trace builtin operator\n", "GB0059"),
    ("reason", REASON + "Skip calling `torch.compiler.disable()`d function\n", "GB0098"),
    ("reason", REASON + "Attempted to call function marked as skipped\n", "GB0007"),
    # 3. Lines with the logger's prefix, cut before the Explanation line.
    ("prefixed", lines("logger-info.log", 0, 4), "GB0291"),
    ("prefixed", lines("print-debug.log", 0, 4), "GB0059"),
    ("prefixed", lines("data-dependent-if.log", 0, 2), "GB0170"),
    ("prefixed", lines("compiler-disable.log", 0, 4), "GB0098"),
    ("prefixed", lines("multi.log", 29, 33), "GB0059"),
    # 4. The UserWarning Dynamo prints when it skips a builtin (GB0007's explanation is worked
    # out at run time: RUNTIME_TEXTS in src/gbsite/search/index.py has its wordings).
    ("warning", lines("time-time.log", 0, 4), "GB0007"),
    ("warning", lines("time-time.log", 0, 1), "GB0007"),
    (
        "warning",
        "/x/functions.py:2431: UserWarning: Dynamo does not know how to trace the builtin "
        "`math.gcd.` This function is either a Python builtin (e.g. _warnings.warn) or a "
        "third-party C/C++ Python extension (perhaps created with pybind).\n",
        "GB0007",
    ),
]

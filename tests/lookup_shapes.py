"""Parts of real torch 2.13.0 logs (tests/data/logs) that carry no `Explanation:` line, each with
the id it must find first, and the other shapes users paste (pasted_shapes: made from the
registry's texts): `gbsite lookup` (tests/test_search.py) and the browser
(tests/test_browser_search.py) are held to the same lists."""

from __future__ import annotations

import re
from collections.abc import Sequence

from conftest import DATA
from gbsite.search.model import SearchEntry

REASON = (
    "Graph Break Reason: Encountered graph break when attempting to trace CALL: a function call, "
    "e.g. f(x, y):\n\n"
)


def lines(log: str, start: int, stop: int) -> str:
    """Lines [start, stop) of a log, as a user would copy them."""
    return "".join((DATA / "logs" / log).read_text().splitlines(True)[start:stop])


# A registry-era traceback whose `Unsupported: ...` line was not copied: its frames name
# `call_function`, the start of an older message (torch 2.0 to 2.6), and only the explanation
# and context of today's GB0007 follow.
SKIPPED = [
    'File "/opt/venv/lib/python3.11/site-packages/torch/_dynamo/variables/functions.py", line '
    "1322, in call_function",
    "    unimplemented_v2(",
    "  Explanation: Dynamo developers have intentionally marked that the function `forward` in "
    "file `/opt/venv/lib/python3.11/site-packages/foo/bar.py` should not be traced.",
    "  Hint: Avoid calling the function `forward`.",
    "",
    "  Developer debug context: module: foo.bar, qualname: forward, skip reason: <missing reason>",
]

COUNTERS = (
    "defaultdict(<class 'collections.Counter'>, {'graph_break': Counter({'call_function "
    "BuiltinVariable(print) [ConstantVariable()] {}': 2, 'generic_jump TensorVariable()': 1}), "
    "'stats': Counter({'calls_captured': 4, 'unique_graphs': 2})})\n"
)

# (shape, text, id PyTorch linked for it, or the id the page explaining it has)
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
    # 5. Today's registry text before an older wording (issue 43): a registry-era log whose
    # traceback names `call_function` (the start of an older message) and whose header line
    # was not copied, so only the explanation and context of today's text match.
    ("registry first", "\n".join(SKIPPED) + "\n", "GB0007"),
    # 6. Older messages whose arguments decide today's id (registry/adjacent-messages.json).
    (
        "older, its arguments",
        "torch._dynamo.exc.Unsupported: call_function BuiltinVariable(print) "
        "[ConstantVariable()] {}",
        "GB0059",
    ),
    (
        "older, its arguments",
        "Unsupported: call_function BuiltinVariable(setattr) [TensorVariable(), "
        "ConstantVariable(str: 'requires_grad'), ConstantVariable(bool: True)] {}",
        "GB0206",
    ),
    (
        "older, its arguments",
        "torch._dynamo.exc.Unsupported: generic_jump DynamicShapeVariable()",
        "GB0170",
    ),
    # 7. Warnings and exceptions printed beside a break, which its page explains.
    (
        "beside a break",
        "W1128 12:00:00.123000 1234 torch/_dynamo/convert_frame.py:1995] torch._dynamo hit "
        "config.recompile_limit (8)\n   function: 'forward' (/home/user/model.py:40)\n",
        "GB0039",
    ),
    ("beside a break", "cache_size_limit reached", "GB0039"),
    (
        "beside a break",
        "[rank1]:W1128 12:00:00.123000 1234 torch/_dynamo/variables/tensor.py:1762] Graph break "
        "from `Tensor.item()`, consider setting:\n[rank1]:W1128     "
        "torch._dynamo.config.capture_scalar_outputs = True\n",
        "GB0124",
    ),
    ("beside a break", "DataDependentOutputException: aten._local_scalar_dense.default", "GB0033"),
    ("beside a break", "torch._dynamo.exc.ObservedKeyError", "GB0088"),
    # An older message the mining mapped to another id, corrected by a row (GB0023 -> GB0156);
    # one without placeholders, shorter than a template may be; torch 2.0 to 2.3's
    # graph_breaks line, `Graph break: <message> from user code at:`.
    (
        "older, corrected",
        "torch._dynamo.exc.Unsupported: call_method NNModuleVariable() eval [] {}\n",
        "GB0156",
    ),
    ("older, a literal", "torch._dynamo.exc.Unsupported: generator\n", "GB0003"),
    (
        "older graph_breaks line",
        "[2024-03-06 11:44:09,519] [15/0] torch._dynamo.symbolic_convert.__graph_breaks: [DEBUG] "
        "Graph break: call_method UserDefinedObjectVariable(Config) get [ConstantVariable(str)] {} "
        'from user code at:\n  File "/home/user/model.py", line 12, in forward\n',
        "GB0156",
    ),
    # 8. Framings: a progress bar glued to the type's line; torch._dynamo.explain()'s output;
    # torch._dynamo.utils.counters printed (each message of its graph_break Counter).
    ("counters", COUNTERS, "GB0059"),
    (
        "progress bar",
        "  0%|          | 0/100 [00:00<?, ?it/s]Attempted to call function marked as skipped\n"
        "  Explanation: Dynamo developers have intentionally marked that the function `forward` "
        "in file `/usr/lib/foo.py` should not be traced.\n",
        "GB0007",
    ),
    (
        "explain()",
        "Graph Count: 2\nGraph Break Count: 1\nOp Count: 3\nBreak Reasons:\n  Break Reason 1:\n"
        "    Reason: call_function BuiltinVariable(print) [ConstantVariable()] {}\n"
        "    User Stack:\n      <FrameSummary file /home/user/model.py, line 5 in forward>\n",
        "GB0059",
    ),
]


# ---- what users paste besides a whole log (issue 33), made from the registry's own texts ----

GLOG = "V0501 12:00:00.123000 1234 torch/_dynamo/symbolic_convert.py:123] [0/0] "
PROSE = "When I compile my model I get this:\n{}\nat the second call. Any idea what to do?"
OLD_PREFIX = "[2024-05-01 12:00:00,123] torch._dynamo.symbolic_convert: [WARNING] "


def _loose(text: str) -> str:
    return re.sub(r"[\s`*_]+", "", text)


def _filled(text: str) -> str:
    return re.sub(r"\{[^{}]*\}", "obj", text)


def eligible(entries: Sequence[SearchEntry]) -> list[SearchEntry]:
    """Current entries whose type (without placeholders) and explanation no other entry has
    in any wording, loosely compared, nor inside a longer one: a paste of either names one
    id. Ids are picked from these by position, never by name."""
    types: dict[str, set[str]] = {}
    explanations: dict[str, set[str]] = {}
    for e in entries:
        for t in e.texts:
            types.setdefault(_loose(t.gb_type), set()).add(e.id)
            explanations.setdefault(_loose(_filled(t.explanation)), set()).add(e.id)
    out = []
    for e in entries:
        t = e.texts[0]
        gb_type, explanation = _loose(t.gb_type), _loose(_filled(t.explanation))
        if (
            e.removed
            or "{" in t.gb_type
            or len(gb_type) < 20
            or len(explanation) < 40
            or not t.explanation.strip()[:1].isalpha()
            or types[gb_type] != {e.id}
            or explanations[explanation] != {e.id}
            or any(gb_type in other and e.id not in ids for other, ids in types.items())
            or any(explanation in o and e.id not in ids for o, ids in explanations.items())
        ):
            continue
        out.append(e)
    return out


def pasted_shapes(entries: Sequence[SearchEntry], count: int = 6) -> list[tuple[str, str, str]]:
    """(shape, text, id) for `count` entries spread over `eligible`: the shapes of issue 33."""
    pool = eligible(entries)
    assert len(pool) >= count, len(pool)
    picked = [pool[n * len(pool) // count] for n in range(count)]
    # and one whose texts have underscores or backticks for Markdown to eat
    marked = [e for e in pool if re.search(r"[`_]", e.texts[0].gb_type + e.texts[0].explanation)]
    out: list[tuple[str, str, str]] = []
    for e in [*picked, *marked[:1]]:
        gb_type, explanation = e.texts[0].gb_type, _filled(e.texts[0].explanation)
        message = f"{gb_type}\n  Explanation: {explanation}\n  Hint: none\n"
        shown = f"Unsupported({message!r})"  # Python's repr: one line, `\n` escaped
        # pytest's saferepr keeps the start and end of a long value, `...` between
        middle = shown.index("Explanation: ") + len("Explanation: ") + 25
        # how much of the type a cut-short summary line keeps: enough to name one type
        keep = next(
            n
            for n in range(12, len(gb_type) + 1)
            if len(_loose(gb_type[:n])) >= 12
            and {
                e2.id
                for e2 in entries
                for t in e2.texts
                if _loose(t.gb_type).startswith(_loose(gb_type[:n]))
            }
            == {e.id}
        )
        out += [
            ("mid-line", f"E       torch._dynamo.exc.Unsupported: {gb_type}", e.id),
            ("repr", f"E       assert {shown} is None", e.id),
            ("cut repr", f"E   assert {shown[:middle]}...{shown[-30:]}", e.id),
            (
                "cut type",
                f"FAILED t.py::test_f - torch._dynamo.exc.Unsupported: {gb_type[:keep]}...",
                e.id,
            ),
            ("type in prose", PROSE.format(gb_type), e.id),
            ("explanation in prose", PROSE.format(explanation), e.id),
            ("no colon", f"torch._dynamo.exc.Unsupported {gb_type}", e.id),
            ("repr alone", f"Unsupported({gb_type!r})", e.id),
            (
                "old prefix",
                "".join(
                    f"{OLD_PREFIX}{line}\n"
                    for line in (
                        "Graph break in user code at /a.py:3",
                        f"Graph Break Reason: {gb_type}",
                        f"  Explanation: {explanation}",
                    )
                ),
                e.id,
            ),
            (
                "glog prefix",
                "".join(
                    f"{GLOG}{line}\n"
                    for line in (f"Graph Break Reason: {gb_type}", f"  Explanation: {explanation}")
                ),
                e.id,
            ),
            (
                "markdown",
                "torch.dynamo.exc.Unsupported: "
                + re.sub(r"[`_]", "", gb_type)
                + "\nExplanation: "
                + re.sub(r"[`_]", "", explanation),
                e.id,
            ),
        ]
    return out

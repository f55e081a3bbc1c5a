"""shown.as_run: an example as the checker runs it, compile call written in where the driver
makes it (right after the top-level statement that binds NAME)."""

from __future__ import annotations

import ast
import types
from pathlib import Path

import pytest

from gbsite.examples.annotations import Annotation, Kind, parse_info
from gbsite.examples.shown import Shown, as_run

PROGRAM = """import torch


def fn(x):
    return x + 1


# a comment about the calls
fn(torch.ones(2))
fn(torch.ones(3))
"""


def annotation(info: str) -> Annotation:
    found = parse_info(info)
    assert found is not None
    return found


def test_the_call_follows_the_statement_that_binds_the_name() -> None:
    shown = as_run(PROGRAM, annotation("python gb-fix"))
    lines = shown.code.split("\n")
    assert shown.added == (8,)
    assert lines[7] == 'fn = torch.compile(fn, fullgraph=True, backend="eager")'
    # As a statement of its own: the blank lines after the function stay on both sides, and
    # the comment stays with the call it belongs to.
    assert lines[5:11] == ["", "", lines[7], "", "", "# a comment about the calls"]
    assert shown.code.replace(lines[7] + "\n\n\n", "") == PROGRAM


def test_what_is_shown_runs_as_the_driver_runs_it() -> None:
    """Executed with a torch whose compile records what it wraps, the shown program compiles
    `fn` once, before its first call, with the options of the fence."""
    events: list[str] = []
    fake = types.ModuleType("torch")

    def fake_compile(f, fullgraph=False, backend="inductor"):  # type: ignore[no-untyped-def]
        events.append(f"compile fullgraph={fullgraph} backend={backend}")

        def compiled(*args: object) -> object:
            events.append("call")
            return f(*args)

        return compiled

    fake.compile = fake_compile  # type: ignore[attr-defined]
    fake.ones = lambda n: n  # type: ignore[attr-defined]
    shown = as_run(PROGRAM, annotation("python gb-repro backend=aot_eager"))
    code = shown.code.replace("import torch\n", "")
    exec(compile(code, "<shown>", "exec"), {"torch": fake})  # the program under test
    assert events == ["compile fullgraph=True backend=aot_eager", "call", "call"]


def test_a_model_instance_and_a_missing_import() -> None:
    code = "from torch import nn\n\nmodel = nn.Linear(2, 2)\nmodel(x)\n"
    shown = as_run(code, annotation("python gb-repro compile=model"))
    assert shown.code.split("\n")[3:6] == [
        "import torch",
        'model = torch.compile(model, fullgraph=True, backend="eager")',
        "model(x)",
    ]
    assert shown.added == (4, 5)
    ast.parse(shown.code)


def test_a_break_only_a_logged_compile_reports() -> None:
    shown = as_run(PROGRAM, annotation("python gb-repro fullgraph=false"))
    added = [shown.code.split("\n")[n - 1] for n in shown.added]
    assert added == [
        'fn = torch.compile(fn, backend="eager")',
        "torch._logging.set_logs(graph_breaks=True)",
    ]


@pytest.mark.parametrize("info", ["python gb-repro compile=none", "python gb-wrong"])
def test_programs_that_compile_by_themselves_are_shown_as_written(info: str) -> None:
    shown = as_run(PROGRAM, annotation(info))
    assert shown.code == PROGRAM and shown.added == ()


def test_newer_syntax_than_this_python_is_placed_by_its_lines() -> None:
    """A block that needs python:3.12 may not parse here: its top-level lines place the call."""
    code = "import torch\n\n\ndef fn[T](x: T) -> T:\n    return x\n\n\nfn(1)\n"
    shown = as_run(code, Annotation(Kind.REPRO, needs="python:3.12"))
    assert shown.code.split("\n")[7] == 'fn = torch.compile(fn, fullgraph=True, backend="eager")'


def test_a_name_never_bound_is_shown_as_written() -> None:
    shown = as_run("import torch\n\nmodel(1)\n", annotation("python gb-repro compile=model"))
    assert shown.added == ()


def test_where_a_name_is_bound_is_found_once_in_a_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a command the parse of an example is kept with the parsed texts (parsed.py): the same
    code and name are not parsed again, in this command or the next, and give the same
    program; a name no statement binds is kept too."""
    from gbsite import parsed
    from gbsite.examples import shown

    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path / "cache"))
    parses: list[str] = []
    find = shown._find_binding

    def counted(text: str) -> tuple[int, bool, bool] | None:
        parses.append(text)
        return find(text)

    monkeypatch.setattr(shown, "_find_binding", counted)
    fix, other = annotation("python gb-fix"), annotation("python gb-fix compile=gn")
    fresh = as_run(PROGRAM, fix)
    with parsed.session():
        assert as_run(PROGRAM, fix) == fresh
        assert as_run(PROGRAM, other) == Shown(PROGRAM)  # nothing binds gn: shown as written
        assert as_run(PROGRAM, fix) == fresh
        assert as_run(PROGRAM, other) == Shown(PROGRAM)
    assert len(parses) == 3  # outside a command, then once for each name
    with parsed.session():
        assert as_run(PROGRAM, fix) == fresh
        assert as_run(PROGRAM, other) == Shown(PROGRAM)
    assert len(parses) == 3

"""`gbsite check --examples`: finding annotated blocks, running them, judging, recording."""

from __future__ import annotations

import html as html_module
import json
import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import Project, fake_torch, line_of, page
from gbsite.docs import files as docs
from gbsite.errors import GbsiteError
from gbsite.examples import annotations as examples
from gbsite.examples import record, runner
from gbsite.examples.judging import Result
from gbsite.examples.vocabulary import Outcome


@pytest.fixture(scope="module")
def fake_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A `python` whose `import torch` finds the stand-in (conftest.fake_torch)."""
    return fake_torch(tmp_path_factory.mktemp("faketorch"))[0]


def block(kind: str, code: str, gb_id: str = "GB0025", **options: str) -> examples.Block:
    a = examples.Annotation(kind, **options)
    return examples.Block(
        gb_id,
        Path("x.md"),
        1,
        a.kind,
        textwrap.dedent(code),
        a.compile_name,
        a.backend,
        a.needs,
        a.eager,
        recompiles=a.recompiles,
    )


def run_one(b: examples.Block, python: str, timeout: float = 60, **kw: bool) -> Result:
    [result] = runner.run_all([b], python, 1, timeout, **kw)
    return result


# What a graph break looks like, raised only when compiled, as PyTorch's would be.
BREAK = (
    'if __import__("torch").compiling: '
    'raise RuntimeError("For more details, please visit: https://x.io/gb/gb{}.html")'
)
EAGER_BUG = 'raise RuntimeError("For more details, please visit: https://x.io/gb/gb{}.html")'


@pytest.mark.repo_data
@pytest.mark.slow  # runs examples in child processes
@pytest.mark.parametrize(
    ("kind", "code", "passed", "summary"),
    [
        ("gb-repro", f"def fn():\n    {BREAK.format('0025')}\nfn()\n", True, "breaks with GB0025"),
        ("gb-repro", "def fn():\n    return 1\nfn()\n", False, "ran without a graph break"),
        (
            "gb-repro",
            f"def fn():\n    {BREAK.format('0029')}\nfn()\n",
            False,
            "raised graph break GB0029 instead of GB0025",
        ),
        (
            "gb-repro",
            "def fn():\n    raise ValueError('plain bug')\nfn()\n",
            False,
            "raised builtins.ValueError instead of GB0025",
        ),
        # The link is on the cause, as with GB0039's FailOnRecompileLimitHit.
        (
            "gb-repro",
            "def fn():\n    try:\n        " + BREAK.format("0025") + "\n"
            "    except RuntimeError as e:\n        raise KeyError('limit') from e\nfn()\n",
            True,
            "breaks with GB0025",
        ),
        ("gb-fix", "def fn(n):\n    return n\nfn(1)\nfn(2)\n", True, "runs without a graph break"),
        (
            "gb-fix",
            "def fn(n):\n    return n\nfn(1)\n",
            False,
            "called `fn` once; a gb-fix calls it at least 2 times",
        ),
        # The stand-in compiles anew for each new argument: three values, three compiles.
        (
            "gb-fix",
            "def fn(n):\n    return n\nfor n in range(3):\n    fn(n)\n",
            False,
            "3 calls of `fn` compiled it 3 times: a fix that recompiles",
        ),
        ("gb-fix", "def fn(n):\n    return n\nfn(1)\nfn(1)\nfn(2)\n", True, "runs without"),
        (
            "gb-fix",
            f"def fn():\n    {BREAK.format('0025')}\nfn()\n",
            False,
            "raised graph break GB0025; a gb-fix must run without any graph break",
        ),
        # The first call runs; the second, with another value, takes the path that breaks.
        (
            "gb-fix",
            f"def fn(n):\n    if n > 1:\n        {BREAK.format('0021')}\n"
            "    return n\nfn(1)\nfn(2)\n",
            False,
            "raised graph break GB0021; a gb-fix must run without any graph break",
        ),
        ("gb-fix", "def fn():\n    return 1\n", False, "`fn` was compiled but never called"),
        ("gb-fix", "def g():\n    return 1\ng()\n", False, "no top-level statement binds `fn`"),
        (
            "gb-fix",
            "from torch._not_in_this_release import Base\ndef fn():\n    return 1\nfn()\n",
            False,
            "raised builtins.ModuleNotFoundError before `fn` was bound",
        ),
        ("gb-fix", "def fn():\n    print('hi')\nfn()\n", False, "the program printed output"),
        ("gb-fix", "def fn(\n", False, "the program could not be run"),
        (
            "gb-repro",
            f"def fn():\n    {EAGER_BUG.format('0025')}\nfn()\n",
            False,
            "fails without torch.compile too (builtins.RuntimeError)",
        ),
        # What a repro prints when it runs uncompiled does not count: print may be the break.
        (
            "gb-repro",
            f"def fn():\n    {BREAK.format('0025')}\n    print('eager')\nfn()\n",
            True,
            "breaks with GB0025",
        ),
    ],
    ids=[
        "repro",
        "no break",
        "other id",
        "not a graph break",
        "link on the cause",
        "fix",
        "fix called once",
        "fix recompiles",
        "fix recompiles once",
        "fix breaks",
        "fix breaks on its second call",
        "never called",
        "not bound",
        "import fails first",
        "noisy",
        "syntax error",
        "fails in eager too",
        "prints in eager",
    ],
)
@pytest.mark.parametrize("fresh", [False, True], ids=["forked", "fresh"])
def test_judging(
    fake_python: str, kind: str, code: str, passed: bool, summary: str, fresh: bool
) -> None:
    result = run_one(block(kind, code), fake_python, fresh=fresh)
    assert result.passed is passed, result
    assert result.summary.startswith(summary), result.summary
    assert "\n" not in result.summary
    assert result.torch == ("2.13.0+fake" if "could not" not in summary else None)


@pytest.mark.repo_data
def test_eager_raises_option(fake_python: str) -> None:
    """A repro whose code fails in plain PyTorch too says so on its fence, and must then fail."""
    bug = f"def fn():\n    {EAGER_BUG.format('0025')}\nfn()\n"
    assert run_one(block("gb-repro", bug, eager="raises"), fake_python).passed
    fine = f"def fn():\n    {BREAK.format('0025')}\nfn()\n"
    result = run_one(block("gb-repro", fine, eager="raises"), fake_python)
    assert not result.passed
    assert "runs without error in plain eager PyTorch, but the fence says eager=raises" in (
        result.summary
    )


@pytest.mark.repo_data
def test_a_repro_that_stops_breaking_must_have_called_twice(fake_python: str) -> None:
    """A newer torch that compiles a repro's first call has not been shown to fix the break
    (a second call with other inputs may break again): once is `once`, twice is `no-break`."""
    once = run_one(block("gb-repro", "def fn(x):\n    return x\nfn(1)\n"), fake_python)
    assert once.outcome == record.ONCE and not once.passed
    assert "having called `fn` once" in once.summary and "add a second call" in once.summary
    twice = run_one(block("gb-repro", "def fn(x):\n    return x\nfn(1)\nfn(2)\n"), fake_python)
    assert twice.outcome == record.NO_BREAK


@pytest.mark.repo_data
def test_compile_option_names_the_callable(fake_python: str) -> None:
    code = "class M:\n    def __call__(self):\n        return 1\nmodel = M()\nmodel()\nmodel()\n"
    assert run_one(block("gb-fix", code, compile_name="model"), fake_python).passed


@pytest.mark.repo_data
@pytest.mark.slow  # runs examples in child processes
def test_a_fix_that_recompiles_as_its_inputs_change_says_so(
    project: Project, fake_python: str
) -> None:
    """recompiles=yes lets a fix compile more than twice; its page must then name the limit,
    which `gbsite check` holds it to without torch."""
    per_value = "def fn(n):\n    return n\nfor n in range(3):\n    fn(n)\n"
    assert run_one(block("gb-fix", per_value, recompiles="yes"), fake_python).passed
    fence = f"```python gb-fix recompiles=yes\n{per_value}```\n"
    path = page(project, "GB0025", fence)
    result = project.run("check")
    assert result.code == 1
    assert (
        f"gb0025.md:{line_of(path, 'gb-fix')}: a fix with recompiles=yes is on a page whose "
        "prose does not name torch._dynamo.config.recompile_limit (default 8)"
    ) in result.out
    page(project, "GB0025", "Each new `n` compiles again, up to `recompile_limit`.\n\n" + fence)
    assert project.run("check").code == 0


@pytest.mark.repo_data
@pytest.mark.slow  # runs examples in child processes
@pytest.mark.parametrize("fresh", [False, True], ids=["forked", "fresh"])
def test_timeout(fake_python: str, fresh: bool) -> None:
    started = time.monotonic()
    [slow, quick] = runner.run_all(
        [
            block("gb-fix", "import time\ndef fn():\n    time.sleep(30)\nfn()\n"),
            block("gb-fix", "def fn():\n    return 1\nfn()\nfn()\n"),
        ],
        fake_python,
        2,
        timeout=2,
        fresh=fresh,
    )
    assert not slow.passed and slow.summary == "did not finish within 2 s"
    assert quick.passed
    assert time.monotonic() - started < 20


@pytest.mark.repo_data
def test_every_block_runs_in_a_process_of_its_own(fake_python: str) -> None:
    """What one example leaves in its process (a module attribute, the environment, a file in
    its folder) is gone for the next, although the forked runs share one warm server."""
    leak = (
        "import os, torch\n"
        "assert not hasattr(torch, 'leaked') and 'LEAKED' not in os.environ\n"
        "assert not os.path.exists('left.txt')\n"
        "torch.leaked = os.environ['LEAKED'] = '1'\n"
        "open('left.txt', 'w').close()\n"
        "def fn():\n    return os.getpid()\n"
        "fn()\nfn()\n"
    )
    results = runner.run_all([block("gb-fix", leak) for _ in range(6)], fake_python, 2, 60)
    assert all(r.passed for r in results), [r.details for r in results]


@pytest.mark.repo_data
def test_a_crashing_example_is_reported_and_the_others_run(fake_python: str) -> None:
    crash = "import os\ndef fn():\n    os._exit(3)\nfn()\n"
    ok = "def fn():\n    return 1\nfn()\nfn()\n"
    crashed, fine = runner.run_all(
        [block("gb-fix", crash), block("gb-fix", ok)], fake_python, 2, 60
    )
    assert not crashed.passed and crashed.summary == "the interpreter died (exit 3)"
    assert fine.passed


@pytest.mark.repo_data
@pytest.mark.slow  # runs examples in child processes
def test_blocks_that_need_what_the_checker_lacks_are_not_run(
    project: Project, fake_python: str
) -> None:
    page(
        project,
        "GB0025",
        """
        ```yaml gb-status
        status: environment
        needs: cuda
        source: torch/_dynamo/variables/builtin.py
        function: BuiltinVariable.call_function
        reason: Only a CUDA tensor takes this path.
        ```

        ```python gb-repro needs=cuda
        raise SystemExit("never run")
        ```
        """,
    )
    result = project.run("check", "--examples", "GB0025", "--python", fake_python)
    assert "0 blocks" in result.out


@pytest.mark.repo_data
@pytest.mark.parametrize(
    ("kind", "code", "passed", "summary"),
    [
        # An export that stops with a graph break: the program raises it by itself.
        ("gb-repro", EAGER_BUG.format("0025") + "\n", True, "breaks with GB0025"),
        ("gb-repro", EAGER_BUG.format("0029") + "\n", False, "raised graph break GB0029"),
        ("gb-repro", "x = 1\n", False, "ran without a graph break"),
        ("gb-fix", "x = 1\n", True, "runs without a graph break"),
        ("gb-fix", "import sys\nsys.stderr.write('warn')\n", False, "the program wrote to"),
    ],
    ids=["repro", "other id", "no break", "fix", "noisy fix"],
)
def test_a_program_that_compiles_by_itself_runs_once_as_written(
    fake_python: str, kind: str, code: str, passed: bool, summary: str
) -> None:
    """compile=none: no callable is rebound and a repro has no eager run (its program calls
    torch.export or torch.compile itself), so failing as written is what it promises."""
    result = run_one(block(kind, code, compile_name="none"), fake_python)
    assert result.passed is passed, result
    assert result.summary.startswith(summary), result.summary


@pytest.mark.parametrize(
    ("info", "expected"),
    [
        ("python", None),
        ("python gb-repro", examples.Annotation("gb-repro", "fn", "eager")),
        (
            "python gb-fix compile=model backend=inductor",
            examples.Annotation("gb-fix", "model", "inductor"),
        ),
        ("python gb-repro needs=cuda", examples.Annotation("gb-repro", needs="cuda")),
        (
            "python gb-fix needs=package:triton",
            examples.Annotation("gb-fix", needs="package:triton"),
        ),
        ("python gb-repro eager=raises", examples.Annotation("gb-repro", eager="raises")),
        ("python gb-fix needs=python:3.12", examples.Annotation("gb-fix", needs="python:3.12")),
        (
            "python gb-repro needs=without:numpy",
            examples.Annotation("gb-repro", needs="without:numpy"),
        ),
        ("python gb-repro fullgraph=false", examples.Annotation("gb-repro", fullgraph="false")),
        ("python gb-repro compile=none", examples.Annotation("gb-repro", "none")),
        ("python gb-fix since=2.15.0", examples.Annotation("gb-fix", since="2.15.0")),
        ("python gb-fix recompiles=yes", examples.Annotation("gb-fix", recompiles="yes")),
    ],
)
def test_info_strings(info: str, expected: object) -> None:
    assert examples.parse_info(info) == expected


@pytest.mark.parametrize(
    "info",
    [
        "py gb-repro",
        "gb-repro",
        "python gb-fix fullgraph=False",
        "python gb-repro gb-fix",
        "python gb-fix compile=a.b(c)",
        "python gb-repro needs=gpu",
        "python gb-fix eager=raises",
        "python gb-repro eager=passes",
        "python gb-fix fullgraph=false",
        "python gb-repro needs=python:2.7",
        "python gb-repro fullgraph=true",
        "python gb-repro compile=none eager=raises",
        "python gb-fix compile=none backend=inductor",
        "python gb-repro needs=export",
        "python gb-fix since=next",
        "python gb-fix recompiles=no",
        "python gb-repro recompiles=yes",
        "python gb-fix compile=none recompiles=yes",
    ],
)
def test_bad_info_strings(info: str) -> None:
    with pytest.raises(ValueError):
        examples.parse_info(info)


@pytest.mark.repo_data
def test_blocks_are_found_with_their_file_lines(project: Project) -> None:
    path = page(
        project,
        "GB0025",
        """
        Intro.

        ```python gb-repro
        fn()
        ```

        - In a list:

          ```python gb-fix compile=model
          model()
          ```

        ```python
        only_shown()
        ```
        """,
    )
    found = examples.blocks_of("GB0025", docs.read(path))
    assert [(b.kind, b.line, b.compile_name, b.code) for b in found] == [
        ("gb-repro", line_of(path, "```python gb-repro"), "fn", "fn()\n"),
        ("gb-fix", line_of(path, "```python gb-fix"), "model", "model()\n"),
    ]


@pytest.mark.repo_data
@pytest.mark.slow  # runs examples in child processes
def test_bad_info_string_is_reported_with_file_and_line(project: Project) -> None:
    path = page(project, "GB0025", "```python gb-repro strict=True\nfn()\n```\n")
    result = project.run("check", "--examples", "--python", sys.executable)
    assert result.code == 2
    assert f"gb0025.md:{line_of(path, 'gb-repro')}: unknown option `strict=True`" in result.err


@pytest.mark.repo_data
@pytest.mark.slow  # runs examples in child processes
def test_check_examples_reports_and_records(project: Project, fake_python: str) -> None:
    good = page(
        project,
        "GB0025",
        f"```python gb-repro\ndef fn():\n    {BREAK.format('0025')}\n"
        "fn()\n```\n\n```python gb-fix\ndef fn():\n    return 1\nfn()\nfn()\n```\n",
    )
    bad = page(
        project, "GB0029", "```python gb-repro\ndef fn(x):\n    return x\nfn(1)\nfn(2)\n```\n"
    )
    result = project.run(
        "check", "--examples", "GB0025", "GB0029", "--python", fake_python, "--jobs", "2"
    )
    assert result.code == 1
    bad_line = line_of(bad, "gb-repro")
    assert re.search(
        rf"gb0029\.md:{bad_line}: gb-repro ran without a graph break "
        r"\(expected GB0029\)",
        result.out,
    )
    assert "2 passed, 1 failed (torch 2.13.0+fake," in result.out
    record_file = project.root / "docs" / "verified-examples.yaml"
    runs = record.read(record_file)
    good_blocks = examples.blocks_of("GB0025", docs.read(good))
    failing = {b.digest for b in examples.blocks_of("GB0029", docs.read(bad))}
    assert {b.key for b in good_blocks} <= set(runs.rows) and not failing & {
        d for _, d in runs.rows
    }
    # Recorded for the release: the build (`+fake`, `+cpu`) is not part of it.
    assert {runs.verified_with(b.key, b.kind, "2.13.0") for b in good_blocks} == {"2.13.0"}
    others = {k for k, row in runs.rows.items() if row.id not in ("GB0025", "GB0029")}
    assert len(others) > 50  # the pages not checked keep their outcomes
    # Checking one page again changes nothing about the others.
    result = project.run("check", "--examples", "GB0029", "--python", fake_python)
    assert result.code == 1
    assert record.read(record_file).rows == runs.rows


@pytest.mark.repo_data
@pytest.mark.slow  # runs examples in child processes
def test_without_torch(project: Project) -> None:
    page(project, "GB0025", "```python gb-repro\nfn()\n```\n")
    result = project.run("check", "--examples", "GB0025", "--python", sys.executable)
    if result.code == 2:
        assert "has no torch: checking examples needs it" in result.err
        assert "pip install 'gbsite[examples]'" in result.err
    else:
        pytest.skip("this Python has torch")


@pytest.mark.repo_data
@pytest.mark.slow  # builds the whole site
def test_site_says_which_examples_are_verified(history: Project, fake_python: str) -> None:
    project = history  # its examples run against 2.13.0, 2.14.1 and 2.15.0, whatever is added
    path = page(
        project, "GB0025", f"```python gb-repro\ndef fn():\n    {BREAK.format('0025')}\nfn()\n```\n"
    )
    assert project.run("check", "--examples", "GB0025", "--python", fake_python).code == 0
    assert project.run("build").code == 0
    html = (project.site / "gb" / "gb0025.html").read_text()
    assert (
        "Breaks with GB0025 when compiled as highlighted"
        ' · <span class="outcomes">torch <span class="verified">2.13.0 breaks</span> · '
        '<span class="unverified">2.14.1 not run</span> · '
        '<span class="unverified">2.15.0 not run</span></span>'
    ) in html
    # The code shown is the program that ran: the compile call the checker adds, marked.
    shown = html[html.index('data-kind="gb-repro"') :]
    shown = html_module.unescape(re.sub(r"<[^>]+>", "", shown[: shown.index("</pre>")]))
    assert '\nfn = torch.compile(fn, fullgraph=True, backend="eager")\n' in shown
    path.write_text(path.read_text().replace("fn()\n```", "fn()  # edited\n```"))
    assert project.run("build").code == 0
    html = (project.site / "gb" / "gb0025.html").read_text()
    assert "not run yet: CI runs it" in html  # changed code


# ---- with real PyTorch ---------------------------------------------------------------------


def torch_python() -> str:
    candidate = os.environ.get("GBSITE_TORCH_PYTHON", sys.executable)
    probe = subprocess.run([candidate, "-c", "import torch"], capture_output=True)
    if probe.returncode != 0:
        if os.environ.get("CI") == "true":
            pytest.fail("torch is not installed; under CI=true the examples must be checked")
        pytest.skip("torch not installed (pip install 'gbsite[examples]')")
    return candidate


MODULE_FIX = """
import torch
from torch._dynamo.eval_frame import OptimizedModule


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.lin(x).relu()


model = Net()
# The compiled run has the OptimizedModule; its uncompiled twin (compare.py), the module.
compiled = isinstance(model, OptimizedModule)
assert isinstance(model, torch.nn.Module)
prefix = "_orig_mod." if compiled else ""
assert list(model.state_dict()) == [f"{prefix}lin.weight", f"{prefix}lin.bias"]
assert sum(p.numel() for p in model.parameters()) == 10 and model.lin.out_features == 2
model(torch.randn(3, 4))
"""


@pytest.mark.examples
def test_calls_of_the_compiled_callable_are_counted() -> None:
    """A compiled module stays the OptimizedModule torch.compile made (its class, parameters,
    state_dict and attributes) while its calls, through __call__ or forward, are counted; a
    fix must make two, and recompile at most once unless it says so."""
    python = torch_python()
    once, twice, per_key, announced = runner.run_all(
        [
            block("gb-fix", MODULE_FIX, compile_name="model"),
            block(
                "gb-fix", MODULE_FIX + "model.forward(torch.randn(5, 4))\n", compile_name="model"
            ),
            block("gb-fix", PER_KEY),
            block("gb-fix", PER_KEY, recompiles="yes"),
        ],
        python,
        2,
        120,
    )
    assert not once.passed and once.outcome == record.ONCE
    assert once.summary.startswith("called `model` once; a gb-fix calls it at least 2 times")
    assert twice.passed, twice
    assert twice.summary == (
        "runs without a graph break, 2 calls, the same values as eager (2 calls)"
    ), twice
    # Three sizes: one recompile, the sizes then dynamic. Three keys: a graph for each.
    assert not per_key.passed and per_key.outcome == record.RECOMPILES, per_key
    assert per_key.summary.startswith("5 calls of `fn` compiled it 4 times")
    assert announced.passed, announced


# Fixes that compute, compiled, other than they do without torch.compile: the compiled code
# takes the other branch of torch.compiler.is_compiling().
OTHER_VALUE = """
import torch


def fn(x):
    return x + (2 if torch.compiler.is_compiling() else 1)


fn(torch.ones(2))
fn(torch.ones(3))
"""
# The same values, but the gradient flows through the compiled branch twice over.
OTHER_GRADIENT = """
import torch

w = torch.ones(3, requires_grad=True)


def fn(x):
    y = w * x
    k = 2.0 if torch.compiler.is_compiling() else 1.0
    return (y.detach() + (y - y.detach()) * k).sum()


fn(torch.ones(3)).backward()
fn(torch.full((3,), 2.0)).backward()
"""
# Within float32's tolerance: a relative difference of 1e-7.
CLOSE_ENOUGH = """
import torch

w = torch.randn(4, requires_grad=True)


def fn(x):
    return (w * x * (1 + 1e-7 if torch.compiler.is_compiling() else 1.0)).sum()


fn(torch.randn(4)).backward()
fn(torch.randn(4)).backward()
"""
EAGER_FAILS = """
import torch


def fn(x):
    if not torch.compiler.is_compiling():
        raise ValueError("only works compiled")
    return x + 1


fn(torch.ones(2))
fn(torch.ones(3))
"""


@pytest.mark.examples
def test_a_fix_must_compute_what_eager_computes() -> None:
    """Each fix runs again without torch.compile, with the same seeds: a call that returns
    another value, or a gradient the program leaves that differs, fails it with the largest
    difference; so does a fix that fails uncompiled. Within the dtype's tolerance it passes."""
    python = torch_python()
    value, gradient, close, eager = runner.run_all(
        [
            block("gb-fix", OTHER_VALUE),
            block("gb-fix", OTHER_GRADIENT),
            block("gb-fix", CLOSE_ENOUGH),
            block("gb-fix", EAGER_FAILS),
        ],
        python,
        2,
        120,
    )
    assert not value.passed and value.outcome == record.DIFFERS, value
    assert value.summary.startswith("differs from eager: call 1's result: ")
    assert value.summary.endswith("largest difference 1"), value.summary
    assert not gradient.passed and gradient.outcome == record.DIFFERS, gradient
    assert gradient.summary.startswith("differs from eager: w.grad: "), gradient.summary
    assert "largest difference 3" in gradient.summary  # 1+2 against 2+4
    assert close.passed, close
    assert close.summary.endswith("the same values as eager (2 calls, 1 gradients)"), close
    assert not eager.passed and eager.outcome == record.EAGER_FAILS, eager
    assert "ValueError: only works compiled" in eager.summary


# Sizes 3, 5 and 7, then a dict key per call: Dynamo guards on the string's value.
PER_KEY = """
import torch

SCALE = {"a": 1.0, "b": 2.0, "c": 3.0}


def fn(x, key="a"):
    return x * SCALE[key]


for n in (3, 5, 7):
    fn(torch.randn(n))
for key in "bc":
    fn(torch.randn(7), key)
"""


@pytest.mark.slow
@pytest.mark.examples
def test_real_torch_failures_are_reported_with_file_and_line(project: Project) -> None:
    python = torch_python()
    # register_hook on an intermediate tensor no longer breaks in torch 2.13.0, although the
    # previous site's GB0029 page says it does; print() breaks with GB0059, not GB0025.
    hook = page(
        project,
        "GB0029",
        """
        ```python gb-repro
        import torch

        def fn(x):
            y = x * 2
            y.register_hook(lambda grad: grad + 1)
            return y.sum()

        fn(torch.randn(3, requires_grad=True))
        fn(torch.randn(5, requires_grad=True))
        ```
        """,
    )
    other = page(
        project,
        "GB0025",
        """
        ```python gb-repro
        import torch

        def fn(x):
            print("tracing", x.shape)
            return x + 1

        fn(torch.randn(3))
        ```
        """,
    )
    result = project.run("check", "--examples", "GB0029", "GB0025", "--python", python)
    assert result.code == 1, result.out + result.err
    assert (
        f"gb0029.md:{line_of(hook, 'gb-repro')}: gb-repro ran without a graph break "
        "(expected GB0029)"
    ) in result.out
    assert (
        f"gb0025.md:{line_of(other, 'gb-repro')}: gb-repro raised graph break GB0059 "
        "instead of GB0025"
    ) in result.out


@pytest.mark.repo_data
@pytest.mark.slow  # runs examples in child processes
def test_github_annotations_for_failing_examples(project: Project, fake_python: str) -> None:
    bad = page(
        project, "GB0029", "```python gb-repro\ndef fn(x):\n    return x  # 100%\nfn(1)\n```\n"
    )
    result = project.run(
        "check", "--examples", "GB0029", "--python", fake_python, "--format", "github"
    )
    assert result.code == 1
    [annotation] = [ln for ln in result.out.splitlines() if ln.startswith("::error")]
    assert annotation.startswith(
        f"::error file={bad},line={line_of(bad, 'gb-repro')}::gb-repro ran without a graph break"
    )


@pytest.mark.repo_data
@pytest.mark.slow  # a whole-project command
def test_malformed_record_is_a_clear_error(project: Project) -> None:
    record = project.root / "docs" / "verified-examples.yaml"
    record.write_text("verified:\n- sha256: abc\n")  # no torch, no id
    result = project.run("build")
    assert result.code == 2
    assert re.search(r"verified-examples\.yaml(:\d+)?: not a record of examples", result.err)


@pytest.mark.repo_data
@pytest.mark.slow  # runs examples in child processes
def test_changed_runs_only_blocks_without_a_record(project: Project, fake_python: str) -> None:
    path = page(
        project,
        "GB0025",
        f"```python gb-repro\ndef fn():\n    {BREAK.format('0025')}\nfn()\n```\n\n"
        "```python gb-fix\ndef fn():\n    return 1\nfn()\nfn()\n```\n",
    )
    args = ("check", "--examples", "GB0025", "--python", fake_python, "--changed")
    first = project.run(*args)
    assert first.code == 0 and "check --examples: 2 blocks" in first.out
    again = project.run(*args)
    assert again.code == 0 and "check --examples: 0 blocks" in again.out
    path.write_text(path.read_text().replace("return 1", "return 2"))
    edited = project.run(*args)
    assert "check --examples: 1 blocks" in edited.out and "1 passed, 0 failed" in edited.out
    runs = record.read(project.root / "docs" / "verified-examples.yaml")
    mine = [row for row in runs.rows.values() if row.id == "GB0025"]
    # The edited fix replaced the old one; the repro kept its outcome.
    assert sorted((row.kind, str(row.outcomes["2.13.0"])) for row in mine) == [
        ("gb-fix", str(record.RUNS)),
        ("gb-repro", str(record.BREAKS)),
    ]


@pytest.mark.repo_data
@pytest.mark.slow  # runs examples in child processes
def test_json_output(project: Project, fake_python: str) -> None:
    page(project, "GB0029", "```python gb-repro\ndef fn(x):\n    return x\nfn(1)\n```\n")
    result = project.run(
        "check", "--examples", "GB0029", "--python", fake_python, "--format", "json"
    )
    assert result.code == 1
    report = json.loads(result.out)
    assert report["ok"] is False and report["torch"] == "2.13.0+fake"
    [run] = report["results"]
    assert run["id"] == "GB0029" and run["kind"] == "gb-repro" and run["passed"] is False
    assert report["problems"][0]["message"].startswith("gb-repro ran without a graph break")


@pytest.mark.slow
@pytest.mark.examples
def test_a_break_only_the_graph_break_log_shows(project: Project) -> None:
    """GB0066 is never raised under fullgraph=True (the first break is); with fullgraph=false a
    repro runs to the end and passes when the graph-break log links to the page."""
    python = torch_python()
    program = """
        import torch


        class Section:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False


        def fn(x):
            with Section():
                torch._dynamo.graph_break()
            return x + 1


        fn(torch.randn(2))
    """
    fence = "```python gb-repro fullgraph=false\n{}```\n"
    good = page(project, "GB0066", fence.format(textwrap.dedent(program)))
    bare = textwrap.dedent(program).replace("    with Section():\n        torch", "    torch")
    other = page(project, "GB0025", fence.format(bare))
    result = project.run("check", "--examples", "GB0066", "GB0025", "--python", python)
    assert f"gb0066.md:{line_of(good, 'gb-repro')}: gb-repro: logs GB0066 as a graph break" in (
        result.out
    )
    assert f"gb0025.md:{line_of(other, 'gb-repro')}: gb-repro: logs GB0025" in result.out
    page(project, "GB0066", fence.format(bare))
    result = project.run("check", "--examples", "GB0066", "--python", python)
    assert result.code == 1 and "gb-repro logged GB0025 instead of GB0066" in result.out


# ---- gb-wrong: a silent wrong result ---------------------------------------------------------

# A stand-in for a value torch.compile gets wrong: the program compares the two as a real one
# compares eager and compiled results, and ends by asserting that they differ.
WRONG_VALUE = "import torch\nexpected, got = '2', {}\nassert got != expected\n"


@pytest.mark.repo_data
@pytest.mark.parametrize(
    ("code", "outcome", "summary"),
    [
        (WRONG_VALUE.format("2"), record.WRONG, "torch.compile gives a wrong value"),
        (WRONG_VALUE.format("'2'"), record.CORRECT, "its final assert failed"),
        # Only the last statement's assertion says that the value is right.
        (
            "assert 1 == 2\n" + WRONG_VALUE.format("2"),
            record.ERROR,
            "raised builtins.AssertionError; a gb-wrong runs to its final assert",
        ),
        (
            "raise ValueError('internal')\nassert 1 != 2\n",
            record.ERROR,
            "raised builtins.ValueError; a gb-wrong runs to its final assert",
        ),
        ("got = 2\n", record.ERROR, "a gb-wrong ends with an assert"),
        ("print(2)\nassert 1 != 2\n", record.ERROR, "the program printed output"),
    ],
    ids=["wrong", "correct", "other assert", "raises", "no assert", "noisy"],
)
def test_a_wrong_value_is_judged_on_its_final_assert(
    fake_python: str, code: str, outcome: Outcome, summary: str
) -> None:
    result = run_one(block("gb-wrong", code, compile_name="none"), fake_python)
    assert (result.outcome, result.passed) == (outcome, outcome == record.WRONG), result
    assert result.summary.startswith(summary), result.summary


@pytest.mark.parametrize(
    "info", ["python gb-wrong compile=fn", "python gb-wrong needs=cuda", "python gb-wrong x"]
)
def test_a_gb_wrong_block_takes_no_options(info: str) -> None:
    with pytest.raises(ValueError, match="a gb-wrong block takes no options"):
        examples.parse_info(info)
    assert examples.parse_info("python gb-wrong") == examples.Annotation("gb-wrong", "none")


@pytest.mark.repo_data
def test_wrong_values_are_recorded_and_read_back(project: Project) -> None:
    path = project.root / "docs" / "verified-examples.yaml"
    sha = "ab" * 32
    row = f"blocks:\n- id: GB0025\n  kind: gb-wrong\n  sha256: {sha}\n  outcomes:\n"
    path.write_text(row + "    2.13.0: wrong\n    2.15.0: correct\n")
    assert record.read(path).outcome(("GB0025", sha), "2.15.0") == record.CORRECT
    for bad, why in (
        (row + "    2.13.0: wrongly\n", "unknown outcome 'wrongly'"),
        (row.replace("gb-wrong", "gb-warn") + "    2.13.0: wrong\n", "kind is gb-repro, gb-fix"),
    ):
        path.write_text(bad)
        with pytest.raises(GbsiteError, match=why):
            record.read(path)


@pytest.mark.repo_data
def test_a_wrong_value_is_shown_in_a_warning_box(history: Project, fake_python: str) -> None:
    """The page warns with the block and its outcome by release; the page's coverage is what
    its other blocks make it (a gb-wrong is no example of the break)."""
    project = history
    path = page(project, "GB0025", f"```python gb-wrong\n{WRONG_VALUE.format('2')}```\n")
    before = project.run("coverage", "--format", "json").out
    assert project.run("check", "--examples", "GB0025", "--python", fake_python).code == 0
    assert project.run("check", "--record").code == 0  # recorded `wrong` with its home release
    assert project.run("coverage", "--format", "json").out == before
    assert project.run("build").code == 0
    html = (project.site / "gb" / "gb0025.html").read_text()
    box = html[
        html.index(
            '<figure class="code-example markdown-alert markdown-alert-caution" '
            'data-kind="gb-wrong">'
        ) :
    ]
    box = box[: box.index("</figure>")]
    assert '<p class="markdown-alert-title">Silent wrong result</p>' in box
    # What it promised (a wrong value) is a warning, never styled as a success.
    assert '<span class="wrong">2.13.0 gives a wrong value</span>' in box
    # The page says so at its top, linking to the section that shows it.
    head = html[html.index('<header class="entry-head">') :]
    head = head[: head.index("</header>")]
    assert "Silent wrong result</strong>" in head and "with torch 2.13.0" in head
    assert 'href="#wrong-result"' in head and 'id="wrong-result"' in html
    assert '<span class="unverified">2.15.0 not run</span>' in box
    assert '<span class="n">expected</span>' in box  # the program, highlighted, in the box
    shown = project.run("show", "GB0025").out
    assert "Silent wrong result" in shown and "2.13.0 gives a wrong value" in shown
    # Recorded `correct` with its home release, it warns of nothing: check --record says so.
    key = examples.blocks_of("GB0025", docs.read(path))[0].key
    runs = record.read(project.root / "docs" / "verified-examples.yaml")
    row = runs.rows[key]
    record.write(
        project.root / "docs" / "verified-examples.yaml",
        record.Record(
            {
                **runs.rows,
                key: record.Row(row.id, row.kind, 0, row.sha256, {"2.13.0": record.CORRECT}),
            }
        ),
    )
    result = project.run("check", "--record")
    assert result.code == 1
    assert "gb-wrong is recorded as `correct` with torch 2.13.0" in result.out + result.err

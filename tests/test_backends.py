"""The backend users run: `check --examples --backend inductor` runs the fixes compiled with it
instead of eager, each to compute what eager computes; the outcomes go to the record's
`RELEASE/BACKEND` column, CI's outcomes files carry it through `ci merge`, and the pages show it
beside the release's outcomes. A fix the backend cannot run fails until its failure is
accepted (`--accept`), after its page says so."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import Project, fake_torch, page
from gbsite.docs import files as docs
from gbsite.errors import GbsiteError
from gbsite.examples import annotations as examples
from gbsite.examples import outcomes, record
from gbsite.examples.captions import ExampleCaptions
from gbsite.examples.vocabulary import Did, Outcome

BREAK = (
    'if __import__("torch").compiling: '
    'raise RuntimeError("For more details, please visit: https://x.io/gb/gb0025.html")'
)
# A fix that fails only when compiled with inductor (as one that a backend cannot compile
# would), the stand-in torch telling which backend compiled it.
PAGE = f"""
### Why this happens

The model reads a flag that only exists while it is being compiled.

```python gb-repro
def fn(x):
    {BREAK}
    return x


fn(1)
```

### How to fix it

```python gb-fix
def fn(x):
    return x + 1


fn(1)
fn(2)
```

```python gb-fix
import torch


def fn(x):
    if torch.compiling and torch.backend_used == "inductor":
        raise RuntimeError("the backend cannot compile this")
    return x


fn(1)
fn(2)
```
"""


def fixes(path: Path) -> list[examples.Block]:
    return [b for b in examples.blocks_of("GB0025", docs.read(path)) if b.kind == examples.FIX]


@pytest.mark.repo_data
@pytest.mark.slow  # runs examples in child processes
def test_fixes_run_with_inductor_must_do_what_they_promise_with_it(
    project: Project, tmp_path: Path
) -> None:
    python, _ = fake_torch(tmp_path / "torch")
    path = page(project, "GB0025", PAGE)
    right, wrong = fixes(path)
    file = project.root / "docs" / "verified-examples.yaml"
    # With its own backend (eager) every block does what it promises.
    assert project.run("check", "--examples", "GB0025", "--python", python).code == 0
    before = record.read(file)
    assert before.outcome(wrong.key, "2.13.0") == record.RUNS
    result = project.run(
        "check", "--examples", "GB0025", "--python", python, "--backend", "inductor"
    )
    said = result.out + result.err
    assert result.code == 1, said
    assert "2 blocks with torch 2.13.0+fake and inductor" in said  # the fixes, not the repro
    assert f"gb0025.md:{wrong.line}: gb-fix with inductor: raised builtins.RuntimeError" in said
    after = record.read(file)
    assert after.outcome(right.key, "2.13.0/inductor") == record.RUNS
    assert after.outcome(wrong.key, "2.13.0/inductor") is None  # failed: not recorded
    # The release's own column is left as it was.
    assert {k: r.outcomes.get("2.13.0") for k, r in after.rows.items()} == {
        k: r.outcomes.get("2.13.0") for k, r in before.rows.items()
    }
    # --changed runs only the fixes without an inductor outcome: the wrong one again.
    args = ("check", "--examples", "GB0025", "--python", python, "--backend", "inductor")
    again = project.run(*args, "--changed")
    assert again.code == 1 and "1 blocks with torch 2.13.0+fake and inductor" in again.out
    # Once its page says that inductor cannot do it, the failure is recorded with --accept,
    # shown beside the release's outcome, and a later run holds the fix to it.
    assert project.run(*args, "--accept").code == 0
    failed = record.read(file).outcome(wrong.key, "2.13.0/inductor")
    assert failed is not None and failed != record.RUNS
    later = project.run(*args)
    assert later.code == 0, later.out
    assert "with torch 2.13.0 and inductor (recorded)" in later.out
    # Coverage counts the fixes by what they did with the backend.
    found = json.loads(project.run("coverage", "--release", "2.13.0", "--format", "json").out)
    counts = found["backends"]["inductor"]
    assert counts["passed"] >= 1 and counts["failed"] == 1
    assert (
        "gb-fix blocks compiled with inductor: "
        in project.run("coverage", "--release", "2.13.0").out
    )


def test_the_record_keeps_a_column_per_backend(tmp_path: Path) -> None:
    file = tmp_path / "verified-examples.yaml"
    row = record.Row(
        "GB0025", "gb-fix", 0, "a" * 64, {"2.15.0/inductor": record.RUNS, "2.13.0": record.RUNS}
    )
    record.write(file, record.Record({("GB0025", "a" * 64): row}))
    text = file.read_text()
    assert text.index("2.13.0: runs") < text.index("2.15.0/inductor: runs")
    assert record.read(file).outcome(("GB0025", "a" * 64), "2.15.0/inductor") == record.RUNS
    file.write_text(text.replace("2.15.0/inductor", "2.15.0/tvm"))
    with pytest.raises(GbsiteError, match=r"'2\.15\.0/tvm' is not a release such as 2\.13\.0"):
        record.read(file)


def test_an_outcomes_file_of_a_backend_run_merges_into_its_column(tmp_path: Path) -> None:
    result = {
        "id": "GB0025",
        "kind": "gb-fix",
        "sha256": "b" * 64,
        "path": "docs/gb/gb0025.md",
        "line": 40,
        "passed": True,
        "outcome": "runs",
        "summary": "runs",
    }
    data = {"release": "2.15.0", "backend": "inductor", "torch": "2.15.0+cpu", "results": [result]}
    path = outcomes.write(tmp_path / "out", dict(data), tmp_path)
    assert path.name == "outcomes-2.15.0-inductor.json"
    run = outcomes.read(path)
    key = ("GB0025", "b" * 64)
    current = {key: record.Row("GB0025", "gb-fix", 40, "b" * 64)}
    merged = outcomes.merge_runs([run], current, ("2.13.0", "2.15.0"))
    assert merged.recorded == {"2.15.0/inductor": {key: record.RUNS}}
    path.write_text(path.read_text().replace('"inductor"', '"tvm"'))
    with pytest.raises(GbsiteError, match="`backend` is one of inductor"):
        outcomes.read(path)


def test_the_caption_shows_the_backend_column() -> None:
    key = ("GB0025", "c" * 64)
    outcomes_ = {
        "2.13.0": record.RUNS,
        "2.15.0": record.RUNS,
        "2.15.0/inductor": Outcome(Did.DIFFERS),
    }
    runs = record.Record({key: record.Row("GB0025", "gb-fix", 0, "c" * 64, outcomes_)})
    caption = ExampleCaptions(runs, ("2.13.0", "2.15.0")).outcomes(key, "gb-fix")
    assert '<span class="verified">2.15.0 runs</span>' in caption
    assert '<span class="unverified">2.15.0 with inductor: ' in caption
    assert caption.index("2.15.0 runs") < caption.index("with inductor")


@pytest.mark.examples
def test_a_fix_compiled_with_real_inductor_is_compared_with_eager() -> None:
    """With real torch: the fix is compiled with inductor (its code generated and run, not
    eager's), called twice, and its values and gradients compared with eager's."""
    import textwrap

    from gbsite.examples import runner
    from test_examples import torch_python

    code = textwrap.dedent(
        """
        import torch
        from torch._inductor.utils import fresh_inductor_cache  # compiled now, not from a cache


        def fn(x, w):
            return torch.sin(x @ w).sum()


        w = torch.randn(4, 3, requires_grad=True)
        with fresh_inductor_cache():
            fn(torch.randn(2, 4), w).backward()
            fn(torch.randn(5, 4), w).backward()
        """
    )
    fix = examples.Block("GB0025", Path("x.md"), 1, examples.FIX, code, "fn", "eager")
    [result] = runner.run_all([replace(fix, run_backend="inductor")], torch_python(), 1, 300)
    assert result.passed, result
    assert result.summary.endswith("the same values as eager (2 calls, 1 gradients)"), result


def test_what_torch_logs_while_a_backend_compiles_is_not_the_fixs_stderr() -> None:
    from gbsite.examples.judging import backend_logs

    torch_log = (
        "W1128 04:17:21.374000 9427 torch/_inductor/codecache.py:1146] [0/0] Traceback:\n"
        "W1128 04:17:21.374000 9427 torch/_inductor/codecache.py:1146] [0/0]   File x\n"
        "/venv/site-packages/torch/_functorch/autograd_cache.py:798: UserWarning: no hash\n"
        "  warn_once(\n"
    )
    own = "/tmp/run/example.py:7: UserWarning: the fix's own warning\n  warnings.warn(x)\n"
    assert backend_logs(torch_log) == ""
    assert backend_logs(torch_log + own + "printed to stderr\n") == own + "printed to stderr\n"

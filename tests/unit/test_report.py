"""Problems as GitHub annotations: past GitHub's ten a step, the rest in a folded log group."""

from __future__ import annotations

import io
from pathlib import Path

from gbsite.errors import Problem
from gbsite.report import GITHUB_ANNOTATIONS, report


def test_problems_past_githubs_limit_are_grouped_in_the_log() -> None:
    problems = [Problem(f"problem {n}", Path("docs/gb/gb0025.md"), n) for n in range(1, 26)]
    out = io.StringIO()
    report(problems, "github", file=out)
    lines = out.getvalue().splitlines()
    annotations = [line for line in lines if line.startswith("::error")]
    assert len(annotations) == GITHUB_ANNOTATIONS
    assert annotations[-1].startswith("::error::16 more problem(s)")
    start, end = lines.index("::group::16 more problem(s)"), lines.index("::endgroup::")
    assert lines[start + 1 : end] == [f"docs/gb/gb0025.md:{n}: problem {n}" for n in range(10, 26)]


def test_a_few_problems_are_each_annotated() -> None:
    problems = [Problem(f"p{n}", Path("a.md"), n) for n in range(1, GITHUB_ANNOTATIONS + 1)]
    out = io.StringIO()
    report(problems, "github", file=out)
    assert out.getvalue().count("::error file=") == GITHUB_ANNOTATIONS
    assert "::group::" not in out.getvalue()

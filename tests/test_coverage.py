"""Coverage: every id's state, the status blocks that declare one, and what checks them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from conftest import (
    REPO,
    Project,
    committed,
    example_releases,
    fake_torch,
    ids_of,
    labels,
    line_of,
    page,
    snapshot_json,
)
from gbsite import releases
from gbsite.docs import files as docs
from gbsite.examples import annotations as examples
from gbsite.examples import record

INTERNAL = """
```yaml gb-status
status: internal
source: torch/_dynamo/variables/hooks.py
function: HookVariable.call_hook
reason: Only PyTorch's own hook plumbing calls this with a hook it cannot trace.
```

### Why you may see it anyway

Some words of explanation for the reader.
"""
ENVIRONMENT = """
```yaml gb-status
status: environment
needs: cuda
source: torch/_dynamo/variables/ops.py
function: OpVariable.call_function
reason: The operator is only dispatched this way for CUDA tensors.
```

```python gb-repro needs=cuda
import torch

def fn(x):
    return x.cuda()

fn(torch.randn(2))
```
"""
UNRAISED = """
```yaml gb-status
status: unraised
reason: Dynamo stopped raising this once it learned to trace the construct.
replaced-by: GB0025
```
"""
REPRO = (
    '```python gb-repro\ndef fn():\n    if __import__("torch").compiling: raise RuntimeError('
    '"see https://x.io/gb/gb0025.html")\nfn()\n```\n\n'
    "```python gb-fix\ndef fn():\n    return 1\nfn()\nfn()\n```\n"
)


def gb_type(project: Project, gb_id: str) -> str:
    data = yaml.safe_load((project.registry / "gb" / f"{gb_id}.yaml").read_text())
    return str(data["history"][0]["gb_type"])


def coverage_json(project: Project, *args: str) -> dict[str, object]:
    result = project.run("coverage", "--format", "json", *args)
    assert result.code == 0, result.err
    data: dict[str, object] = json.loads(result.out)
    return data


def states(project: Project, release: str = "2.13.0") -> dict[str, str]:
    """Each id's state with a release (of the HISTORY projects' examples by default)."""
    return {
        str(e["id"]): str(e["status"])
        for e in coverage_json(project, "--release", release)["ids"]  # type: ignore[attr-defined]
    }


@pytest.mark.slow  # `gbsite check` or `coverage` over a whole project
@pytest.mark.repo_data
def test_every_id_of_the_release_has_one_state(project: Project) -> None:
    """On the committed pages: every id of the first release of the examples (that of its
    snapshot), each once; a page whose repro and fix are all recorded as passing is verified,
    and nothing else is."""
    first = example_releases()[0]
    data = coverage_json(project, "--release", first)
    assert data["release"] == first
    listed = [e["id"] for e in data["ids"]]  # type: ignore[attr-defined]
    label = releases.registry_label(first, committed().labels)
    assert label is not None
    assert listed == sorted(snapshot_json(label)) == ids_of(first)
    counts = data["counts"]
    assert sum(counts.values()) == len(listed)  # type: ignore[attr-defined]
    runs = record.read(REPO / "docs" / "verified-examples.yaml")
    for e in data["ids"]:  # type: ignore[attr-defined]
        path = REPO / "docs" / "gb" / f"{e['id'].lower()}.md"
        blocks = examples.blocks_of(e["id"], docs.read(path))
        blocks = [b for b in blocks if b.kind != examples.WRONG]  # a warning: not counted
        kinds = {b.kind for b in blocks if runs.passed(b.key, b.kind, first)}
        assert (e["status"] == "verified") == (kinds == {"gb-repro", "gb-fix"}), e
        assert len(e["blocks"]) == len(blocks)
    assert counts["verified"] >= 30  # type: ignore[index]


@pytest.mark.slow  # `gbsite check` or `coverage` over a whole project
def test_each_state_is_derived_from_its_page(history: Project) -> None:
    project = history
    page(project, "GB0033", INTERNAL)
    page(project, "GB0036", UNRAISED)
    page(project, "GB0037", ENVIRONMENT)
    repro = page(project, "GB0029", REPRO)
    got = states(project)
    assert got["GB0033"] == "internal"
    assert got["GB0036"] == "unraised"
    assert got["GB0037"] == "environment"
    assert got["GB0029"] == "pending"  # examples written, not yet run: never "none"
    # Once the record says both blocks passed with torch 2.13.0, the page is verified.
    path = project.root / "docs" / "verified-examples.yaml"
    runs = record.read(path)
    blocks = examples.blocks_of("GB0029", docs.read(repro))
    for b in blocks:
        runs.rows[b.key] = record.Row(
            "GB0029", b.kind, b.line, b.digest, {"2.13.0": record.passing(b.kind)}
        )
    record.write(path, runs)
    assert states(project)["GB0029"] == "verified"
    # ... for that release only.
    other = coverage_json(project, "--release", "2.12.0")
    assert {e["id"]: e["status"] for e in other["ids"]}["GB0029"] == "none"  # type: ignore[attr-defined]
    # A repro that no longer breaks with a later torch: that release lists the page as fixed.
    [repro_block] = [b for b in blocks if b.kind == "gb-repro"]
    runs.rows[repro_block.key].outcomes.update({"2.14.1": record.BREAKS, "2.15.0": record.NO_BREAK})
    record.write(path, runs)
    assert states(project, "2.14.1")["GB0029"] == "pending"  # the fix was not run there
    assert states(project, "2.15.0")["GB0029"] == "fixed"
    assert states(project)["GB0029"] == "verified"
    internal = next(
        e for e in coverage_json(project, "--release", "2.13.0")["ids"] if e["id"] == "GB0033"
    )  # type: ignore[attr-defined]
    assert internal["source"] == "torch/_dynamo/variables/hooks.py HookVariable.call_hook"
    assert project.run("check").code == 0


@pytest.mark.slow  # `gbsite check` or `coverage` over a whole project
@pytest.mark.repo_data
def test_text_table_and_min_verified(project: Project) -> None:
    newest = example_releases()[-1]
    result = project.run("coverage")
    assert result.code == 0
    # The newest release of the examples by default, with the ids of its snapshot.
    assert f"coverage of the {len(ids_of(newest))} ids of torch {newest}:" in result.out
    assert "verified" in result.out and "none" in result.out
    verified = coverage_json(project)["counts"]["verified"]  # type: ignore[index]
    # An imported release stands for the release of the examples judged with it.
    for release, label in releases.registry_labels(example_releases(), labels()).items():
        assert coverage_json(project, "--release", label)["release"] == release
    assert project.run("coverage", "--min-verified", str(verified)).code == 0
    failed = project.run("coverage", "--min-verified", str(verified + 1))
    assert failed.code == 1 and f"fewer than --min-verified {verified + 1}" in failed.err
    # CI's floors: verified or fixed (a page that becomes fixed with a newer release counts).
    counts = coverage_json(project)["counts"]  # type: ignore[index]
    checked = counts["verified"] + counts["fixed"]
    assert project.run("coverage", "--min-checked", str(checked)).code == 0
    failed = project.run("coverage", "--min-checked", str(checked + 1))
    assert failed.code == 1 and f"{checked} verified or fixed, fewer than" in failed.err
    assert project.run("coverage", "--release", "9.9").code == 2


@pytest.mark.slow  # `gbsite check` or `coverage` over a whole project
@pytest.mark.parametrize(
    ("block", "message"),
    [
        (
            "```yaml gb-status\nstatus: internal\nsource: torch/_dynamo/a.py\nfunction: f\n```\n",
            "a `internal` status block without `reason`",
        ),
        (
            "```yaml gb-status\nstatus: internal\nreason: It is internal.\n```\n",
            "a `internal` status block without `source`",
        ),
        (
            "```yaml gb-status\nstatus: internal\nreason: r\nsource: torch/a.py\n```\n",
            "without `function`",
        ),
        (
            "```yaml gb-status\nstatus: environment\nreason: r\nsource: torch/a.py\n"
            "function: f\n```\n",
            "without `needs`",
        ),
        ("```yaml gb-status\nstatus: verified\nreason: r\n```\n", "status `verified`"),
        (
            "```yaml gb-status\nstatus: unraised\nreason: r\nsource: /etc/passwd\n```\n",
            "is a path in the torch package",
        ),
        ("```yaml gb-status\nstatus: [unraised\n```\n", "not valid YAML"),
        ("```yaml gb-status\nstatus: unraised\nreason: r\nwhy: w\n```\n", "unknown field `why`"),
        (
            "```yaml gb-status\nstatus: unraised\nreason: r\nreplaced-by: GB9999\n```\n",
            "`replaced-by: GB9999` is not an id of the registry",
        ),
        ("```python gb-repro needs=cuda\nfn()\n```\n", "a block with needs=cuda is not run"),
        (UNRAISED + "\n" + REPRO, "a unraised page has no gb-repro block"),
        (UNRAISED + "\n" + UNRAISED, "a second status block"),
        (
            ENVIRONMENT.replace("gb-repro needs=cuda", "gb-repro"),
            "an environment page shows its repro",
        ),
    ],
    ids=[
        "no reason",
        "no source",
        "no function",
        "no needs",
        "verified is not declared",
        "source outside torch",
        "bad yaml",
        "unknown field",
        "unknown replacement",
        "needs without a declaration",
        "declared with examples",
        "two declarations",
        "environment without a shown repro",
    ],
)
def test_check_rejects_a_bad_status_block(history: Project, block: str, message: str) -> None:
    project = history
    path = page(project, "GB0033", block)
    before = project.snapshot()
    result = project.run("check")
    assert result.code == 1
    [problem] = [ln for ln in result.out.splitlines() if "gb0033.md:" in ln and message in ln]
    line = int(problem.split(":")[1])
    assert line_of(path, "```") <= line <= len(path.read_text().split("\n"))
    assert project.snapshot() == before  # check writes nothing
    assert project.run("build").code == 2  # nor does a build publish the page


@pytest.fixture
def torch_pkg(tmp_path: Path) -> tuple[str, Path]:
    """A stand-in torch with a folder of its own, so a test can add the files it cites."""
    return fake_torch(tmp_path / "faketorch")


def cite(torch: Path, source: str, text: str) -> None:
    path = torch.joinpath(*source.split("/")[1:])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.mark.repo_data
@pytest.mark.slow  # `gbsite check` or `coverage` over a whole project
def test_cited_sources_are_checked_against_the_installed_torch(
    history: Project, torch_pkg: tuple[str, Path]
) -> None:
    project = history
    python, torch = torch_pkg
    internal = page(project, "GB0033", INTERNAL)
    environment = page(project, "GB0037", ENVIRONMENT)
    unraised = page(project, "GB0036", UNRAISED)
    run = ("check", "--examples", "GB0033", "GB0036", "GB0037", "--python", python)

    # Neither cited file exists.
    result = project.run(*run)
    assert result.code == 1
    line = line_of(internal, "gb-status")
    assert (
        f"gb0033.md:{line}: `source: torch/_dynamo/variables/hooks.py` does not exist in torch "
        "2.13.0+fake"
    ) in result.out
    assert f"gb0037.md:{line_of(environment, 'gb-status')}: `source: " in result.out

    # The files exist, but do not raise these breaks.
    cite(torch, "torch/_dynamo/variables/hooks.py", "def call_hook():\n    pass\n")
    cite(torch, "torch/_dynamo/variables/ops.py", "def call_function():\n    pass\n")
    result = project.run(*run)
    assert result.code == 1
    assert "does not contain the graph-break type of GB0033 ('Data dependent operator')" in (
        result.out
    )

    # They do (one as implicitly concatenated literals, as torch often writes them); and the
    # unraised break's type is nowhere in the package.
    words = gb_type(project, "GB0037").split(" ", 1)
    cite(
        torch,
        "torch/_dynamo/variables/hooks.py",
        f"def call_hook():\n    unimplemented(gb_type={gb_type(project, 'GB0033')!r})\n",
    )
    cite(
        torch,
        "torch/_dynamo/variables/ops.py",
        f"def call_function():\n    unimplemented(\n        gb_type={words[0] + ' '!r}\n"
        f"        {words[1]!r},\n    )\n",
    )
    result = project.run(*run)
    assert result.code == 0, result.out

    # A function that is not in the cited file.
    internal.write_text(internal.read_text().replace("HookVariable.call_hook", "Hook.missing"))
    result = project.run(*run)
    assert result.code == 1 and "`function: Hook.missing` is not defined in" in result.out
    internal.write_text(internal.read_text().replace("Hook.missing", "HookVariable.call_hook"))

    # Declared unraised, but torch still has the type string somewhere.
    cite(torch, "torch/_dynamo/late.py", f"MESSAGE = {gb_type(project, 'GB0036')!r}\n")
    result = project.run(*run)
    assert result.code == 1
    assert (
        f"gb0036.md:{line_of(unraised, 'gb-status')}: declared unraised, but torch 2.13.0+fake "
        "still has the graph-break type of GB0036 in torch/_dynamo/late.py"
    ) in result.out


@pytest.mark.slow  # builds the whole site
def test_the_site_shows_each_state(history: Project) -> None:
    project = history
    page(project, "GB0012", "")  # nothing written yet
    page(project, "GB0033", INTERNAL)
    page(project, "GB0036", UNRAISED)
    page(project, "GB0037", ENVIRONMENT)
    verified = page(project, "GB0003", REPRO.replace("gb0025", "gb0003"))
    path = project.root / "docs" / "verified-examples.yaml"
    runs = record.read(path)
    for b in examples.blocks_of("GB0003", docs.read(verified)):
        runs.rows[b.key] = record.Row(
            "GB0003", b.kind, b.line, b.digest, {"2.13.0": record.passing(b.kind)}
        )
    record.write(path, runs)
    assert project.run("build").code == 0

    def badge(gb_id: str) -> str:
        html = (project.site / "gb" / f"{gb_id.lower()}.html").read_text()
        start = html.index('<p class="state coverage')
        return html[start : html.index("</p>", start)]

    def status(gb_id: str) -> str:
        html = (project.site / "gb" / f"{gb_id.lower()}.html").read_text()
        start = html.index('<div class="status-note" id="status">')
        return html[start : html.index("</div>", start)]

    assert "Verified" in badge("GB0003") and "torch 2.13.0" in badge("GB0003")
    assert "Internal" in badge("GB0033")
    # The status block in words, below the state: where torch raises it, linked at its tag.
    assert (
        "<code>torch/_dynamo/variables/hooks.py</code></a>, <code>HookVariable.call_hook</code>"
        in status("GB0033")
    )
    assert "https://github.com/pytorch/pytorch/blob/v" in status("GB0033")
    assert "No longer raised" in badge("GB0036")
    assert 'href="gb0025.html">Go to GB0025' in badge("GB0036")
    assert "Needs a CUDA device" in badge("GB0037")
    assert "No example yet" in badge("GB0012") and "CONTRIBUTING.md#writing-a-page" in badge(
        "GB0012"
    )
    env = (project.site / "gb" / "gb0037.html").read_text()
    assert "needs a CUDA device: shown, not run" in env
    dashboard = (project.site / "dashboard.html").read_text()
    counts = coverage_json(project)["counts"]
    for state, gb_id in (("internal", "GB0033"), ("unraised", "GB0036"), ("none", "GB0012")):
        section = dashboard[dashboard.index(f'id="coverage-{state}"') :]
        section = section[: section.index("</details>")]
        assert f'<span class="number">{counts[state]}</span>' in section  # type: ignore[index]
        assert f"gb/{gb_id.lower()}.html" in section
    assert "Of the 592 ids of PyTorch 2.15.0" in dashboard  # the newest release of the examples
    assert '<tr><th scope="row">2.13.0</th><td class="num">517</td>' in dashboard


@pytest.mark.slow  # `gbsite check` or `coverage` over a whole project
@pytest.mark.repo_data
def test_thin_pages_and_repeated_paragraphs_are_listed(project: Project) -> None:
    """The content figures of a content issue: a page's own prose, and boilerplate."""
    boilerplate = "If you see this break, please report it to PyTorch with the full log attached."
    for gb_id in ("GB0033", "GB0036", "GB0037"):
        page(project, gb_id, UNRAISED + "\n" + boilerplate + "\n")
    result = project.run("coverage")
    assert result.code == 0
    assert f"repeated on 3 pages (GB0033 GB0036 GB0037): {boilerplate}" in result.out
    thin = next(ln for ln in result.out.splitlines() if ln.startswith("under 60 words"))
    assert {"GB0033", "GB0036", "GB0037"} <= set(thin.split(": ")[1].split())
    data = coverage_json(project)
    assert {"text": boilerplate, "ids": ["GB0033", "GB0036", "GB0037"]} in data[
        "repeated_paragraphs"
    ]  # type: ignore[operator]
    words = {e["id"]: e["words"] for e in data["ids"]}  # type: ignore[attr-defined]
    assert words["GB0033"] == len(boilerplate.split()) and words["GB0003"] > 60


def test_unraised_is_judged_on_the_type_the_id_reported_in_that_release(
    history: Project, tmp_path: Path
) -> None:
    """GB0272's history keeps a wording it never reported in a release, which GB0276 uses now:
    finding that wording in torch says nothing about GB0272."""
    from gbsite.examples import status, torchsource
    from gbsite.registry import store as registry

    reg = registry.load(history.registry)
    entry = reg.entries["GB0272"]
    assert torchsource.reported_types(entry, reg.labels, "2.13.0+cpu") == {
        "Failed to make weakref to User Object when storing by ID"
    }
    declaration = status.Declaration(
        "unraised", "gone", None, None, None, None, tmp_path / "gb0272.md", 1
    )
    declared = {"GB0272": declaration}
    torch = tmp_path / "torch"
    (torch / "_dynamo").mkdir(parents=True)
    raising = torch / "_dynamo" / "objects.py"
    raising.write_text(f"gb_type = {gb_type(history, 'GB0276')!r}\n")
    found = torchsource.torch_problems(declared, reg, torchsource.TorchSource(torch), "2.13.0+cpu")
    assert found == []
    raising.write_text(f"gb_type = {gb_type(history, 'GB0272')!r}\n")
    found = torchsource.torch_problems(declared, reg, torchsource.TorchSource(torch), "2.13.0+cpu")
    assert [p.message.split(",")[0] for p in found] == ["declared unraised"]

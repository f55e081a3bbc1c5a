"""A page's state with each release of the examples (issue 32): status blocks that hold for
some releases (`since:`, `until:`), only where the release's registry has the id, as coverage,
`gbsite check` and the page see them."""

from __future__ import annotations

import json

import pytest

from conftest import REPO, Project, committed, example_releases, line_of, page
from gbsite import config, releases
from gbsite.docs import files as docs
from gbsite.examples import annotations as examples
from gbsite.examples import pages as examples_pages
from gbsite.examples import record, states
from gbsite.examples.pages import Lifecycles
from gbsite.registry import store

BREAK = (
    'if __import__("torch").compiling: '
    'raise RuntimeError("For more details, please visit: https://x.io/gb/gb{}.html")'
)
INTERNAL_UNTIL = (
    "```yaml gb-status\nstatus: internal\nuntil: {until}\nsource: torch/_dynamo/variables/base.py"
    "\nfunction: VariableTracker.hash_impl\nreason: Nothing reaches it with the older torch.\n"
    "```\n"
)
NEWER = (
    "```python gb-repro since={since}\ndef fn():\n    " + BREAK.format("0025") + "\nfn()\n```\n"
    "\n```python gb-fix since={since}\ndef fn():\n    return 1\nfn()\n```\n"
)


def states_by_release(project: Project, gb_id: str) -> dict[str, str | None]:
    """The id's state with each release of the HISTORY project's examples, as `gbsite coverage`
    says; None where coverage does not list it (that release's registry lacks it)."""
    states: dict[str, str | None] = {}
    for release in ("2.13.0", "2.14.1", "2.15.0"):
        data = json.loads(project.run("coverage", "--format", "json", "--release", release).out)
        states[release] = next((e["status"] for e in data["ids"] if e["id"] == gb_id), None)
    return states


@pytest.mark.slow  # builds the whole site
def test_until_ends_a_status_block_and_the_examples_take_over(history: Project) -> None:
    """GB0025 internal up to 2.14.1, reached by examples written for 2.15.0."""
    block = INTERNAL_UNTIL.format(until="2.14.1") + "\n" + NEWER.format(since="2.15.0")
    path = page(history, "GB0025", block)
    assert history.run("check").code == 0
    runs = record.read(history.root / "docs" / "verified-examples.yaml")
    for b in examples.blocks_of("GB0025", docs.read(path)):
        runs.rows[b.key] = record.Row("GB0025", b.kind, b.line, b.digest, {
            "2.13.0": record.NO_BREAK if b.kind == "gb-repro" else record.RUNS,
            "2.14.1": record.NO_BREAK if b.kind == "gb-repro" else record.RUNS,
            "2.15.0": record.passing(b.kind),
        })  # fmt: skip
    record.write(history.root / "docs" / "verified-examples.yaml", runs)
    assert states_by_release(history, "GB0025") == {
        "2.13.0": "internal",
        "2.14.1": "internal",
        "2.15.0": "verified",
    }
    assert history.run("build").code == 0
    html = (history.site / "gb" / "gb0025.html").read_text()
    assert "This page's state with each torch release" in html
    assert "status block, up to torch 2.14.1" in html
    # The status block in words, under Releases: it no longer holds with the newest release.
    releases = html[html.index('<section id="releases">') :]
    assert "<strong>Internal, up to torch 2.14.1.</strong>" in releases
    entry = json.loads((history.site / "gb" / "gb0025.json").read_text())
    assert entry["state"]["by_release"] == {
        "2.13.0": "internal",
        "2.14.1": "internal",
        "2.15.0": "verified",
    }


@pytest.mark.slow  # builds the whole site
def test_a_status_block_holds_only_where_the_registry_has_the_id(history: Project) -> None:
    """GB0060 was removed in 2.14.0: its status block says nothing of 2.14.1 and 2.15.0, which
    coverage leaves out and the page shows as not in those releases."""
    unraised = "```yaml gb-status\nstatus: unraised\nreason: r\n```\n"
    page(history, "GB0060", unraised)
    assert history.run("check").code == 0
    assert states_by_release(history, "GB0060") == {
        "2.13.0": "unraised",
        "2.14.1": None,
        "2.15.0": None,
    }
    assert history.run("build").code == 0
    entry = json.loads((history.site / "gb" / "gb0060.json").read_text())
    assert entry["state"]["by_release"] == {"2.13.0": "unraised", "2.14.1": None, "2.15.0": None}
    html = (history.site / "gb" / "gb0060.html").read_text()
    assert html.count("Not in this release") == 2


@pytest.mark.slow  # whole-project commands, seconds in all
@pytest.mark.parametrize(
    ("gb_id", "block", "message"),
    [
        (
            "GB0060",
            "```yaml gb-status\nstatus: unraised\nuntil: 2.15.0\nreason: r\n```\n",
            "until 2.15.0: torch 2.15.0's registry has no GB0060 (only torch 2.13.0 has it): a "
            "status block holds only where the id is",
        ),
        (
            # GB1273 was added in 2.14.0: its pages start with 2.14.1.
            "GB1273",
            "```yaml gb-status\nstatus: unraised\nuntil: 2.13.0\nreason: r\n```\n",
            "until 2.13.0: torch 2.13.0's registry has no GB1273 (torch 2.14.1 to 2.15.0 have "
            "it): a status block holds only where the id is",
        ),
        (
            "GB0025",
            INTERNAL_UNTIL.format(until="2.15.0") + "\n" + NEWER.format(since="2.15.0"),
            "until 2.15.0: the examples from torch 2.15.0 (line {line}) hold there already; "
            "end with the release before 2.15.0",
        ),
        (
            "GB0025",
            "```yaml gb-status\nstatus: unraised\nsince: 2.15.0\nuntil: 2.14.1\nreason: r\n```\n",
            "`until: 2.14.1` is older than `since: 2.15.0`: it would hold nowhere",
        ),
        (
            "GB0025",
            "```yaml gb-status\nstatus: unraised\nuntil: 2.99.0\nreason: r\n```\n",
            "until 2.99.0: not a release of the examples (2.13.0, 2.14.1, 2.15.0 in gbsite.toml)",
        ),
        (
            "GB0025",
            "```yaml gb-status\nstatus: unraised\nuntil: 2.15-rc\nreason: r\n```\n",
            "`until: 2.15-rc` is a torch release of the examples, such as 2.14.1",
        ),
    ],
    ids=["after removal", "before added", "overlaps examples", "inverted", "unknown", "malformed"],
)
def test_check_refuses_a_status_block_claiming_a_release_it_cannot_hold(
    history: Project, gb_id: str, block: str, message: str
) -> None:
    path = page(history, gb_id, block)
    before = history.snapshot()
    result = history.run("check")
    assert result.code == 1, result.out
    if "{line}" in message:
        message = message.format(line=line_of(path, "gb-repro since="))
    at = line_of(path, "```yaml gb-status")
    assert f"{gb_id.lower()}.md:{at}: {message}" in result.out + result.err
    assert history.snapshot() == before


@pytest.mark.repo_data
def test_every_committed_status_block_holds_only_where_its_id_is() -> None:
    """The audit of issue 32 on the committed pages: for each page, each status block and each
    release of the examples, the block that holds there is for a release whose registry has the
    id; coverage lists a release's ids and no other; and `gbsite check` finds no claim on a
    release without the id."""
    cfg = config.load(REPO)
    reg = store.load(cfg.registry_dir)
    lifecycles = Lifecycles.of(reg, cfg.example_releases)
    pages = examples_pages.load(cfg, lifecycles)  # raises on any span problem
    present = lifecycles.present
    record_ = record.read(cfg.verified_file)
    mapped = releases.registry_labels(example_releases(), committed().labels)
    declared_somewhere = 0
    for release in mapped:
        listed = {c.id for c in states.coverage(reg, pages, record_, release, tuple(mapped))}
        assert listed == {i for i, rs in present.items() if release in rs}, release
        for gb_id, p in pages.items():
            d = p.declared_for(release)
            if d is None:
                continue
            declared_somewhere += 1
            # A block naming a release (since/until) names one that has the id.
            for named in (d.since, d.until):
                assert named is None or named in present[gb_id], (gb_id, d.line, named)
    assert declared_somewhere > 0


@pytest.mark.slow  # `gbsite check` over a whole project
def test_check_record_refuses_a_status_block_the_record_contradicts(history: Project) -> None:
    """GB0025 declared unraised from 2.14.1 on, while its repro is recorded breaking with
    GB0025 on 2.14.1: torch 2.14.1 raises it. With the break ending at 2.15.0, it holds."""
    repro = (
        "```python gb-repro\ndef fn():\n    " + BREAK.format("0025") + "\nfn()\n```\n\n"
        "```python gb-fix\ndef fn():\n    return 1\nfn()\n```\n"
    )
    status = "```yaml gb-status\nstatus: unraised\nsince: {since}\nreason: r\n```\n"
    path = page(history, "GB0025", repro + "\n" + status.format(since="2.14.1"))
    file = history.root / "docs" / "verified-examples.yaml"
    runs = record.read(file)
    for b in examples.blocks_of("GB0025", docs.read(path)):
        runs.rows[b.key] = record.Row("GB0025", b.kind, b.line, b.digest, {
            "2.13.0": record.passing(b.kind),
            "2.14.1": record.BREAKS if b.kind == "gb-repro" else record.RUNS,
            "2.15.0": record.NO_BREAK if b.kind == "gb-repro" else record.RUNS,
        })  # fmt: skip
    record.write(file, runs)
    result = history.run("check", "--record")
    assert result.code == 1
    at, repro_line = line_of(path, "```yaml gb-status"), line_of(path, "```python gb-repro")
    assert (
        f"gb0025.md:{at}: declared unraised with torch 2.14.1, but the gb-repro of line "
        f"{repro_line} is recorded breaking with GB0025 there: a program reaches it with that "
        "torch; declare it only where the repro stops breaking (`since:`, `until:`)"
    ) in result.out
    # The block from the release where the repro stopped breaking: no contradiction.
    page(history, "GB0025", repro + "\n" + status.format(since="2.15.0"))
    assert history.run("check", "--record").code == 0

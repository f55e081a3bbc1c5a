"""CI's files are untrusted input: a fork's pull request controls what its examples jobs write
(the outcomes files `gbsite ci merge` reads) and the file names of its diff (`gbsite ci
preview -`). Forged fields are one-line errors that write nothing; an outcome that contradicts
the record is not merged; whatever reaches a job summary is escaped for Markdown and HTML and
kept below GitHub's 1 MiB limit, saying how much was left out.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from conftest import Project
from gbsite import config
from gbsite.ci import SUMMARY_BYTES
from gbsite.docs import files as docs
from gbsite.examples import annotations, outcomes, record
from gbsite.examples import pages as pages_
from gbsite.examples.annotations import Block
from gbsite.registry import store
from test_faults import gbsite, one_line_error

# `ci merge` and `ci preview` run in child processes.
pytestmark = [pytest.mark.slow, pytest.mark.repo_data]

EVIL = "https://evil.example"
MIB = 2**20


def blocks(project: Project, gb_id: str) -> list[Block]:
    return annotations.blocks_of(gb_id, docs.read(project.docs / f"{gb_id.lower()}.md"))


def releases(project: Project) -> tuple[str, ...]:
    return config.load(project.root).example_releases


def result(b: Block, outcome: str | None, *, passed: bool = True, **more: Any) -> dict[str, Any]:
    """A block's result as `check --examples --outcomes` writes it."""
    return {
        "id": b.gb_id,
        "kind": b.kind,
        "path": f"docs/gb/{b.gb_id.lower()}.md",
        "line": b.line,
        "sha256": b.digest,
        "passed": passed,
        "outcome": outcome,
        "summary": outcome or "failed",
        "details": "",
        "seconds": 0.1,
        **more,
    }


def outcomes_file(folder: Path, release: str, results: list[dict[str, Any]], **top: Any) -> Path:
    data = {
        "format": outcomes.FORMAT,
        "ok": True,
        "torch": f"{release}+cpu",
        "release": release,
        "seconds": 1.0,
        "results": results,
        "problems": [],
        "notes": [],
        **{k.removesuffix("_"): v for k, v in top.items()},
    }
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / outcomes.file_name(release, str(top.get("backend") or ""))
    path.write_text(json.dumps(data, indent=1))
    return path


def record_file(project: Project) -> Path:
    return project.root / "docs" / "verified-examples.yaml"


def html(markdown: str) -> str:
    """The summary as a Markdown renderer with tables and raw HTML shows it."""
    return MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)


def assert_inert(markdown: str) -> str:
    """No tag, image, heading or table cell of a value's own: the rendered HTML has only
    gbsite's (its headings, its `<details>` around what a program printed)."""
    page = html(markdown)
    lowered = page.lower()
    assert not re.search(r"<(img|details\s|script|iframe)", lowered), lowered
    assert lowered.count("<details>") == lowered.count("</details>")
    assert f'href="{EVIL}' not in page
    for _level, heading in re.findall(r"<h([1-6])>(.*?)</h\1>", page):
        assert "FORGED" not in heading, heading
    for table in re.findall(r"<table>.*?</table>", page, re.DOTALL):
        widths = {
            len(re.findall(r"<t[hd][ >]", row))
            for row in re.findall(r"<tr>.*?</tr>", table, re.DOTALL)
        }
        assert len(widths) == 1, widths  # no row has a cell more (or less) than the header
    return page


# ---- forged fields: one-line errors, nothing written -----------------------------------------

FORGED = f"\n## FORGED ![x]({EVIL}/x.png) <img src={EVIL}/y.png>"

FIELDS = {
    "torch forged": ("torch", "2.13.0+cpu" + FORGED, "`torch`"),
    "release forged": ("release", "2.13.0" + FORGED, "`release`"),
    "path with html": ("path", "docs/gb/gb0003.md" + FORGED, "path"),
    "path outside docs/gb": ("path", "../../elsewhere/gb0003.md", "path"),
    "path of another page": ("path", "docs/gb/gb0004.md", "the page of GB0003"),
    "kind forged": ("kind", "gb-repro" + FORGED, "kind"),
    "kind of another block": ("kind", "gb-fix", "is a gb-repro"),
    "id forged": ("id", "GB0003" + FORGED, "id"),
    "sha256 of no block": ("sha256", "0" * 64, "sha256"),
    "sha256 not hex": ("sha256", "<img>", "sha256"),
    "line not a line": ("line", 0, "line"),
}


@pytest.mark.parametrize("case", FIELDS)
def test_a_forged_field_is_a_one_line_error_on_its_line_and_nothing_is_written(
    project: Project, tmp_path: Path, case: str
) -> None:
    field, value, says = FIELDS[case]
    [repro] = [b for b in blocks(project, "GB0003") if b.kind == "gb-repro"]
    release = releases(project)[0]
    good = result(blocks(project, "GB0003")[-1], "runs")  # a result before the forged one
    forged = result(repro, "breaks")
    top: dict[str, Any] = {}
    if field in ("torch", "release"):
        top[field + "_"] = value  # the file's field, not outcomes_file()'s argument
    else:
        forged[field] = value
    path = outcomes_file(tmp_path / "outcomes", release, [good, forged], **top)
    summary = tmp_path / "summary.md"
    before = project.snapshot()
    done = gbsite(project, "ci", "merge", str(path.parent), "--summary", str(summary))
    one_line_error(done, says)
    lines = path.read_text().split("\n")
    if field in ("torch", "release"):
        line = next(n for n, text in enumerate(lines, 1) if text.startswith(f' "{field}"'))
    else:  # the second result's opening brace
        line = [n for n, text in enumerate(lines, 1) if text == "  {"][1]
    assert done.stderr.startswith(f"{path}:{line}: "), done.stderr
    # A log is not Markdown: the value may be quoted, on the one line, its line break escaped.
    assert "\n## FORGED" not in done.stderr
    assert not summary.exists() and done.stdout == ""
    assert project.snapshot() == before


# ---- escaping: valid values with Markdown and HTML in them -----------------------------------

SPECIALS = (
    f"| cell | <img src={EVIL}/s.png> ![i]({EVIL}/i.png) ## FORGED *b* _i_ [l]({EVIL}/) "
    "<details open ontoggle=alert(1)> `x` $x^2$ &lt;b&gt; ~~s~~ www.evil.example"
)


def test_what_a_failed_block_printed_is_escaped_in_the_summary(
    project: Project, tmp_path: Path
) -> None:
    [repro] = [b for b in blocks(project, "GB0003") if b.kind == "gb-repro"]
    details = f"```\n</details>\n<img src={EVIL}/d.png>\n## FORGED\n````` ~~~\n" + SPECIALS
    failed = result(repro, None, passed=False, summary=SPECIALS, details=details)
    path = outcomes_file(tmp_path / "outcomes", releases(project)[0], [failed])
    summary = tmp_path / "summary.md"
    done = gbsite(project, "ci", "merge", str(path), "--summary", str(summary), "--ref", "main")
    assert done.returncode == 0, done.stderr
    text = summary.read_text()
    page = assert_inert(text)
    # Shown as written, as text: the image's Markdown, the tag's angle brackets.
    assert f"![i]({EVIL}/i.png)" in page and f"&lt;img src={EVIL}/s.png&gt;" in page
    assert "## FORGED" in page and "&lt;details open ontoggle=alert(1)&gt;" in page
    # What it printed is one code block inside gbsite's <details>, every line of it kept.
    block = re.search(
        r"<details><summary>what it printed</summary>\n<pre><code>(.*?)</code></pre>",
        page,
        re.DOTALL,
    )
    assert block and "&lt;/details&gt;" in block.group(1) and "````` ~~~" in block.group(1)


# ---- the record: an outcome that contradicts it is not merged --------------------------------


def newest_recorded(project: Project, key: record.Key) -> str:
    """The newest release of the examples the record holds an outcome of `key` for: a release
    just added has none yet (tests/test_living.py runs these tests right after one)."""
    held = record.read(record_file(project))
    return next(r for r in reversed(releases(project)) if held.outcome(key, r) is not None)


def without(path: Path, key: record.Key, run_key: str) -> None:
    """The record without one outcome: as if `run_key` were a release just added."""
    rec = record.read(path)
    row = rec.rows[key]
    rows = dict(rec.rows)
    rows[key] = record.Row(
        row.id, row.kind, 0, row.sha256, {k: v for k, v in row.outcomes.items() if k != run_key}
    )
    record.write(path, record.Record(rows))


def test_a_flip_of_gb0003s_recorded_outcome_is_not_merged_and_the_rest_is(
    project: Project, tmp_path: Path
) -> None:
    path = record_file(project)
    committed = path.read_bytes()
    [repro, fix, *_] = blocks(project, "GB0003")
    newest = newest_recorded(project, fix.key)
    home = releases(project)[0]
    assert record.read(path).outcome(repro.key, home) == record.BREAKS
    # A release just added: the fix has no outcome for it yet; its job's is merged.
    without(path, fix.key, newest)
    flip = outcomes_file(tmp_path / "a", home, [result(repro, "no-break")])
    first = outcomes_file(tmp_path / "b", newest, [result(fix, "runs")])
    summary = tmp_path / "summary.md"
    done = gbsite(project, "ci", "merge", str(flip), str(first), "--summary", str(summary))
    assert done.returncode == 0, done.stderr
    [said] = [
        line for line in done.stdout.splitlines() if "not merged" in line and "gb0003.md" in line
    ]
    assert f"gb0003.md:{repro.line}: gb-repro `no-break` with torch {home} not merged" in said
    assert "the record holds `breaks`" in said
    assert "1 outcome(s) new" in done.stdout
    # The flip changed nothing; the new release's outcome is back: the committed record.
    assert path.read_bytes() == committed
    text = summary.read_text()
    assert "1 outcome(s) not merged" in text and "not merged \\(" in text
    assert_inert(text)


def test_an_outcome_for_an_unchanged_block_never_replaces_the_record(
    project: Project, tmp_path: Path
) -> None:
    path = record_file(project)
    [repro, fix, *_] = blocks(project, "GB0003")
    newest = newest_recorded(project, fix.key)
    held = record.read(path)
    assert held.outcome(fix.key, newest) == record.RUNS
    # A rerun that confirms: nothing to merge, the record as it was, said so.
    before = path.read_bytes()
    same = outcomes_file(tmp_path / "same", newest, [result(fix, "runs"), result(repro, "breaks")])
    done = gbsite(project, "ci", "merge", str(same))
    assert done.returncode == 0, done.stderr
    assert "2 outcome(s) already recorded, the same" in done.stdout
    assert "0 outcome(s) new" in done.stdout and path.read_bytes() == before
    # Another outcome for it, with a release where it need not keep its promise: refused.
    differs = outcomes_file(tmp_path / "differs", newest, [result(fix, "differs")])
    done = gbsite(project, "ci", "merge", str(differs))
    assert done.returncode == 0, done.stderr
    assert f"gb-fix `differs` with torch {newest} not merged" in done.stdout
    assert "the record holds `runs`" in done.stdout and path.read_bytes() == before
    # A backend's first outcome must be the fix's promise: a fix that passed cannot differ.
    without(path, fix.key, f"{newest}/inductor")
    before = path.read_bytes()
    backend = outcomes_file(
        tmp_path / "inductor", newest, [result(fix, "differs")], backend="inductor"
    )
    done = gbsite(project, "ci", "merge", str(backend))
    assert done.returncode == 0, done.stderr
    assert "not merged" in done.stdout and "promises `runs`" in done.stdout
    assert path.read_bytes() == before


# ---- size: summaries stay below GitHub's limit -----------------------------------------------


def runnable(project: Project) -> list[Block]:
    cfg = config.load(project.root)
    reg = store.load(project.registry)
    found = pages_.load(cfg, pages_.Lifecycles.of(reg, cfg.example_releases))
    return [b for page in found.values() for b in page.blocks if b.runnable]


def test_sixty_thousand_failed_blocks_make_a_summary_below_one_mib(
    project: Project, tmp_path: Path
) -> None:
    every = runnable(project)
    total = 60_000
    details = "Traceback\n```\n  raise RuntimeError('no')\n</details>\n" + "x" * 60
    results = []
    for n in range(total):
        b = every[n % len(every)]
        # Each its own row: the same blocks on other lines (a file of an older commit).
        line = b.line + 10_000 * (n // len(every))
        results.append(
            result(b, None, passed=False, line=line, summary=f"failed {n} <b>", details=details)
        )
    path = outcomes_file(tmp_path / "outcomes", releases(project)[0], results)
    summary = tmp_path / "summary.md"
    done = gbsite(project, "ci", "merge", str(path), "--summary", str(summary), limit=240)
    assert done.returncode == 0, done.stderr
    data = summary.read_bytes()
    assert len(data) <= SUMMARY_BYTES < MIB
    text = data.decode()
    rows = re.search(r"\*(\d+) more block\(s\) not shown", text)
    failures = re.search(r"\*(\d+) more failure\(s\) not shown", text)
    assert rows and failures, text[-500:]
    shown = sum(
        1
        for line in text.splitlines()
        if line.startswith("| [`docs/gb/") or line.startswith("| `docs/gb/")
    )
    assert shown > 0 and shown + int(rows.group(1)) == total
    listed = sum(1 for line in text.splitlines() if line.startswith("- "))
    assert listed + int(failures.group(1)) == total
    # The notes are text of their own, after whole rows and code blocks: none is cut in two.
    page = assert_inert(text)
    assert f"<em>{rows.group(1)} more block(s) not shown" in page
    assert f"<em>{failures.group(1)} more failure(s) not shown" in page


# ---- the preview: file names from the pull request's diff ------------------------------------

HOSTILE_NAMES = [
    "docs/gb/<IMG SRC=X ONERROR=alert(1)>.md",
    "docs/gb/gb<img src=x onerror=alert(1)>.md",
    "docs/gb/<DETAILS OPEN ONTOGGLE=alert(1)>.md",
    "docs/gb/gb0003|x.md",
    f"docs/gb/![x]({EVIL.replace('/', '')}) *y* _z_ ## FORGED `q`.md",
    "docs/gb/gb0003.md",
]


def test_hostile_file_names_in_the_preview_are_shown_escaped(
    project: Project, tmp_path: Path
) -> None:
    stdin = "\n".join(HOSTILE_NAMES).encode()
    summary = tmp_path / "summary.md"
    done = gbsite(project, "ci", "preview", "-", "--summary", str(summary), stdin=stdin)
    assert done.returncode == 0, done.stderr
    printed = gbsite(project, "ci", "preview", "-", stdin=stdin)
    assert printed.returncode == 0 and printed.stdout == summary.read_text()
    page = assert_inert(summary.read_text())
    assert "<details" not in page.lower()
    cells = re.findall(r"<td><code>(.*?)</code></td>", page)
    for name in HOSTILE_NAMES[:-1]:  # each shown as it is, as code
        shown = name.removeprefix("docs/gb/").replace("&", "&amp;").replace("<", "&lt;")
        assert shown.replace(">", "&gt;").replace('"', "&quot;") in cells, (name, cells)
    assert re.search(r"<td>GB0003: .*</td>", page)


def test_sixty_thousand_changed_files_make_a_preview_below_one_mib(
    project: Project, tmp_path: Path
) -> None:
    stdin = "\n".join(f"docs/gb/<img src=x>{n}|.md" for n in range(60_000)).encode()
    summary = tmp_path / "summary.md"
    done = gbsite(project, "ci", "preview", "-", "--summary", str(summary), stdin=stdin)
    assert done.returncode == 0, done.stderr
    text = summary.read_text()
    assert len(text.encode()) <= SUMMARY_BYTES
    left = re.search(r"\*(\d+) more changed file\(s\) of the docs folder not shown", text)
    assert left, text[-300:]
    shown = sum(1 for line in text.splitlines() if line.startswith("| `"))
    assert shown + int(left.group(1)) == 60_000
    assert_inert(text)

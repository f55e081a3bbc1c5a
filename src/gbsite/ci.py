"""`gbsite ci ...`: the work of CI's jobs as commands, so that a test can play a whole pull
request on one machine and the workflow YAML stays a list of calls.

    gbsite ci releases                  the releases of the examples, as JSON (the job matrix)
    gbsite check --examples --changed --torch R --outcomes DIR
                                        one job per release: run what has no outcome yet
    gbsite ci merge DIR... [--summary F]
                                        the last job: the jobs' outcomes into the record, and a
                                        table of them for the run's summary page
    gbsite ci preview [PATH...] [--summary F]
                                        the pages a pull request changes, with their states, for
                                        the summary beside the built site (the preview)

Markdown is written for GitHub's job summary (`$GITHUB_STEP_SUMMARY`): tables of words, links
to the files of the commit when `--ref` names it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from gbsite.config import Config
from gbsite.errors import GbsiteError
from gbsite.examples import checking, outcomes
from gbsite.examples import pages as examples
from gbsite.examples import record as rec
from gbsite.examples.states import page_coverage
from gbsite.registry import store as registry
from gbsite.registry.model import Registry


def releases(cfg: Config, args: argparse.Namespace) -> int:
    """The releases of the examples as a JSON list, for a GitHub Actions matrix; or the newest."""
    found = list(cfg.example_releases)
    print(found[-1] if args.newest else json.dumps(found))
    return 0


def pythons(cfg: Config, args: argparse.Namespace) -> int:
    """The Pythons the blocks need (`needs=python:3.N`), then this one: what setup-python
    installs in the examples jobs, its last line becoming the default `python`."""
    from gbsite import releases as releases_
    from gbsite.examples import torchenv

    reg = registry.load(cfg.registry_dir)
    pages = examples.load(cfg, examples.Lifecycles.of(reg, cfg.example_releases))
    here = torchenv.this_python()
    needed = {b.python for p in pages.values() for b in p.blocks if b.python} - {here}
    print("\n".join([*sorted(needed, key=releases_.order), here]))
    return 0


def merge(cfg: Config, args: argparse.Namespace) -> int:
    """Merge the outcomes files of CI's per-release jobs into the record; summarise them."""
    files = outcomes.found(args.files)
    if not files:
        raise GbsiteError(
            f"no outcomes-*.json in {', '.join(map(str, args.files))}: did the examples jobs "
            "run with --outcomes?"
        )
    runs = [outcomes.read(path) for path in files]
    reg = registry.load(cfg.registry_dir)
    pages = examples.load(cfg, examples.Lifecycles.of(reg, cfg.example_releases))
    current = checking.current_rows(pages.values())
    merged = outcomes.merge_runs(runs, current, cfg.example_releases)
    before = rec.read(cfg.verified_file)
    after = rec.store(cfg.verified_file, merged.recorded, current)
    added = sum(
        1
        for release, found in merged.recorded.items()
        for key, outcome in found.items()
        if before.outcome(key, release) != outcome
    )
    pending = sum(len(after.missing(k, cfg.example_releases)) > 0 for k in current)
    line = (
        f"ci merge: {len(runs)} run(s), {sum(len(r.blocks) for r in runs)} block run(s), "
        f"{len(merged.failed)} failed; {added} outcome(s) new in {checking.record_path(cfg)}; "
        f"{pending} block(s) still pending"
    )
    if merged.stale:
        line += f"; {merged.stale} outcome(s) of blocks edited since were left out"
    print(line)
    if args.summary:
        text = merge_summary(cfg, reg, merged, added, pending, args.ref)
        _append(args.summary, text)
    return 0


def preview(cfg: Config, args: argparse.Namespace) -> int:
    """The changed pages (docs files among PATHs, or read from stdin with `-`) with their
    state for each release, for the summary of the job that uploads the built site."""
    paths = list(args.paths)
    if paths == ["-"]:
        paths = [line.strip() for line in sys.stdin if line.strip()]
    reg = registry.load(cfg.registry_dir)
    text = preview_summary(cfg, reg, paths, args.artifact_url)
    if args.summary:
        _append(args.summary, text)
    else:
        print(text, end="")
    return 0


def _append(path: Path, text: str) -> None:
    """GitHub gives each step one summary file, to append to."""
    try:
        with path.open("a", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        raise GbsiteError.at(path, None, f"cannot write the summary: {exc.strerror}") from None


def _cell(text: str) -> str:
    """Text for a Markdown table cell: one line, no cell breaks."""
    return " ".join(text.split()).replace("|", "\\|")


def _file_link(cfg: Config, path: str, line: int | None, ref: str | None) -> str:
    where = f"{path}:{line}" if line else path
    if not ref:
        return f"`{where}`"
    anchor = f"#L{line}" if line else ""
    return f"[`{where}`](https://github.com/{cfg.repository}/blob/{ref}/{path}{anchor})"


def merge_summary(
    cfg: Config,
    reg: Registry,
    merged: outcomes.Merge,
    added: int,
    pending: int,
    ref: str | None,
) -> str:
    """Markdown: each block run, its outcome with each release run, and each failure."""
    releases = [r for r in cfg.example_releases if any(run.release == r for run in merged.runs)]
    by_block: dict[tuple[str, int, str], dict[str, outcomes.BlockRun]] = {}
    for run in merged.runs:
        for b in run.blocks:
            by_block.setdefault((b.path, b.line, b.kind), {})[run.release] = b
    lines = ["## Examples run by CI", ""]
    timing = [
        f"torch {run.torch}: {len(run.blocks)} block(s) in {run.seconds:.0f} s"
        for run in sorted(merged.runs, key=lambda r: cfg.example_releases.index(r.release))
    ]
    lines += [
        "; ".join(timing) + ".",
        f"{added} outcome(s) new in `{checking.record_path(cfg)}`; {pending} block(s) not yet "
        'run with every release (their pages say "Examples not run yet").',
        "",
    ]
    if not by_block:
        lines += ["Every block already had an outcome for these releases: nothing to run.", ""]
        return "\n".join(lines) + "\n"
    lines += [
        "| block | " + " | ".join(f"torch {r}" for r in releases) + " |",
        "|---|" + "---|" * len(releases),
    ]
    for (path, line, kind), ran in sorted(by_block.items()):
        cells = []
        for release in releases:
            done = ran.get(release)
            if done is None:
                cells.append("not run")
            elif not done.passed:
                cells.append(f"**failed**: {_cell(done.summary)[:200]}")
            else:
                cells.append(done.outcome.describe() if done.outcome else "?")
        lines.append(f"| {_file_link(cfg, path, line, ref)} {kind} | " + " | ".join(cells) + " |")
    if merged.failed:
        lines += ["", "### Failures", ""]
        for run, b in merged.failed:
            lines.append(
                f"- {_file_link(cfg, b.path, b.line, ref)} {b.kind} with torch {run.torch}: "
                f"{_cell(b.summary)}"
            )
            if b.details.strip():
                body = b.details.strip()[-3000:].replace("```", "` ` `")
                lines += [
                    "  <details><summary>what it printed</summary>",
                    "",
                    "  ```",
                    *("  " + ln for ln in body.splitlines()),
                    "  ```",
                    "  </details>",
                ]
    return "\n".join(lines) + "\n"


def changed_ids(cfg: Config, paths: Iterable[str]) -> tuple[list[str], int]:
    """The ids of the docs files among `paths` (relative to the project), and how many other
    files there are (templates, registry: they change every page)."""
    docs = cfg.docs_dir.relative_to(cfg.root).as_posix()
    ids: list[str] = []
    others = 0
    for path in paths:
        folder, _, name = path.rpartition("/")
        if folder == docs and name.startswith("gb") and name.endswith(".md"):
            ids.append(name.removesuffix(".md").upper())
        else:
            others += 1
    return sorted(set(ids)), others


def preview_summary(
    cfg: Config, reg: Registry, paths: Sequence[str], artifact_url: str | None
) -> str:
    ids, others = changed_ids(cfg, paths)
    releases = cfg.example_releases
    where = f"[the `site` artifact]({artifact_url})" if artifact_url else "the `site` artifact"
    lines = [
        "## Preview",
        "",
        f"The built site is {where} of this run: download it, unzip it and open `index.html` "
        "(it works from disk).",
        "",
    ]
    if not ids:
        lines.append("No page's docs file changed.")
    else:
        lifecycles = examples.Lifecycles.of(reg, releases)
        pages = examples.load(cfg, lifecycles)
        record = rec.read(cfg.verified_file)
        lines += [
            f"{len(ids)} page(s) changed:",
            "",
            "| page | open in the preview | " + " | ".join(f"torch {r}" for r in releases) + " |",
            "|---|---|" + "---|" * len(releases),
        ]
        for gb_id in ids:
            entry = reg.entries.get(gb_id)
            if entry is None:
                lines.append(f"| {gb_id} | not in the registry | " + " | " * len(releases))
                continue
            states = [
                page_coverage(pages.get(gb_id), gb_id, record, r, releases).status
                if r in lifecycles.present[gb_id]
                else "not in this release"
                for r in releases
            ]
            title = _cell(entry.current.gb_type)[:80]
            lines.append(
                f"| {gb_id}: {title} | `gb/{gb_id.lower()}.html` | " + " | ".join(states) + " |"
            )
    if others:
        lines += [
            "",
            f"{others} other changed file(s) (templates, registry, code) may change every page.",
        ]
    return "\n".join(lines) + "\n"

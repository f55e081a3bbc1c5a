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
to the files of the commit when `--ref` names it. What CI's files and a pull request's diff
say is untrusted: every value is escaped by report.py's helpers, and each summary is kept
below GitHub's 1 MiB limit (report.Summary), saying how much was left out.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
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
from gbsite.report import SUMMARY_BYTES as SUMMARY_BYTES  # re-exported, with capped
from gbsite.report import (
    Summary,
    append_summary,
    md,
    md_block,
    md_code,
    md_url,
    say,
    write,
)
from gbsite.report import capped as capped


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


def sync_label(cfg: Config, args: argparse.Namespace) -> int:
    """The label of today's snapshot of PyTorch main: `main@DATE`, or `main-N@DATE` when that
    date has snapshots already (a second sync on the same day, after upstream changed; a
    snapshot identical to one imported is still "nothing to do")."""
    import datetime

    from gbsite.registry import store

    day = args.date or datetime.datetime.now(datetime.UTC).date().isoformat()
    try:
        datetime.date.fromisoformat(day)
    except ValueError:
        raise GbsiteError(f"--date {day!r}: use a date such as 2026-12-01") from None
    taken = set(store.load(cfg.registry_dir).labels)
    label, n = f"main@{day}", 1
    while label in taken:
        n += 1
        label = f"main-{n}@{day}"
    print(label)
    return 0


def merge(cfg: Config, args: argparse.Namespace) -> int:
    """Merge the outcomes files of CI's per-release jobs into the record; summarise them."""
    files = outcomes.found(args.files)
    if not files:
        raise GbsiteError(
            f"no outcomes-*.json in {', '.join(map(str, args.files))}: did the examples jobs "
            "run with --outcomes?"
        )
    # The files are what a fork's pull request can forge: every value is checked against the
    # pages before anything is written, and what the record holds is never replaced.
    runs, merged, current, before = _merged(cfg, files, strict=True)
    after = rec.store(cfg.verified_file, merged.recorded, current, keep=True)
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
    if merged.confirmed:
        line += f"; {merged.confirmed} outcome(s) already recorded, the same"
    if merged.stale:
        line += f"; {merged.stale} outcome(s) of blocks edited since were left out"
    if merged.refused:
        line += f"; {len(merged.refused)} outcome(s) not merged, below"
    say(line)
    for refused in merged.refused:
        say(f"ci merge: {refused}")
    if args.summary:
        append_summary(args.summary, merge_summary(cfg, merged, added, pending, args.ref))
    return 0


def _merged(
    cfg: Config, files: Sequence[Path], *, strict: bool
) -> tuple[list[outcomes.Run], outcomes.Merge, dict[rec.Key, rec.Row], rec.Record]:
    """The runs of the files, what they add to the record, the pages' rows and the record as
    it was. `strict`: each result must name a block the pages have (ci merge, on the commit
    the jobs ran on); a retry onto a branch that moved on leaves out those edited since."""
    runs = [outcomes.read(path) for path in files]
    reg = registry.load(cfg.registry_dir)
    lifecycles = examples.Lifecycles.of(reg, cfg.example_releases)
    pages = examples.load(cfg, lifecycles)
    blocks = {b.key: b for page in pages.values() for b in page.blocks if b.runnable}
    if strict:
        outcomes.check_blocks(runs, blocks, cfg.docs_dir.relative_to(cfg.root).as_posix())
    current = checking.current_rows(pages.values())
    homes = {key: b.home(lifecycles.home(b.gb_id)) for key, b in blocks.items()}
    before = rec.read(cfg.verified_file)
    merged = outcomes.merge_runs(runs, current, cfg.example_releases, before, homes)
    return runs, merged, current, before


def preview(cfg: Config, args: argparse.Namespace) -> int:
    """The changed pages (docs files among PATHs, or read from stdin with `-`) with their
    state for each release, for the summary of the job that uploads the built site."""
    paths = list(args.paths)
    if paths == ["-"]:
        paths = [line.strip() for line in sys.stdin if line.strip()]
    reg = registry.load(cfg.registry_dir)
    text = preview_summary(cfg, reg, paths, args.artifact_url)
    if args.summary:
        append_summary(args.summary, text)
    else:
        write(text.removesuffix("\n"))
    return 0


def _append(path: Path, text: str) -> None:
    """Append a line to a file GitHub gives the step ($GITHUB_OUTPUT)."""
    try:
        with path.open("a", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        raise GbsiteError.at(path, None, f"cannot write: {exc.strerror}") from None


def _file_link(cfg: Config, path: str, line: int | None, ref: str | None) -> str:
    """A docs file's line as code, linked to the commit's file when `ref` names one."""
    where = md_code(f"{path}:{line}" if line else path, limit=200)
    if not ref or not re.fullmatch(r"[A-Za-z0-9_./-]{1,200}", ref):
        return where
    anchor = f"#L{line}" if line else ""
    url = md_url(f"https://github.com/{cfg.repository}/blob/{ref}/{path}{anchor}")
    return f"[{where}]({url})" if url else where


def merge_summary(
    cfg: Config,
    merged: outcomes.Merge,
    added: int,
    pending: int,
    ref: str | None,
) -> str:
    """Markdown: each block run, its outcome with each release run, each outcome not merged
    and each failure; every value from the files escaped (report.md), within GitHub's limit."""
    releases = [r for r in cfg.example_releases if any(run.release == r for run in merged.runs)]
    by_block: dict[tuple[str, int, str], dict[str, outcomes.BlockRun]] = {}
    for run in merged.runs:
        for b in run.blocks:
            by_block.setdefault((b.path, b.line, b.kind), {})[run.release] = b
    out = Summary()
    out.add("## Examples run by CI", "")
    timing = [
        f"torch {md(run.torch)}: {len(run.blocks)} block(s) in {run.seconds:.0f} s"
        for run in sorted(merged.runs, key=lambda r: cfg.example_releases.index(r.release))
    ]
    out.add(
        "; ".join(timing) + ".",
        f"{added} outcome(s) new in `{checking.record_path(cfg)}`; {pending} block(s) not yet "
        'run with every release (their pages say "Examples not run yet").',
        "",
    )
    if merged.refused:
        out.add(
            f"### {len(merged.refused)} outcome(s) not merged",
            "",
            "The record already holds another outcome for these blocks, whose code did not "
            "change, or the outcome is not what the block promises there. CI's files never "
            "change what the record holds.",
            "",
        )
        out.items(([f"- {md(str(r), limit=600)}"] for r in merged.refused), "outcome(s)")
        out.add("")
    if not by_block:
        out.add("Every block already had an outcome for these releases: nothing to run.")
        return out.text()
    out.add(
        "| block | " + " | ".join(f"torch {md(r)}" for r in releases) + " |",
        "|---|" + "---|" * len(releases),
    )

    def row(path: str, line: int, kind: str, ran: dict[str, outcomes.BlockRun]) -> list[str]:
        cells = []
        for release in releases:
            done = ran.get(release)
            if done is None:
                cells.append("not run")
            elif not done.passed:
                cells.append(f"**failed**: {md(done.summary, limit=200)}")
            else:
                cells.append(md(done.outcome.describe()) if done.outcome else "?")
        link = _file_link(cfg, path, line, ref)
        return [f"| {link} {md(kind)} | " + " | ".join(cells) + " |"]

    out.items((row(*k, ran) for k, ran in sorted(by_block.items())), "block(s)")
    if merged.failed:
        out.add("", "### Failures", "")
        out.items((_failure(cfg, run, b, ref) for run, b in merged.failed), "failure(s)")
    return out.text()


def _failure(cfg: Config, run: outcomes.Run, b: outcomes.BlockRun, ref: str | None) -> list[str]:
    """A failed block's list item, with the end of what it printed as a code block."""
    lines = [
        f"- {_file_link(cfg, b.path, b.line, ref)} {md(b.kind)} with torch {md(run.torch)}: "
        f"{md(b.summary, limit=2000)}"
    ]
    if b.details.strip():
        lines += [
            "  <details><summary>what it printed</summary>",
            "",
            *md_block(b.details.strip()[-3000:], indent="  "),
            "  </details>",
        ]
    return lines


def _row(*cells: str) -> str:
    """A table row of cells already escaped."""
    return "| " + " | ".join(cells) + " |"


_PAGE_FILE = re.compile(r"gb[0-9]{4}\.md")


def changed_ids(cfg: Config, paths: Iterable[str]) -> tuple[list[str], list[str], int]:
    """The ids of the pages' docs files among `paths` (relative to the project); the other
    files of the docs folder (not a page: their names as they came); and how many files
    elsewhere there are (templates, registry: they change every page)."""
    docs = cfg.docs_dir.relative_to(cfg.root).as_posix()
    ids: set[str] = set()
    strays: set[str] = set()
    others = 0
    for path in paths:
        folder, _, name = path.rpartition("/")
        if folder != docs:
            others += 1
        elif _PAGE_FILE.fullmatch(name):
            ids.add(name.removesuffix(".md").upper())
        else:
            strays.add(name)
    return sorted(ids), sorted(strays), others


def preview_summary(
    cfg: Config, reg: Registry, paths: Sequence[str], artifact_url: str | None
) -> str:
    """Markdown: the changed pages with their state for each release; the file names come
    from the pull request's diff, so each is escaped (report.md_code), within GitHub's limit."""
    ids, strays, others = changed_ids(cfg, paths)
    releases = cfg.example_releases
    url = md_url(artifact_url or "")
    where = f"[the `site` artifact]({url})" if url else "the `site` artifact"
    out = Summary()
    out.add(
        "## Preview",
        "",
        f"The built site is {where} of this run: download it, unzip it and open `index.html` "
        "(it works from disk).",
        "",
    )
    if not ids and not strays:
        out.add("No page's docs file changed.")
    else:
        lifecycles = examples.Lifecycles.of(reg, releases)
        pages = examples.load(cfg, lifecycles)
        record = rec.read(cfg.verified_file)
        strayed = f", and {len(strays)} other file(s) of the docs folder" if strays else ""
        out.add(
            f"{len(ids)} page(s) changed{strayed}:",
            "",
            "| page | open in the preview | " + " | ".join(f"torch {r}" for r in releases) + " |",
            "|---|---|" + "---|" * len(releases),
        )

        def row(gb_id: str) -> list[str]:
            entry = reg.entries.get(gb_id)
            if entry is None:
                return [_row(gb_id, "not in the registry", *[""] * len(releases))]
            states = [
                page_coverage(pages.get(gb_id), gb_id, record, r, releases).status
                if r in lifecycles.present[gb_id]
                else "not in this release"
                for r in releases
            ]
            title = md(entry.current.gb_type, limit=80)
            page = f"`gb/{gb_id.lower()}.html`"
            return [_row(f"{gb_id}: {title}", page, *states)]

        def stray(name: str) -> list[str]:
            what = "not a page's docs file (gbNNNN.md)"
            return [_row(md_code(name, limit=200), what, *[""] * len(releases))]

        rows = [*map(row, ids), *map(stray, strays)]
        out.items(rows, "changed file(s) of the docs folder")
    if others:
        out.add(
            "",
            f"{others} other changed file(s) (templates, registry, code) may change every page.",
        )
    return out.text()


# ---- committing the record to the branch (the record job) ------------------------------------

PUSH_ATTEMPTS = 4  # a branch that keeps moving (a busy main) is given up on, with the reason


def push(cfg: Config, args: argparse.Namespace) -> int:
    """Commit what a job wrote (the record merged by `ci merge`; with --add, those paths) and
    push it to the branch. A push rejected because the branch moved on is retried on the
    branch's new tip: the outcomes merged again, row by row (the record of the branch's newer
    commits kept), or with --rebase the commit rebased (the daily sync: the deploy checks and
    tests what it publishes). A push refused for any other reason (a protected branch, a token
    that may not push) fails, with what to do."""
    if not args.rebase and not args.files:
        raise GbsiteError("ci push: give the outcomes files to merge again, or --rebase")
    git = _Git(cfg.root, args.remote)
    paths = [str(p) for p in args.add] or [str(cfg.verified_file)]
    what = "the commit" if args.add else "the record"
    for attempt in range(1, PUSH_ATTEMPTS + 1):
        if attempt == 1 and not git.commit(paths, args.message):
            print(f"ci push: nothing to commit: {args.branch} already has {what}'s changes")
            _pushed(args.output, False)
            return 0
        refused = git.push(args.branch)
        if refused is None:
            print(f"ci push: {what} pushed to {args.branch} (attempt {attempt})")
            _pushed(args.output, True)
            return 0
        if not git.moved_on(args.branch):
            raise GbsiteError(
                f"ci push: {args.remote} refused the push to {args.branch} ({refused}); the "
                "job needs a token that may push to it (the GBSITE_RECORD_TOKEN secret, or "
                "github-actions allowed past its protection: docs/ci.md, tokens)"
            )
        if args.rebase:
            print(f"ci push: {args.branch} moved on; rebasing {what} onto its tip")
            git.rebase()
            continue
        print(f"ci push: {args.branch} moved on; merging the outcomes again onto its tip")
        git.reset_to(args.branch)
        _quiet_merge(cfg, args.files)
        if not git.commit(paths, args.message):
            print(f"ci push: nothing to commit: {args.branch} already has these outcomes")
            _pushed(args.output, False)
            return 0
    raise GbsiteError(
        f"ci push: {args.branch} moved on {PUSH_ATTEMPTS} times while {what} was pushed; "
        "run the workflow again"
    )


def _pushed(output: Path | None, pushed: bool) -> None:
    """`pushed=true|false` for the jobs after this one (GitHub's $GITHUB_OUTPUT)."""
    if output is not None:
        _append(output, f"pushed={'true' if pushed else 'false'}\n")


def _quiet_merge(cfg: Config, files: Sequence[Path]) -> None:
    _, merged, current, _ = _merged(cfg, outcomes.found(files), strict=False)
    rec.store(cfg.verified_file, merged.recorded, current, keep=True)


class _Git:
    """The few git commands the record job runs, in the checkout at `root`."""

    def __init__(self, root: Path, remote: str) -> None:
        self.root, self.remote = root, remote

    def run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        try:
            return subprocess.run(
                ["git", "-C", str(self.root), *argv], capture_output=True, text=True, check=False
            )
        except OSError as exc:
            raise GbsiteError(f"ci push: cannot run git: {exc.strerror}") from None

    def must(self, *argv: str) -> str:
        done = self.run(*argv)
        if done.returncode != 0:
            said = (done.stderr.strip().splitlines() or ["no message"])[-1]
            raise GbsiteError(f"ci push: git {argv[0]} failed: {said}")
        return done.stdout

    def commit(self, paths: Sequence[str], message: str) -> bool:
        """Commit the paths if they changed; whether there was something to commit."""
        self.must("add", "--", *paths)
        if self.run("diff", "--cached", "--quiet").returncode == 0:
            return False
        self.must(
            "-c", "user.name=github-actions[bot]",
            "-c", "user.email=41898282+github-actions[bot]@users.noreply.github.com",
            "commit", "--quiet", "-m", message,
        )  # fmt: skip
        return True

    def push(self, branch: str) -> str | None:
        """None when pushed; else git's last line of why."""
        done = self.run("push", self.remote, f"HEAD:refs/heads/{branch}")
        if done.returncode == 0:
            return None
        lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        # What the remote said (a hook, a protection rule), else git's reason, else its last.
        told = [line for line in lines if line.startswith("remote:")]
        told = told or [line for line in lines if line.startswith("! [")] or lines[-1:]
        return " ".join(told)[:300] or "no message"

    def moved_on(self, branch: str) -> bool:
        """Whether the branch has commits this checkout lacks (a push rejected as not a
        fast-forward), rather than a refusal of the push itself."""
        if self.run("fetch", "--quiet", self.remote, branch).returncode != 0:
            return False
        tip = self.must("rev-parse", "FETCH_HEAD").strip()
        return self.run("merge-base", "--is-ancestor", tip, "HEAD").returncode != 0

    def reset_to(self, branch: str) -> None:
        self.must("reset", "--quiet", "--hard", "FETCH_HEAD")

    def rebase(self) -> None:
        """This checkout's commit onto the fetched tip; a conflict fails, changing nothing."""
        done = self.run("rebase", "--quiet", "FETCH_HEAD")
        if done.returncode != 0:
            self.run("rebase", "--abort")
            said = done.stderr.strip().splitlines() or done.stdout.strip().splitlines() or [""]
            raise GbsiteError(
                f"ci push: cannot rebase onto the branch's new tip ({said[-1][:200]}); run "
                "the workflow again"
            )

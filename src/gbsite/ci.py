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
        _append(args.summary, capped(text))
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
        _append(args.summary, capped(text))
    else:
        print(text, end="")
    return 0


# GitHub drops a step's summary over 1 MiB whole: a summary is cut well below that.
SUMMARY_BYTES = 512 * 1024


def capped(text: str, limit: int = SUMMARY_BYTES) -> str:
    """The summary, cut at a line when it is over `limit` bytes, saying how much was left out
    (the job's log has every line)."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    kept = data[:limit].decode("utf-8", "ignore").rsplit("\n", 1)[0]
    left = text.count("\n") - kept.count("\n")
    return kept + f"\n\n*{left} more line(s) left out: GitHub keeps summaries under 1 MiB.*\n"


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
    runs = [outcomes.read(path) for path in outcomes.found(files)]
    reg = registry.load(cfg.registry_dir)
    pages = examples.load(cfg, examples.Lifecycles.of(reg, cfg.example_releases))
    current = checking.current_rows(pages.values())
    merged = outcomes.merge_runs(runs, current, cfg.example_releases)
    rec.store(cfg.verified_file, merged.recorded, current)


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

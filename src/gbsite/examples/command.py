"""`gbsite check --examples` and `gbsite coverage`: the parsed arguments in, what the library
(checking.py, states.py) finds printed, an exit status out (0 ok, 1 problems found)."""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import TYPE_CHECKING

from gbsite.config import Config
from gbsite.errors import GbsiteError
from gbsite.examples import states
from gbsite.examples.states import Coverage
from gbsite.examples.vocabulary import State
from gbsite.registry import store as registry
from gbsite.report import print_json, report, say, write

if TYPE_CHECKING:
    from gbsite.examples import checking


def check(cfg: Config, args: argparse.Namespace) -> int:
    """Run the examples with the torch of `--python` or of each `--torch` release."""
    # Here, not at the top: `gbsite coverage` runs nothing and need not import them.
    from gbsite.examples import checking, runner, torchenv

    quiet = args.format == "json"  # one JSON document at the end, nothing before it
    if args.torch and args.python:
        raise GbsiteError("--torch and --python both name a torch: give one")
    releases = cfg.example_releases
    wanted = list(releases) if args.torch == "all" else [args.torch] if args.torch else [None]
    # Every environment first: an unknown release or a failed install changes nothing.
    pythons = [
        torchenv.python_for(r, releases, index=args.torch_index)
        if r
        else args.python or sys.executable
        for r in wanted
    ]
    reg = registry.load(cfg.registry_dir)

    def started(check: checking.ExampleCheck) -> None:
        how = "forked from one warm interpreter" if check.forked else "each in a fresh interpreter"
        backend = f" and {check.backend}" if check.backend else ""
        say(
            f"check --examples: {check.blocks} blocks with torch {check.torch}{backend}, {how}, "
            f"{args.jobs} at a time",
            flush=True,
        )

    def progress(c: checking.Checked) -> None:
        r = c.result
        say(
            f"  {'ok  ' if c.ok else 'FAIL'} {r.block.where}"
            f"{r.block.kind}: {c.summary} ({r.seconds:.1f} s)",
            flush=True,
        )

    checks = []
    # Ctrl-C or SIGTERM stops the runs: the torch being run records nothing, those before it
    # keep what they recorded.
    with runner.interruptible():
        for python in pythons:
            check = checking.check_examples(
                cfg,
                reg,
                args.ids,
                python=python,
                jobs=args.jobs,
                timeout=args.timeout,
                changed=args.changed,
                fresh=args.fresh,
                accept=args.accept,
                backend=args.backend or "",
                started=None if quiet else started,
                progress=None if quiet else progress,
            )
            checks.append(check)
            if args.outcomes is not None:
                from gbsite.examples import outcomes

                outcomes.write(args.outcomes, check.as_dict(), cfg.root)
            if not quiet:
                _summary(cfg, check, args.format)
    if quiet:
        found = [p for c in checks for p in c.problems]
        data = [c.as_dict() for c in checks]
        report(found, "json", data=data[0] if len(data) == 1 else data)
    return 1 if any(c.problems for c in checks) else 0


def _summary(cfg: Config, check: checking.ExampleCheck, format: str) -> None:
    """One torch's problems (with what each failed program printed), notes and figures."""
    from gbsite.examples import checking

    failed, ran = len(check.failed), len(check.results)
    rate = f", {ran / check.seconds:.1f} blocks/s" if ran and check.seconds > 0 else ""
    backend = f" with {check.backend}" if check.backend else ""
    summary = (
        f"check --examples: {ran - failed} passed, {failed} failed "
        f"(torch {check.torch}{backend}, {check.seconds:.0f} s{rate}); status blocks: "
        f"{len(check.problems) - failed} problem(s); outcomes recorded in "
        f"{checking.record_path(cfg)}"
    )
    notes = [
        f"note: {note} (the page is checked with the first release that has its id)"
        for note in check.notes
    ]
    skipped = [f"note: {note}" for note in check.skipped]
    report(check.problems, format, details=check.details, footer=[*notes, *skipped, summary])


def coverage(cfg: Config, args: argparse.Namespace) -> int:
    """Print the coverage of a release; 1 when fewer ids than --min-verified are verified."""
    from gbsite import releases

    reg = registry.load(cfg.registry_dir)
    # A release of the examples that is not imported would be counted as "verified 0".
    unimported = releases.problems(cfg.file, cfg.example_releases, reg.labels)
    if unimported:
        raise GbsiteError(unimported)
    found = states.coverage_of(cfg, reg, args.release)
    # Escaped as any output that quotes pages (their titles, repeated paragraphs, ids).
    if args.format == "json":
        print_json(_coverage_json(found))
    else:
        write(_coverage_text(found, args.list))
    verified = found.counts[State.VERIFIED]
    if args.min_verified is not None and verified < args.min_verified:
        print(
            f"coverage: {verified} verified, fewer than --min-verified {args.min_verified}",
            file=sys.stderr,
        )
        return 1
    # Verified or fixed: a page whose repro stops breaking with this release moves from one to
    # the other, as its record says, and counts the same; a page that loses its outcomes or
    # fails its promise drops out of both.
    checked = verified + found.counts[State.FIXED]
    if args.min_checked is not None and checked < args.min_checked:
        print(
            f"coverage: {checked} verified or fixed, fewer than --min-checked {args.min_checked}",
            file=sys.stderr,
        )
        return 1
    return 0


def _coverage_json(found: Coverage) -> dict[str, object]:
    return {
        "release": found.release,
        "total": len(found.states),
        "counts": found.counts,
        "backends": found.backends(),
        "ids": [s.as_dict() for s in found.states],
        "repeated_paragraphs": [
            {"text": text, "ids": ids} for text, ids in sorted(found.repeated.items())
        ],
    }


def _coverage_text(found: Coverage, list_none: bool) -> str:
    """Each state's count and share, the ids in each (those with none only with `list_none`),
    thin pages and repeated paragraphs."""
    total = len(found.states)
    lines = [f"coverage of the {total} ids of torch {found.release}:"]
    by_state = found.by_state()
    for state, ids in by_state.items():
        share = 100 * len(ids) / total if total else 0
        lines.append(f"  {state:<12} {len(ids):>4}  {share:5.1f}%")
    for state, ids in by_state.items():
        if ids and (list_none or state != State.NONE):
            wrapped = textwrap.fill(
                " ".join(ids), width=100, initial_indent="  ", subsequent_indent="  "
            )
            lines += ["", f"{state}:", wrapped]
    for backend, n in found.backends().items():
        lines += [
            "",
            f"gb-fix blocks compiled with {backend}: {n['passed']} do what eager does, "
            f"{n['failed']} do not, {n['not run']} not run with it",
        ]
    if found.thin:
        lines += ["", f"under {found.MIN_WORDS} words of prose: {' '.join(found.thin)}"]
    for text, ids in sorted(found.repeated.items()):
        lines += ["", f"repeated on {len(ids)} pages ({' '.join(ids)}): {text[:90]}"]
    return "\n".join(lines)

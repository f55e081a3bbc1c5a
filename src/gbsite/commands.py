"""The commands of docs/gb/ and the site: sync, adopt, check, build and serve.

The parsed arguments in, a summary printed, an exit status out (0 ok, 1 problems found). Bad
input raises GbsiteError, which the CLI prints. The registry's commands are in
registry_commands.py, the example commands in examples/command.py, lookup in
search/command.py."""

from __future__ import annotations

import argparse
import sys

from gbsite.config import Config
from gbsite.errors import GbsiteError
from gbsite.fs import transaction
from gbsite.report import say, write


def sync(cfg: Config, args: argparse.Namespace) -> int:
    from gbsite.docs import sync
    from gbsite.registry import store as registry

    with transaction.writing(cfg.docs_dir, "sync"):
        reg = registry.load(cfg.registry_dir)
        result = sync.plan(cfg, reg)
        for warning in (*result.orphans, *result.mentions):
            say(f"warning: {warning}", file=sys.stderr)  # it may quote a page
        if result.problems:
            raise GbsiteError(result.problems)
        sync.remove_stale_temp_files(cfg.docs_dir)
        written = sync.apply(cfg.docs_dir, result)
    print(f"sync: {len(written)} written ({len(result.created)} new), {result.unchanged} unchanged")
    return 0


def adopt(cfg: Config, args: argparse.Namespace) -> int:
    """The notes of the previous site's docs files into docs/gb/ (docs/adopt.py). Bad input
    writes nothing; a conflict keeps ours (or, with --replace, takes theirs) and exits 1."""
    from gbsite.docs import adopt, sync
    from gbsite.registry import store as registry

    with transaction.writing(cfg.docs_dir, "adopt"):
        reg = registry.load(cfg.registry_dir)
        result = adopt.plan(cfg, reg, args.dir, replace=args.replace)
        for warning in result.skipped:
            say(f"warning: {warning}", file=sys.stderr)  # it may quote a page
        if result.problems:
            raise GbsiteError(result.problems)
        for conflict in result.conflicts:
            say(str(conflict), file=sys.stderr)  # it quotes the adopted docs
        sync.remove_stale_temp_files(cfg.docs_dir)
        sync.apply(cfg.docs_dir, sync.Plan(writes=result.writes))
    detail = [f"{len(result.created)} new files"] if result.created else []
    detail += [f"{len(result.replaced)} replacing ours"] if result.replaced else []
    print(
        f"adopt: adopted {result.adopted}{' (' + ', '.join(detail) + ')' if detail else ''}, "
        f"unchanged {result.unchanged}, conflicts {len(result.conflicts)}"
    )
    return 1 if result.conflicts else 0


def check(cfg: Config, args: argparse.Namespace) -> int:
    """The registry, docs/gb/ and (with --record) the record of runs agree; nothing written.
    With --examples, the examples run (examples/command.py)."""
    if args.examples:
        from gbsite.examples import command

        return command.check(cfg, args)
    from gbsite import releases
    from gbsite.docs import sync
    from gbsite.examples.pages import Lifecycles
    from gbsite.examples.pages import problems as page_problems
    from gbsite.registry import store as registry
    from gbsite.report import report

    reg = registry.load(cfg.registry_dir)
    result = sync.plan(cfg, reg)
    problems = (
        registry.snapshot_problems(cfg.registry_dir, reg.sources)
        + registry.resolved_problems(cfg.registry_dir, reg.sources)
        + releases.problems(cfg.file, cfg.example_releases, reg.labels)
        + sync.check_problems(cfg, result)
        + page_problems(result.blocks, Lifecycles.of(reg, cfg.example_releases))
    )
    notes: list[str] = []
    if args.record and not problems:
        # Only here: a plain check runs no example and need not import the runner.
        from gbsite.examples import checking

        recorded = checking.record_check(cfg, reg)
        problems = recorded.problems
        if recorded.pending:
            pages = len({p.path for p in recorded.pending})
            notes = [
                p.github("notice") if args.format == "github" else f"pending: {p}"
                for p in recorded.pending
            ] + [
                f"check --record: {len(recorded.pending)} block(s) of {pages} page(s) not run "
                "yet with every release of the examples; their pages say so until CI records "
                "the outcomes"
            ]
    summary = (
        f"check: {len(problems)} problem(s)"
        if problems
        else f"check: registry ({len(reg.entries)} ids) and docs are consistent"
    )
    # As text, stdout holds the problems alone (one a line, for tools); the count goes to stderr.
    report(
        problems,
        args.format,
        data={"ok": not problems, "entries": len(reg.entries), "docs": len(result.blocks)},
        footer=[*notes, summary],
        footer_file=sys.stderr if problems and args.format == "text" else None,
    )
    return 1 if problems else 0


def build(cfg: Config, args: argparse.Namespace) -> int:
    from gbsite.site import build

    report = build.build(cfg, args.out, skip_unchanged=not args.force, parallel=True)
    for warning in report.warnings:
        say(f"warning: {warning}", file=sys.stderr)  # it may quote a page
    total = sum(report.timings.values())
    if report.unchanged:
        print(
            f"build: nothing changed since {report.out_dir} was built "
            f"({total * 1000:.0f} ms to check)"
        )
        return 0
    phases = ", ".join(f"{name} {secs * 1000:.0f} ms" for name, secs in report.timings.items())
    print(
        f"build: {report.files} files in {report.out_dir} ({report.written} changed) "
        f"in {total * 1000:.0f} ms [{phases}]"
    )
    return 0


def serve(cfg: Config, args: argparse.Namespace) -> int:
    import signal

    from gbsite.serve import DevServer

    server = DevServer(
        cfg,
        args.host,
        args.port,
        args.out,
        # Its lines quote pages (a failed build's problems) and requests: escaped, lines kept.
        log=lambda message: write(message, flush=True),
        traceback=args.traceback,
    )

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # SIGTERM (CI, process managers) stops as cleanly as Ctrl-C

    signal.signal(signal.SIGTERM, stop)
    try:
        server.serve()
    except KeyboardInterrupt:
        print("stopped", flush=True)
    return 0

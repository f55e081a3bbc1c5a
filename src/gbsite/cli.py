"""Command line: `gbsite COMMAND ...`. Exit codes: 0 ok, 1 problems found (check), 2 bad input."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from gbsite import config as config_mod
from gbsite import version
from gbsite.errors import GbsiteError

if TYPE_CHECKING:
    from gbsite.examples.checking import ExampleCheck

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_ERROR = 2
EXIT_BUG = 3  # an error gbsite did not expect: a bug, reported in one line (see --traceback)

Handler = Callable[[argparse.Namespace], int]


def _config(args: argparse.Namespace) -> config_mod.Config:
    return config_mod.load(args.root)


def cmd_import(args: argparse.Namespace) -> int:
    from gbsite.fs import transaction
    from gbsite.registry import fetch, importer
    from gbsite.registry import store as registry

    cfg = _config(args)
    limits = fetch.Limits(
        download=int(args.max_download * fetch.MB),
        seconds=args.download_timeout,
        expanded=int(args.max_json * fetch.MB),
    )
    snapshot = importer.read_source(args.source, limits)
    # All or nothing: the new registry/ is staged beside the old one and swapped in whole.
    with transaction.writing(cfg.registry_dir, "import"):
        reg = registry.load(cfg.registry_dir, must_exist=False)
        new, result = importer.import_snapshot(reg, snapshot, args.label)
        if result.skipped_reason:
            print(f"{args.source}: {result.skipped_reason}")
            return EXIT_OK
        with transaction.replacing(cfg.registry_dir) as stage:
            written = registry.save(new, stage)
    print(
        f"imported {result.label}: {len(snapshot.texts)} ids "
        f"({len(result.added)} new, {len(result.changed)} changed, {len(result.removed)} removed); "
        f"{len(written)} files written"
    )
    for title, ids in (
        ("new", result.added),
        ("changed", result.changed),
        ("removed", result.removed),
    ):
        if ids and args.verbose:
            print(f"  {title}: {' '.join(ids)}")
    return EXIT_OK


def cmd_export_json(args: argparse.Namespace) -> int:
    from gbsite.fs.files import write_atomic
    from gbsite.registry import importer
    from gbsite.registry import store as registry

    cfg = _config(args)
    text = importer.dumps_upstream(registry.load(cfg.registry_dir))
    if args.output in (None, "-"):
        sys.stdout.write(text)
    elif Path(args.output).is_dir():
        raise GbsiteError(f"{args.output}: is a folder; name the file to write (-o FILE)")
    else:
        write_atomic(Path(args.output), text.encode("utf-8"))
    return EXIT_OK


def cmd_sync(args: argparse.Namespace) -> int:
    from gbsite.docs import sync
    from gbsite.fs import transaction
    from gbsite.registry import store as registry

    cfg = _config(args)
    with transaction.writing(cfg.docs_dir, "sync"):
        reg = registry.load(cfg.registry_dir)
        result = sync.plan(cfg, reg)
        for warning in (*result.orphans, *result.mentions):
            print(f"warning: {warning}", file=sys.stderr)
        if result.problems:
            raise GbsiteError(result.problems)
        sync.remove_stale_temp_files(cfg.docs_dir)
        written = sync.apply(cfg.docs_dir, result)
    print(
        f"sync: {len(written)} written ({len(result.created)} new, {len(result.adopted)} converted "
        f"from the previous site's format), {result.unchanged} unchanged"
    )
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    import json

    from gbsite.docs import sync
    from gbsite.examples import checking
    from gbsite.registry import store as registry

    cfg = _config(args)
    if args.examples:
        return check_examples(args, cfg)
    reg = registry.load(cfg.registry_dir)
    result = sync.plan(cfg, reg)
    problems = sync.check_problems(cfg, result) + checking.page_problems(result.blocks, reg.entries)
    if args.record and not problems:
        problems = checking.record_problems(cfg, reg)
    if args.format == "github":
        # GitHub Actions workflow commands: each problem is annotated on its line in the PR.
        for problem in problems:
            print(problem.github())
        print(
            f"check: {len(problems)} problem(s)"
            if problems
            else f"check: registry ({len(reg.entries)} ids) and docs are consistent"
        )
    elif args.format == "json":
        report = {
            "ok": not problems,
            "entries": len(reg.entries),
            "docs": len(result.blocks),
            "problems": [p.as_dict() for p in problems],
        }
        print(json.dumps(report, indent=2))
    else:
        for problem in problems:
            print(problem)
        if problems:
            print(f"check: {len(problems)} problem(s)", file=sys.stderr)
        else:
            print(f"check: registry ({len(reg.entries)} ids) and docs are consistent")
    return EXIT_PROBLEMS if problems else EXIT_OK


def check_examples(args: argparse.Namespace, cfg: config_mod.Config) -> int:
    import json

    from gbsite.examples import annotations as examples
    from gbsite.examples import checking, torchenv
    from gbsite.registry import store as registry

    quiet = args.format == "json"
    if args.torch and args.python:
        raise GbsiteError("--torch and --python both name a torch: give one")
    releases = cfg.example_releases
    wanted = list(releases) if args.torch == "all" else [args.torch] if args.torch else [None]
    # Every environment first: an unknown release or a failed install changes nothing.
    pythons = [
        torchenv.python_for(r, releases) if r else args.python or examples.default_python()
        for r in wanted
    ]
    reg = registry.load(cfg.registry_dir)

    def started(check: checking.ExampleCheck) -> None:
        how = "forked from one warm interpreter" if check.forked else "each in a fresh interpreter"
        print(
            f"check --examples: {check.blocks} blocks with torch {check.torch}, {how}, "
            f"{args.jobs} at a time",
            flush=True,
        )

    def progress(c: checking.Checked) -> None:
        r = c.result
        print(
            f"  {'ok  ' if c.ok else 'FAIL'} {r.block.where}"
            f"{r.block.kind}: {c.summary} ({r.seconds:.1f} s)",
            flush=True,
        )

    checks = []
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
            started=None if quiet else started,
            progress=None if quiet else progress,
        )
        checks.append(check)
        if not quiet:
            _example_summary(args, cfg, check)
    if quiet:
        reports = [c.as_dict() for c in checks]
        print(json.dumps(reports[0] if len(reports) == 1 else reports, indent=2))
    return EXIT_PROBLEMS if any(c.problems for c in checks) else EXIT_OK


def _example_summary(args: argparse.Namespace, cfg: config_mod.Config, check: ExampleCheck) -> None:
    from gbsite.examples import checking

    for problem in check.problems:
        if args.format == "github":
            print(problem.github())
            continue
        print(problem)
        detail = check.details(problem).strip()
        if detail:
            print("    " + detail.replace("\n", "\n    "))
    for note in check.notes:
        print(f"note: {note} (the page is checked with the first release that has its id)")
    failed, ran = len(check.failed), len(check.results)
    rate = f", {ran / check.seconds:.1f} blocks/s" if ran and check.seconds > 0 else ""
    print(
        f"check --examples: {ran - failed} passed, {failed} failed "
        f"(torch {check.torch}, {check.seconds:.0f} s{rate}); status blocks: "
        f"{len(check.problems) - failed} problem(s); outcomes recorded in "
        f"{checking.record_path(cfg)}"
    )


def cmd_coverage(args: argparse.Namespace) -> int:
    from gbsite.examples import checking
    from gbsite.registry import store as registry

    cfg = _config(args)
    report = checking.coverage_of(cfg, registry.load(cfg.registry_dir), args.release)
    print(report.json() if args.format == "json" else report.text(list_none=args.list))
    verified = report.counts["verified"]
    if args.min_verified is not None and verified < args.min_verified:
        print(
            f"coverage: {verified} verified, fewer than --min-verified {args.min_verified}",
            file=sys.stderr,
        )
        return EXIT_PROBLEMS
    return EXIT_OK


def cmd_build(args: argparse.Namespace) -> int:
    from gbsite.site import build

    cfg = _config(args)
    report = build.build(cfg, args.out, skip_unchanged=not args.force, parallel=True)
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    total = sum(report.timings.values())
    if report.unchanged:
        print(
            f"build: nothing changed since {report.out_dir} was built "
            f"({total * 1000:.0f} ms to check)"
        )
        return EXIT_OK
    phases = ", ".join(f"{name} {secs * 1000:.0f} ms" for name, secs in report.timings.items())
    print(
        f"build: {report.files} files in {report.out_dir} ({report.written} changed) "
        f"in {total * 1000:.0f} ms [{phases}]"
    )
    return EXIT_OK


def cmd_lookup(args: argparse.Namespace) -> int:
    from gbsite.search import command

    return command.lookup(_config(args), args)


def cmd_serve(args: argparse.Namespace) -> int:
    from gbsite.serve import DevServer

    cfg = _config(args)
    server = DevServer(
        cfg,
        args.host,
        args.port,
        args.out,
        log=lambda message: print(message, flush=True),
        traceback=args.traceback,
    )

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # SIGTERM (CI, process managers) stops as cleanly as Ctrl-C

    signal.signal(signal.SIGTERM, stop)
    try:
        server.serve()
    except KeyboardInterrupt:
        print("stopped", flush=True)
    return EXIT_OK


def _port(text: str) -> int:
    """A TCP port number, or argparse's one-line usage error."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0 to 65535)")
    return port


def _positive(text: str) -> float:
    """A number greater than 0, or argparse's one-line usage error."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number greater than 0")
    return value


class _VersionAction(argparse.Action):
    """--version, looking the version up only when asked (package metadata is slow to load)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        print(f"gbsite {version()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gbsite",
        description="Build the documentation site for PyTorch's graph-break registry.",
        epilog="Run `gbsite COMMAND --help` for the options of a command.",
    )
    parser.add_argument(
        "--version", action=_VersionAction, nargs=0, help="show gbsite's version and exit"
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=None,
        metavar="DIR",
        help="project folder (default: the nearest folder upwards with gbsite.toml)",
    )
    parser.add_argument(
        "--traceback",
        action="store_true",
        help="on an unexpected error, print Python's traceback (for a bug report)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser(
        "import",
        help="import an upstream registry snapshot into registry/",
        description="Import PyTorch's graph_break_registry.json (a file, an http(s) URL, or a "
        "PyTorch wheel) into registry/, updating each id's release history. Import releases "
        "oldest first; importing the same snapshot again changes nothing.",
    )
    p.add_argument("source", help="registry JSON file, http(s) URL, or torch-*.whl")
    p.add_argument(
        "--label",
        help="release label, e.g. 2.15.0 or main@2026-11-20 "
        "(default: the version in a wheel's or torch-X.Y.Z.json file's name)",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="list the ids that changed")
    p.add_argument(
        "--max-download",
        type=_positive,
        default=4096,
        metavar="MB",
        help="refuse a download or file larger than this (4096 MB)",
    )
    p.add_argument(
        "--download-timeout",
        type=_positive,
        default=900,
        metavar="S",
        help="give up on a download not finished after this many seconds (900)",
    )
    p.add_argument(
        "--max-json",
        type=_positive,
        default=64,
        metavar="MB",
        help="refuse a registry JSON larger than this once decompressed (64 MB)",
    )
    p.set_defaults(handler=cmd_import)

    p = sub.add_parser(
        "export-json",
        help="write the newest snapshot back in upstream JSON shape",
        description="Write the newest imported snapshot as PyTorch's graph_break_registry.json "
        "(ids removed upstream are left out).",
    )
    p.add_argument("-o", "--output", metavar="FILE", help="output file (default: stdout)")
    p.set_defaults(handler=cmd_export_json)

    p = sub.add_parser(
        "sync",
        help="write docs/gb/gbXXXX.md for every id, keeping the hand-written blocks",
        description="Write one docs/gb/gbXXXX.md per registry id. The text between the "
        "ADDITIONAL INFORMATION markers is kept byte for byte; files of the previous site are "
        "converted. If text was written outside the markers, nothing is written and the file "
        "and line are reported: move that text into the block.",
    )
    p.set_defaults(handler=cmd_sync)

    p = sub.add_parser(
        "check",
        help="validate registry and docs without writing (exit 1 if problems)",
        description="Validate the registry and docs/gb/ without writing anything: out-of-date "
        "or missing docs, text written outside the ADDITIONAL INFORMATION block, marker errors, "
        "docs for unknown ids, unknown GBxxxx ids mentioned in blocks. Exit 0 when clean, 1 "
        "when problems were found, 2 when the check could not run.",
    )
    p.add_argument(
        "--examples",
        action="store_true",
        help="run the gb-repro and gb-fix blocks of docs/gb/ against torch (see README)",
    )
    p.add_argument("ids", nargs="*", metavar="GBxxxx", help="with --examples: only these pages")
    p.add_argument(
        "--torch",
        metavar="RELEASE",
        help="with --examples: run against this torch release of gbsite.toml [examples] "
        "releases, or `all` of them, each in an environment created on first use "
        "(default: the torch installed here)",
    )
    p.add_argument(
        "--python", help="with --examples: the Python that has torch (default: this one)"
    )
    p.add_argument(
        "--accept",
        action="store_true",
        help="with --examples: record what the blocks do now where it differs from the record",
    )
    p.add_argument(
        "--record",
        action="store_true",
        help="also check, without running anything, that docs/verified-examples.yaml has an "
        "outcome for every block and every release of the examples",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="with --examples: examples run at a time (default: one per CPU)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=180.0,
        help="with --examples: seconds one example may take (180)",
    )
    p.add_argument(
        "--changed",
        action="store_true",
        help="with --examples: only the blocks with no outcome recorded for this torch yet",
    )
    p.add_argument(
        "--fresh",
        action="store_true",
        help="with --examples: a fresh interpreter per block instead of forking a warm one "
        "(slower; the default where fork is missing)",
    )
    p.add_argument(
        "--format",
        choices=["text", "json", "github"],
        default="text",
        help="output: text, json for tools, or github (annotations in a pull request)",
    )
    p.set_defaults(handler=cmd_check)

    p = sub.add_parser(
        "build",
        help="build the static site into site/",
        description="Build the site from registry/, the Additional Information blocks of "
        "docs/gb/ and templates/. Everything is validated first; on any error nothing is "
        "written. The site is built in a temporary folder and swapped in, so a failed or killed "
        "build leaves the previous site intact. Set SOURCE_DATE_EPOCH to date the footer; "
        "otherwise the same inputs give byte-identical output. If nothing was changed since the "
        "output folder was built, nothing is done (see --force).",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="output folder (default: paths.output in gbsite.toml, site/)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="build even if nothing changed since the output folder was built",
    )
    p.set_defaults(handler=cmd_build)

    p = sub.add_parser(
        "serve",
        help="build, serve on localhost and rebuild on every change (live reload)",
        description="Build the site, serve it on http://127.0.0.1:8000/, and watch registry/, "
        "docs/gb/, templates/ and gbsite.toml: every save rebuilds the site and reloads the open "
        "page. A failed rebuild keeps serving the last good site and shows the error in the "
        "browser until the file is fixed. Ctrl-C stops it.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    p.add_argument("--port", type=_port, default=8000, help="port (8000; 0 picks a free one)")
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="output folder (default: paths.output in gbsite.toml, site/)",
    )
    p.set_defaults(handler=cmd_serve)

    p = sub.add_parser(
        "lookup",
        help="find the graph breaks in a log (file or stdin) or for some words",
        description="Find the registry entries for a pasted graph-break log, an id, a page URL "
        "or some words: the same search as the site's. Reads FILE, or stdin when FILE is - or "
        "absent; --words searches for words instead. Prints each match's id, type and "
        "page URL, best first (for a log, every graph break in it, in order). Exit 1 when "
        "nothing matches.",
    )
    p.add_argument("file", nargs="?", metavar="FILE", help="log file (default: stdin)")
    p.add_argument("--words", nargs="+", metavar="WORD", help="search for these words instead")
    p.add_argument("--limit", type=int, default=10, help="at most this many matches (10)")
    p.add_argument(
        "--max-bytes",
        type=_positive,
        default=1,
        metavar="MB",
        help="read at most this much of the input; the rest is cut, with a notice (1 MB)",
    )
    p.add_argument("--json", action="store_true", help="print JSON for tools")
    p.set_defaults(handler=cmd_lookup)

    p = sub.add_parser(
        "coverage",
        help="how many ids have a verified example, by state",
        description="The state of every id of a release, derived from its page: verified (a "
        "gb-repro and a gb-fix recorded as passing), environment, internal or unraised (declared "
        "by a status block), or none. Exit 1 when --min-verified is not met.",
    )
    p.add_argument(
        "--release",
        help="a release of the examples (2.14.1) or an imported one (2.14.0) (default: the "
        "newest release of the examples)",
    )
    p.add_argument("--format", choices=["text", "json"], default="text", help="output format")
    p.add_argument("--list", action="store_true", help="also list the ids with nothing yet")
    p.add_argument(
        "--min-verified",
        type=int,
        metavar="N",
        help="exit 1 when fewer than N ids are verified (for CI)",
    )
    p.set_defaults(handler=cmd_coverage)

    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    try:
        return handler(args)
    except GbsiteError as exc:
        for problem in exc.problems:
            print(f"gbsite: {problem}" if problem.path is None else str(problem), file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("gbsite: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `gbsite export-json | head`
        return EXIT_OK
    except OSError as exc:  # the machine's refusal (disk full, no permission): not a bug
        if args.traceback:
            raise
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"gbsite: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:  # a bug: one line, and how to see more
        if args.traceback:
            raise
        what = " ".join(str(exc).split())[:300]
        print(
            f"gbsite: internal error ({type(exc).__name__}{': ' + what if what else ''}); "
            "this is a bug in gbsite: run the command again with --traceback "
            f"(gbsite --traceback {args.command} ...) and report what it prints",
            file=sys.stderr,
        )
        return EXIT_BUG


def run() -> NoReturn:
    """The console script: `main()`, then exit without tearing the interpreter down.

    Freeing a build's objects one by one at exit takes ~20 ms, a twentieth of a cold build;
    the operating system takes the memory back at once. By now every file is written and
    closed, so output is all that needs flushing.
    """
    code = main()
    with contextlib.suppress(BrokenPipeError):  # `gbsite export-json | head`
        sys.stdout.flush()
    with contextlib.suppress(BrokenPipeError):
        sys.stderr.flush()
    os._exit(code)

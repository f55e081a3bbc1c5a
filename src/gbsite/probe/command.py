"""`python tools/probe/run.py`: run the probe corpus against torch releases and write reports.

Runs under gbsite's own Python (no torch needed here); each release's programs run under that
release's Python (examples/torchenv.py: this one when its torch is the release, else the cached
environment), through the example driver's fork server.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from gbsite.errors import GbsiteError
from gbsite.probe import corpus as corpus_
from gbsite.probe import report as report_
from gbsite.probe.detect import Program, Reached, run_programs

COMMAND = "python tools/probe/run.py --torch all"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python tools/probe/run.py",
        description="Run the reachability probe: every program of tools/probe/corpus (and those "
        "its generators write) against a torch release, and report every graph-break id "
        "reached, the internal pages first.",
    )
    p.add_argument("--torch", default="all", help="a release of the examples, or all (default)")
    p.add_argument(
        "--ids",
        nargs="*",
        default=[],
        metavar="GBxxxx",
        help="run only the programs aimed at these ids (# aims: ...)",
    )
    p.add_argument(
        "--technique",
        action="append",
        default=[],
        help="run only this technique's programs (a corpus folder); repeatable",
    )
    p.add_argument(
        "--generator",
        action="append",
        default=[],
        metavar="NAME",
        help="run only the programs of this generator (gen_NAME.py); repeatable",
    )
    p.add_argument(
        "--without",
        action="append",
        default=[],
        metavar="NAME",
        help="leave out the programs of this generator (gen_NAME.py); repeatable",
    )
    p.add_argument(
        "--report",
        type=Path,
        default=None,
        help="the JSON report to write (default: tools/probe/report-R.json, and "
        "tools/probe/REPORT.md from all of them); a partial run (--ids, "
        "--technique) replaces its programs' rows in it and keeps the others",
    )
    p.add_argument("--jobs", type=int, default=2, help="programs at once (default 2)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per program")
    p.add_argument("--root", type=Path, default=None, help="the project (default: found)")
    return p


def probe_release(
    release: str,
    root: Path,
    ids: Sequence[str],
    techniques: Sequence[str],
    jobs: int,
    timeout: float,
    merge_into: Path | None = None,
    generators: Sequence[str] = (),
    without: Sequence[str] = (),
) -> dict[str, object]:
    """Run the corpus against one release: its report. The generated programs the report
    names are saved under tools/probe/reached/."""
    from gbsite import config
    from gbsite.examples import torchenv, torchsource
    from gbsite.examples.states import coverage_of
    from gbsite.probe.sites import raise_sites, sites_of
    from gbsite.registry import store as registry

    cfg = config.load(root)
    reg = registry.load(cfg.registry_dir)
    found = coverage_of(cfg, reg, release)
    states = {s.id: s.status for s in found.states}
    python = torchenv.python_for(release, cfg.example_releases)
    version, package = torchenv.torch_info(python)
    labels = list(reg.labels)
    by_type: dict[str, str] = {}
    current: dict[str, str] = {}
    for entry in reg.entries.values():
        for revision in (*entry.replaced, *entry.history):
            by_type.setdefault(revision.text.gb_type, entry.id)
    for i in states:  # the type each id reported with this release wins a shared wording
        types = torchsource.reported_types(reg.entries[i], labels, version)
        for t in types:
            by_type[t] = i
        current[i] = sorted(types)[0] if types else reg.entries[i].current.gb_type
    where = raise_sites(package)
    sites = {
        i: [str(s) for s in sites_of({r.text.gb_type for r in (*e.history, *e.replaced)}, where)]
        for i, e in reg.entries.items()
        if i in states
    }
    corpus = root / "tools" / "probe" / "corpus"
    with tempfile.TemporaryDirectory(prefix="gbsite-probe-") as tmp:
        programs: list[Program] = [] if generators else corpus_.written(corpus)
        for technique, generator in corpus_.generators(corpus):
            if techniques and technique not in techniques:
                continue
            name = generator.stem.removeprefix("gen_")
            if (generators and name not in generators) or name in without:
                continue
            out = Path(tmp) / "generated" / technique / generator.stem
            programs += corpus_.generate(python, technique, generator, out)
        if techniques:
            programs = [p for p in programs if p.technique in techniques]
        if ids:
            programs = [p for p in programs if set(p.aims) & set(ids)]
        if not programs:
            raise GbsiteError(
                "no program of the corpus matches --ids, --technique, --generator and --without"
            )
        say(f"torch {version}: {len(programs)} programs, {jobs} at a time")
        started = time.monotonic()
        done: list[Reached] = []

        def progress(r: Reached) -> None:
            done.append(r)
            if len(done) % 25 == 0 or len(done) == len(programs):
                seen = {i for d in done for i in d.seen}
                say(
                    f"  {len(done)}/{len(programs)} in {time.monotonic() - started:.0f} s, "
                    f"{len(seen)} ids reached"
                )

        runs = list(
            run_programs(
                programs,
                python,
                by_type,
                Path(tmp) / "runs",
                jobs=jobs,
                timeout=timeout,
                progress=progress,
            )
        )
        runs.sort(key=lambda r: r.program.name)
        paths, saved = program_paths(runs, states)
        rows = [report_.program_row(r, relative(paths[r.program.name], root)) for r in runs]
        if merge_into is not None and merge_into.exists():
            old = report_.read_report(merge_into)
            whole = techniques if not (ids or generators or without) else []
            rows = report_.merge(old["programs"], rows, whole)  # type: ignore[arg-type]
            # a hand-written program deleted from the corpus since leaves the report too
            rows = [r for r in rows if r["generated"] or (root / str(r["path"])).is_file()]
        report = report_.build(
            release, version, rows, states, current, sites, corpus_.techniques(corpus)
        )
        for target, source in list(saved.items()):  # copied before the temporary folder goes
            keep = Path(tmp) / "keep" / target
            keep.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, keep)
            saved[target] = keep
        for target, keep in saved.items():
            dest = root / target
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(keep, dest)
    return report


def program_paths(
    runs: Sequence[Reached], states: Mapping[str, str]
) -> tuple[dict[str, str], dict[str, Path]]:
    """Each program's path for the report: a file of the corpus by its repository path. A
    generated program that reached an id whose page is not verified is saved under
    tools/probe/reached/ (the others are named `generated:NAME`: any run of the generator
    writes them again)."""
    paths: dict[str, str] = {}
    saved: dict[str, Path] = {}
    for r in runs:
        p = r.program
        if not p.generated:
            paths[p.name] = p.path.as_posix()
        elif any(states.get(i) in report_.NOT_VERIFIED for i in r.seen):
            target = f"tools/probe/reached/{p.name}.py"
            paths[p.name] = target
            saved[target] = p.path
        else:
            paths[p.name] = f"generated:{p.name}"
    return paths, saved


def prune(root: Path, reports: Sequence[dict[str, object]]) -> None:
    """Remove saved programs no report names any more."""
    folder = root / "tools" / "probe" / "reached"
    named = {
        str(row["path"])
        for rep in reports
        for row in rep["programs"]  # type: ignore[attr-defined]
    }
    for path in sorted(folder.rglob("*.py")) if folder.is_dir() else []:
        if path.relative_to(root).as_posix() not in named:
            path.unlink()


def relative(path: str, root: Path) -> str:
    """A corpus file's path from the repository's root (saved and generated names as they are)."""
    if path.startswith(("tools/", "generated:")):
        return path
    return Path(path).resolve().relative_to(root.resolve()).as_posix()


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    from gbsite import config

    args = parser().parse_args(argv)
    import signal

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # so that the fork server and its children are ended

    signal.signal(signal.SIGTERM, stop)
    try:
        root = config.find_root(args.root or Path.cwd())
        cfg = config.load(root)
        releases = list(cfg.example_releases) if args.torch == "all" else [args.torch]
        partial = bool(args.ids or args.technique or args.generator or args.without)
        if args.report is not None and len(releases) > 1:
            raise GbsiteError("--report names one file: use it with one --torch release")
        folder = root / "tools" / "probe"
        for release in releases:
            target = args.report or folder / f"report-{release}.json"
            report = probe_release(
                release,
                root,
                args.ids,
                args.technique,
                args.jobs,
                args.timeout,
                merge_into=target if partial else None,
                generators=args.generator,
                without=args.without,
            )
            report_.write_json(target, report)
            say(f"wrote {target}")
        if args.report is None:
            reports = report_.read_reports(folder)
            prune(root, reports)
            (folder / "REPORT.md").write_text(report_.markdown(reports, COMMAND), encoding="utf-8")
            say(f"wrote {folder / 'REPORT.md'}")
    except GbsiteError as exc:
        from gbsite.report import report as print_problems

        print_problems(exc.problems, file=sys.stderr, program="probe")
        return 2
    except KeyboardInterrupt:
        say("probe: interrupted")
        return 130
    return 0

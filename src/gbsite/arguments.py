"""The command line's grammar: every command and option of `gbsite`, with its help text.

build_parser() makes the argparse parser, a table of commands; each command's handler imports
the module that runs it only when it runs, and only the standard library (and usage.py) is
imported here, so that `gbsite lookup` starts fast."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

from gbsite.usage import Parser

Handler = Callable[[argparse.Namespace], int]
Add = Callable[..., object]  # a parser's add_argument
Action = Callable[..., Add]  # makes an action of a command (`release add`) and gives its Add


# Every command, in the order of `gbsite --help` (a test holds it to build_parser's).
COMMANDS = (
    "import",
    "release",
    "export-json",
    "sync",
    "adopt",
    "check",
    "build",
    "serve",
    "lookup",
    "show",
    "coverage",
    "ci",
)


def command_of(argv: Sequence[str]) -> str | None:
    """The command `argv` plainly names: its first word that is neither an option nor the value
    of --root. None when it names none or asks for help or the version: the whole parser then
    answers, with its list of commands or a suggestion for a misspelt one."""
    words = iter(argv)
    for word in words:
        if word in ("-h", "--help", "--version"):
            return None
        if word == "--root":
            next(words, None)
        elif not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def _runs(parser: argparse.ArgumentParser, run: str) -> Add:
    """`parser`'s command runs the function `run` names ("module:function"); its add_argument."""
    parser.set_defaults(handler=_lazy(*run.split(":")), command_parser=parser)
    return parser.add_argument


def _skipped(*args: object, **kwargs: object) -> None:
    """The add_argument of a command left out of the parser (build_parser's `only`)."""


def _lazy(module: str, name: str) -> Handler:
    """The handler that runs `module.name(config, args)`, importing the module only then."""

    def handler(args: argparse.Namespace) -> int:
        import importlib

        from gbsite import config

        command: Callable[..., int] = getattr(importlib.import_module(module), name)
        return command(config.load(args.root), args)

    return handler


def _number(kind: type[float], low: float, high: float, what: str) -> Callable[[str], float]:
    """An argument type: a number from low to high (ends excluded for a float), or argparse's
    one-line usage error saying it is not `what`."""

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            value = float("nan")
        if not (low <= value <= high if kind is int else low < value < high):
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
        return value

    return parse


_port = _number(int, 0, 65535, "a port number (0 to 65535)")
_count = _number(int, 1, 1024, "a number of processes (1 to 1024)")
_positive = _number(float, 0, float("inf"), "a number greater than 0")  # finite: not inf, nan


def _torch_release(text: str) -> str:
    """--torch: `all`, or a release written as gbsite.toml writes them (never empty: an empty
    value would silently mean the torch installed here)."""
    from gbsite import releases

    if text != "all" and not releases.is_release(text):
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not `all` or {releases.RELEASE_HELP}")
    return text


# What `gbsite show` and `coverage` can print, for their help (examples/vocabulary.py State and
# examples/vocabulary.py Did; tests/test_cli.py checks that these name every one).
STATES_HELP = "verified, fixed, pending, environment, internal, unraised or none"
OUTCOMES_HELP = (
    "breaks, breaks with GBxxxx, no break, runs, called once, recompiles unannounced, "
    "fails without torch.compile too, differs from eager, gives a wrong value, computes it "
    "right, fails"
)
RECORDED_HELP = (  # as recorded
    "breaks, breaks GBxxxx, no-break, runs, once, recompiles, eager-fails, differs, wrong, "
    "correct or error"
)


class _Version(argparse.Action):
    """--version, looking the version up only when asked (package metadata is slow to load)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from gbsite import version

        print(f"gbsite {version()}")
        parser.exit()


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or with `only` (a command's name, as in COMMANDS) of that
    command alone: argparse takes ~7 ms of CPU to make all twenty, an eighth of a lookup."""
    parser = Parser(
        prog="gbsite",
        description="Build the documentation site for PyTorch's graph-break registry.",
        epilog="Run `gbsite COMMAND --help` for the options of a command.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def command(name: str, run: str, help: str, description: str) -> Add:
        """A command run by the function `run` names ("module:function"); its add_argument."""
        if only is not None and name != only:
            return _skipped
        return _runs(sub.add_parser(name, help=help, description=description), run)

    def group(name: str, help: str, description: str, dest: str, metavar: str) -> Action:
        """A command of actions (`release add`, `ci merge`); what makes each action."""
        if only is not None and name != only:
            return lambda *_, **__: _skipped
        actions = sub.add_parser(name, help=help, description=description).add_subparsers(
            dest=dest, metavar=metavar, required=True
        )

        def action(name: str, run: str, help: str, description: str | None = None) -> Add:
            return _runs(actions.add_parser(name, help=help, description=description or help), run)

        return action

    # A table of commands and options, a call each, formatted by hand to read as a table.
    # fmt: off
    def out(add: Add) -> None:
        add("--out", type=Path, metavar="DIR", help="output folder (default: paths.output in "
            "gbsite.toml, site/)")

    def limits(add: Add) -> None:
        add("--max-download", type=_positive, default=4096, metavar="MB", help="refuse a "
            "download or file larger than this (4096 MB)")
        add("--download-timeout", type=_positive, metavar="S", help="give up on a download (a "
            "URL, or pip's of a wheel) not finished after this many seconds (900)")
        add("--max-json", type=_positive, default=64, metavar="MB", help="refuse a registry "
            "JSON larger than this once decompressed (64 MB)")

    def torch_source(add: Add) -> None:
        add("--torch-source", type=Path, metavar="DIR", help="the torch source of this release "
            "(its package folder, or an environment with it), to resolve the registry fields "
            "that name a Python value (a wheel has its own)")

    add: Add = parser.add_argument
    add("--version", action=_Version, nargs=0, help="show gbsite's version and exit")
    add("--root", type=Path, metavar="DIR", help="project folder (default: the nearest folder "
        "upwards with gbsite.toml)")
    add("--traceback", action="store_true", help="on an unexpected error, print Python's "
        "traceback (for a bug report)")

    add = command("import", "gbsite.registry_commands:import_snapshot",
        "import an upstream registry snapshot into registry/",
        "Import PyTorch's graph_break_registry.json (a file, an http(s) URL, or a PyTorch wheel) "
        "into registry/, updating each id's release history, and keep it as "
        "registry/snapshots/LABEL.json.gz. Import releases oldest first; importing the same "
        "snapshot again changes nothing.")
    add("source", help="registry JSON file, http(s) URL, or torch-*.whl")
    add("--label", help="release label, e.g. 2.15.0 or main@2026-11-20 (default: the version in "
        "a wheel's or torch-X.Y.Z.json file's name)")
    add("-v", "--verbose", action="store_true", help="list the ids that changed")
    torch_source(add)
    limits(add)

    release = group("release", "add a torch release to the examples, or resolve an imported "
        "one's fields that name Python values", "The torch releases the examples run against "
        "([examples] releases in gbsite.toml).", "action", "ACTION")

    add = release("add", "gbsite.registry_commands:release_add",
        "import a torch release's registry and add it to the releases of the examples",
        "Import the registry of torch RELEASE (from SOURCE, or from the release's wheel, which "
        "pip downloads: about 140 MB), add RELEASE to [examples] releases in gbsite.toml (its "
        "comments and layout kept) and write docs/gb/ for it, as `gbsite sync` does. All or "
        "nothing: on any error registry/ and gbsite.toml are left as they were. A release "
        "listed already and imported, or older than the newest listed, is refused; one listed "
        "but not imported is imported. What the examples do with RELEASE is left to CI "
        "(`gbsite check --examples --torch RELEASE --changed`).")
    add("release", metavar="RELEASE", help="the torch release, e.g. 2.16.0")
    add("source", nargs="?", metavar="SOURCE", help="its registry: JSON file (or .json.gz), "
        "http(s) URL or torch-*.whl, as `gbsite import` takes (default: download the wheel "
        "with pip)")
    torch_source(add)
    limits(add)

    add = release("resolve", "gbsite.registry_commands:release_resolve",
        "resolve the registry fields of an imported snapshot that name a Python value",
        "Some registry fields hold the name of a Python value (`_ASYNC_OP_REMAP_ERROR`) "
        "instead of its text. Read the torch source of release LABEL (--torch-source DIR, or "
        "else gbsite's environment of that release, or this Python's torch) and write the texts "
        "into registry/resolved/LABEL.yaml, with the file and line each came from.")
    add("label", metavar="LABEL", help="an imported snapshot, e.g. 2.15.0")
    add("-v", "--verbose", action="store_true", help="also list the names left as they are")
    torch_source(add)

    add = command("export-json", "gbsite.registry_commands:export_json",
        "write the newest snapshot back in upstream JSON shape",
        "Write the newest imported snapshot as PyTorch's graph_break_registry.json (ids removed "
        "upstream are left out).")
    add("-o", "--output", metavar="FILE", help="output file (default: stdout)")

    command("sync", "gbsite.commands:sync",
        "write docs/gb/gbXXXX.md for every id, keeping the hand-written blocks",
        "Write one docs/gb/gbXXXX.md per registry id. The text between the ADDITIONAL "
        "INFORMATION markers is kept byte for byte. If text was written outside the markers, "
        "nothing is written and the file and line are reported: move that text into the block.")

    add = command("adopt", "gbsite.commands:adopt",
        "bring the notes of the previous site's docs/gb/ files into docs/gb/",
        "Take the hand-written notes (between the ADDITIONAL INFORMATION markers, or in an "
        "older file the Additional Information section) of each gbXXXX.md in DIR, the previous "
        "Jekyll site's docs/gb/, into the page of docs/gb/ whose notes are empty. Text outside "
        "the notes that the previous site did not generate, marker errors or invalid UTF-8: "
        "reported with file and line, exit 2, nothing written. Notes that differ from ours: "
        "reported with file and line and ours kept (unless --replace); the other files are "
        "still adopted, and the exit status is 1. Ids the registry lacks are left alone. "
        "Running it again changes nothing.")
    add("dir", type=Path, metavar="DIR", help="the previous site's docs/gb/ folder")
    add("--replace", action="store_true", help="where both have notes and they differ, take "
        "the notes of DIR")

    add = command("check", "gbsite.commands:check",
        "validate registry and docs without writing (exit 1 if problems)",
        "Validate the registry and docs/gb/ without writing anything: out-of-date or missing "
        "docs, text written outside the ADDITIONAL INFORMATION block, marker errors, docs for "
        "unknown ids, unknown GBxxxx ids mentioned or linked (gbXXXX.md) in blocks, snapshots "
        "missing or not matching sources.yaml, releases of the examples that are not imported. "
        f"With --examples, each block's outcome with each torch is one of: {RECORDED_HELP}. "
        "Exit 0 when clean, 1 when problems were found, 2 when the check could not run.")
    add("--examples", action="store_true", help="run the gb-repro, gb-fix and gb-wrong blocks "
        "of docs/gb/ against torch (see CONTRIBUTING.md)")
    add("ids", nargs="*", metavar="GBxxxx", help="with --examples: only these pages")
    add("--torch", type=_torch_release, metavar="RELEASE", help="with --examples: run "
        "against this torch release of gbsite.toml [examples] releases, or `all` of them, "
        "each in an environment created on first use (default: the torch installed here)")
    add("--torch-index", metavar="URL", help="with --torch: a package index to install torch "
        "from besides the default one, e.g. PyTorch's CPU wheels (default: "
        "$GBSITE_TORCH_INDEX_URL); skipped when it cannot be reached")
    add("--python", help="with --examples: the Python that has torch (default: this one)")
    add("--backend", choices=["inductor", "aot_eager"], help="with --examples: run the gb-fix "
        "blocks compiled with this backend instead of their own (eager), each to do what eager "
        "does; recorded beside the release's outcomes (RELEASE/BACKEND). CI runs inductor with "
        "the newest release")
    add("--accept", action="store_true", help="with --examples: record what the blocks do now "
        "where it differs from the record")
    add("--record", action="store_true", help="without --examples: also check, without running "
        "anything, that docs/verified-examples.yaml has an outcome for every block and every "
        "release of the examples")
    add("--jobs", type=_count, help="with --examples: examples run at a time (default: one per "
        "CPU)")
    add("--timeout", type=_positive, help="with --examples: seconds one example may take (180)")
    add("--changed", action="store_true", help="with --examples: only the blocks with no "
        "outcome recorded for this torch yet")
    add("--fresh", action="store_true", help="with --examples: a fresh interpreter per block "
        "instead of forking a warm one (slower; the default where fork is missing)")
    add("--format", choices=["text", "json", "github"], default="text", help="output: text, "
        "json for tools, or github (annotations in a pull request)")
    add("--outcomes", type=Path, metavar="DIR", help="with --examples: also write each "
        "release's run to DIR/outcomes-RELEASE.json, for `gbsite ci merge` (CI's jobs)")

    add = command("build", "gbsite.commands:build", "build the static site into site/",
        "Build the site from registry/, the Additional Information blocks of docs/gb/ and "
        "templates/. Everything is validated first; on any error nothing is written. The site is "
        "built in a temporary folder and swapped in, so a failed or killed build leaves the "
        "previous site intact. Set SOURCE_DATE_EPOCH to date the footer; otherwise the same "
        "inputs give byte-identical output. If nothing was changed since the output folder was "
        "built, nothing is done (see --force).")
    out(add)
    add("--force", action="store_true", help="build even if nothing changed since the output "
        "folder was built")

    add = command("serve", "gbsite.commands:serve",
        "build, serve on localhost and rebuild on every change (live reload)",
        "Build the site, serve it on http://127.0.0.1:8000/, and watch registry/, docs/gb/, "
        "templates/ and gbsite.toml: every save rebuilds the site and reloads the open page. A "
        "failed rebuild keeps serving the last good site and shows the error in the browser "
        "until the file is fixed. Ctrl-C stops it.")
    add("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    add("--port", type=_port, default=8000, help="port (8000; 0 picks a free one)")
    out(add)

    add = command("lookup", "gbsite.search.command:lookup",
        "find the graph breaks in a log (file or stdin) or for some words",
        "Find the registry entries for a pasted graph-break log, an id, a page URL or some "
        "words: the same search as the site's. Reads FILE, or stdin when FILE is - or absent "
        "(from a terminal: paste, then Ctrl-D on a new line; Ctrl-Z Enter on Windows); --words "
        "searches for words instead. Prints each match's id, type (with `(removed in R)` for "
        "an id no longer in the registry), page URL and why it matched, best first (for a log, "
        "every graph break in it, in order); --json gives each as id, type, status (current or "
        "removed), url and why. Exit 1 when nothing matches.")
    add("file", nargs="?", metavar="FILE", help="log file (default: stdin)")
    add("--words", nargs="+", metavar="WORD", help="search for these words instead")
    add("--limit", type=int, metavar="N", help="at most this many matches (10)")
    add("--max-bytes", type=_positive, metavar="MB", help="read at most this much of the "
        "input; the rest is cut, with a notice (1 MB)")
    add("--json", action="store_true", help="print JSON for tools")
    add("--show", action="store_true", help="print the first match's page instead, as `gbsite "
        "show` does (with --json, its JSON)")

    add = command("show", "gbsite.show.command:show",
        "print an id's page: why it happens, its example and fixes, the registry's words",
        "Print the page of one graph-break id in the terminal, as `rustc --explain` does: its "
        "type, whether it is current or removed, the page's state with each release of the "
        f"examples ({STATES_HELP}), why it happens, the example that breaks and the fixes, each "
        f"with what it did with each release ({OUTCOMES_HELP}, or not run yet), the registry's "
        "explanation, context and hints, and the page's URL. Plain text when the output is not "
        "a terminal (and with NO_COLOR set); --format json for tools (its shape: "
        "docs/search.md). An id the registry lacks: one line naming the newest import, exit 2.")
    add("id", metavar="ID", help="the id: GB0025, gb0025, 25, gb0025.html or the page's URL")
    add("--format", choices=["text", "json"], default="text", help="output: text, or json for "
        "tools")

    add = command("coverage", "gbsite.examples.command:coverage",
        "how many ids have a verified example, by state",
        "The state of every id of a release, derived from its page: verified (a gb-repro and a "
        "gb-fix recorded as passing), fixed (the repro broke with an older release and "
        "compiles with this one), pending (blocks written, not run with this release yet), "
        "environment, internal or unraised (declared by a status block), or none. Exit 1 when "
        "--min-verified is not met.")
    add("--release", help="a release of the examples (2.14.1) or an imported one (2.14.0) "
        "(default: the newest release of the examples)")
    add("--format", choices=["text", "json"], default="text", help="output format")
    add("--list", action="store_true", help="with text output: also list the ids with nothing "
        "yet (JSON lists every id)")
    add("--min-verified", type=int, metavar="N", help="exit 1 when fewer than N ids are verified "
        "(for CI)")
    add("--min-checked", type=int, metavar="N", help="exit 1 when fewer than N ids are verified "
        "or fixed (CI's floors: a page whose repro stops breaking with a newer release moves "
        "from verified to fixed and still counts)")

    job = group("ci", "the work of CI's jobs: the release matrix, merging the outcomes of the "
        "examples jobs, the preview summary", "What CI's jobs run (docs/ci.md): each is a "
        "gbsite command, so that a whole pull request can be played on one machine.", "job",
        "JOB")

    add = job("releases", "gbsite.ci:releases", "print the releases of the examples as a JSON "
        "list (the matrix of the examples jobs)")
    add("--newest", action="store_true", help="print the newest release alone (the one whose "
        "fixes CI also runs with inductor)")
    job("pythons", "gbsite.ci:pythons", "print the Python versions the examples run with, one "
        "a line, this Python's last (for setup-python in the examples jobs)")
    add = job("sync-label", "gbsite.ci:sync_label", "print the label for today's snapshot of "
        "PyTorch main: main@DATE, or main-N@DATE when the date has one already (the daily sync "
        "run twice, or by hand)")
    add("--date", metavar="YYYY-MM-DD", help="the date (default: today, UTC)")
    add = job("merge", "gbsite.ci:merge", "merge the outcomes files that `gbsite check "
        "--examples --outcomes DIR` wrote (one per release, each job's) into "
        "docs/verified-examples.yaml, and summarise them")
    add("files", nargs="+", type=Path, metavar="PATH", help="outcomes-*.json files, or folders "
        "holding them")
    add("--summary", type=Path, metavar="FILE", help="append a Markdown table of the runs to "
        "FILE (in GitHub Actions: $GITHUB_STEP_SUMMARY)")
    add("--ref", help="with --summary: the commit or branch the summary's links to the docs "
        "files point at")
    add = job("push", "gbsite.ci:push", "commit the record that `ci merge` wrote and push it "
        "to the branch; when the branch moved on, merge the outcomes again onto its tip and "
        "retry; fail when the push is refused")
    add("files", nargs="*", type=Path, metavar="PATH", help="the outcomes-*.json files, or "
        "folders holding them (merged again after the branch moved on)")
    add("--branch", required=True, help="the branch to push to")
    add("--add", action="append", type=Path, default=[], metavar="PATH", help="commit these "
        "paths instead of the record (repeat for more)")
    add("--rebase", action="store_true", help="when the branch moved on, rebase the commit "
        "onto its tip instead of merging outcomes again (the daily sync)")
    add("--remote", default="origin", help="the remote to push to (origin)")
    add("--message", default="Record the outcomes of the examples", help="the commit message")
    add("--output", type=Path, metavar="FILE", help="append `pushed=true` or `pushed=false` to "
        "FILE (in GitHub Actions: $GITHUB_OUTPUT)")
    add = job("preview", "gbsite.ci:preview", "summarise the pages a change touches, with their "
        f"state for each release ({STATES_HELP}), for the preview of the built site")
    add("paths", nargs="*", metavar="PATH", help="changed files, relative to the project (`-`: "
        "read them from stdin, one a line)")
    add("--summary", type=Path, metavar="FILE", help="append to FILE instead of printing")
    add("--artifact-url", help="the URL of the uploaded site, to link from the summary")
    # fmt: on
    return parser

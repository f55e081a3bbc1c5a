"""The entry point `gbsite COMMAND ...`: parse the arguments, run the command, and turn what it
raises into one line and an exit code.

The commands and their options are in arguments.py, the checks of what was given in usage.py;
each command lives beside what it runs (commands.py, registry_commands.py, examples/command.py,
search/command.py). Exit codes (errors.py): 0 ok, 1 problems found, 2 bad input, 3 a bug, 130
interrupted. Only the standard library and errors.py are imported here; a command imports its
module when it runs, so that `gbsite lookup` starts fast."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence

from gbsite import parsed
from gbsite.arguments import Handler, build_parser, command_of
from gbsite.errors import (
    EXIT_BUG,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    GbsiteError,
    one_line,
)
from gbsite.lean_typing import TYPE_CHECKING
from gbsite.usage import parse

if TYPE_CHECKING:
    from typing import NoReturn


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    args = parse(build_parser(only=command_of(words)), words)
    handler: Handler = args.handler
    try:
        with parsed.session():  # what the command parses is kept for the next (parsed.py)
            return handler(args)
    except GbsiteError as exc:
        from gbsite.report import report

        # As the command prints its problems: with --format github, escaped as workflow
        # commands (a value quoted from a file cannot start a command of its own).
        github = getattr(args, "format", None) == "github"
        report(exc.problems, "github" if github else "text", file=sys.stderr, program="gbsite")
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("gbsite: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `gbsite export-json | head`
        return EXIT_OK
    except OSError as exc:  # the machine's refusal (disk full, no permission): not a bug
        if args.traceback:
            raise
        where = f"{exc.filename}: " if exc.filename else ""
        print(one_line(f"gbsite: {where}{exc.strerror or exc}"), file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:  # a bug: one line, and how to see more
        if args.traceback:
            raise
        what = " ".join(str(exc).split())[:300]
        print(  # one_line: the exception may quote what was read (a page's text)
            one_line(
                f"gbsite: internal error ({type(exc).__name__}{': ' + what if what else ''}); "
                "this is a bug in gbsite: run the command again with --traceback "
                f"(gbsite --traceback {args.command} ...) and report what it prints"
            ),
            file=sys.stderr,
        )
        return EXIT_BUG


def run() -> NoReturn:
    """The console script: `main()`, then exit without tearing the interpreter down: freeing a
    build's objects one by one takes ~20 ms, a twentieth of a cold build, and the operating
    system takes the memory back at once. Every file is written and closed by now, so output is
    all that needs flushing."""
    code = main()
    with contextlib.suppress(BrokenPipeError):  # `gbsite export-json | head`
        sys.stdout.flush()
    with contextlib.suppress(BrokenPipeError):
        sys.stderr.flush()
    os._exit(code)

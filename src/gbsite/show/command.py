"""`gbsite show ID` and `gbsite lookup --show`: the parsed arguments in, the page printed."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

    from gbsite.config import Config


def show(cfg: Config, args: argparse.Namespace) -> int:
    print_page(cfg, args.id, args.format)
    return 0


def print_page(cfg: Config, text: str, format: str) -> None:
    """The page of the id `text` names, as text (styled on a terminal) or JSON."""
    from gbsite.report import print_json, write
    from gbsite.show import page

    found = page.shown(cfg, text)
    if format == "json":
        # Non-ASCII as it is, but the bidi controls, C1 and DEL as `\uXXXX`: the same JSON to
        # a tool, and a terminal that shows it is not reordered (report.print_json).
        print_json(found.as_dict(), ensure_ascii=False)
        return
    from gbsite.show import text as render

    style = render.terminal_style(sys.stdout)
    shown = render.render(found, style)  # the page's texts escaped before they are styled
    if style.color:  # the escapes left are the styling's: escaping them again would undo it
        sys.stdout.write(shown)
    else:  # plain: escaped once more at the last step, whatever render() missed
        write(shown.removesuffix("\n"))

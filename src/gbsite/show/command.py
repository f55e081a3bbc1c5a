"""`gbsite show ID` and `gbsite lookup --show`: the parsed arguments in, the page printed."""

from __future__ import annotations

import json
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
    from gbsite.show import page

    found = page.shown(cfg, text)
    if format == "json":
        print(json.dumps(found.as_dict(), indent=2, ensure_ascii=False))
    else:
        from gbsite.show import text as render

        sys.stdout.write(render.render(found, render.terminal_style(sys.stdout)))

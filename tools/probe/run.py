"""The reachability probe (tools/probe/README.md): python tools/probe/run.py --help."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from gbsite.probe.command import main

if __name__ == "__main__":
    raise SystemExit(main())

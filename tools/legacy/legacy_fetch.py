"""Fetch a torch release's Python sources into the cache tools/legacy/mine.py reads: only the
packages that raise graph breaks, taken from the release's macOS arm64 wheel (or, when pip cannot
fetch it, from the `gbsite check --examples --torch R` environment of that release).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

# The packages of a wheel that raise graph breaks.
KEPT_PREFIXES = (
    "torch/_dynamo/",
    "torch/_higher_order_ops/",
    "torch/_functorch/",
    "torch/_subclasses/",
    "torch/_export/",
)
DEFAULT_CACHE = Path.home() / ".cache" / "gbsite" / "legacy-src"
TORCH_ENVS = Path.home() / ".cache" / "gbsite" / "torch"


def fetch(release: str, cache: Path) -> Path:
    """The extracted sources of `release`, downloaded into the cache the first time."""
    dest = cache / release
    if dest.is_dir():
        return dest
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        # Old releases have no wheel for a new Python, new ones none for an old Python.
        for python in ("3.11", "3.12"):
            cmd = [
                sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                "--platform", "macosx_14_0_arm64", "--platform", "macosx_11_0_arm64",
                "--python-version", python, "--quiet", f"torch=={release}", "-d", tmp,
            ]  # fmt: skip
            print(f"fetching torch {release} (Python {python}) ...", file=sys.stderr)
            if subprocess.run(cmd, stderr=subprocess.DEVNULL).returncode == 0:
                break
        staged = Path(tmp) / "src"
        wheels = list(Path(tmp).glob("*.whl"))
        if wheels:
            with zipfile.ZipFile(wheels[0]) as z:
                for name in z.namelist():
                    if name.startswith(KEPT_PREFIXES) and name.endswith(".py"):
                        z.extract(name, staged)
            wheels[0].unlink()
        else:
            # The environment `gbsite check --examples --torch R` made for the release.
            installed = sorted(TORCH_ENVS.glob(f"{release}/lib/python*/site-packages/torch"))
            if not installed:
                raise SystemExit(f"mine.py: cannot download torch {release} with pip")
            for prefix in KEPT_PREFIXES:
                folder = installed[0].parent / prefix
                if folder.is_dir():
                    shutil.copytree(folder, staged / prefix, ignore=_not_python)
        staged.rename(dest)  # whole or not at all: a killed fetch leaves no half folder
    return dest


def _not_python(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if not n.endswith(".py") and not (Path(folder) / n).is_dir()]

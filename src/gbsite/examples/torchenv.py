"""A Python with a given torch release, for `gbsite check --examples --torch RELEASE`.

Each release gets a virtual environment of its own in the cache folder
(`$GBSITE_CACHE_DIR`, else `$XDG_CACHE_HOME/gbsite`, else `~/.cache/gbsite`), under
`torch/RELEASE`. It is built in a `torch/.partial-RELEASE-PID` folder and renamed into place only
when the install is complete, so an interrupted install is never taken for a finished one; the
next run removes what an interrupted one left.

`GBSITE_TORCH_INDEX_URL` (or `--torch-index`) names a package index to take torch from besides
the default one: CI sets PyTorch's CPU wheel index (about 200 MB instead of a 5 GB CUDA build).
pip then prefers its `2.13.0+cpu` to `2.13.0`; an index that cannot be reached is skipped with a
notice, and the install goes on with the default index alone.

A block that needs another Python (`needs=python:3.12`) runs in `torch/RELEASE-py3.12`, built
with an interpreter of that version: `python3.12` on PATH, else the newest 3.12 that pyenv has
(`$PYENV_ROOT/versions/3.12.*`). Such an environment is created only when a block needs it.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from gbsite.errors import GbsiteError
from gbsite.releases import release_of

PACKAGES = ("numpy",)  # what the examples import besides torch
PARTIAL = ".partial-"
STAMP = "gbsite-env"  # in each environment: which build it is (see create)
INDEX_ENV = "GBSITE_TORCH_INDEX_URL"
PROBE_SECONDS = 10.0  # an index that does not answer by then is taken as unreachable


def cache_dir() -> Path:
    from gbsite.config import cache_dir

    return cache_dir()


def this_python() -> str:
    """The version of the Python running gbsite, as blocks name one (`3.11`)."""
    return f"{sys.version_info[0]}.{sys.version_info[1]}"


def env_dir(release: str, python: str = "") -> Path:
    """The environment of `release` with Python `python` ("" or this one's version: this
    Python's)."""
    name = release if python in ("", this_python()) else f"{release}-py{python}"
    return cache_dir() / "torch" / name


def env_python(folder: Path) -> Path:
    return folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_leftovers(folder: Path) -> list[Path]:
    """Partial environments whose installing process is gone (killed, machine rebooted)."""
    removed: list[Path] = []
    if not folder.is_dir():
        return removed
    for path in folder.glob(PARTIAL + "*"):
        pid = path.name.rsplit("-", 1)[-1]
        if not pid.isdigit() or not _alive(int(pid)):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def torch_info(python: str) -> tuple[str, Path]:
    """Version and package folder of the torch that `python` imports, without importing it; no
    torch is an error the user can fix."""
    probe = (
        "import importlib.util, os\n"
        "spec = importlib.util.find_spec('torch')\n"
        "if spec is None or spec.origin is None: raise SystemExit(1)\n"
        "import importlib.metadata\n"
        "site = os.path.dirname(os.path.dirname(spec.origin))\n"
        "found = list(importlib.metadata.distributions(name='torch', path=[site]))\n"
        "if found: version = found[0].version\n"
        "else:  # no package metadata beside it: ask the module (slower)\n"
        "    import torch; version = torch.__version__\n"
        "print(version); print(os.path.dirname(spec.origin))\n"
    )
    try:
        proc = subprocess.run([python, "-c", probe], capture_output=True, text=True, timeout=300)
    except OSError as exc:
        raise GbsiteError(f"cannot run {python}: {exc.strerror}") from None
    if proc.returncode != 0:
        raise GbsiteError(
            f"{python} has no torch: checking examples needs it. Install it with "
            "`pip install 'gbsite[examples]'` (torch 2.13.0), or name a Python that has it "
            "with --python"
        )
    version, folder = proc.stdout.strip().split("\n")[-2:]
    return version, Path(folder)


@functools.cache
def _release_here(python: str) -> str | None:
    """The torch release `python` has, asked once however many releases are wanted."""
    try:
        return release_of(torch_info(python)[0])
    except GbsiteError:
        return None  # no torch here: use the cache


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def reachable(url: str, timeout: float = PROBE_SECONDS) -> str | None:
    """None when the index answers, else why not (one line). Asked once before installing:
    pip would retry every package's page on an unreachable index."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url.rstrip("/") + "/torch/", timeout=timeout):
            return None
    except urllib.error.HTTPError as exc:
        return None if exc.code < 500 else f"HTTP {exc.code}"
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return " ".join(str(reason).split())[:200] or type(exc).__name__


@functools.cache
def version_of(python: str) -> str | None:
    """`3.12` for an interpreter of Python 3.12; None for what does not run (a pyenv shim of a
    version that is not selected answers with an error)."""
    try:
        proc = subprocess.run(
            [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def _pyenv_candidates(version: str) -> list[Path]:
    root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    found = [
        p / "bin" / f"python{version}"
        for p in root.glob(f"{version}.*")
        if p.name.removeprefix(f"{version}.").isdigit()  # 3.12.1, not 3.12-dev or 3.12.1t
    ]
    return sorted(found, key=lambda p: int(p.parent.parent.name.rsplit(".", 1)[1]), reverse=True)


def interpreter(version: str) -> str:
    """A Python `version` interpreter to build environments with; none found is an error that
    says where it was looked for."""
    if version == this_python():
        return sys.executable
    named = shutil.which(f"python{version}")
    for candidate in ([named] if named else []) + [str(p) for p in _pyenv_candidates(version)]:
        if version_of(candidate) == version:
            return candidate
    raise GbsiteError(
        f"no Python {version} found (python{version} on PATH, or pyenv's "
        f"versions/{version}.*): install it to run the blocks that need it"
    )


def python_for(
    release: str,
    releases: tuple[str, ...],
    *,
    python: str = "",
    current: str = sys.executable,
    say: Callable[[str], None] = _say,
    index: str | None = None,
) -> str:
    """A Python whose torch is `release`, of version `python` ("": any): `current` when it
    fits, else the cached environment, created on first use."""
    if release not in releases:
        raise GbsiteError(
            f"torch {release} is not a release of the examples ({', '.join(releases)}): "
            "use one of those or `all`, or add it to [examples] releases in gbsite.toml"
        )
    if _release_here(current) == release and (not python or version_of(current) == python):
        return current
    folder = env_dir(release, python)
    found = env_python(folder)
    if found.exists() and _release_here(str(found)) == release:
        return str(found)
    if folder.exists() or folder.is_symlink():
        # A cache restored on a machine whose Python moved (its interpreter link dangles), an
        # environment cut short, or one whose torch is gone or another: built again in place.
        # Its new STAMP tells CI to save the cache again.
        lack = "no working Python" if not found.exists() else f"no torch {release}"
        say(f"gbsite: the environment in {folder} has {lack}; building it again")
        if folder.is_symlink() or not folder.is_dir():
            folder.unlink()
        else:
            shutil.rmtree(folder)
    base = interpreter(python) if python else sys.executable
    index = index if index is not None else os.environ.get(INDEX_ENV) or None
    if index is not None and (why := reachable(index)) is not None:
        say(
            f"gbsite: the package index {index} cannot be reached ({why}); installing "
            "from the default index"
        )
        index = None
    create(release, folder, say, index, base=base)
    return str(found)


def create(
    release: str,
    folder: Path,
    say: Callable[[str], None],
    index: str | None = None,
    *,
    base: str = sys.executable,
) -> None:
    """Install torch==release (and PACKAGES) into a new environment of the interpreter `base`
    at `folder`, from the default package index and `index`, if given."""
    parent = folder.parent
    parent.mkdir(parents=True, exist_ok=True)
    remove_leftovers(parent)
    partial = parent / f"{PARTIAL}{folder.name}-{os.getpid()}"
    size = "" if index else "; a CUDA build is about 5 GB and takes a few minutes"
    say(
        f"gbsite: creating an environment with torch {release} in {folder} (first use "
        f"only{size}{'; from ' + index + ' too' if index else ''})"
    )
    try:
        _run([base, "-m", "venv", "--without-pip", str(partial)], release, folder)
        # pip of this Python installs into the new one; the version is exact, so constraints
        # files in the user's pip configuration (which may cap torch) cannot apply.
        env = {**os.environ, "PIP_CONSTRAINT": os.devnull}
        _run(
            [
                sys.executable,
                "-m",
                "pip",
                "--python",
                str(env_python(partial)),
                "install",
                "--quiet",
                "--disable-pip-version-check",
                *(["--extra-index-url", index] if index else []),
                f"torch=={release}",
                *PACKAGES,
            ],
            release,
            folder,
            env,
        )
        version = torch_info(str(env_python(partial)))[0]
        if release_of(version) != release:
            raise GbsiteError(f"installing torch {release} gave torch {version}")
        # Written last: a build's identity, which CI compares to save a rebuilt cache again.
        (partial / STAMP).write_text(f"torch {version}\nbuilt {time.time_ns()} {os.getpid()}\n")
        try:
            partial.rename(folder)
        except OSError:
            if not env_python(folder).exists():  # not another run that finished first
                raise
    finally:
        shutil.rmtree(partial, ignore_errors=True)


def _run(command: list[str], release: str, folder: Path, env: dict[str, str] | None = None) -> None:
    try:
        proc = subprocess.run(command, capture_output=True, text=True, env=env)
    except OSError as exc:
        raise GbsiteError(f"cannot run {command[0]}: {exc.strerror}") from None
    if proc.returncode != 0:
        lines = [
            ln.strip()
            for ln in (proc.stderr or proc.stdout).splitlines()
            if ln.strip() and not ln.lstrip().startswith("WARNING:")
        ]
        why = lines[-1] if lines else f"exit status {proc.returncode}"
        raise GbsiteError(
            f"cannot install torch {release} into {folder}: {why} (check the network or the "
            "package index, then run again)"
        )

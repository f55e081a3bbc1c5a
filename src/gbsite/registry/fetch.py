"""The bytes of an import source, within limits: a download's size and time, and how much a
gzip file or a wheel member may expand to. Everything that goes wrong is one line.

A registry JSON is about 1 MB; a PyTorch wheel up to a few GB. The limits are far above what a
real source needs and far below what would exhaust the machine; `gbsite import` has options to
raise them.
"""

from __future__ import annotations

import io
import time
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from gbsite.errors import GbsiteError

MB = 1024 * 1024
_CHUNK = 256 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    download: int = 4096 * MB  # bytes a download may have
    seconds: float = 900.0  # a download's whole duration
    expanded: int = 64 * MB  # bytes a registry JSON may have once decompressed


def _mb(n: int) -> str:
    return f"{n / MB:.0f} MB" if n >= MB else f"{n} bytes"


def download(url: str, limits: Limits) -> bytes:
    """The body of `url`, refused past limits.download bytes or limits.seconds seconds."""
    # Here, not at the top: `gbsite check` reads snapshots with gunzip and downloads nothing,
    # so it need not import http.client and the email package.
    import http.client
    import urllib.error
    import urllib.request

    deadline = time.monotonic() + limits.seconds
    received = 0
    try:
        with urllib.request.urlopen(url, timeout=min(60.0, limits.seconds)) as response:
            declared = response.headers.get("Content-Length")
            expected = int(declared) if declared and declared.isdigit() else None
            if expected is not None and expected > limits.download:
                raise _too_big(url, expected, limits)
            buffer = io.BytesIO()
            # read1: what has arrived, at most a chunk; read() would wait for a whole chunk,
            # and a server sending a byte a second would never meet the deadline.
            while chunk := response.read1(_CHUNK):
                received += len(chunk)
                if received > limits.download:
                    raise _too_big(url, received, limits)
                if time.monotonic() > deadline:
                    raise GbsiteError(
                        f"{url}: download failed: not finished after {limits.seconds:.0f} s "
                        f"({_mb(received)} received); raise the limit with --download-timeout"
                    )
                buffer.write(chunk)
            if expected is not None and received < expected:
                raise http.client.IncompleteRead(b"", expected - received)
            return buffer.getvalue()
    except urllib.error.HTTPError as exc:
        raise GbsiteError(f"{url}: download failed: HTTP {exc.code} {exc.reason}") from None
    except http.client.IncompleteRead:
        raise GbsiteError(
            f"{url}: download failed: the connection closed after {_mb(received)}, before the "
            "end of the file; try again"
        ) from None
    except (urllib.error.URLError, http.client.HTTPException, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc or type(exc).__name__
        raise GbsiteError(f"{url}: download failed: {reason}") from None
    except ValueError as exc:  # a malformed URL
        raise GbsiteError(f"{url}: cannot download: {exc}") from None


def _too_big(url: str, size: int, limits: Limits) -> GbsiteError:
    return GbsiteError(
        f"{url}: download failed: larger than {_mb(limits.download)} ({_mb(size)} so far); "
        "raise the limit with --max-download"
    )


def gunzip(where: Path, data: bytes, limits: Limits) -> bytes:
    """A gzip file's content, refused if corrupt, cut short, or larger than limits.expanded."""
    inflate = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        out = inflate.decompress(data, limits.expanded + 1)
    except zlib.error as exc:
        raise GbsiteError.at(where, None, f"corrupt gzip file: {exc}") from None
    if len(out) > limits.expanded:
        raise GbsiteError.at(
            where,
            None,
            f"expands to more than {_mb(limits.expanded)}, far more than a registry; "
            "raise the limit with --max-json if it really is one",
        )
    if not inflate.eof:
        raise GbsiteError.at(where, None, "corrupt gzip file: it ends before its data does")
    return out


def wheel_member(where: Path, data: bytes, member: str, limits: Limits) -> bytes:
    """One file of a wheel (a zip), refused if missing, corrupt or larger than limits.expanded."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as wheel:
            info = wheel.getinfo(member)
            if info.file_size > limits.expanded:
                raise GbsiteError.at(
                    where,
                    None,
                    f"{member} is {_mb(info.file_size)}, more than {_mb(limits.expanded)}; "
                    "raise the limit with --max-json if it really is a registry",
                )
            return wheel.read(info)  # stops at file_size, checks the CRC
    except KeyError:
        raise GbsiteError.at(
            where, None, f"wheel has no {member}; is it a PyTorch wheel?"
        ) from None
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as exc:
        raise GbsiteError.at(where, None, f"not a valid wheel (zip) file: {exc}") from None


# Any wheel of a release holds the same registry: ask pip for a macOS one, the smallest (~140 MB;
# a Linux one brings CUDA), whatever machine this runs on.
WHEEL_PLATFORM = ("--platform", "macosx_14_0_arm64", "--python-version", "3.12")


def torch_wheel(release: str, folder: Path, limits: Limits) -> Path:
    """Download the wheel of torch `release` into `folder` with pip (this Python's), within
    limits.seconds; every failure is one line."""
    import os
    import subprocess
    import sys

    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        *WHEEL_PLATFORM,
        "--disable-pip-version-check",
        "--quiet",
        f"torch=={release}",
        "-d",
        str(folder),
    ]
    # The version is exact: a constraints file in the user's pip configuration (which may cap
    # torch, as on machines that keep an older one) must not apply.
    env = {**os.environ, "PIP_CONSTRAINT": os.devnull}
    try:
        proc = subprocess.run(
            command, capture_output=True, text=True, env=env, timeout=limits.seconds
        )
    except subprocess.TimeoutExpired:
        raise GbsiteError(
            f"cannot download torch {release} with pip: not finished after {limits.seconds:.0f} s; "
            "raise the limit with --download-timeout"
        ) from None
    except OSError as exc:
        raise GbsiteError(f"cannot run pip to download torch {release}: {exc.strerror}") from None
    wheels = sorted(folder.glob("torch-*.whl"))
    if proc.returncode != 0 or not wheels:
        lines = [
            ln.strip()
            for ln in (proc.stderr or proc.stdout).splitlines()
            if ln.strip() and not ln.lstrip().startswith("WARNING:")
        ]
        why = lines[-1] if lines else f"pip exited with status {proc.returncode}"
        raise GbsiteError(
            f"cannot download torch {release} with pip: {why} (is {release} released? give the "
            "registry as SOURCE otherwise)"
        )
    return wheels[0]

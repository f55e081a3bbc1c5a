"""The HTTP side of `gbsite serve`: the site it serves from memory, to whom, and the events
that reload the open page (serve.py builds; this serves what it built).

Pages are served from the last good build held in memory, so a request never sees a half-built
site and no request can reach a file outside it; HTML gets a small script that reloads the page
after each build and shows a failed build's error, or a build's warnings, over it.
"""

from __future__ import annotations

import http.server
import ipaddress
import json
import mimetypes
import posixpath
import threading
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

EVENTS_PATH = "/__gbsite/events"


@dataclass(frozen=True, slots=True)
class ServedSite:
    """The site being served: the last good build, and the error of a later failed one, or
    the warnings of the build (such as text a docs file has outside its block)."""

    number: int
    outputs: dict[str, bytes]
    error: str | None
    warnings: str | None = None


class SiteState:
    """Shared between the HTTP threads and the builder; replaced whole, never mutated."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self.snapshot = ServedSite(0, {}, None)

    def publish(self, snapshot: ServedSite) -> None:
        with self._changed:
            self.snapshot = snapshot
            self._changed.notify_all()

    def wait_for_change(self, seen: ServedSite, timeout: float) -> ServedSite:
        with self._changed:
            self._changed.wait_for(lambda: self.snapshot is not seen, timeout=timeout)
            return self.snapshot


def live_reload_script(snapshot: ServedSite) -> bytes:
    """Injected into served HTML only (never into the built files)."""
    return (
        "<script>(function(){var build=" + str(snapshot.number) + ";"
        "var es=new EventSource('" + EVENTS_PATH + "');"
        "function show(msg){var el=document.getElementById('gbsite-build-error');"
        "if(!el){el=document.createElement('pre');el.id='gbsite-build-error';"
        "el.setAttribute('role','alert');el.style.cssText='position:fixed;left:0;right:0;"
        "top:0;z-index:99;margin:0;padding:1rem;background:#a40e26;color:#fff;"
        "white-space:pre-wrap;font:14px/1.4 monospace';document.body.appendChild(el);}"
        "el.textContent=msg;}"
        "es.onmessage=function(e){var d=JSON.parse(e.data);"
        "if(d.build!==build){location.reload();}"
        "else if(d.error){show('gbsite build failed; showing the last good site.\\n'+d.error);}"
        "else if(d.warnings){show('gbsite build warnings:\\n'+d.warnings);}"
        "else{var el=document.getElementById('gbsite-build-error');if(el)el.remove();}};"
        "})();</script>"
    ).encode()


def resolve(url_path: str) -> str | None:
    """The output path a request names, or None for anything that tries to leave the site."""
    path = unquote(urlsplit(url_path).path)
    if "\x00" in path or "\\" in path:
        return None
    parts = path.split("/")
    if any(part in ("..", ".") for part in parts):
        return None
    clean = posixpath.normpath("/" + path.lstrip("/")).lstrip("/")
    if path.endswith("/") or clean in ("", "."):
        clean = posixpath.join(clean, "index.html") if clean not in ("", ".") else "index.html"
    return clean


_LOOPBACK_NAMES = {"localhost", "localhost.", "ip6-localhost"}


def host_allowed(header: str | None, listen_host: str) -> bool:
    """Whether a request's Host header names this server as the user reaches it: a loopback
    name or address, or the --host it listens on. A page of another site that points its own
    name at 127.0.0.1 (DNS rebinding) sends its own name, and is refused. When listening on all
    interfaces, any IP address is accepted too: a rebinding attack needs a name."""
    if not header:
        return False
    host = header.strip().lower()
    if host.startswith("["):  # [::1]:8000
        host = host[1:].split("]", 1)[0]
    elif host.count(":") == 1:
        host = host.rsplit(":", 1)[0]
    if host in _LOOPBACK_NAMES or host == listen_host.lower().strip("[]"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or listen_host in ("0.0.0.0", "::", "")


def make_handler(
    state: SiteState, stopping: threading.Event, listen_host: str = "127.0.0.1"
) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        server_version = "gbsite"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # a request log would bury the rebuild messages

        def _host_ok(self) -> bool:
            if host_allowed(self.headers.get("Host"), listen_host):
                return True
            body = b"gbsite serve answers only requests for localhost (Host header refused)\n"
            self.send_response(403)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return False

        def do_HEAD(self) -> None:
            if self._host_ok():
                self._serve(body=False)

        def do_GET(self) -> None:
            if not self._host_ok():
                return
            if urlsplit(self.path).path == EVENTS_PATH:
                self._events()
            else:
                self._serve(body=True)

        def _serve(self, body: bool) -> None:
            snapshot = state.snapshot
            path = resolve(self.path)
            data = snapshot.outputs.get(path) if path is not None else None
            status = 200
            if path is None or data is None:
                status, path = 404, "404.html"
                data = snapshot.outputs.get(path, b"<!DOCTYPE html><title>Not found</title>")
            content_type = mimetypes.guess_type(path)[0] or "application/octet-stream"
            if content_type == "text/html":
                data = data.replace(b"</body>", live_reload_script(snapshot) + b"</body>", 1)
            if content_type.startswith("text/") or content_type.endswith(("javascript", "json")):
                content_type += "; charset=utf-8"
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if body:
                self.wfile.write(data)

        def _events(self) -> None:
            """Server-sent events: the build number and error, whenever either changes."""
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            snapshot = state.snapshot
            try:
                while not stopping.is_set():
                    message = {
                        "build": snapshot.number,
                        "error": snapshot.error,
                        "warnings": snapshot.warnings,
                    }
                    self.wfile.write(f"data: {json.dumps(message)}\n\n".encode())
                    self.wfile.flush()
                    seen, quiet_since = snapshot, time.monotonic()
                    while snapshot is seen and not stopping.is_set():
                        snapshot = state.wait_for_change(seen, timeout=1.0)
                        if time.monotonic() - quiet_since > 15:
                            self.wfile.write(b": keep-alive\n\n")  # notices closed pages
                            self.wfile.flush()
                            quiet_since = time.monotonic()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the page was closed or reloaded

    return Handler

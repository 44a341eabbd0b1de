"""Drive the system's headless Chromium over the DevTools protocol (no extra packages).

Chromium's ``--remote-debugging-pipe`` speaks the DevTools protocol as NUL-terminated JSON on
file descriptors 3 (commands in) and 4 (replies and events out), so no websocket client and
no browser download is needed. `load_page` opens a file, waits until a JavaScript condition
holds, and returns what happened: console messages, uncaught exceptions, log entries (CSP
violations, failed loads), network requests, JavaScript dialogs, and the values of the
expressions asked for.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--remote-debugging-pipe",
)


def find_chromium() -> str | None:
    """The Chromium executable, installing Debian's package when missing (root only)."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return None
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    try:
        subprocess.run(["apt-get", "update"], check=True, capture_output=True, env=env, timeout=600)
        subprocess.run(
            ["apt-get", "install", "-y", "--no-install-recommends", "chromium"],
            check=True,
            capture_output=True,
            env=env,
            timeout=900,
        )
    except (subprocess.SubprocessError, OSError):
        return None
    return shutil.which("chromium")


@dataclass
class PageResult:
    """What happened while a page loaded."""

    values: dict[str, Any]
    console: list[dict[str, Any]] = field(default_factory=list)
    exceptions: list[dict[str, Any]] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    screenshots: list[bytes] = field(default_factory=list)

    @property
    def errors(self) -> list[str]:
        """Console errors and warnings, exceptions and error-level log entries, as text."""
        found = [
            f"console.{m['type']}: "
            + " ".join(str(a.get("value", a.get("description"))) for a in m.get("args", []))
            for m in self.console
            if m.get("type") in ("error", "warning", "assert")
        ]
        found += [
            "exception: "
            + str(
                e.get("exceptionDetails", {})
                .get("exception", {})
                .get("description", e.get("exceptionDetails", {}).get("text"))
            )
            for e in self.exceptions
        ]
        found += [
            f"log.{entry['entry']['level']}: {entry['entry']['text']}"
            for entry in self.log
            if entry["entry"].get("level") in ("error", "warning")
        ]
        return found


class _Pipe:
    def __init__(self, executable: str, profile: str) -> None:
        command_read, self._command_write = os.pipe()
        self._reply_read, reply_write = os.pipe()
        # Move the child's ends above 9 so that dup2 onto 3 and 4 cannot clobber them.
        high_command = fcntl.fcntl(command_read, fcntl.F_DUPFD, 10)
        high_reply = fcntl.fcntl(reply_write, fcntl.F_DUPFD, 10)
        os.close(command_read)
        os.close(reply_write)

        def wire() -> None:  # runs in the child, before exec
            os.dup2(high_command, 3)
            os.dup2(high_reply, 4)

        self.process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            preexec_fn=wire,  # noqa: PLW1509 - single-threaded test helper
            pass_fds=(3, 4),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(high_command)
        os.close(high_reply)
        self._buffer = b""
        self._next_id = 0
        self._fire_id = 1_000_000
        self.events: list[dict[str, Any]] = []

    def _read(self, deadline: float) -> dict[str, Any] | None:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self._reply_read], [], [], left)
            if not ready:
                return None
            chunk = os.read(self._reply_read, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        parsed: dict[str, Any] = json.loads(message)
        return parsed

    def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        session: str | None = None,
        timeout: float = 30.0,
    ) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._command_write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply is None:
                raise TimeoutError(f"no reply to {method} within {timeout} s")
            if reply.get("method") == "Page.javascriptDialogOpening":
                self._dismiss(reply.get("sessionId"))
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            self.events.append(reply)

    def _dismiss(self, session: str | None) -> None:
        """Close a JavaScript dialog (alert, confirm…) so that the page does not hang."""
        self._fire_id += 1
        message = {
            "id": self._fire_id,
            "method": "Page.handleJavaScriptDialog",
            "params": {"accept": False},
            "sessionId": session,
        }
        os.write(self._command_write, json.dumps(message).encode() + b"\0")

    def drain(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while (event := self._read(deadline)) is not None:
            if event.get("method") == "Page.javascriptDialogOpening":
                self._dismiss(event.get("sessionId"))
            self.events.append(event)

    def close(self) -> None:
        """Ask the browser to quit (so that its helper processes exit too), else kill it."""
        try:
            message = {"id": self._fire_id + 1, "method": "Browser.close", "params": {}}
            os.write(self._command_write, json.dumps(message).encode() + b"\0")
            self.process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait(timeout=30)
        finally:
            os.close(self._command_write)
            os.close(self._reply_read)


def load_page(
    executable: str,
    path: Path,
    *,
    ready: str,
    expressions: dict[str, str],
    timeout: float = 60.0,
    clips: tuple[tuple[int, int, int, int], ...] = (),
    width: int = 1400,
    height: int = 1000,
) -> PageResult:
    """Open `path`, wait until the JavaScript `ready` is truthy, evaluate `expressions`.

    `clips` are ``(x, y, width, height)`` page regions to capture as PNG screenshots.
    """
    with tempfile.TemporaryDirectory(
        prefix="rankk-chromium-", ignore_cleanup_errors=True
    ) as profile:
        pipe = _Pipe(executable, profile)
        try:
            target = pipe.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
                "sessionId"
            ]
            for domain in ("Runtime", "Log", "Page", "Network"):
                pipe.call(f"{domain}.enable", session=session)
            pipe.call(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                session=session,
            )
            url = path.resolve().as_uri()
            pipe.call("Page.navigate", {"url": url}, session=session)
            # the page itself, fully loaded — not about:blank — before `ready` is asked
            loaded = f"location.href === {json.dumps(url)} && document.readyState === 'complete'"
            deadline = time.monotonic() + timeout
            while True:
                state = pipe.call(
                    "Runtime.evaluate",
                    {"expression": f"({loaded}) && Boolean({ready})", "returnByValue": True},
                    session=session,
                )
                if state.get("result", {}).get("value") is True:
                    break
                if time.monotonic() > deadline:
                    break
                pipe.drain(0.2)
            values = {
                name: pipe.call(
                    "Runtime.evaluate",
                    {"expression": expression, "returnByValue": True},
                    session=session,
                )
                .get("result", {})
                .get("value")
                for name, expression in expressions.items()
            }
            images = []
            for x, y, w, h in clips:
                shot = pipe.call(
                    "Page.captureScreenshot",
                    {
                        "format": "png",
                        "captureBeyondViewport": True,
                        "clip": {"x": x, "y": y, "width": w, "height": h, "scale": 1},
                    },
                    session=session,
                )
                images.append(base64.b64decode(shot["data"]))
            pipe.drain(0.3)
        finally:
            pipe.close()
    events = pipe.events
    return PageResult(
        values=values,
        console=[e["params"] for e in events if e.get("method") == "Runtime.consoleAPICalled"],
        exceptions=[e["params"] for e in events if e.get("method") == "Runtime.exceptionThrown"],
        log=[e["params"] for e in events if e.get("method") == "Log.entryAdded"],
        requests=[
            e["params"]["request"]["url"]
            for e in events
            if e.get("method") == "Network.requestWillBeSent"
        ],
        dialogs=[
            e["params"].get("message", "")
            for e in events
            if e.get("method") == "Page.javascriptDialogOpening"
        ],
        screenshots=images,
    )

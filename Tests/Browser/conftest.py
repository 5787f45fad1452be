"""Fixtures for the browser tests: a real `tripto` box on a free loopback port, and Chromium
(Debian's /usr/bin/chromium) driven by Playwright. Everything a test starts is stopped by PID."""

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
SCREENS = ROOT / "test-output" / "screens"
CHROMIUM = os.environ.get("TRIPTO_CHROMIUM", "/usr/bin/chromium")
PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 375, "height": 667}
TV = {"width": 1920, "height": 1080}


def tripto_binary() -> str:
    configured = os.environ.get("TRIPTO_BIN")
    if configured:
        return configured
    for candidate in (ROOT / ".build" / "debug" / "tripto", ROOT / ".build" / "release" / "tripto"):
        if candidate.exists():
            return str(candidate)
    raise RuntimeError("tripto is not built: run `swift build` first (or set TRIPTO_BIN)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Box:
    """One `tripto serve` process with its own data directory."""

    def __init__(self, data_dir: Path, port: int | None = None, extra: list[str] | None = None, packs: Path | None = None):
        self.data_dir = data_dir
        self.packs = packs or ROOT / "packs"
        self.extra = extra or []
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def start(self):
        self.log = open(self.data_dir / "box.log", "ab")
        self.process = subprocess.Popen(
            [
                tripto_binary(), "serve", "--host", "127.0.0.1", "--port", str(self.port),
                "--data-dir", str(self.data_dir), "--packs", str(self.packs),
                "--public-url", self.url, "--no-qr", "--no-mdns", "--log-level", "warning",
                # No sound card here: without a device of its own to try, a box says it is degraded.
                *([] if "--audio-device" in self.extra else ["--no-audio"]),
                *self.extra,
            ],
            stdout=self.log, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"tripto exited with {self.process.returncode}: {self.log_text()}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as response:
                    if response.status == 200:
                        return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("tripto did not answer /healthz within 20 s")

    def stop(self, sig=signal.SIGTERM):
        if self.process and self.process.poll() is None:
            os.kill(self.process.pid, sig)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.process = None
        self.log.close()

    def log_text(self) -> str:
        return (self.data_dir / "box.log").read_text(errors="replace")

    def get_json(self, path: str):
        with urllib.request.urlopen(self.url + path, timeout=5) as response:
            return json.load(response)


@pytest.fixture
def box(tmp_path, request):
    # A test marked @pytest.mark.box_args([...]) gets a box started with those extra arguments.
    marker = request.node.get_closest_marker("box_args")
    b = Box(tmp_path, extra=marker.args[0] if marker else None).start()
    yield b
    b.stop()


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/install-deps test")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


# Resolves once the screen's transitions and animations that end have ended (entries take under
# 300 ms), or after 400 ms, whichever is first: a countdown's bar may run for the whole clue.
SETTLED_JS = """() => Promise.race([
  new Promise((resolve) => setTimeout(resolve, 400)),
  new Promise((resolve) => requestAnimationFrame(resolve)).then(() => Promise.all(document.getAnimations()
    .filter((a) => Number.isFinite(a.effect?.getComputedTiming().endTime))
    .map((a) => a.finished.catch(() => {})))),
])"""


class Screens:
    """Screenshots of every screen, written to test-output/screens (not committed)."""

    def __init__(self, test_name: str):
        self.folder = SCREENS / test_name
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True)
        self.count = 0

    def shot(self, page, name: str):
        self.count += 1
        page.evaluate(SETTLED_JS)
        page.screenshot(path=str(self.folder / f"{self.count:02d}-{name}.png"))


@pytest.fixture
def screens(request):
    return Screens(request.node.name)


class Devices:
    """Browser contexts (one per device in the room). Every request any page makes is recorded, so a
    test can prove that nothing leaves the box, and every JavaScript error or dialog fails the test."""

    def __init__(self, browser, box):
        self.browser = browser
        self.box = box
        self.contexts = []
        self.requests: list[str] = []
        self.problems: list[str] = []
        # Where the box is reached: its own address, and any relay a test puts in front of it.
        self.box_urls = [box.url]

    def open(self, size=PHONE, locale="en-US"):
        context = self.browser.new_context(viewport=size, locale=locale)
        context.set_default_timeout(10_000)
        self.contexts.append(context)
        page = context.new_page()
        page.on("request", lambda r: self.requests.append(r.url))
        page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        page.on("console", self._console)
        page.on("dialog", self._dialog)
        return page

    # Chromium logs every non-2xx fetch and every refused socket as a console error; the pages show
    # those to the user themselves, so only other errors count.
    EXPECTED_CONSOLE = ("Failed to load resource", "WebSocket connection to")

    def _console(self, message):
        if message.type == "error" and not message.text.startswith(self.EXPECTED_CONSOLE):
            self.problems.append(f"console: {message.text}")

    def _dialog(self, dialog):
        # The only dialogs the pages open are confirmations; anything else (alert from markup) is a bug.
        if dialog.type == "confirm":
            dialog.accept()
        else:
            self.problems.append(f"unexpected {dialog.type}: {dialog.message}")
            dialog.dismiss()

    def close(self):
        for context in self.contexts:
            context.close()


@pytest.fixture
def devices(browser, box):
    d = Devices(browser, box)
    yield d
    d.close()
    outside = [
        u for u in d.requests
        if not (any(u.startswith(b + "/") for b in d.box_urls) or u.startswith("ws://127.0.0.1:") or u.startswith("data:"))
    ]
    assert outside == [], f"requests left the box: {outside}"
    assert d.problems == [], "\n".join(d.problems)

"""The Debian package: built by scripts/deb, its fields and files checked, the unpacked box run with a
clean environment (no Swift toolchain anywhere it looks) to serve a game, and the package installed
into a scratch root with dpkg and purged again. Everything a test starts is stopped by PID.

The tests package a debug build (`scripts/deb --configuration debug`): it only relinks what `swift
build` compiled, where a release build would compile everything again; both are linked statically
with the Swift runtime in the same way. TRIPTO_DEB=path checks a package built beforehand instead."""

import base64
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VERSION = re.search(r'triptoVersion = "([^"]+)"', (ROOT / "Sources/Core/Version.swift").read_text()).group(1)
ARCH = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture(scope="module")
def package(tmp_path_factory) -> Path:
    given = os.environ.get("TRIPTO_DEB")
    if given:
        return Path(given)
    output = tmp_path_factory.mktemp("dist")
    # What scripts/deb printed is kept in test-output/deb.log, and its end is shown if it fails.
    log = ROOT / "test-output" / "deb.log"
    log.parent.mkdir(exist_ok=True)
    with log.open("w") as out:
        built = subprocess.run([str(ROOT / "scripts/deb"), "--configuration", "debug", "--output", str(output)],
                               cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    if built.returncode != 0:
        lines = [line for line in log.read_text(errors="replace").splitlines() if "unhandled" not in line
                 and "CMakeLists.txt" not in line]
        pytest.fail(f"scripts/deb exited with {built.returncode}; the end of test-output/deb.log:\n"
                    + "\n".join(lines[-25:]), pytrace=False)
    return output / f"tripto_{VERSION}_{ARCH}.deb"


@pytest.fixture(scope="module")
def unpacked(package, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("unpacked")
    subprocess.run(["dpkg-deb", "-x", str(package), str(root)], check=True)
    return root


def field(package: Path, name: str) -> str:
    return subprocess.run(["dpkg-deb", "-f", str(package), name], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_the_package_is_named_and_described_for_this_machine(package):
    assert package.name == f"tripto_{VERSION}_{ARCH}.deb"
    assert field(package, "Package") == "tripto"
    assert field(package, "Version") == VERSION
    assert field(package, "Architecture") == ARCH
    depends = field(package, "Depends")
    for library in ("libavahi-client3", "libqrencode4", "libsqlite3-0", "avahi-daemon"):
        assert re.search(rf"\b{library}\b", depends), depends
    assert re.search(r"\blibasound2(t64)?\b", depends), depends
    recommends = field(package, "Recommends")
    for program in ("espeak-ng", "cage", "chromium"):
        assert program in recommends, recommends
    assert "swift" not in depends.lower()


def test_it_holds_the_box_pages_packs_with_voices_sounds_units_and_licences(package):
    listing = subprocess.run(["dpkg-deb", "-c", str(package)], capture_output=True, text=True, check=True).stdout
    paths = {line.split()[5].removeprefix(".") for line in listing.splitlines()}
    for path in (
        "/usr/lib/tripto/tripto", "/usr/lib/tripto/tripto-console", "/usr/bin/tripto", "/usr/bin/tripto-console",
        "/usr/lib/tripto/tripto_Appliance.resources/Web/player.html",
        "/usr/share/tripto/sounds/credits.json", "/usr/share/tripto/sounds/travel.wav",
        "/lib/systemd/system/tripto.service", "/lib/systemd/system/tripto-screen.service",
        "/lib/systemd/system/tripto-console-tv.service", "/etc/default/tripto",
        "/usr/share/doc/tripto/copyright", "/usr/share/doc/tripto/README.md", "/usr/share/doc/tripto/tripto.txt",
        "/usr/share/doc/tripto/licences/swift.txt",
    ):
        assert path in paths, path
    for pack in ("sv-sverige", "sv-varlden", "en-europe", "en-world"):
        assert f"/usr/share/tripto/packs/{pack}/pack.json" in paths
        voices = [p for p in paths if p.startswith(f"/usr/share/tripto/packs/{pack}/voice/") and p.endswith(".wav")]
        assert len(voices) > 50, (pack, len(voices))
    control = subprocess.run(["dpkg-deb", "--ctrl-tarfile", str(package)], capture_output=True, check=True).stdout
    assert b"postinst" in control and b"prerm" in control and b"postrm" in control and b"conffiles" in control


def test_the_binaries_need_no_swift_library(unpacked):
    for binary in ("tripto", "tripto-console"):
        linked = subprocess.run(["ldd", str(unpacked / "usr/lib/tripto" / binary)], capture_output=True, text=True,
                                check=True).stdout
        assert "swift" not in linked.lower() and "libFoundation" not in linked, linked
    unit = (unpacked / "lib/systemd/system/tripto.service").read_text()
    assert "ExecStart=/usr/lib/tripto/tripto serve" in unit
    assert "--sounds-cache /usr/share/tripto/sounds" in unit
    copyright = (unpacked / "usr/share/doc/tripto/copyright").read_text()
    assert "License: CC-BY-4.0" in copyright and "License: CC0-1.0" in copyright and "Apache-2.0" in copyright


class Socket:
    """A WebSocket client in a few lines: enough to hear the box's messages."""

    def __init__(self, port: int, token: str):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /ws?token={token} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
                          .encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        assert head.startswith(b"HTTP/1.1 101"), head
        self.buffer = b""

    def read(self, count: int) -> bytes:
        while len(self.buffer) < count:
            chunk = self.sock.recv(65536)
            assert chunk, "the box closed the socket"
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def message(self) -> dict:
        first, second = self.read(2)
        length = second & 0x7F
        if length == 126:
            length = struct.unpack(">H", self.read(2))[0]
        elif length == 127:
            length = struct.unpack(">Q", self.read(8))[0]
        payload = self.read(length)
        if first & 0x0F == 0x9:  # a ping: answered with its pong
            self.send_frame(0xA, payload)
            return self.message()
        return json.loads(payload)

    def wait_for(self, kind: str, within: float = 10) -> dict:
        deadline = time.time() + within
        while time.time() < deadline:
            message = self.message()
            if message["type"] == kind:
                return message
        raise AssertionError(f"no {kind} within {within} s")

    def send_frame(self, opcode: int, payload: bytes):
        mask = os.urandom(4)
        header = bytes([0x80 | opcode, 0x80 | len(payload)]) if len(payload) < 126 else \
            bytes([0x80 | opcode, 0x80 | 126]) + struct.pack(">H", len(payload))
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def send(self, message: dict):
        self.send_frame(0x1, json.dumps(message).encode())

    def close(self):
        self.sock.close()


def post(port: int, path: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body or {}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def test_the_unpacked_box_serves_a_game_with_no_toolchain_on_path(unpacked, tmp_path):
    box = unpacked / "usr/lib/tripto/tripto"
    clean = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    version = subprocess.run([str(box), "--version"], env=clean, capture_output=True, text=True, check=True)
    assert version.stdout.strip() == VERSION
    process = subprocess.Popen(
        [str(box), "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(tmp_path / "data"),
         "--packs", str(unpacked / "usr/share/tripto/packs"), "--sounds-cache", str(unpacked / "usr/share/tripto/sounds"),
         "--no-qr", "--no-mdns", "--no-audio"],
        env=clean, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        port = None
        for line in process.stdout:
            found = re.search(r"listening on port (\d+)", line)
            if found:
                port = int(found.group(1))
                break
        assert port, "the box did not say where it listens"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/play", timeout=10) as page:
            assert b"player.js" in page.read()
        created = post(port, "/v1/sessions", {"role": "HOST", "settings": {"destinationsCount": 1}})
        session = created["sessionId"]
        join = {"joinCode": created["joinCode"]}
        players = [post(port, f"/v1/sessions/{session}/join", {"name": name, **join}) for name in ("Ada", "Bo")]
        host = Socket(port, created["hostAuthToken"])
        ada = Socket(port, players[0]["playerAuthToken"])
        try:
            assert host.wait_for("WELCOME")["payload"]["role"] == "HOST"
            ada.wait_for("WELCOME")
            host.send({"type": "HOST_START_GAME", "payload": {}})
            host.send({"type": "HOST_NEXT_CLUE", "payload": {}})
            clue = ada.wait_for("CLUE_PRESENT")
            assert clue["payload"]["levelPoints"] == 10 and clue["payload"]["clueText"]
        finally:
            host.close()
            ada.close()
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=20)


@pytest.mark.skipif(os.geteuid() != 0, reason="dpkg installs into a scratch root only as root")
def test_dpkg_installs_it_into_a_scratch_root_and_purges_it(package, tmp_path):
    root = tmp_path / "root"
    admin = root / "var/lib/dpkg"
    for folder in (admin / "info", admin / "updates", admin / "triggers"):
        folder.mkdir(parents=True)
    (admin / "status").touch()
    (admin / "available").touch()
    dpkg = ["dpkg", f"--root={root}", "--force-script-chrootless", "--force-depends", "--log=/dev/null"]
    subprocess.run([*dpkg, "-i", str(package)], check=True, capture_output=True)
    assert (root / "usr/lib/tripto/tripto").exists()
    assert (root / "etc/default/tripto").exists()
    assert (root / "usr/bin/tripto").resolve() == (root / "usr/lib/tripto/tripto").resolve()
    status = subprocess.run(["dpkg-query", f"--admindir={admin}", "-W", "-f=${Status}", "tripto"],
                            capture_output=True, text=True, check=True).stdout
    assert status == "install ok installed"
    (root / "var/lib/tripto").mkdir(parents=True)
    (root / "var/lib/tripto/tripto.sqlite").write_text("a session")
    subprocess.run([*dpkg, "--purge", "tripto"], check=True, capture_output=True)
    assert not (root / "usr/lib/tripto").exists()
    assert not (root / "etc/default/tripto").exists()
    assert not (root / "var/lib/tripto").exists()

"""The fair brake on the pages (CONTRACT 4.1): a player's page echoes the box's clock probes at once,
a pull goes when the finger comes down, stamped with that moment on the page's monotonic clock, the
box's arbitration tells the slower of two players so kindly, and the host sees each phone's round
trip and a plain line for a phone on a poor link (one behind a relay that delays every byte)."""

import json
import queue
import re
import socket
import threading
import time

import pytest
from playwright.sync_api import expect

from conftest import PHONE
from test_game import create_as_host, join_as_player

# Presses judged over relays that delay each byte: a loaded machine would stretch those delays.
pytestmark = pytest.mark.timed

HOST_WIDE = {"width": 1280, "height": 900}
ROUND_TRIP = re.compile(r"^\d+ ms$")
CLOCK_NOW = "() => performance.timeOrigin + performance.now()"


class SlowLink:
    """A TCP relay in front of the box that holds every byte `delay_ms` in each direction: a phone
    on a poor Wi-Fi link, for a real page (Chromium's network emulation leaves WebSockets alone).
    Its sockets are closed by `close`, its threads end with them."""

    def __init__(self, box, delay_ms: int):
        self.target = ("127.0.0.1", box.port)
        self.delay = delay_ms / 1000
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen()
        self.url = f"http://127.0.0.1:{self.server.getsockname()[1]}"
        self.sockets = [self.server]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.server.accept()
                upstream = socket.create_connection(self.target)
            except OSError:
                return
            self.sockets += [client, upstream]
            self._relay(client, upstream)
            self._relay(upstream, client)

    def _relay(self, source, sink):
        held = queue.Queue()

        def read():
            while True:
                try:
                    data = source.recv(65536)
                except OSError:
                    data = b""
                held.put((time.monotonic() + self.delay, data))
                if not data:
                    return

        def write():
            while True:
                due, data = held.get()
                time.sleep(max(0, due - time.monotonic()))
                try:
                    if not data:
                        sink.shutdown(socket.SHUT_WR)
                        return
                    sink.sendall(data)
                except OSError:
                    return

        threading.Thread(target=read, daemon=True).start()
        threading.Thread(target=write, daemon=True).start()

    def close(self):
        for s in self.sockets:
            try:
                s.close()
            except OSError:
                pass


def frames(page):
    """Every message the page's sockets send and receive from now on, parsed."""
    sent, received = [], []

    def watch(ws):
        ws.on("framesent", lambda f: sent.append(json.loads(f)))
        ws.on("framereceived", lambda f: received.append(json.loads(f)))

    page.on("websocket", watch)
    return sent, received


def of_type(messages, kind):
    return [m["payload"] for m in messages if m.get("type") == kind]


def wait_for(page, check, ms=5000):
    """Polls `check` (on messages the test records) while the page runs; its first true value."""
    deadline = time.monotonic() + ms / 1000
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        page.wait_for_timeout(10)
    raise AssertionError("not within %d ms" % ms)


def panel_row(host, name):
    return host.locator("#panel .people li").filter(has_text=name)


def press_and_hold(page, selector):
    """A finger (the mouse) down on the element, not yet lifted."""
    box = page.locator(selector).bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()


def test_a_phone_echoes_the_probes_and_a_tap_is_judged_by_its_press(devices, box, screens):
    host = devices.open(HOST_WIDE)
    _, host_got = frames(host)
    create_as_host(host, box, screens, destinations="1")
    join_url = host.locator("#join-url").inner_text()
    anna = devices.open(PHONE)
    anna_sent, anna_got = frames(anna)
    join_as_player(anna, join_url, "Anna")
    bo = devices.open(PHONE, locale="sv-SE")
    bo_sent, _ = frames(bo)
    join_as_player(bo, join_url, "Bo")

    # The host hears of each phone's round trip from the box, which measures it from the echoes:
    # the first report comes a second after the first player joined, then one every 5 s; a phone
    # has a clock estimate once three of its probes are echoed.
    for name in ("Anna", "Bo"):
        expect(panel_row(host, name).locator("[data-rtt]")).to_have_text(ROUND_TRIP, timeout=8000)
    assert host.locator("#slow-links").inner_text() == ""

    def both_measured():
        reports = of_type(host_got, "CONNECTION_QUALITY")
        players = reports[-1]["players"] if reports else []
        return len(players) == 2 and all(p["clockOk"] and p["rttMs"] is not None for p in players)

    wait_for(host, both_measured, ms=8000)

    # Every probe was echoed, with an integer time on the page's monotonic clock.
    probes = of_type(anna_got, "CLOCK_PROBE")
    echoes = of_type(anna_sent, "CLOCK_ECHO")
    assert len(probes) >= 5
    assert {e["probeId"] for e in echoes} >= {p["probeId"] for p in probes[:-1]}
    now = anna.evaluate(CLOCK_NOW)
    assert all(isinstance(e["clientTimeMs"], int) and 0 < now - e["clientTimeMs"] < 30_000 for e in echoes), echoes
    host.locator("#panel").scroll_into_view_if_needed()
    screens.shot(host, "host-1280-round-trips")

    host.click("#start")
    host.click("#next-clue")
    expect(anna.locator("#clue")).not_to_be_empty()
    expect(anna.locator("#brake")).to_be_enabled()
    screens.shot(anna, "phone-clue")

    # The pull goes as the finger comes down, before it is lifted, stamped with that moment.
    before = anna.evaluate(CLOCK_NOW)
    press_and_hold(anna, "#brake")
    pull = wait_for(anna, lambda: of_type(anna_sent, "BRAKE_PULL"))[0]
    after = anna.evaluate(CLOCK_NOW)
    anna.mouse.up()
    assert pull["levelPoints"] == 10
    assert isinstance(pull["atClientMs"], int) and before - 1 <= pull["atClientMs"] <= after + 1, (before, pull, after)

    # The box had Anna's clock: it judged her pull by its press and waited for pulls in flight. How
    # much earlier it judged it and how long it waited add up to its window, at least a 5 ms margin;
    # a pull without a clock estimate is judged at its arrival, decided at once: both 0.
    accepted = wait_for(host, lambda: of_type(host_got, "BRAKE_ACCEPTED"))[0]
    assert accepted["brakeOwnerPlayerId"] == of_type(anna_got, "WELCOME")[0]["playerId"]
    assert isinstance(accepted["compensatedMs"], int) and 0 <= accepted["compensatedMs"] <= 150, accepted
    assert isinstance(accepted["judgedAtServerMs"], int)
    assert accepted["compensatedMs"] + accepted["decidedAfterMs"] >= 5, accepted
    expect(anna.locator("#answer")).to_be_visible()
    assert len(of_type(anna_sent, "BRAKE_PULL")) == 1  # the click after the press sent nothing more

    anna.fill("#answer", "Atlantis")
    anna.click("#answer-submit")
    expect(bo.locator(".badge.level")).to_have_text("8 poäng")

    # Without a pointer (the keyboard), the click pulls, at its own moment.
    bo.focus("#brake")
    before = bo.evaluate(CLOCK_NOW)
    bo.keyboard.press("Enter")
    pull = wait_for(bo, lambda: of_type(bo_sent, "BRAKE_PULL"))[0]
    after = bo.evaluate(CLOCK_NOW)
    assert pull["levelPoints"] == 8 and before - 1 <= pull["atClientMs"] <= after + 1, (before, pull, after)
    expect(bo.locator("#answer")).to_be_visible()


def test_the_slower_press_is_told_kindly_and_the_host_sees_a_poor_link(devices, box, screens):
    slow = SlowLink(box, delay_ms=150)
    devices.box_urls.append(slow.url)
    try:
        host = devices.open(HOST_WIDE)
        _, host_got = frames(host)
        create_as_host(host, box, screens, destinations="1")
        join_url = host.locator("#join-url").inner_text()
        anna = devices.open(PHONE)
        join_as_player(anna, join_url, "Anna")
        bo = devices.open(PHONE, locale="sv-SE")
        _, bo_got = frames(bo)
        join_as_player(bo, join_url, "Bo")
        # Cilla's phone reaches the box through the slow relay: 300 ms there and back.
        cilla = devices.open(PHONE)
        join_as_player(cilla, join_url.replace(box.url, slow.url), "Cilla")

        expect(panel_row(host, "Cilla").locator("[data-rtt]")).to_have_text(ROUND_TRIP, timeout=12_000)
        expect(host.locator("#slow-links")).to_contain_text("Cilla's phone is on a slow connection.")
        expect(panel_row(host, "Cilla").locator(".rtt.warn")).to_have_count(1)
        expect(host.locator("#slow-links")).not_to_contain_text("Anna")
        expect(host.locator("#slow-links")).not_to_contain_text("Bo's")
        cilla_rtt = int(panel_row(host, "Cilla").locator("[data-rtt]").inner_text().split()[0])
        assert cilla_rtt >= 290, cilla_rtt
        host.locator("#panel").scroll_into_view_if_needed()
        screens.shot(host, "host-1280-slow-link")
        host.select_option("#lang-select", "sv")
        expect(host.locator("#slow-links")).to_contain_text("Cilla har dålig uppkoppling.")
        host.locator("#panel").scroll_into_view_if_needed()
        screens.shot(host, "host-1280-slow-link-swedish")
        host.select_option("#lang-select", "en")

        host.click("#start")
        host.click("#next-clue")
        for phone in (anna, bo):
            expect(phone.locator("#brake")).to_be_enabled()

        # Anna presses a moment before Bo. Cilla's slow link keeps the box waiting for pulls in
        # flight (up to 150 ms), so Bo's pull is judged too, and loses: he is told so.
        for phone in (anna, bo):
            box_ = phone.locator("#brake").bounding_box()
            phone.mouse.move(box_["x"] + box_["width"] / 2, box_["y"] + box_["height"] / 2)
        anna.mouse.down()
        bo.mouse.down()
        anna.mouse.up()
        bo.mouse.up()
        expect(anna.locator("#answer")).to_be_visible()
        rejected = wait_for(bo, lambda: of_type(bo_got, "BRAKE_REJECTED"))
        assert [r["reason"] for r in rejected] == ["beaten"], rejected
        expect(bo.locator("#toast")).to_have_text("Så nära – någon tryckte en bråkdels sekund före dig!")
        expect(bo.locator("#brake-reason")).to_have_text("Anna drog i bromsen.")
        screens.shot(bo, "phone-beaten-swedish")
        accepted = of_type(host_got, "BRAKE_ACCEPTED")[0]
        assert accepted["decidedAfterMs"] > 0, accepted
    finally:
        slow.close()

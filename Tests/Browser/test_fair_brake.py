"""The fair brake on the player's page (CONTRACT 4.1): it echoes the box's clock probes at once,
and a pull goes when the finger comes down, stamped with that moment on the page's monotonic clock."""

import json
import time

from playwright.sync_api import expect

from conftest import PHONE
from test_game import create_as_host, join_as_player

HOST_WIDE = {"width": 1280, "height": 900}
CLOCK_NOW = "() => performance.timeOrigin + performance.now()"


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

    # A usable clock estimate takes three echoes; the box sends five in the first 750 ms.
    wait_for(anna, lambda: len(of_type(anna_sent, "CLOCK_ECHO")) >= 5)
    wait_for(bo, lambda: len(of_type(bo_sent, "CLOCK_ECHO")) >= 5)

    # Every probe was echoed, with an integer time on the page's monotonic clock.
    probes = of_type(anna_got, "CLOCK_PROBE")
    echoes = of_type(anna_sent, "CLOCK_ECHO")
    assert len(probes) >= 5
    assert {e["probeId"] for e in echoes} >= {p["probeId"] for p in probes[:-1]}
    now = anna.evaluate(CLOCK_NOW)
    assert all(isinstance(e["clientTimeMs"], int) and 0 < now - e["clientTimeMs"] < 30_000 for e in echoes), echoes

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

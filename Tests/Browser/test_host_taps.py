"""The host's controls on a phone: a double tap moves the game on one step, never two (the screen
that follows puts its own button where the finger is), and the followup's results read as the TV's."""

import pytest
from playwright.sync_api import expect

from conftest import PHONE, TV
from test_game import create_as_host, join_as_player

# Taps a set number of milliseconds apart, against the page's own settling time.
pytestmark = pytest.mark.timed

# Longer than the time a control that moves the game on ignores taps for (host.js, SETTLE_MS).
SETTLED_MS = 800


def tap(page, selector):
    """A finger on the control, whether it takes taps yet or not (no waiting for it)."""
    page.click(selector, force=True)


def double_tap(page, selector, gap_ms):
    """Two taps; the second lands on whatever control of that name is there by then, as a finger
    does on the button the next screen put in the same place."""
    tap(page, selector)
    page.wait_for_timeout(gap_ms)
    tap(page, selector)


def test_a_double_tap_moves_the_game_on_once(devices, box, screens):
    host = devices.open(PHONE)
    create_as_host(host, box, screens, destinations="1")
    tv = devices.open(TV)
    tv.goto(host.locator("#tv-link").inner_text())
    anna = devices.open(PHONE)
    join_as_player(anna, host.locator("#join-url").inner_text(), "Anna")

    host.click("#start")
    expect(host.locator("#next-clue")).to_have_text("To the first clue")
    host.wait_for_timeout(SETTLED_MS)
    double_tap(host, "#next-clue", 250)
    expect(tv.locator("#level")).to_have_text("10 points")
    host.wait_for_timeout(SETTLED_MS)
    expect(tv.locator("#level")).to_have_text("10 points")
    double_tap(host, "#next-clue", 250)
    expect(tv.locator("#level")).to_have_text("8 points")
    host.wait_for_timeout(SETTLED_MS)
    expect(tv.locator("#level")).to_have_text("8 points")
    # Once the screen has settled, a single tap moves on at once.
    tap(host, "#next-clue")
    expect(tv.locator("#level")).to_have_text("6 points")

    for level in ("4 points", "2 points"):
        host.click("#next-clue")
        expect(tv.locator("#level")).to_have_text(level)
    host.click("#next-clue")
    expect(tv.locator("#destination")).not_to_be_empty()
    host.click("#next")
    expect(host.locator("#next")).to_have_text("Close the question")

    # Anna answers the first followup wrong; "Close the question" then "Next" 300 ms apart closes it
    # and leaves its results up.
    correct = host.locator("#correct").inner_text()
    options = anna.locator("button[data-option]")
    expect(anna.locator("#question")).not_to_be_empty()
    if options.count():
        texts = options.all_inner_texts()
        options.nth(texts.index(next(t for t in texts if t != correct))).click()
    else:
        anna.fill("#followup-answer", "Atlantis")
        anna.click("#followup-submit")
    expect(host.locator("#followup-answers [aria-label='answered']")).to_have_count(1)
    host.wait_for_timeout(SETTLED_MS)
    double_tap(host, "#next", 300)
    expect(tv.locator(".results li")).to_have_count(1)
    host.wait_for_timeout(SETTLED_MS)
    expect(tv.locator(".badge")).to_have_text("Followup 1 of 2")
    expect(tv.locator("#correct")).to_have_text(correct)

    # The host reads the results as the TV shows them: wrong is wrong, and no "time's up" any more.
    expect(host.locator("#followup-answers .bad")).to_have_text("✗")
    expect(host.locator("#followup-answers .ok")).to_have_count(0)
    expect(host.locator("#main")).not_to_contain_text("Time's up")
    screens.shot(host, "host-followup-results")

"""The box's own screen in kiosk mode: /tv?kiosk shows the session the box runs by itself, and a
game starts and plays with no host once a phone has joined."""

import re

import pytest
from playwright.sync_api import expect

from conftest import PHONE, TV

FAST_KIOSK = [
    "--kiosk", "--kiosk-lobby-seconds", "8", "--kiosk-end-seconds", "2", "--auto-pace", "0.1",
    "--kiosk-settings",
    '{"destinationsCount":1,"followupsPerDestination":1,"followupSeconds":5,"introMs":0,"finaleMs":4000}',
]


@pytest.mark.box_args(FAST_KIOSK)
def test_kiosk_screen_plays_a_game_without_a_host(devices, box, screens):
    tv = devices.open(TV)
    tv.goto(box.url + "/tv?kiosk")
    expect(tv.locator("#join-code")).to_have_text(re.compile(r"^[A-Z2-9]{6}$"))
    # Between games the screen shows tonight's top 10 and when the next game starts.
    expect(tv.locator("#next-game")).to_have_text("The next game starts shortly after someone joins.")
    expect(tv.locator("#tonight")).to_contain_text("Nobody has played tonight yet")
    screens.shot(tv, "tv-kiosk-lobby")
    join_url = tv.locator("#join-url").inner_text()

    phone = devices.open(PHONE)
    phone.goto(join_url)
    phone.fill("#name", "Walk-in")
    phone.click("#name-submit")
    expect(phone.get_by_text("The game starts by itself in a moment.")).to_be_visible()
    # Nobody presses start: the kiosk does, and the clues move on by themselves.
    expect(tv.locator("#level")).to_have_text("10 points", timeout=15_000)
    expect(phone.locator("#brake")).to_be_enabled()
    screens.shot(tv, "tv-kiosk-clue")
    expect(tv.locator("#level")).to_have_text("8 points", timeout=10_000)
    expect(tv.locator("#destination")).not_to_be_empty(timeout=20_000)
    expect(tv.locator("#thanks")).to_be_visible(timeout=40_000)
    # …and the lobby opens again for the next game, with the game on tonight's leaderboard, on the
    # screen and on the phone, and the countdown to the next game.
    expect(tv.locator("#join-code")).to_be_visible(timeout=20_000)
    expect(phone.locator("#leave")).to_be_visible()
    expect(tv.locator("#tonight li")).to_contain_text("Walk-in", timeout=10_000)
    expect(phone.locator("#tonight li.me")).to_contain_text("Walk-in", timeout=10_000)
    expect(tv.locator("#next-game")).to_contain_text(re.compile(r"Next game in \d+ s"))
    screens.shot(tv, "tv-kiosk-between-games-1920")
    tv.set_viewport_size({"width": 1280, "height": 720})
    expect(tv.locator("#tonight li")).to_contain_text("Walk-in")
    screens.shot(tv, "tv-kiosk-between-games-1280")
    screens.shot(phone, "phone-kiosk-tonight")


def test_the_boxs_own_screen_without_kiosk_is_a_tv_that_pairs_or_creates(devices, box, screens):
    # tripto-screen opens /tv?kiosk in every mode: on a box without --kiosk it is a plain TV.
    tv = devices.open(TV)
    tv.goto(box.url + "/tv?kiosk")
    expect(tv.locator("#code")).to_be_visible()
    expect(tv.get_by_role("link", name="Create a new game instead")).to_have_attribute("href", "/")
    screens.shot(tv, "tv-box-screen-without-kiosk")

"""Everyone plays (CONTRACT 4.2): a phone creates a game without a host, is its captain, lets the
others and a TV in, and starts and pauses a game that moves on by itself."""

import json
import re
import time
import urllib.request

import pytest
from playwright.sync_api import expect

from conftest import PHONE, TV
from test_game import join_as_player


def wake_video_playing(page, timeout_s=10):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if page.evaluate("() => { const v = document.querySelector('video.wake'); return !!v && !v.paused; }"):
            return True
        time.sleep(0.1)
    return False


def buzzes(page, pattern, count=1, timeout_s=10):
    """Waits until the page has vibrated `pattern` `count` times (the pages' CSP allows no eval)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if page.evaluate("(p) => window.buzzes.filter((b) => JSON.stringify(b) === JSON.stringify(p)).length", pattern) >= count:
            return
        time.sleep(0.1)
    raise AssertionError(f"no {count} × vibrate({pattern}): {page.evaluate('() => window.buzzes')}")


def test_everyone_plays_without_a_host(devices, box, screens):
    ada = devices.open(PHONE)
    # Haptics as the phone would give them: navigator.vibrate, recorded.
    ada.add_init_script("window.buzzes = []; navigator.vibrate = (p) => (window.buzzes.push(p), true);")
    ada.goto(box.url + "/")
    ada.click("#create")
    ada.select_option("#count", "1")
    ada.click("#create-player")
    ada.fill("#captain-name", "Ada")
    screens.shot(ada, "phone-create-as-player")
    ada.click("#captain-go")

    # The captain's lobby: the code and QR code for the others, the TV's link, and Start.
    expect(ada.locator("#captain-start")).to_be_visible()
    expect(ada.locator("#captain-code")).to_have_text(re.compile(r"^[A-Z2-9]{6}$"))
    expect(ada.locator("#me")).to_have_text("Ada")
    screens.shot(ada, "phone-captain-lobby")
    join_url = ada.locator("#captain-join-url").inner_text()
    tv_link = ada.locator("#captain-tv-link").inner_text()

    bo = devices.open(PHONE)
    # A phone on plain http has no Wake Lock API: the page keeps the screen on with its video.
    bo.add_init_script("delete Navigator.prototype.wakeLock;")
    join_as_player(bo, join_url, "Bo")
    expect(bo.locator("#captain-start")).to_have_count(0)
    tv = devices.open(TV)
    tv.goto(tv_link)
    expect(tv.locator("#join-code")).to_be_visible()
    expect(tv.locator("#new-game")).to_have_attribute("href", "/")

    ada.click("#captain-start")
    expect(tv.locator("#level")).to_have_text("10 points", timeout=15_000)
    expect(ada.locator("#brake")).to_be_enabled()
    expect(bo.locator("#brake")).to_be_enabled()
    # The game moves on by itself, and says when.
    expect(tv.locator("#next-clue")).to_contain_text(re.compile(r"Next clue in \d+ s"))
    expect(bo.locator("#next-clue")).to_contain_text(re.compile(r"Next clue in \d+ s"))
    screens.shot(ada, "phone-captain-clue")
    screens.shot(tv, "tv-captain-clue")
    bo.locator("#main").click(position={"x": 5, "y": 5})
    assert wake_video_playing(bo), "the wake video plays during the clue"
    ada.click("#captain-pause")
    expect(bo.locator("#status")).to_contain_text("Paused")
    expect(tv.get_by_role("status")).to_contain_text("Paused")
    ada.click("#captain-resume")
    expect(ada.locator("#captain-pause")).to_be_visible()
    expect(bo.locator("#status")).not_to_contain_text("Paused")

    # Ada pulls the brake: her phone gives one firm pulse; her answer's countdown turns red at the end.
    ada.click("#brake")
    expect(ada.locator("#answer")).to_be_visible()
    buzzes(ada, 120)
    expect(ada.locator("#main .countdown.last-seconds")).to_be_visible(timeout=20_000)
    screens.shot(ada, "phone-captain-last-seconds")
    buzzes(ada, 25, count=2)

    # Bo leaves during the game from his phone's menu: back to the start page; he is gone from the
    # players, and his points stay on the scoreboard as "left".
    screens.shot(bo, "phone-leave-mid-game")
    bo.click("#leave-game-button")
    expect(bo).to_have_url(box.url + "/")
    expect(tv.locator("#main")).not_to_contain_text("Bo", timeout=10_000)

    # The captain ends the evening: her phone's screen may sleep again.
    ada.click("#captain-end")
    expect(ada.locator("#ended")).to_be_visible()
    assert ada.evaluate("() => document.querySelector('video.wake') === null")


@pytest.mark.box_args(["--auto-pace", "0.15"])
def test_a_whole_hostless_evening_with_a_host_who_drops_in(devices, box, screens):
    """Three players and a TV play a whole game without a host; a host joins mid-game and takes the
    controls (the captain's go), and the finale comes by itself."""
    # Made over REST with short followups (the create screen has the defaults), then opened as Ada's.
    request = urllib.request.Request(
        box.url + "/v1/sessions",
        data=json.dumps({
            "role": "PLAYER", "name": "Ada",
            "settings": {"destinationsCount": 1, "followupsPerDestination": 1, "followupSeconds": 5, "introMs": 0},
        }).encode(),
        headers={"Content-Type": "application/json"})
    made = json.load(urllib.request.urlopen(request))
    seat = {
        "sessionId": made["sessionId"], "playerId": made["playerId"], "token": made["playerAuthToken"],
        "joinCode": made["joinCode"], "tvJoinToken": made["tvJoinToken"], "answers": {},
    }
    ada = devices.open(PHONE)
    ada.goto(box.url + "/")
    ada.evaluate("(seat) => localStorage.setItem('tripto.player', JSON.stringify(seat))", seat)
    ada.goto(box.url + "/join/" + made["sessionId"])
    expect(ada.locator("#captain-start")).to_be_visible()
    join_url = made["joinUrl"]
    tv = devices.open(TV)
    tv.goto(ada.locator("#captain-tv-link").inner_text())
    players = [ada]
    for name in ("Bo", "Cy"):
        phone = devices.open(PHONE)
        join_as_player(phone, join_url, name)
        players.append(phone)
    expect(tv.locator(".people li")).to_have_count(3)

    ada.click("#captain-start")
    expect(tv.locator("#level")).to_be_visible(timeout=15_000)
    ada.click("#captain-pause")
    expect(tv.get_by_role("status")).to_contain_text("Paused")
    ada.click("#captain-resume")

    # A host drops in with the code: the controls are the host's, the captain keeps playing.
    host = devices.open(PHONE)
    host.goto(box.url + "/")
    host.click("#join")
    host.fill("#code", made["joinCode"])
    host.click("#code-submit")
    host.click("#role-host")
    expect(host).to_have_url(box.url + "/host")
    expect(ada.locator("#captain-pause, #captain-resume")).to_have_count(0)
    screens.shot(host, "phone-host-dropped-in")
    host.click("#pause")
    expect(tv.get_by_role("status")).to_contain_text("Paused")
    host.click("#resume")

    # The game plays itself to its finale.
    expect(tv.locator("#thanks")).to_be_visible(timeout=60_000)
    for phone in players:
        expect(phone.locator("#main")).to_contain_text("Ada")
    screens.shot(tv, "tv-hostless-finale")

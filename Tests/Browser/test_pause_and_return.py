"""Countdowns through a host's pause, and phones that come back after their seat changed: each
page as people use it, against a real box."""

import re

import pytest
from playwright.sync_api import expect

from conftest import PHONE, TV
from test_game import create_as_host, join_as_player


def seconds(locator) -> int:
    return int(locator.inner_text())


RUNNING = re.compile(r"^\d+$")


def frozen_then_running(host, countdowns):
    """Pauses for over two seconds: every countdown stands still. After the resume each goes on
    from where it stood, not from where the old deadline would put it, and keeps counting."""
    host.click("#pause")
    # A countdown that runs has its deadline on it; a frozen one has none.
    for _, locator in countdowns:
        expect(locator).not_to_have_attribute("data-deadline", RUNNING)
    before = [seconds(locator) for _, locator in countdowns]
    host.wait_for_timeout(2_200)
    assert [seconds(locator) for _, locator in countdowns] == before
    host.click("#resume")
    for _, locator in countdowns:
        expect(locator).to_have_attribute("data-deadline", RUNNING)
    after = [seconds(locator) for _, locator in countdowns]
    assert all(b - 1 <= a <= b for a, b in zip(after, before)), (before, after)
    host.wait_for_timeout(1_600)
    assert all(seconds(locator) < a for (_, locator), a in zip(countdowns, after))


@pytest.mark.timed
def test_countdowns_follow_a_pause(devices, box, screens):
    host = devices.open(PHONE)
    create_as_host(host, box, screens)
    tv = devices.open(TV)
    tv.goto(host.locator("#tv-link").inner_text())
    anna = devices.open(PHONE)
    join_as_player(anna, host.locator("#join-url").inner_text(), "Anna")
    host.click("#start")
    host.click("#next-clue")
    anna.click("#brake")
    expect(anna.locator("#answer")).to_be_visible()

    # The brake's 15 s: on Anna's answer screen, the host's banner and the TV's.
    brake = [
        (anna, anna.locator("#main .countdown")),
        (host, host.locator(".brake-banner .countdown")),
        (tv, tv.locator("#brake-banner .countdown")),
    ]
    host.click("#pause")
    expect(anna.locator("#answer-submit")).to_be_disabled()
    expect(anna.locator("#answer-note")).to_have_text("The game is paused – wait for the host.")
    screens.shot(anna, "phone-answer-paused")
    host.click("#resume")
    expect(anna.locator("#answer-submit")).to_be_enabled()
    frozen_then_running(host, brake)
    destination = host.locator("#host-destination").inner_text().split(" · ")[0]
    anna.fill("#answer", destination)
    anna.click("#answer-submit")
    expect(anna.locator("#brake-reason")).to_have_text("You locked your answer at 10 points.")

    # A followup's 20 s, on every screen.
    host.click("#force-reveal")
    expect(tv.locator("#destination")).to_have_text(destination)
    host.click("#next")
    expect(anna.locator("#question")).not_to_be_empty()
    frozen_then_running(
        host,
        [(page, page.locator("#main .countdown")) for page in (anna, host, tv)],
    )
    # The Next buttons wait while the game is paused.
    host.click("#pause")
    expect(host.locator("#next")).to_be_disabled()
    host.click("#resume")
    expect(host.locator("#next")).to_be_enabled()


def test_a_removed_player_comes_back_by_the_join_link(devices, box, screens):
    host = devices.open(PHONE)
    create_as_host(host, box, screens)
    join_url = host.locator("#join-url").inner_text()
    sleepy = devices.open(PHONE)
    join_as_player(sleepy, join_url, "Sleepy")

    # Her phone is away (the page gone) when the host removes her.
    sleepy.goto("about:blank")
    expect(host.locator("#panel .people li .dot.on")).to_have_count(0)
    host.click("[data-kick]")
    expect(host.locator("#panel .people li")).to_have_count(0)

    # She scans the QR code again: told what happened, and offered a new seat.
    sleepy.goto(join_url)
    expect(sleepy.locator("#ended h1")).to_have_text("You are no longer in this game")
    screens.shot(sleepy, "phone-removed-rejoin")
    sleepy.click("#rejoin")
    sleepy.fill("#name", "Sleepy again")
    sleepy.click("#name-submit")
    expect(sleepy.locator("#leave")).to_be_visible()
    expect(host.locator("#panel .people li")).to_have_count(1)

    # Away again when the host ends the game: coming back, she is told why it ended.
    sleepy.goto("about:blank")
    host.click("#end-session")
    expect(host.locator("#ended")).to_be_visible()
    sleepy.goto(re.sub(r"\?.*$", "", join_url))
    expect(sleepy.locator("#ended")).to_contain_text("The host ended the game.")


def test_a_seat_open_in_too_many_tabs_does_not_fight_itself(devices, box, screens):
    host = devices.open(PHONE)
    create_as_host(host, box, screens)
    anna = devices.open(PHONE)
    join_as_player(anna, host.locator("#join-url").inner_text(), "Anna")
    expect(anna.locator("#leave")).to_be_visible()

    # Four more tabs of her seat: the box takes four sockets a seat, so the oldest, her first tab,
    # gives way, and waits to be asked back rather than pushing out another tab.
    tabs = []
    for _ in range(4):
        tab = anna.context.new_page()
        tab.goto(anna.url)
        expect(tab.locator("#leave")).to_be_visible()
        tabs.append(tab)
    expect(anna.locator("#connection h2")).to_have_text("Open somewhere else")
    screens.shot(anna, "phone-open-elsewhere")
    anna.wait_for_timeout(2_500)
    expect(anna.locator("#connection h2")).to_have_text("Open somewhere else")
    for tab in tabs:
        expect(tab.locator("#connection")).to_have_count(0)

    # Asked back, it takes its seat again, and the oldest of the others gives way in turn.
    anna.click("#conn-retry")
    expect(anna.locator("#connection")).to_have_count(0)
    expect(tabs[0].locator("#connection h2")).to_have_text("Open somewhere else")
    for tab in tabs[1:]:
        expect(tab.locator("#connection")).to_have_count(0)

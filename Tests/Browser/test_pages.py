"""Smaller promises of the pages: the code field's font, the pack a Swedish browser starts with, a
name counted as people see it, what an ended game offers, and a host told it was replaced."""

import re
import urllib.request

from playwright.sync_api import expect

from conftest import PHONE, TV
from test_game import create_as_host


def test_code_entry_is_big_and_monospaced(devices, box, screens):
    for page, path in ((devices.open(PHONE), "/?join"), (devices.open(TV), "/tv")):
        page.goto(box.url + path)
        field = page.locator("#code")
        expect(field).to_be_visible()
        style = field.evaluate("(el) => [getComputedStyle(el).fontSize, getComputedStyle(el).fontFamily]")
        assert style[0] == "32px" and "mono" in style[1].lower(), style


def test_a_swedish_browser_starts_with_the_first_swedish_pack(devices, box, screens):
    page = devices.open(PHONE, locale="sv-SE")
    page.goto(box.url + "/")
    page.click("#create")
    expect(page.locator("#pack option")).not_to_have_count(0)
    packs = box.get_json("/v1/packs")
    first = next(p for p in packs if p["language"] == "sv")
    assert page.locator("#pack option[selected]").count() == 1
    expect(page.locator("#pack")).to_have_value(first["packId"])


def test_a_name_is_counted_as_people_see_it(devices, box, screens):
    host = devices.open(PHONE)
    create_as_host(host, box, screens)
    page = devices.open(PHONE)
    page.goto(host.locator("#join-url").inner_text())
    family = "\U0001F468\u200D\U0001F469\u200D\U0001F467\u200D\U0001F466"
    # A phone's emoji keyboard puts a family in at once: one more than 20 does not fit.
    page.fill("#name", family * 21)
    expect(page.locator("#name")).to_have_value(family * 20)
    expect(page.get_by_text("20/20")).to_be_visible()
    page.click("#name-submit")
    expect(page.locator("#leave")).to_be_visible()
    expect(host.locator("#panel .people .name")).to_have_text([family * 20])


def test_an_ended_game_is_not_offered_again(devices, box, screens):
    host = devices.open(PHONE)
    create_as_host(host, box, screens)
    seat = host.evaluate("JSON.parse(localStorage.getItem('tripto.host'))")
    host.goto(box.url + "/")
    expect(host.get_by_text(re.compile("Continue as host"))).to_be_visible()

    # The game ends while the host's page is closed: the launch page no longer offers it.
    request = urllib.request.Request(
        f"{box.url}/v1/sessions/{seat['sessionId']}", method="DELETE", headers={"Authorization": f"Bearer {seat['token']}"}
    )
    urllib.request.urlopen(request, timeout=5).close()
    host.reload()
    expect(host.locator("#create")).to_be_visible()
    expect(host.get_by_text(re.compile("Continue as host"))).to_have_count(0)
    assert host.evaluate("localStorage.getItem('tripto.host')") is None


def test_the_host_and_the_tv_are_offered_what_fits_when_the_game_ends(devices, box, screens):
    host = devices.open(PHONE)
    create_as_host(host, box, screens)
    tv = devices.open(TV)
    tv.goto(host.locator("#tv-link").inner_text())
    expect(tv.locator("#join-code")).to_be_visible()
    host.click("#end-session")
    expect(host.locator("#join-another")).to_have_text("To the start page")
    expect(tv.locator("#join-another")).to_have_text("New game on this TV")
    screens.shot(tv, "tv-ended")
    tv.click("#join-another")
    expect(tv.locator("#code")).to_be_visible()


def test_a_player_is_told_when_their_answer_was_not_locked(devices, box, screens):
    host = devices.open(PHONE)
    create_as_host(host, box, screens)
    anna = devices.open(PHONE)
    anna.goto(host.locator("#join-url").inner_text())
    anna.fill("#name", "Anna")
    anna.click("#name-submit")
    host.click("#start")
    host.click("#next-clue")
    anna.click("#brake")
    anna.fill("#answer", "Somewhere")
    # The host moves on before Anna locks her answer.
    host.click("#next-clue")
    expect(anna.locator("#brake")).to_be_visible()
    expect(anna.locator("#toast")).to_have_text("Your answer was not locked in time.")
    screens.shot(anna, "phone-answer-not-locked")

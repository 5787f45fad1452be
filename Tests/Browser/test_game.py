"""A whole evening through the pages the box serves, clicked and typed as people would: a host on a
phone, the TV at 1920×1080 and three players, each in their own browser context."""

import json
import re

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError, expect

from conftest import PHONE, SMALL_PHONE, TV

# Names are at most 20 characters; answers up to 100.
HOSTILE = "<svg onload=alert()>"
HOSTILE_ANSWER = "<img src=x onerror=alert(1)>"


# The smallest text of the TV's screen in pixels at 1080 lines: 2.2 % of the height (24 px), read
# from the sofa.
TV_SMALLEST_TEXT = 0.022 * 1080

SMALLEST_TEXT_JS = """() => {
  let smallest = { size: Infinity, text: "" };
  for (const el of document.querySelectorAll("body *")) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.getClientRects().length) continue;
    // A map's names are sized in the map's units: what counts is their height on the screen.
    const size = el.closest("svg") ? el.getBoundingClientRect().height / 1.2 : parseFloat(getComputedStyle(el).fontSize);
    if (size < smallest.size) smallest = { size, text: el.textContent.trim().slice(0, 40) };
  }
  return smallest;
}"""


def assert_readable_from_the_sofa(tv):
    smallest = tv.evaluate(SMALLEST_TEXT_JS)
    # 2.2 % of the screen's height, whatever its size (TV_SMALLEST_TEXT at 1080 lines).
    assert smallest["size"] >= TV_SMALLEST_TEXT * tv.viewport_size["height"] / 1080 - 0.01, smallest


def create_as_host(page, box, screens, destinations="2"):
    page.goto(box.url + "/")
    expect(page.locator("#create")).to_be_visible()
    screens.shot(page, "phone-launch")
    page.click("#create")
    # The pressed button is gone: focus goes to the new screen's heading.
    expect(page.locator("h1")).to_have_js_property("tabIndex", -1)
    assert page.evaluate("document.activeElement === document.querySelector('#main h1')")
    page.select_option("#count", destinations)
    expect(page.locator("#pack option")).not_to_have_count(0)
    screens.shot(page, "phone-create")
    page.click("#create-host")
    expect(page).to_have_url(box.url + "/host")
    expect(page.locator("#join-code")).to_have_text(re.compile(r"^[A-Z2-9]{6}$"))


def join_as_player(page, join_url, name):
    page.goto(join_url)
    page.fill("#name", name)
    page.click("#name-submit")
    expect(page.locator("#leave")).to_be_visible()


def destination_on_host(host):
    """The host view shows "Name · Country"; players type the name."""
    return host.locator("#host-destination").inner_text().split(" · ")[0]


def answer_followups(host, players, screens, shoot):
    """Players 1 and 2 answer every followup of a destination (1 right, 2 wrong); the host closes each."""
    previous = None
    while True:
        # After "next" the host's page still shows the closed question until the new one arrives.
        if previous is not None:
            expect(host.locator("#question")).not_to_have_text(previous)
        expect(host.locator("#correct")).not_to_be_empty()
        question = previous = host.locator("#question").inner_text()
        correct = host.locator("#correct").inner_text()
        for player, right in ((players[0], True), (players[1], False)):
            # The phone shows this question (not still the previous one) before it answers.
            expect(player.locator("#question")).to_have_text(question)
            options = player.locator("button[data-option]")
            if options.count():
                texts = options.all_inner_texts()
                choice = correct if right else next(t for t in texts if t != correct)
                options.nth(texts.index(choice)).click()
            else:
                player.fill("#followup-answer", correct if right else "Atlantis")
                player.click("#followup-submit")
            expect(player.locator("#saved")).not_to_be_empty()
        if shoot:
            screens.shot(players[0], "phone-followup-answered")
        host.click("#next")  # close the question
        expect(players[0].locator("#verdict .ok")).to_be_visible()
        expect(players[1].locator("#verdict .bad")).to_be_visible()
        expect(host.locator("#next")).not_to_have_text("Close the question")
        if shoot:
            screens.shot(players[0], "phone-followup-result")
            shoot = False
        last = host.locator("#next").inner_text() == "Show the scoreboard"
        host.click("#next")
        if last:
            return


def test_whole_game_with_host_tv_and_three_players(devices, box, screens):
    host = devices.open(PHONE)
    create_as_host(host, box, screens)
    screens.shot(host, "host-lobby")
    join_url = host.locator("#join-url").inner_text()
    tv_link = host.locator("#tv-link").inner_text()
    code = host.locator("#join-code").inner_text()
    assert join_url.startswith(box.url + "/join/") and "?t=" in join_url

    tv = devices.open(TV)
    tv.goto(tv_link)
    expect(tv.locator("#join-code")).to_have_text(code)
    expect(tv.locator("#join-url")).to_have_text(join_url)
    tv.wait_for_function("() => { const i = document.querySelector('img.qr'); return i?.complete && i.naturalWidth > 0 }")
    expect(host.locator("#tv-status")).to_have_text("The TV is connected.")

    anna = devices.open(PHONE)
    bo = devices.open(SMALL_PHONE, locale="sv-SE")
    mallory = devices.open(PHONE)
    # What Anna's page sends, to check that her pull names the clue she saw.
    anna_sent = []
    anna.on("websocket", lambda socket: socket.on("framesent", lambda frame: anna_sent.append(frame)))
    anna.goto(join_url)
    screens.shot(anna, "phone-name")
    join_as_player(anna, join_url, "Anna")
    join_as_player(bo, join_url, "Bo")
    join_as_player(mallory, join_url, HOSTILE)
    expect(anna.locator("#main .people li")).to_have_count(3)
    screens.shot(anna, "phone-lobby")
    screens.shot(bo, "phone-lobby-swedish-375")
    expect(tv.locator(".people li")).to_have_count(3)
    screens.shot(tv, "tv-lobby")
    assert_readable_from_the_sofa(tv)
    screens.shot(host, "host-lobby-players")

    # The hostile name is text everywhere: no element was made from it, no alert ran.
    for page in (host, tv, anna, mallory):
        expect(page.get_by_text(HOSTILE).first).to_be_visible()
        assert page.locator("svg[onload]").count() == 0

    # Start; skip the intro; the first clue is on the TV, with no secret on it.
    host.click("#start")
    expect(tv.locator("h1")).to_have_text("The train is about to leave…")
    screens.shot(tv, "tv-intro")
    host.click("#next-clue")
    expect(tv.locator("#level")).to_have_text("10 points")
    destination = destination_on_host(host)
    assert destination not in tv.locator("body").inner_text()
    assert destination not in anna.locator("body").inner_text()
    screens.shot(tv, "tv-clue")
    assert_readable_from_the_sofa(tv)
    screens.shot(anna, "phone-clue")
    screens.shot(host, "host-clue")

    # Anna brakes at 10 and answers right; the TV shows the banner and then her lock marker.
    anna.click("#brake")
    expect(anna.locator("#answer")).to_be_visible()
    pulls = [json.loads(f) for f in anna_sent if '"BRAKE_PULL"' in f]
    assert [p["payload"]["levelPoints"] for p in pulls] == [10]
    expect(tv.locator("#brake-banner")).to_contain_text("Anna pulled the brake!")
    expect(bo.locator("#brake-reason")).to_contain_text("Anna drog i bromsen.")
    screens.shot(anna, "phone-answer")
    screens.shot(tv, "tv-brake")
    assert_readable_from_the_sofa(tv)
    anna.fill("#answer", destination.lower())
    anna.click("#answer-submit")
    expect(tv.locator("#level")).to_have_text("8 points")
    expect(tv.locator(".markers .pill")).to_have_text(["Anna · 10 points"])
    expect(anna.locator("#brake")).to_be_disabled()
    expect(anna.locator("#brake-reason")).to_have_text("You locked your answer at 10 points.")
    expect(host.locator("#locked")).to_contain_text(destination.lower())
    assert destination.lower() not in tv.locator("body").inner_text().lower()

    # Bo brakes at 8 with a wrong answer (in Swedish).
    bo.click("#brake")
    expect(bo.locator("#answer")).to_be_visible()
    screens.shot(bo, "phone-answer-swedish")
    bo.fill("#answer", "Atlantis")
    bo.click("#answer-submit")
    expect(tv.locator("#level")).to_have_text("6 points")
    screens.shot(tv, "tv-locked")
    assert_readable_from_the_sofa(tv)

    # Mallory's phone reloads mid-clue and comes straight back into the game.
    mallory.reload()
    expect(mallory.locator("#clue")).not_to_be_empty()
    expect(mallory.locator("#brake")).to_be_enabled()
    expect(mallory.locator("#me")).to_have_text(HOSTILE)

    # Mallory answers with markup at 6; the host sees it as text.
    mallory.click("#brake")
    mallory.fill("#answer", HOSTILE_ANSWER)
    mallory.click("#answer-submit")
    expect(tv.locator("#level")).to_have_text("4 points")
    expect(host.locator("#locked")).to_contain_text(HOSTILE_ANSWER)

    for level in ("2 points",):
        host.click("#next-clue")
        expect(tv.locator("#level")).to_have_text(level)
    host.click("#next-clue")  # after the 2-point clue: the reveal
    expect(tv.locator("#destination")).to_have_text(destination)
    expect(anna.locator("#verdict")).to_contain_text("Right! +10 points")
    expect(bo.locator("#verdict")).to_contain_text("Atlantis")
    expect(mallory.locator("#verdict")).to_contain_text(HOSTILE_ANSWER)
    expect(tv.get_by_text(HOSTILE_ANSWER)).to_be_visible()
    for page in (host, tv, anna, mallory):
        assert page.locator("img[src='x'], svg[onload]").count() == 0
    screens.shot(tv, "tv-reveal")
    assert_readable_from_the_sofa(tv)
    screens.shot(anna, "phone-reveal")

    host.click("#next")
    screens.shot(tv, "tv-followup")
    assert_readable_from_the_sofa(tv)
    screens.shot(host, "host-followup")
    answer_followups(host, [anna, bo], screens, shoot=True)
    expect(tv.locator(".standings li")).to_have_count(3)
    expect(anna.locator("#main")).to_contain_text("You are in place 1")
    screens.shot(tv, "tv-scoreboard")
    assert_readable_from_the_sofa(tv)
    screens.shot(anna, "phone-scoreboard")

    # Second destination: the host moves quickly; nobody brakes.
    host.click("#next")
    host.click("#next-clue")
    for _ in range(5):
        host.click("#next-clue")
    expect(tv.locator("#destination")).not_to_be_empty()
    host.click("#next")
    answer_followups(host, [anna, bo], screens, shoot=False)
    host.click("#next")  # scoreboard → finale

    # The finale runs on its timeline: the lead, the drumroll, the winner with the podium, then the standings.
    expect(tv.locator(".finale .lead")).to_have_text("And the winner is…")
    screens.shot(tv, "tv-finale-lead")
    expect(tv.locator(".drum")).to_be_visible()
    screens.shot(tv, "tv-finale-drumroll")
    expect(tv.locator("#winner")).to_have_text("Anna", timeout=6000)
    expect(tv.locator(".podium .step:not([hidden])")).to_have_count(3)
    screens.shot(tv, "tv-finale-winner")
    assert_readable_from_the_sofa(tv)
    expect(anna.locator("#main")).to_contain_text("Congratulations – you won!")
    screens.shot(anna, "phone-finale")
    expect(tv.locator("#thanks")).to_have_text("Thanks for tonight!", timeout=8000)
    expect(tv.locator(".standings li").first).to_contain_text("Anna")
    screens.shot(tv, "tv-finale-standings")
    assert_readable_from_the_sofa(tv)
    screens.shot(host, "host-finale")
    expect(tv.get_by_text(HOSTILE).first).to_be_visible()


def test_wrong_code_and_code_entry(devices, box, screens):
    page = devices.open(PHONE)
    page.goto(box.url + "/")
    page.click("#join")
    # A screen with a field to fill moves on to it.
    page.wait_for_function("document.activeElement === document.querySelector('#code')")
    # The way home in the top bar is a touch target (44 px), like every button.
    assert page.locator(".topbar .brand").bounding_box()["height"] >= 44
    page.locator("#code").press_sequentially("zz z-z")
    # Shown as the TV shows codes, with a dash after three.
    expect(page.locator("#code")).to_have_value("ZZZ-Z")
    expect(page.locator(".dots .filled")).to_have_count(4)
    expect(page.locator("#code-submit")).to_be_disabled()
    page.locator("#code").press_sequentially("ZZ")
    expect(page.locator("#code-submit")).to_be_enabled()
    screens.shot(page, "phone-code")
    page.click("#code-submit")
    expect(page.get_by_role("alert")).to_have_text("Session not found or expired. Check the code.")
    # A code no game has: the field is red until it is changed.
    expect(page.locator("#code")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#code")).to_have_css("border-top-color", "rgb(255, 93, 98)")
    screens.shot(page, "phone-code-wrong")
    page.locator("#code").press("End")
    page.locator("#code").press("Backspace")
    expect(page.locator("#code")).to_have_value("ZZZ-ZZ")
    expect(page.locator("#code")).not_to_have_attribute("aria-invalid", "true")


def test_join_by_code_host_taken_and_name_taken(devices, box, screens):
    host = devices.open(PHONE)
    create_as_host(host, box, screens)
    code = host.locator("#join-code").inner_text()

    page = devices.open(PHONE)
    page.goto(box.url + "/")
    page.click("#join")
    page.fill("#code", code.lower())
    page.click("#code-submit")
    expect(page.locator("#role-host")).to_be_disabled()
    assert page.evaluate("document.activeElement === document.querySelector('#main h1')")
    expect(page.locator("#host-taken")).to_have_text("Host role taken.")
    screens.shot(page, "phone-role")
    page.click("#role-player")
    page.fill("#name", "Anna")
    page.click("#name-submit")
    expect(page.locator("#leave")).to_be_visible()

    other = devices.open(PHONE)
    other.goto(host.locator("#join-url").inner_text())
    other.fill("#name", " anna ")
    other.click("#name-submit")
    expect(other.locator("#name-error")).to_have_text("That name is taken – pick another.")
    screens.shot(other, "phone-name-taken")


def test_tv_creates_and_a_phone_becomes_host(devices, box, screens):
    tv = devices.open(TV)
    tv.goto(box.url + "/")
    tv.click("#create")
    tv.click("#create-tv")
    expect(tv).to_have_url(box.url + "/tv")
    code = tv.locator("#join-code").inner_text()
    expect(tv.get_by_text(f"No host yet – join as host with the code {code}.")).to_be_visible()

    phone = devices.open(PHONE)
    phone.goto(box.url + "/")
    phone.click("#join")
    phone.fill("#code", code)
    phone.click("#code-submit")
    phone.click("#role-host")
    expect(phone).to_have_url(box.url + "/host")
    expect(phone.locator("#tv-status")).to_have_text("The TV is connected.")
    expect(tv.get_by_text("The host starts when everyone is in.")).to_be_visible()


def test_leaving_and_session_ended(devices, box, screens):
    host = devices.open(PHONE)
    create_as_host(host, box, screens)
    join_url = host.locator("#join-url").inner_text()
    leaver = devices.open(PHONE)
    join_as_player(leaver, join_url, "Leaver")
    stayer = devices.open(PHONE)
    join_as_player(stayer, join_url, "Stayer")

    leaver.click("#leave")
    expect(leaver).to_have_url(box.url + "/")
    expect(host.locator("#panel .people li")).to_have_count(1)

    host.click("#end-session")
    expect(stayer.locator("#ended h1")).to_have_text("Session ended")
    expect(stayer.locator("#ended")).to_contain_text("The host ended the game.")
    screens.shot(stayer, "phone-session-ended")
    # A player goes straight to the code entry of the next game.
    stayer.click("#join-another")
    expect(stayer.locator("#code")).to_be_focused()


def test_connection_lost_overlay_and_resume_after_box_restart(devices, box, screens):
    host = devices.open(PHONE)
    create_as_host(host, box, screens)
    player = devices.open(PHONE)
    join_as_player(player, host.locator("#join-url").inner_text(), "Sleepy")
    quitter = devices.open(PHONE)
    join_as_player(quitter, host.locator("#join-url").inner_text(), "Quitter")
    host.click("#start")
    host.click("#next-clue")
    expect(player.locator("#clue")).not_to_be_empty()

    box.stop()
    expect(player.get_by_text("Connection lost — reconnecting…")).to_be_visible()
    expect(player.locator("#conn-retry")).to_be_visible()
    screens.shot(player, "phone-connection-lost")
    # One player gives up: the phone lets go of its seat, and says so without the box.
    quitter.click("#conn-leave")
    expect(quitter.locator("#left h1")).to_have_text("You left the game")
    expect(quitter.locator("#connection")).to_have_count(0)
    box.start()
    # The other does not wait for the next attempt (unless that attempt came first, as the box
    # answered: then the overlay is already going).
    try:
        player.click("#conn-retry", timeout=3_000)
    except PlaywrightTimeoutError:
        expect(player.locator("#conn-retry")).to_have_count(0)
    expect(player.get_by_text("Connection lost — reconnecting…")).to_be_hidden(timeout=5_000)
    expect(player.locator("#brake")).to_be_enabled()
    player.click("#brake")
    expect(player.locator("#answer")).to_be_visible()

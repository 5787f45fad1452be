"""A full house: the TV shows every player on every screen, however many joined, and long names
without spaces never make a phone's page wider than the phone. Most players join over REST; the two
who lock answers do it over their own sockets, opened in a page on the box."""

import json
import urllib.request
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from conftest import PHONE, SMALL_PHONE, TV
from test_game import SMALLEST_TEXT_JS, TV_SMALLEST_TEXT, assert_readable_from_the_sofa, create_as_host, join_as_player

LONG_NAMES = ["SuperMegaGamerPro123", "W" * 20]

# Where each of the given names is on the TV's screen: missing, outside the screen, or cut off by
# its own box or a box around it.
NAMES_SHOWN_JS = """(names) => {
  const problems = [];
  const shown = [...document.querySelectorAll("#main .name")];
  for (const name of names) {
    const el = shown.find((e) => e.textContent === name);
    if (!el) { problems.push(`${name}: not on the screen`); continue; }
    const r = el.getBoundingClientRect();
    if (!r.width || r.top < 0 || r.left < 0 || r.bottom > innerHeight + 0.5 || r.right > innerWidth + 0.5) {
      problems.push(`${name}: outside the screen (${Math.round(r.top)}–${Math.round(r.bottom)})`);
    }
    if (getComputedStyle(el).display !== "inline" && (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)) {
      problems.push(`${name}: cut off`);
    }
    for (let box = el.parentElement; box && box !== document.body; box = box.parentElement) {
      if (getComputedStyle(box).overflow === "visible") continue;
      const b = box.getBoundingClientRect();
      if (r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5 || r.left < b.left - 0.5 || r.right > b.right + 0.5) {
        problems.push(`${name}: cut off by ${box.tagName.toLowerCase()}.${box.className}`);
      }
    }
  }
  return problems;
}"""

# A player's own socket, kept open in the page, that pulls the brake at a clue and locks an answer.
LOCK_ANSWER_JS = """async ({ token, levelPoints, answerText }) => {
  const socket = new WebSocket(`ws://${location.host}/ws?token=${encodeURIComponent(token)}`);
  (window.players ??= []).push(socket);
  await new Promise((resolve) => socket.addEventListener("open", resolve));
  const accepted = new Promise((resolve) =>
    socket.addEventListener("message", (e) => JSON.parse(e.data).type === "BRAKE_ACCEPTED" && resolve()),
  );
  socket.send(JSON.stringify({ type: "BRAKE_PULL", payload: { atClientMs: Date.now(), levelPoints } }));
  await accepted;
  socket.send(JSON.stringify({ type: "BRAKE_ANSWER_SUBMIT", payload: { answerText } }));
}"""


def join_over_rest(box, join_url, name):
    url = urlparse(join_url)
    session_id = url.path.rsplit("/", 1)[1]
    body = json.dumps({"name": name, "role": "PLAYER", "joinToken": parse_qs(url.query)["t"][0]}).encode()
    request = urllib.request.Request(
        f"{box.url}/v1/sessions/{session_id}/join", data=body, method="POST", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.load(response)["playerAuthToken"]


def assert_names_shown(tv, names, screens, shot):
    screens.shot(tv, shot)
    problems = tv.evaluate(NAMES_SHOWN_JS, names)
    assert problems == [], f"{shot}: {problems}"


def assert_no_wider_than_the_screen(*pages):
    for page in pages:
        width = page.evaluate("document.documentElement.scrollWidth - innerWidth")
        assert width <= 0, f"{page.url} is {width} px wider than its screen"


@pytest.mark.parametrize(
    "count, size, smallest",
    [
        (8, TV, TV_SMALLEST_TEXT),
        (24, TV, TV_SMALLEST_TEXT),
        # Only a crowd goes under the sofa's 2.2 % (docs/web.md): to 1.5 % of the screen's height.
        (50, {"width": 1280, "height": 720}, 0.015 * 720),
    ],
    ids=["8-players", "24-players", "50-players-720p"],
)
def test_tv_shows_every_player(devices, box, screens, count, size, smallest):
    host = devices.open(PHONE)
    create_as_host(host, box, screens, destinations="1")
    join_url = host.locator("#join-url").inner_text()
    tv = devices.open(size)
    tv.goto(host.locator("#tv-link").inner_text())
    expect(tv.locator("#join-code")).to_be_visible()

    # Two players on phones (the narrowest) with names that cannot wrap at a space; the rest over REST.
    phones = [devices.open(SMALL_PHONE), devices.open(SMALL_PHONE, locale="sv-SE")]
    for phone, name in zip(phones, LONG_NAMES):
        join_as_player(phone, join_url, name)
    names = LONG_NAMES + [f"Player {n}" if n % 3 else f"Längre Namn {n:02d}" for n in range(3, count + 1)]
    tokens = {name: join_over_rest(box, join_url, name) for name in names[2:]}
    expect(tv.locator(".people li")).to_have_count(count)

    def check(shot, shown=names):
        assert_names_shown(tv, shown, screens, f"tv-{shot}")
        smallest_text = tv.evaluate(SMALLEST_TEXT_JS)["size"]
        assert smallest_text >= smallest - 0.01, f"{shot}: text of {smallest_text} px"
        if smallest == TV_SMALLEST_TEXT:
            assert_readable_from_the_sofa(tv)
        assert_no_wider_than_the_screen(host, *phones)

    check("lobby")
    screens.shot(phones[0], "phone-lobby-long-names")
    screens.shot(host, "host-lobby-long-names")

    # Two players lock answers at 10 and 8 points.
    host.click("#start")
    host.click("#next-clue")
    expect(tv.locator("#level")).to_have_text("10 points")
    players = devices.open(PHONE)
    players.goto(box.url + "/")
    lockers = names[2:4]
    for name, points in zip(lockers, (10, 8)):
        players.evaluate(LOCK_ANSWER_JS, {"token": tokens[name], "levelPoints": points, "answerText": "Göteborg"})
        expect(tv.locator("#level")).to_have_text(f"{points - 2} points")
    check("clue-locked", lockers)
    screens.shot(host, "host-clue-locked")

    for level in ("4 points", "2 points"):
        host.click("#next-clue")
        expect(tv.locator("#level")).to_have_text(level)
    host.click("#next-clue")
    expect(tv.locator("#destination")).not_to_be_empty()
    check("reveal", lockers)
    screens.shot(phones[0], "phone-reveal-long-names")

    host.click("#next")
    while True:
        expect(host.locator("#next")).to_have_text("Close the question")
        expect(tv.locator("#question")).not_to_be_empty()
        host.click("#next")
        expect(tv.locator(".results li")).to_have_count(count)
        check("followup-results")
        screens.shot(host, "host-followup-results")
        last = host.locator("#next").inner_text() == "Show the scoreboard"
        host.click("#next")
        if last:
            break
    expect(tv.locator(".standings li")).to_have_count(count)
    check("scoreboard")
    screens.shot(phones[1], "phone-scoreboard-long-names")

    host.click("#next")
    expect(tv.locator("#winner")).to_be_visible(timeout=6000)
    expect(tv.locator(".podium .step:not([hidden])")).to_have_count(3)
    screens.shot(tv, "tv-finale-winner")
    expect(tv.locator("#thanks")).to_be_visible(timeout=8000)
    check("finale-standings")
    assert_no_wider_than_the_screen(host, *phones)

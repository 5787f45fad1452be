"""The TV as the show (CONTRACT 4.5 and the moments): with "Sound on this TV" the page plays the box's
beds, effects and voice with the Web Audio API at their times, ducks the music under the voice and
follows the host's level; the box's own output can be muted for the game; a brake flashes and puts
its owner in a spotlight; the reveal says the pack's banter. The page's AudioContext is instrumented:
every sound it starts is recorded with the box time it is scheduled for."""

import json
import shutil
import subprocess
import time
import urllib.request

import pytest
from playwright.sync_api import expect

from conftest import PHONE, TV, Box, Devices, ROOT, tripto_binary
from test_game import assert_readable_from_the_sofa, create_as_host, destination_on_host, join_as_player

# Records which file each AudioBufferSourceNode plays and when it is heard (on the box's clock, which
# on one machine is the page's own), every AudioParam target (levels and ducking), and each AudioContext made.
INSTRUMENT = """
window.sound = { contexts: 0, started: [], targets: [] };
const urls = new WeakMap();
const buffers = new WeakMap();
const fetchOriginal = window.fetch;
window.fetch = async (...args) => {
  const response = await fetchOriginal(...args);
  const url = String(args[0]);
  const read = response.arrayBuffer.bind(response);
  response.arrayBuffer = async () => {
    const data = await read();
    urls.set(data, url);
    return data;
  };
  return response;
};
const decode = BaseAudioContext.prototype.decodeAudioData;
BaseAudioContext.prototype.decodeAudioData = function (data, ...rest) {
  const url = urls.get(data);
  return decode.call(this, data, ...rest).then((buffer) => {
    buffers.set(buffer, url);
    return buffer;
  });
};
const start = AudioBufferSourceNode.prototype.start;
AudioBufferSourceNode.prototype.start = function (when = 0, ...rest) {
  // When it is heard: after the device's own delay too.
  const latency = this.context.outputLatency || this.context.baseLatency || 0;
  const ahead = (Math.max(0, when - this.context.currentTime) + latency) * 1000;
  window.sound.started.push({
    url: buffers.get(this.buffer), loop: this.loop, atMs: Date.now() + ahead,
    calledAtMs: Date.now(), durationMs: this.buffer.duration * 1000,
  });
  return start.call(this, when, ...rest);
};
const target = AudioParam.prototype.setTargetAtTime;
AudioParam.prototype.setTargetAtTime = function (value, ...rest) {
  window.sound.targets.push(value);
  return target.call(this, value, ...rest);
};
const Original = window.AudioContext;
window.AudioContext = class extends Original {
  constructor(...args) {
    super(...args);
    window.sound.contexts++;
  }
};
"""

SOUND_EVENTS = ("MUSIC_SET", "MUSIC_STOP", "MUSIC_GAIN_SET", "SFX_PLAY", "AUDIO_PLAY", "AUDIO_STOP", "UI_EFFECT_TRIGGER")


def voiced_pack(tmp_path):
    """A shipped pack with its voice rendered (espeak-ng), in a packs folder of its own."""
    packs = tmp_path / "packs"
    shutil.copytree(ROOT / "packs" / "en-capitals", packs / "en-capitals")
    subprocess.run([tripto_binary(), "pack", "render-voice", str(packs / "en-capitals")], check=True, capture_output=True)
    return packs


def started(tv, fragment, count=1, timeout_s=10):
    """The sounds the TV page has started whose file's address contains `fragment` (waits for `count`)."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = [s for s in tv.evaluate("() => window.sound.started") if fragment in (s["url"] or "")]
        if len(found) >= count:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"{fragment} not started {count}×: {tv.evaluate('() => window.sound.started')}")
        time.sleep(0.1)


@pytest.mark.timed
def test_the_tv_page_plays_the_room_mix_on_time(browser, tmp_path, screens):
    packs = voiced_pack(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    # The ALSA null device: the box has an output of its own, which the TV offers to mute.
    box = Box(data, extra=["--audio-device", "null"], packs=packs).start()
    devices = Devices(browser, box)
    try:
        host = devices.open(PHONE)
        create_as_host(host, box, screens)
        tv = devices.open(TV)
        tv.add_init_script(INSTRUMENT)
        heard = []

        def frame(text):
            message = json.loads(text)
            if message["type"] in SOUND_EVENTS:
                heard.append({**message["payload"], "type": message["type"], "arrivedMs": time.time() * 1000})

        tv.on("websocket", lambda socket: socket.on("framereceived", frame))
        tv.goto(host.locator("#tv-link").inner_text())
        anna = devices.open(PHONE)
        join_as_player(anna, host.locator("#join-url").inner_text(), "Anna")
        expect(tv.locator(".people li")).to_have_count(1)

        # The sound is off: the room's events arrive, and nothing is made, fetched or played.
        host.click("#start")
        expect(tv.locator("h1")).to_have_text("The train is about to leave…")
        host.click("#next-clue")
        expect(tv.locator("#level")).to_have_text("10 points")
        tv.wait_for_timeout(800)
        assert any(e["type"] == "MUSIC_SET" for e in heard) and any(e["type"] == "AUDIO_PLAY" for e in heard)
        assert tv.evaluate("() => window.sound") == {"contexts": 0, "started": [], "targets": []}
        assert not [u for u in devices.requests if "/v1/sounds" in u or "/assets/" in u]
        expect(host.locator("#sound-where")).to_have_text("The sound plays on the box's speaker.")

        # On: the page offers to mute the box, and picks up the bed under way.
        tv.click("#tv-sound")
        expect(tv.locator("#mute-box-yes")).to_be_visible()
        screens.shot(tv, "tv-mute-box-offer")
        tv.click("#mute-box-yes")
        expect(tv.locator("#box-muted")).to_have_text("Box muted")
        expect(host.locator("#sound-where")).to_have_text("The sound plays on the TV (the box is quiet meanwhile).")
        expect(host.locator("#box-sound")).to_have_text("Sound on the box")
        travel = started(tv, "/v1/sounds/travel")[0]
        assert travel["loop"] and travel["durationMs"] > 20_000

        # The host's level reaches the page's music gain (Low is −18 dB).
        host.click("#music-low")
        deadline = time.monotonic() + 5
        while not any(abs(v - 10 ** (-18 / 20)) < 1e-3 for v in tv.evaluate("() => window.sound.targets")):
            assert time.monotonic() < deadline, tv.evaluate("() => window.sound.targets")
            time.sleep(0.1)

        # A brake: its effect at once, a flash and Anna in the spotlight.
        destination = destination_on_host(host)
        anna.click("#brake")
        expect(tv.locator(".fx-spotlight .fx-name")).to_have_text("Anna")
        screens.shot(tv, "tv-brake-spotlight")
        brake = started(tv, "/v1/sounds/brake")[0]
        sent = next(e for e in heard if e["type"] == "SFX_PLAY" and e["sfxId"] == "brake")
        assert 0 <= brake["atMs"] - sent["startAtServerMs"] < 250, (brake, sent)
        effects = [e["effectId"] for e in heard if e["type"] == "UI_EFFECT_TRIGGER"]
        assert "flash" in effects and "spotlight" in effects
        anna.fill("#answer", destination)
        anna.click("#answer-submit")
        expect(tv.locator("#level")).to_have_text("8 points")
        # Each clue is read by the voice, and the music makes room for it (−12 dB).
        started(tv, "/assets/r1-clue-8")
        assert any(abs(v - 10 ** (-12 / 20)) < 1e-3 for v in tv.evaluate("() => window.sound.targets"))

        # The reveal: its sting, its line, then the pack's banter after the line, shown on the screen.
        for _ in range(4):
            host.click("#next-clue")
        expect(tv.locator("#destination")).to_have_text(destination)
        expect(tv.locator("#banter")).not_to_be_empty()
        started(tv, "/v1/sounds/reveal_sting")
        started(tv, "/assets/r1-reveal")
        banter = started(tv, "/assets/r1-banter", timeout_s=20)[0]
        # The banter is sent ahead, to start after the reveal's line: it starts on the box's time.
        sent = next(e for e in heard if e["type"] == "AUDIO_PLAY" and e["kind"] == "banter")
        line = next(e for e in heard if e["type"] == "AUDIO_PLAY" and e["kind"] == "reveal")
        assert sent["startAtServerMs"] == line["startAtServerMs"] + line["durationMs"] + 400
        assert abs(banter["atMs"] - sent["startAtServerMs"]) < 60, (banter, sent)
        screens.shot(tv, "tv-reveal-banter")

        # The finale: its cues are sent ahead and start on the box's time, within a few milliseconds.
        host.click("#end-game")
        expect(tv.locator("#winner")).to_have_text("Anna", timeout=8000)
        for sfx in ("sting_build", "drumroll", "winner_fanfare"):
            sent = next(e for e in heard if e["type"] == "SFX_PLAY" and e["sfxId"] == sfx)
            played = started(tv, f"/v1/sounds/{sfx}")[-1]
            if sent["startAtServerMs"] > sent["arrivedMs"] + 100:
                assert abs(played["atMs"] - sent["startAtServerMs"]) < 40, (sfx, played, sent)
        finale = started(tv, "/v1/sounds/finale", timeout_s=10)[0]
        bed = next(e for e in heard if e["type"] == "MUSIC_SET" and e["trackId"] == "finale")
        assert abs(finale["atMs"] - bed["startAtServerMs"]) < 40, (finale, bed)

        # Off: the page stops, and the box's own output plays again.
        tv.click("#tv-sound")
        expect(host.locator("#sound-where")).to_have_text("The sound plays on the box's speaker.")
        expect(tv.locator("#box-muted")).to_have_count(0)
        assert tv.evaluate("() => window.sound.contexts") == 1
    finally:
        devices.close()
        box.stop()
    assert devices.problems == [], "\n".join(devices.problems)


def create_hosted(box, host, **settings):
    """A session made over the API with `settings`, its host seat put where the host page finds it."""
    request = urllib.request.Request(
        box.url + "/v1/sessions", data=json.dumps({"role": "HOST", "settings": settings}).encode(),
        headers={"Content-Type": "application/json"}, method="POST",
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        made = json.load(response)
    host.goto(box.url + "/")
    seat = {"sessionId": made["sessionId"], "token": made["hostAuthToken"], "tvJoinToken": made["tvJoinToken"], "joinCode": made["joinCode"]}
    host.evaluate("(seat) => localStorage.setItem('tripto.host', JSON.stringify(seat))", seat)
    host.goto(box.url + "/host")
    expect(host.locator("#tv-link")).not_to_be_empty()
    return made


def map_settled(tv, view):
    """Waits until the TV's map shows `view` (route, arrive) with its countries drawn and, for a
    flight, landed."""
    deadline = time.monotonic() + 10
    script = """(view) => { const m = document.querySelector('#map svg.map');
      return !!m && m.dataset.view === view && m.querySelectorAll('.map-land path').length > 100
        && (view !== 'arrive' || m.dataset.arrived === 'true'); }"""
    while not tv.evaluate(script, view):
        assert time.monotonic() < deadline, f"the map never showed {view}"
        time.sleep(0.1)


SMALL_TV = {"width": 1280, "height": 720}


def test_every_tv_screen_with_the_map(devices, box, screens):
    """Every TV screen of a two-destination game, shot at 1920×1080 and at 1280×720 and looked at;
    the map shows the route at each intro, flies to each destination at its reveal, and traces the
    journey at the finale; no clue screen has a map or a pin. The TV asks for reduced motion, so each
    view is set at once (the other tests see the maps fly)."""
    host = devices.open(PHONE)
    create_hosted(box, host, introMs=10_000, destinationsCount=2, followupsPerDestination=1)
    tv = devices.open(TV)
    tv.emulate_media(reduced_motion="reduce")
    tv.goto(host.locator("#tv-link").inner_text())
    anna = devices.open(PHONE)
    bo = devices.open(PHONE)
    join_as_player(anna, host.locator("#join-url").inner_text(), "Anna")
    join_as_player(bo, host.locator("#join-url").inner_text(), "Bo")
    expect(tv.locator(".people li")).to_have_count(2)

    def both(name):
        """The screen at both sizes, readable from the sofa at each."""
        for size, label in ((TV, "1080p"), (SMALL_TV, "720p")):
            tv.set_viewport_size(size)
            screens.shot(tv, f"{name}-{label}")
            assert_readable_from_the_sofa(tv)
        tv.set_viewport_size(TV)

    both("tv-lobby")
    host.click("#start")
    map_settled(tv, "route")
    assert tv.locator("#map .map-stop").count() == 0, "no stop before the first destination"
    both("tv-intro-1-world-map")
    host.click("#next-clue")
    expect(tv.locator("#level")).to_have_text("10 points")
    expect(tv.locator(".ladder .now")).to_have_text("10")
    assert tv.locator("#map, .map-pin").count() == 0
    both("tv-clue-10")
    destination = destination_on_host(host)
    anna.click("#brake")
    expect(tv.locator(".fx-spotlight")).to_be_visible()
    screens.shot(tv, "tv-brake-spotlight-1080p")
    anna.fill("#answer", destination)
    anna.click("#answer-submit")
    expect(tv.locator(".ladder .now")).to_have_text("8")
    expect(tv.locator(".ladder .past")).to_have_text(["10"])
    assert destination not in tv.locator("body").inner_text()
    expect(tv.locator(".fx-spotlight")).to_have_count(0)
    both("tv-clue-8-locked")
    for _ in range(4):
        host.click("#next-clue")
    expect(tv.locator("#destination")).to_have_text(destination)
    map_settled(tv, "arrive")
    expect(tv.locator("#map .map-label.big")).to_have_text(destination)
    both("tv-reveal-map")
    expect(anna.locator("#map .map-label.big")).to_have_text(destination, timeout=8000)
    screens.shot(anna, "phone-reveal-map")
    first = destination

    host.click("#next")
    expect(tv.locator("#question")).not_to_be_empty()
    both("tv-followup")
    host.click("#next")
    expect(tv.locator("#correct")).not_to_be_empty()
    both("tv-followup-results")
    host.click("#next")
    expect(tv.locator(".standings li")).to_have_count(2)
    both("tv-scoreboard")

    host.click("#next")
    map_settled(tv, "route")
    expect(tv.locator("#map .map-label")).to_have_text([first])
    both("tv-intro-2-route")
    host.click("#next-clue")
    expect(tv.locator("#level")).to_have_text("10 points")
    second = destination_on_host(host)
    for _ in range(5):
        host.click("#next-clue")
    expect(tv.locator("#destination")).to_have_text(second)
    map_settled(tv, "arrive")
    both("tv-reveal-2-map")

    host.click("#end-game")
    expect(tv.locator(".finale .lead")).to_have_text("And the winner is…")
    expect(tv.locator(".finale #map .map-stop")).to_have_count(2)
    expect(tv.locator(".drum")).to_be_visible()
    both("tv-finale-drumroll-over-the-journey")
    expect(tv.locator("#winner")).to_have_text("Anna", timeout=6000)
    both("tv-finale-winner")
    expect(tv.locator("#thanks")).to_have_text("Thanks for tonight!", timeout=8000)
    map_settled(tv, "route")
    expect(tv.locator("#map .map-label")).to_have_text([first, second])
    both("tv-finale-journey")


# Chrome's autoplay policy as a page meets it: an AudioContext made without a tap on the page stays
# "suspended", and resume() waits until it is called in a tap's handler. Headless Chromium does not
# apply the policy (not even with --autoplay-policy=user-gesture-required), so the test applies it at
# the API the page uses: state, resume() and the statechange event.
AUTOPLAY_POLICY = """
const Real = window.AudioContext;
window.AudioContext = class extends Real {
  constructor(...args) {
    super(...args);
    this.heldBack = !navigator.userActivation.isActive;
  }
  get state() {
    return this.heldBack ? "suspended" : super.state;
  }
  resume() {
    if (this.heldBack && navigator.userActivation.isActive) {
      this.heldBack = false;
      this.dispatchEvent(new Event("statechange"));
    }
    return this.heldBack ? new Promise(() => {}) : super.resume();
  }
};
"""


def test_a_tv_page_held_back_by_the_browser_waits_for_a_tap(devices, box, screens):
    """A TV page opened with its sound on, where the browser lets audio out only after a tap: until
    the tap it schedules nothing and does not tell the box it plays (a box with its own output would
    keep the room's sound); the tap lets the bed under way in, and only that."""
    host = devices.open(PHONE)
    create_as_host(host, box, screens, destinations="1")
    tv = devices.open(TV)
    tv.add_init_script(INSTRUMENT + AUTOPLAY_POLICY)
    tv.goto(box.url + "/")
    tv.evaluate("() => localStorage.setItem('tripto.tvSound', 'on')")
    tv.goto(host.locator("#tv-link").inner_text())
    anna = devices.open(PHONE)
    join_as_player(anna, host.locator("#join-url").inner_text(), "Anna")
    host.click("#start")
    host.click("#next-clue")
    expect(tv.locator("#level")).to_have_text("10 points")
    expect(tv.locator("#toast")).to_have_text("The browser blocked the sound – press the sound button.")
    anna.click("#brake")
    expect(tv.locator("#brake-banner")).to_be_visible()
    tv.wait_for_timeout(500)
    assert tv.evaluate("() => window.sound.started") == []
    # (This box runs with --no-audio: its host is told to switch the TV's sound on.)
    expect(host.locator("#sound-where")).to_have_text("The box has no sound output of its own: switch the sound on at the TV.")
    screens.shot(tv, "tv-sound-held-back")

    # The tap: the context runs, the bed under way comes in, and the box hears that the TV plays.
    tv.click("#tv-sound")
    assert started(tv, "/v1/sounds/travel")[0]["loop"]
    expect(host.locator("#sound-where")).to_have_text("The sound plays on the TV (the box has no sound output of its own).")
    expect(tv.locator("#tv-sound")).to_have_text("Sound on this TV: on")
    tv.wait_for_timeout(500)
    heard = [s["url"] for s in tv.evaluate("() => window.sound.started")]
    assert heard == [u for u in heard if "/v1/sounds/travel" in u], f"what was held back stays unheard: {heard}"


# The start of a test's script: a map alone on the page, filling it, and a wait of at most 10 s.
MAP_ON_PAGE = """
  const until = async (ready, failure) => {
    for (let waited = 0; !ready(); waited += 50) {
      if (waited > 10000) throw new Error(failure);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const { journeyMap } = await import("/static/js/map.js");
  const map = journeyMap({ label: "map" });
  document.body.replaceChildren(map.el);
  map.el.style.setProperty("width", "100vw");
  map.el.style.setProperty("height", "100vh");"""


# A map on the page with a route from Tokyo to Lima, then Lima to Sydney: the railway's legs and the
# view, in the map's units (degrees of longitude from the map's left edge).
PACIFIC_ROUTE_JS = """async () => {""" + MAP_ON_PAGE + """
  map.el.id = "pacific";
  map.route([
    { lat: 35.68, lon: 139.69, name: "Tokyo" },
    { lat: -12.05, lon: -77.04, name: "Lima" },
    { lat: -33.87, lon: 151.21, name: "Sydney" },
  ]);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const xs = [...map.el.querySelectorAll(".map-stop")].map((dot) => Number(dot.getAttribute("cx")));
  const [left, , width] = map.el.getAttribute("viewBox").split(" ").map(Number);
  return { xs, left, width, copies: map.el.querySelectorAll("use").length };
}"""


def test_a_route_over_the_pacific_goes_the_short_way(devices, box, screens):
    """Each leg of the railway is the shorter way round the globe, and the view frames all of it: the
    world is drawn again beside the map, so the stops past its edge stand on land."""
    tv = devices.open(TV)
    tv.goto(box.url + "/")
    route = tv.evaluate(PACIFIC_ROUTE_JS)
    tokyo, lima, sydney = route["xs"]
    # Tokyo is at 319.7 on the map, Lima at 103.0: the short way is 143° east, not 217° west.
    assert abs(lima - tokyo) < 180 and abs(sydney - lima) < 180, route
    assert lima > tokyo and sydney < lima, route
    assert route["left"] <= min(route["xs"]) and max(route["xs"]) <= route["left"] + route["width"], route
    assert route["copies"] == 2
    expect(tv.locator("#pacific .map-land path").first).to_be_attached()
    screens.shot(tv, "tv-pacific-route")


# Every shipped destination against the countries the page draws: on land, or within the given
# distance of it (map units, about a tenth of a degree: a few pixels of the close-up, under the pin).
ON_LAND_JS = """async ({ places, near }) => {""" + MAP_ON_PAGE + """
  await until(() => map.el.querySelector(".map-land path"), "the map's countries did not load");
  const land = [...map.el.querySelectorAll(".map-land path")];
  for (const path of land) {
    path.style.setProperty("vector-effect", "none");
    path.style.setProperty("stroke-width", `${2 * near}px`);
  }
  const off = [];
  for (const place of places) {
    map.route([place]);
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    const dot = map.el.querySelector(".map-stop");
    const x = ((Number(dot.getAttribute("cx")) % 360) + 360) % 360;
    const at = new DOMPoint(x, Number(dot.getAttribute("cy")));
    if (!land.some((path) => path.isPointInFill(at) || path.isPointInStroke(at))) off.push(place.name);
  }
  return { off, countries: land.length };
}"""


# A destination's close-up, as the reveal lands on it.
CLOSE_UP_JS = """async ({ name, lat, lon }) => {""" + MAP_ON_PAGE + """
  map.arrive({ name, lat, lon });
  await until(
    () => map.el.dataset.arrived === "true" && map.el.querySelector(".map-land path"),
    `the close-up of ${name} did not land`,
  );
}"""


def test_every_shipped_destination_stands_on_land(devices, box, screens):
    """The map is detailed enough for the packs: islands (Gotland, Santorini, the Galápagos) are drawn,
    and coastal cities (Kalmar, Odense, Skagen) are on their coast, not in the sea beside it."""
    places = []
    for pack in sorted((ROOT / "packs").glob("*/pack.json")):
        for destination in json.loads(pack.read_text(encoding="utf-8"))["destinations"]:
            name = f"{pack.parent.name}/{destination['id']}"
            places.append({"lat": destination["lat"], "lon": destination["lon"], "name": name})
    assert len(places) >= 144
    tv = devices.open(TV)
    tv.goto(box.url + "/")
    found = tv.evaluate(ON_LAND_JS, {"places": places, "near": 0.1})
    assert found["countries"] > 200, found
    assert found["off"] == [], f"pins in the sea: {found['off']}"
    # The close-ups a player sees at the reveal of an island.
    for name, lat, lon in (("Visby", 57.64, 18.29), ("Galapagos", -0.74, -90.31), ("Valletta", 35.9, 14.51)):
        tv.evaluate(CLOSE_UP_JS, {"name": name, "lat": lat, "lon": lon})
        screens.shot(tv, f"tv-close-up-{name.lower()}")

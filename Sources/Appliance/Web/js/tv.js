// The TV: read from the sofa at 1920×1080. It shows only what the TV's projection holds (never a
// secret), retries its connection forever, and when switched on plays the room's sound itself: the
// box's music, effects and voice (CONTRACT 4.5, sound.js).
import { api, seats } from "./box.js";
import { t, errorMessage } from "./i18n.js";
import { h, fill, toast, overlay, peopleList, standingsList, ranked, codeDots, cleanCode, confetti, messageScreen, tonightList, reducedMotion } from "./ui.js";
import { RoomAudio } from "./sound.js";
import { journeyMap } from "./map.js";
import { GamePage, introScreen, revealedDestination, nameOf, countdown, brakeTimer, followedTimer, secondsLeftOf, finaleStep, winnerText, resultsList, nextClueLine } from "./game.js";

const main = document.getElementById("main");
const params = new URLSearchParams(location.search);

/**
 * The box's own screen (`tripto-screen` opens `/tv?kiosk`): in kiosk mode the TV seat of the session
 * the box runs by itself; on a box without `--kiosk`, a TV like any other (pair, or create a game).
 */
let kiosk = params.has("kiosk");

let seat = seats.get("tv");
let soundOn = localStorage.getItem("tripto.tvSound") === "on";
const audio = new RoomAudio(
  { now: () => page.clock.now() },
  {
    // The browser let the sound out (at once, or at the tap it waited for): the bed under way
    // starts, and the box hears that this page plays.
    onRunning: () => {
      followMusic();
      page.render();
    },
  },
);
// What this page last told the box of its sound (SOUND_OUTPUT_SET), on this connection.
let reportedSound = null;
// Cues sent ahead of their time (the finale's confetti): AUDIO_STOP calls them off.
const pendingCues = new Set();
/** The room's sound events, played by this page while its sound is on. */
const SOUND_EVENTS = ["MUSIC_SET", "MUSIC_STOP", "MUSIC_GAIN_SET", "SFX_PLAY"];

const page = new GamePage({
  role: "tv",
  redrawMs: 250,
  // A kiosk screen still looking for its seat goes on doing so, and redraws its message then.
  redraw: () => {
    if (!kiosk) start();
  },
  parts: [{ el: document.getElementById("status"), shows: (snap) => [snap.joinCode, snap.round, snap.paused, soundOn, snap.sound?.boxMuted], draw: statusBar }],
  screens: {
    lobby: lobbyScreen,
    intro: introMapScreen,
    clue: clueScreen,
    reveal: revealScreen,
    followup: followupScreen,
    score: scoreScreen,
    final: finalScreen,
  },
  // The finale's screens follow its timeline; the lead and the drumroll are one screen (its map
  // goes on drawing the journey under them).
  screenFor: (step) => (step.screen === "final" ? { ...step, key: `final:${finaleStep(page.snap, page.clock).replace("drumroll", "lead")}` } : step),
  shown: () => {
    fitWhenChanged();
    reportSound();
  },
  events: {
    WELCOME: () => {
      reportedSound = null;
      if (!soundOn) return;
      // Back after a drop: the bed may have changed meanwhile.
      if (audio.on) followMusic();
      else startSound();
    },
    AUDIO_PLAY: (p) => {
      if (p.kind === "banter") banterAt = p.startAtServerMs;
      audio.handle("AUDIO_PLAY", p);
    },
    UI_EFFECT_TRIGGER: (p) => later(p.startAtServerMs, () => uiEffect(p)),
    ...Object.fromEntries(SOUND_EVENTS.map((type) => [type, (p) => audio.handle(type, p)])),
    AUDIO_STOP: (p) => {
      for (const cue of pendingCues) clearTimeout(cue);
      pendingCues.clear();
      audio.handle("AUDIO_STOP", p);
    },
  },
  ended: (end, reason) => {
    // Nothing of this seat's game goes on sounding (a TV replaced by another, a session gone).
    audio.stop();
    overlay("mute-box", null);
    // The kiosk opens a new session by itself: follow it.
    if (kiosk) setTimeout(() => kioskSeat().then((found) => (found ? connect() : start())), 1000);
    else page.showEnded(end, reason);
  },
});

/** The kiosk's TV seat; false on a box that is no kiosk (404), whose screen is then a plain TV. */
async function kioskSeat() {
  for (;;) {
    try {
      const found = await api("GET", "/v1/kiosk");
      seat = { sessionId: found.sessionId, token: found.tvAuthToken, joinCode: found.joinCode };
      seats.set("tv", seat);
      return true;
    } catch (e) {
      if (e.status === 404) {
        kiosk = false;
        return false;
      }
      // Said on the screen, and tried again: a blank kiosk screen tells the venue nothing.
      const why = e.status === 403 ? "tv.kioskElsewhere" : "tv.kioskWaiting";
      page.show(`kiosk-${why}`, () =>
        messageScreen({ id: "kiosk-wait", title: "Tripto box", text: t(why, { port: location.port || "80" }) }),
      );
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
}

async function start() {
  if (kiosk && (await kioskSeat())) {
    connect();
    return;
  }
  const sessionId = params.get("s");
  const tvJoinToken = params.get("k");
  if (sessionId && tvJoinToken && seat?.sessionId !== sessionId) {
    try {
      await pair(sessionId, { tvJoinToken });
    } catch (e) {
      page.show("pair", () => pairScreen(errorMessage(e)));
      return;
    }
  }
  if (seat) connect();
  else page.show("pair", () => pairScreen());
}

async function pair(sessionId, body) {
  const joined = await api("POST", `/v1/sessions/${encodeURIComponent(sessionId)}/tv`, body);
  seat = { sessionId: joined.sessionId, token: joined.tvAuthToken, joinCode: joined.joinCode };
  seats.set("tv", seat);
  history.replaceState(null, "", "/tv");
}

/** A TV that has no session yet: pair with a game's code, or go to the start page to create one. */
function pairScreen(message = "") {
  const error = h("p", { class: "error-text", role: "alert" }, message);
  const dots = codeDots();
  const input = h("input", { type: "text", id: "code", class: "code-input", autocomplete: "off", placeholder: "ABC123" });
  const submit = h("button", { class: "primary", type: "submit", disabled: true }, t("tv.pair"));
  input.addEventListener("input", () => {
    const code = cleanCode(input.value);
    if (input.value !== code) input.value = code;
    dots.set(code.length);
    submit.disabled = code.length !== 6;
  });
  return h(
    "form",
    {
      class: "tv-body stack",
      onsubmit: async (event) => {
        event.preventDefault();
        submit.disabled = true;
        try {
          const code = cleanCode(input.value);
          const found = await api("GET", `/v1/sessions/by-code/${code}`);
          await pair(found.sessionId, { joinCode: code });
          connect();
        } catch (e) {
          // FORBIDDEN: a kiosk's game, whose screen is the box's own.
          error.textContent = e.code === "FORBIDDEN" ? t("tv.kioskScreen") : errorMessage(e);
          submit.disabled = false;
        }
      },
    },
    h("h1", {}, t("tv.pairTitle")),
    h("p", { class: "dim" }, t("tv.pairHelp")),
    h("label", { for: "code" }, t("join.label")),
    input,
    dots,
    submit,
    error,
    h("a", { class: "button secondary", href: "/" }, t("tv.create")),
  );
}

function connect() {
  page.connect(seat.token);
}

/** Runs `cue` at a time on the box's clock, unless an AUDIO_STOP calls it off first. */
function later(startAtServerMs, cue) {
  const id = setTimeout(
    () => {
      pendingCues.delete(id);
      cue();
    },
    Math.max(0, (startAtServerMs ?? 0) - page.clock.now()),
  );
  pendingCues.add(id);
}

/** The bed the game has under way (none while paused), and when it starts. */
function musicNow() {
  const sound = page.snap?.sound;
  return {
    musicTrackId: page.snap?.paused ? null : (sound?.musicTrackId ?? null),
    startAtServerMs: sound?.musicStartAtServerMs ?? null,
    gainDb: sound?.musicGainDb ?? -8,
  };
}

function followMusic() {
  audio.follow(musicNow());
}

/** Starts this page's sound, with the bed under way if a game is playing one. */
async function startSound() {
  await audio.start(musicNow());
  // Started without a tap (the page was opened with the sound on): the browser may hold it back.
  if (audio.on && !audio.running) toast(t("tv.soundBlocked"));
}

/** The sound button: on, off, or (held back by the browser) let through. */
async function switchSound() {
  if (soundOn && audio.context?.state === "suspended") {
    audio.context.resume();
    return;
  }
  soundOn = !soundOn;
  localStorage.setItem("tripto.tvSound", soundOn ? "on" : "off");
  page.render();
  if (soundOn) {
    await startSound();
    // Unless the viewer switched it off again while the sounds loaded.
    if (soundOn && audio.on && page.snap?.sound?.boxOutput && !page.snap.sound.boxMuted) offerToMuteBox();
  } else {
    audio.stop();
    overlay("mute-box", null);
    // The sound goes back to the box's own output, if this page had taken it over.
    if (page.snap?.sound?.boxMuted) {
      page.send("SOUND_OUTPUT_SET", { tvPage: false, boxMuted: false });
      reportedSound = false;
      toast(t("tv.boxSoundBack"));
    }
  }
}

/** The box and this TV in one room should not both play: offers to mute the box for this game. */
function offerToMuteBox() {
  const answer = (mute) => {
    overlay("mute-box", null);
    if (mute) page.send("SOUND_OUTPUT_SET", { boxMuted: true });
  };
  overlay(
    "mute-box",
    h(
      "div",
      { class: "card stack" },
      h("h2", {}, t("tv.muteBoxTitle")),
      h("p", {}, t("tv.muteBoxText")),
      h("button", { class: "primary", id: "mute-box-yes", onclick: () => answer(true) }, t("tv.muteBoxYes")),
      h("button", { class: "secondary", id: "mute-box-no", onclick: () => answer(false) }, t("tv.muteBoxNo")),
    ),
  );
  document.getElementById("mute-box-yes")?.focus();
}

/**
 * Tells the box whether this page plays the sound, once per change and connection: only once the
 * browser lets it out, since the box goes quiet for a page that plays (if muted).
 */
function reportSound() {
  const sound = page.snap?.sound;
  const playing = soundOn && audio.running;
  if (!sound || sound.tvPage === playing || reportedSound === playing) return;
  if (page.link?.send("SOUND_OUTPUT_SET", { tvPage: playing })) reportedSound = playing;
}

/**
 * The blueprint's UI effects: confetti at the winner, a flash and the brake owner's name in a
 * spotlight when a brake is pulled, a pulse at the reveal. With reduced motion only the spotlight's
 * name shows, without moving.
 */
function uiEffect(p) {
  switch (p.effectId) {
    case "confetti":
      confetti(p.durationMs);
      break;
    case "flash":
      if (!reducedMotion()) moment(h("div", { class: "fx-flash", "aria-hidden": "true" }), p.durationMs);
      break;
    case "spotlight": {
      const name = page.snap ? nameOf(page.snap, p.playerId ?? page.snap.brake?.brakeOwnerPlayerId) : "";
      if (name) {
        moment(
          h("div", { class: "fx-spotlight", "aria-hidden": "true" }, h("p", { class: "fx-name" }, name), h("p", { class: "fx-brake" }, t("tv.brakePulled"))),
          p.durationMs,
        );
      }
      break;
    }
    case "pulse":
      // The reveal's screen may be drawn before this cue or just after it (with its snapshot).
      pulsedAt = Date.now();
      main.querySelector(".reveal")?.classList.add("fx-pulse");
      break;
  }
}

/**
 * When the banter after the last reveal's line is said (its AUDIO_PLAY), on the box's clock: its
 * words show then, not before the voice comes to them. Without a voice for it (none on this box),
 * they show BANTER_MS into the reveal.
 */
let banterAt = 0;
const BANTER_MS = 6000;

/** When the last reveal's pulse came: a reveal screen drawn within PULSE_MS of it pulses. */
let pulsedAt = 0;
const PULSE_MS = 1500;

/** Shows an effect's element over the screen for `ms`. */
function moment(el, ms) {
  el.style.setProperty("--fx-ms", `${ms}ms`);
  document.body.append(el);
  setTimeout(() => el.remove(), ms);
}

/**
 * The sizes a list of players may take, tried in this order until the screen holds the whole list:
 * the largest text first, in as few columns as it needs; then the same with the screen's headings,
 * clue and QR code made smaller ("compact"). 2.2vh is the smallest text read from the sofa; only a
 * crowd that does not fit even so goes smaller, down to 1.5vh (on the lobby, about 30 players and up).
 */
const READABLE = [3.4, 3, 2.6, 2.2].flatMap((size) => [1, 2, 3, 4, 5].map((cols) => [size, cols]));
const CROWDED = [2, 1.8, 1.65, 1.5].flatMap((size) => [5, 6].map((cols) => [size, cols]));
const FITS = [
  ...READABLE.map((f) => [false, ...f]),
  ...READABLE.map((f) => [true, ...f]),
  ...CROWDED.map((f) => [true, ...f]),
];

/** Marks a list of players to be laid out by fitLists. */
function fit(el) {
  el?.classList.add("fit");
  return el;
}

/**
 * Gives the screen's lists of players (class "fit") the first size of FITS, from `from` on, with
 * which nothing overflows; returns its place in FITS. Each size tried costs a layout of the page.
 */
function fitLists(screen, lists, from = 0) {
  for (let index = from; index < FITS.length; index++) {
    const [compact, size, cols] = FITS[index];
    screen.classList.toggle("compact", compact);
    for (const list of lists) {
      const columns = Math.max(1, Math.min(cols, list.children.length));
      list.style.setProperty("--size", `${size}vh`);
      list.style.setProperty("--cols", columns);
      list.style.setProperty("--rows", Math.ceil(list.children.length / columns));
    }
    if (screen.scrollHeight <= screen.clientHeight && screen.scrollWidth <= screen.clientWidth) return index;
  }
  return FITS.length - 1;
}

// What the lists were last fitted to: a screen, its lists, the screen's size and what else is on it;
// and the size they got, for how many names on which screen.
let fitted = "";
let last = { key: null, names: 0, width: 0, height: 0, index: 0 };
function fitWhenChanged() {
  const screen = main.firstElementChild;
  const lists = [...main.querySelectorAll(".fit")];
  if (!screen || !lists.length) return;
  const signature = [page.stage.key, innerWidth, innerHeight, screen.querySelectorAll("*").length, ...lists.map((l) => l.textContent)].join("\n");
  if (signature === fitted) return;
  fitted = signature;
  // A lobby filling up (a phone joining, or coming back) needs the size it had or a smaller one:
  // starting there, a join costs a layout or two rather than one for every larger size (a refit of
  // 50 names from the largest took 270–510 ms on a slow screen). Fewer names start from the largest.
  const names = lists.reduce((n, list) => n + list.children.length, 0);
  const from = last.key === page.stage.key && last.names <= names && last.width === innerWidth && last.height === innerHeight ? last.index : 0;
  last = { key: page.stage.key, names, width: innerWidth, height: innerHeight, index: fitLists(screen, lists, from) };
}

function statusBar(snap) {
  const soundButton = h(
    "button",
    {
      class: "small",
      id: "tv-sound",
      "aria-pressed": String(soundOn),
      onclick: switchSound,
    },
    soundOn ? t("tv.soundOn") : t("tv.soundOff"),
  );
  return [
    h("span", { class: "brand" }, "TRIPTO"),
    h("span", { class: "mono" }, snap.joinCode),
    snap.round ? h("span", {}, t("game.destinationOf", { n: snap.round.index, total: snap.round.total })) : null,
    h("span", { class: "spacer" }),
    snap.paused ? h("span", { class: "banner paused", role: "status" }, t("game.paused")) : null,
    snap.sound?.boxMuted ? h("span", { class: "dim", id: "box-muted" }, t("tv.boxMuted")) : null,
    soundButton,
  ];
}

/** How often the kiosk's screen asks for tonight's leaderboard between games. */
const TONIGHT_MS = 3000;

/**
 * The kiosk's screen between games: tonight's top 10 and "Next game in 12 s", read from across the
 * room. Asked for while the lobby is up; a box without the endpoint leaves the panel empty.
 */
function tonightPanel() {
  const list = h("div");
  const next = h("p", { class: "next-game", id: "next-game", role: "status" });
  const el = h("div", { class: "tonight-panel", id: "tonight" }, h("h2", {}, t("tv.tonightTitle")), list);
  let nextAt = null;
  let shown = "";
  const tick = () => {
    const left = nextAt == null ? null : Math.max(0, Math.ceil((nextAt - page.clock.now()) / 1000));
    next.textContent = left == null ? t("tv.nextGameWhenJoined") : t("tv.nextGameIn", { n: left });
  };
  const ask = async () => {
    try {
      const tonight = await api("GET", "/v1/kiosk/tonight");
      nextAt = tonight.nextGameAtServerMs ?? null;
      const rows = JSON.stringify(tonight.top);
      if (rows !== shown) {
        shown = rows;
        fill(list, tonight.top.length ? tonightList(tonight.top, { label: t("tv.tonightTitle") }) : h("p", { class: "dim" }, t("tv.tonightEmpty")));
      }
    } catch {
      // Said again at the next try: the lobby goes on meanwhile.
    }
    tick();
  };
  ask();
  const asking = setInterval(() => (el.isConnected ? ask() : clearInterval(asking)), TONIGHT_MS);
  const ticking = setInterval(() => (el.isConnected ? tick() : clearInterval(ticking)), 500);
  return { el, next };
}

function lobbyScreen() {
  const list = h("div");
  let players = "";
  const count = h("h2");
  const hostNote = h("p", { class: "dim" });
  const tonight = kiosk ? tonightPanel() : null;
  return {
    el: h(
      "section",
      { class: "tv-body" },
      h(
        "div",
        { class: "lobby" },
        h("img", { class: "qr", src: `/v1/sessions/${encodeURIComponent(seat.sessionId)}/qr.svg`, alt: t("tv.qrAlt") }),
        h(
          "div",
          { class: "stack" },
          h("h1", {}, t("tv.scan")),
          h("p", { class: "dim" }, t("tv.codeLabel")),
          h("p", { class: "code", id: "join-code", "aria-label": t("game.code") }, page.snap.joinCode),
          h("p", { class: "dim" }, t("tv.orLink")),
          h("p", { class: "url mono", id: "join-url" }, page.snap.joinUrl),
          tonight ? tonight.next : hostNote,
          // Seed 000: the TV's lobby offers a new game, back on the start page (the kiosk's never).
          kiosk
            ? null
            : h(
                "a",
                {
                  class: "button secondary",
                  id: "new-game",
                  href: "/",
                  onclick: () => seats.clear("tv"),
                },
                t("tv.newGame"),
              ),
        ),
      ),
      tonight ? h("div", { class: "columns" }, h("div", {}, count, list), tonight.el) : h("div", {}, count, list),
    ),
    update() {
      count.textContent = t("lobby.players", { n: page.snap.players.length });
      // Only when someone came, went or lost their line: the list keeps the size it was fitted to.
      const next = JSON.stringify(page.snap.players);
      if (next !== players) {
        players = next;
        fill(list, page.snap.players.length ? fit(peopleList(page.snap.players)) : h("p", { class: "dim" }, t("tv.noPlayers")));
      }
      // A game with autoAdvance and no host starts by itself once players have joined. (The kiosk's
      // screen shows its countdown instead, and nothing of its staff's seat.)
      const captain = !page.snap.hasHost && page.snap.captainPlayerId;
      hostNote.textContent = captain
        ? t("lobby.captainWaits", { name: nameOf(page.snap, captain) })
        : page.snap.hasHost
        ? t("tv.waitingHost")
        : page.snap.settings.autoAdvance
          ? t("tv.autoStart")
          : t("tv.noHost", { code: page.snap.joinCode });
    },
  };
}

function clueScreen() {
  const banner = h("div", { "aria-live": "assertive" });
  const next = nextClueLine(page.clock);
  const left = followedTimer((x) => secondsLeftOf(x, page.clock), "span");
  const markers = h("div", { class: "markers fit", "aria-label": t("tv.locked") });
  return {
    el: h(
      "section",
      { class: "tv-body" },
      h("div", { class: "row" }, h("span", { class: "badge level", id: "level" }, t("game.points", { n: page.snap.clue?.levelPoints ?? "" })), ladder(page.snap.clue)),
      h("p", { class: "clue-text", id: "clue" }, page.snap.clue?.clueText ?? ""),
      next.el,
      banner,
      h("div", { class: "stack" }, h("h2", { class: "dim" }, t("tv.locked")), markers),
    ),
    update() {
      next.set(page.snap);
      if (page.snap.brake) {
        const name = nameOf(page.snap, page.snap.brake.brakeOwnerPlayerId);
        if (banner.dataset.owner !== page.snap.brake.brakeOwnerPlayerId) {
          banner.dataset.owner = page.snap.brake.brakeOwnerPlayerId;
          fill(
            banner,
            h(
              "div",
              { class: "banner brake-banner row", id: "brake-banner" },
              h("span", { class: "grow" }, t("tv.brake", { name })),
              left.el,
            ),
          );
        }
        left.set(brakeTimer(page.snap));
      } else if (banner.dataset.owner) {
        delete banner.dataset.owner;
        fill(banner);
      }
      fill(
        markers,
        page.snap.lockedAnswers.length
          ? page.snap.lockedAnswers.map((a) =>
              h(
                "span",
                { class: "pill locked" },
                h("span", { class: "name" }, nameOf(page.snap, a.playerId)),
                ` · ${t("game.points", { n: a.lockedAtLevelPoints })}`,
              ),
            )
          : h("span", { class: "dim" }, t("tv.noneLocked")),
      );
    },
  };
}

/**
 * The clue's level among the five, 10 → 2: the one in play stands out (and comes in with a drop on a
 * new clue), those behind are dimmed. Only levels, never what the clues say.
 */
function ladder(clue) {
  if (!clue) return null;
  const total = clue.totalLevels;
  return h(
    "ol",
    { class: "ladder", "aria-hidden": "true" },
    Array.from({ length: total }, (_, i) => {
      const points = 10 - 2 * i;
      const state = i + 1 < clue.levelIndex ? "past" : i + 1 === clue.levelIndex ? "now" : "ahead";
      return h("li", { class: state }, String(points));
    }),
  );
}

/** The map on a TV screen, in its place on the layout. */
function mapPanel(map) {
  return h("div", { class: "tv-map", id: "map" }, map.el);
}

/** Up to this many players, the final standings share the screen with the journey's map. */
const MAP_BESIDE_STANDINGS = 12;

/** The intro: where the train has been so far this game (the whole map before the first stop). */
function introMapScreen() {
  const map = journeyMap({ label: t("tv.mapLabel") });
  map.route(page.snap.journey ?? [], { animate: true });
  return introScreen(page.snap, "tv-body center intro-map", mapPanel(map));
}

function revealScreen() {
  const d = page.snap.round.destination;
  const results = page.snap.round.results ?? [];
  // The pack's banter for this stop, shown as the voice says it, after the reveal's line.
  const banter = d?.banter ? h("p", { class: "banter", id: "banter" }, `“${d.banter}”`) : null;
  if (banter) {
    banter.style.visibility = "hidden";
    const sinceReveal = page.clock.now() - (page.snap.timers.find((x) => x.phase === "REVEAL_DESTINATION")?.startAtServerMs ?? page.clock.now());
    const wait = banterAt > page.clock.now() ? banterAt - page.clock.now() : Math.max(0, BANTER_MS - sinceReveal);
    setTimeout(() => (banter.style.visibility = "visible"), wait);
  }
  const text = [revealedDestination(d, { countryTag: "h2", textClass: "clue-text" }), banter, fit(resultsList(page.snap, results, { empty: t("tv.nobodyAnswered") }))];
  const pulse = Date.now() - pulsedAt < PULSE_MS ? " fx-pulse" : "";
  if (d?.lat == null) return h("section", { class: `tv-body center reveal${pulse}` }, text);
  // The map flies from the last stop to this one, and pins it with its name.
  const journey = page.snap.journey ?? [];
  const map = journeyMap({ label: t("tv.mapLabel") });
  map.arrive({ lat: d.lat, lon: d.lon, name: d.name }, { from: journey.length > 1 ? journey[journey.length - 2] : null, animate: true });
  return h("section", { class: `tv-body beside-map reveal${pulse}` }, h("div", { class: "stack center" }, text), mapPanel(map));
}

function followupScreen() {
  const f = page.snap.followup;
  const answered = h("p", { class: "dim", id: "answered" });
  const timer = followedTimer((x) => countdown(x, page.clock));
  const body = [
    h("p", { class: "badge" }, t("followup.count", { n: f.index, total: f.total })),
    h("h1", { id: "question" }, f.questionText),
  ];
  if (f.options?.length) body.push(h("div", { class: "markers" }, f.options.map((o) => h("span", { class: "pill" }, o))));
  if (f.results) {
    body.push(
      h("h2", {}, t("followup.correct"), " ", h("span", { class: "secret", id: "correct" }, f.correctAnswer ?? "")),
      fit(resultsList(page.snap, f.results)),
    );
  } else if (f.isOpen) {
    body.push(timer.el, answered);
  } else {
    body.push(h("h2", { class: "dim" }, t("followup.closed")), answered);
  }
  return {
    el: h("section", { class: f.results ? "tv-body followup-results" : "tv-body" }, body),
    update() {
      timer.set(page.snap.followup?.timer);
      answered.textContent = t("tv.answered", { n: page.snap.followup?.answeredCount ?? 0, total: page.snap.players.length });
    },
  };
}

function scoreScreen() {
  return h(
    "section",
    { class: "tv-body" },
    h("h1", {}, t("score.title")),
    fit(standingsList(page.snap.scoreboard, { label: t("score.title") })),
  );
}

function finalScreen() {
  const step = finaleStep(page.snap, page.clock);
  const results = page.snap.finalResults;
  switch (step) {
    case "lead":
    case "drumroll": {
      // "And the winner is…" over the whole evening's journey, then the drumroll.
      const drum = h("p", { class: "drum", "aria-hidden": "true" }, "● ● ●");
      const journey = page.snap.journey ?? [];
      let map = null;
      if (journey.length) {
        map = journeyMap({ label: t("tv.mapLabel") });
        map.route(journey, { animate: true });
      }
      return {
        el: h(
          "section",
          { class: "tv-body finale dim-stage" },
          map ? h("div", { class: "tv-map backdrop", id: "map" }, map.el) : null,
          h("p", { class: "lead" }, t("final.lead")),
          drum,
        ),
        update() {
          // Kept in the layout while it waits, so the map does not move when it comes.
          drum.style.visibility = finaleStep(page.snap, page.clock) === "drumroll" ? "visible" : "hidden";
        },
      };
    }
    case "winner": {
      // Shared places share their number (two players on 0 points are both #2) and their step.
      const top = ranked(results?.standingsFull ?? []).slice(0, 3);
      const order = [top[1], top[0], top[2]];
      return h(
        "section",
        { class: "tv-body finale" },
        h("p", { class: "lead" }, results?.isTie ? t("final.tie") : t("final.winnerIs")),
        // A win shared by more than three: their names, smaller, leave room for the podium.
        h("p", { class: (results?.tieWinners?.length ?? 0) > 3 ? "winner many" : "winner", id: "winner" }, winnerText(page.snap)),
        h("p", { class: "dim" }, t("game.points", { n: top[0]?.points ?? 0 })),
        h(
          "div",
          { class: "podium" },
          order.map((s) =>
            s
              ? h(
                  "div",
                  { class: `step p${s.rank}` },
                  h("p", { class: "pts" }, `#${s.rank}`),
                  h("p", { class: "name" }, s.name),
                  h("p", { class: "pts" }, t("game.points", { n: s.points })),
                )
              : h("div", { class: "step", hidden: true }),
          ),
        ),
      );
    }
    case "standings": {
      const standings = [
        h("h1", {}, t("final.standings")),
        fit(standingsList(results?.standingsFull ?? page.snap.scoreboard, { label: t("final.standings") })),
        h("h1", { id: "thanks" }, t("final.thanks")),
      ];
      const journey = page.snap.journey ?? [];
      // The whole evening's journey beside the standings, where they leave room for it.
      if (!journey.length || (results?.standingsFull ?? page.snap.scoreboard).length > MAP_BESIDE_STANDINGS) {
        return h("section", { class: "tv-body finale" }, standings);
      }
      const map = journeyMap({ label: t("tv.mapLabel") });
      map.route(journey, { animate: true });
      return h("section", { class: "tv-body finale beside-map" }, h("div", { class: "stack" }, standings), mapPanel(map));
    }
  }
}

start();

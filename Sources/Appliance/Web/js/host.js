// The host's pro view (phone or tablet): everything the host projection holds — the destination,
// sources, every locked answer — and every control of the game.
import { api, seats } from "./box.js";
import { t } from "./i18n.js";
import { h, fill, toast, peopleList, standingsList, messageScreen } from "./ui.js";
import { GamePage, nameOf, countdown, brakeTimer, followedTimer, secondsLeftOf, finaleStep, winnerText, resultsList } from "./game.js";

const seat = seats.get("host");
let gainDb = -8;
// The packs' titles by id (GET /v1/packs), for the settings; null until they came.
let packTitles = null;
// The packs themselves, in the box's order, for choosing the next game's pack in the lobby.
let packList = [];

/** Music levels of the host view, as gains in dB (−60 is off). */
const MUSIC_LEVELS = [
  ["off", -60],
  ["low", -18],
  ["med", -8],
  ["high", 0],
];

/**
 * What is wrong with the box (GET /healthz), in one line above the game: a host should know before
 * the evening does that the disk is full or the sound is gone. Asked at the start and every 15 s.
 */
const HEALTH_MS = 15_000;
const health = h("p", { class: "banner degraded", role: "alert", id: "health" });
let healthProblems = [];

/** The line's text, in the page's language; empty (and so not shown) while nothing is wrong. */
function healthLine() {
  return healthProblems
    .map((problem) =>
      problem.part === "storage" && /full/.test(problem.message) ? t("health.storageFull") : t(`health.${problem.part}`, {}, problem.message),
    )
    .join(" · ");
}

async function checkHealth() {
  try {
    const answer = await api("GET", "/healthz");
    healthProblems = answer.status === "ok" ? [] : (answer.problems ?? []);
  } catch {
    // The box out of reach is the connection overlay's to say.
    return;
  }
  page.render();
}

/**
 * Each connected player's link as the box measures it from its clock probes (CONNECTION_QUALITY,
 * about every 5 s while anyone plays): the round trip stands next to the player's name, and a phone
 * on a poor link gets a plain line under the list.
 *
 * Poor means a median round trip over 250 ms or a jitter over 60 ms, or a phone the box hears from
 * (its round trip is known) that still has no clock estimate two reports in a row. The box makes up
 * for a phone's delay only up to 150 ms (its one-way delay plus jitter plus 5 ms, docs/protocol.md):
 * around those figures a pull from that phone may be judged later than it was pressed. A phone that
 * has just joined may have too few echoes for an estimate at its first report, so one report
 * without a clock is not yet a poor link.
 */
const SLOW_ROUND_TRIP_MS = 250;
const SLOW_JITTER_MS = 60;
const NO_CLOCK_REPORTS = 2;
// Older than two reports: the box stopped sending them (nobody was connected), so they say nothing now.
const LINK_STALE_MS = 12_000;
// playerId → { rttMs, jitterMs, clockOk, noClock: reports in a row without a clock, at }
let links = new Map();

function linksReported(payload) {
  const at = Date.now();
  links = new Map(
    (payload.players ?? []).map((link) => {
      const noClock = !link.clockOk && link.rttMs != null ? (links.get(link.playerId)?.noClock ?? 0) + 1 : 0;
      return [link.playerId, { ...link, noClock, at }];
    }),
  );
  showLinks();
}

/** A connected player's link, while the box's report of it is recent; null otherwise. */
function linkOf(player) {
  const link = links.get(player.playerId);
  return player.isConnected && link && Date.now() - link.at < LINK_STALE_MS ? link : null;
}

function isSlow(link) {
  return (link.rttMs ?? 0) > SLOW_ROUND_TRIP_MS || (link.jitterMs ?? 0) > SLOW_JITTER_MS || link.noClock >= NO_CLOCK_REPORTS;
}

function roundTripText(player) {
  const link = linkOf(player);
  return link?.rttMs != null ? `${link.rttMs} ms` : "";
}

function slowLinkLines(snap) {
  return snap.players.filter((p) => linkOf(p) && isSlow(linkOf(p))).map((p) => t("host.slowLink", { name: p.name }));
}

function slowLinkWarning(el, snap) {
  const lines = slowLinkLines(snap);
  const key = JSON.stringify(lines);
  if (el.dataset.shown === key) return el;
  el.dataset.shown = key;
  return fill(el, lines.map((line) => h("p", {}, line)), lines.length ? h("p", { class: "help" }, t("host.slowLinkHelp")) : null);
}

/**
 * The links as last reported, written into the panel where they changed; the panel itself is drawn
 * again only when the players or the controls change, so a tap never lands on a button being replaced.
 */
function showLinks() {
  const snap = page.snap;
  if (!snap) return;
  for (const el of document.querySelectorAll("#panel [data-rtt]")) {
    const player = snap.players.find((p) => p.playerId === el.dataset.rtt);
    const text = player ? roundTripText(player) : "";
    if (el.textContent !== text) el.textContent = text;
    el.classList.toggle("warn", !!player && !!linkOf(player) && isSlow(linkOf(player)));
  }
  const warning = document.getElementById("slow-links");
  if (warning) slowLinkWarning(warning, snap);
}

const page = new GamePage({
  role: "host",
  redrawMs: 1000,
  redraw: start,
  parts: [
    { el: document.getElementById("panel"), shows: (snap) => [snap.players, snap.phase, snap.paused, gainDb, snap.sound, snap.hasTv], draw: panel },
    { el: health, shows: () => healthProblems, draw: healthLine },
  ],
  screens: {
    lobby: lobbyScreen,
    round: roundScreen,
    reveal: revealScreen,
    followup: followupScreen,
    score: scoreScreen,
    final: finalScreen,
  },
  screenFor,
  // The links' reports go stale between messages.
  shown: showLinks,
  events: {
    CONNECTION_QUALITY: linksReported,
    MUSIC_GAIN_SET: musicLevel,
    MUSIC_SET: musicLevel,
    BRAKE_ACCEPTED: (p) => toast(t("tv.brake", { name: p.playerName })),
  },
});

function start() {
  if (!seat) {
    page.show("noseat", () =>
      messageScreen({ title: t("host.noSession"), text: t("host.noSessionHelp"), link: { href: "/", label: t("launch.create") } }),
    );
    return;
  }
  page.connect(seat.token);
  if (!health.isConnected) {
    document.getElementById("main").before(health);
    checkHealth();
    setInterval(checkHealth, HEALTH_MS);
  }
  api("GET", "/v1/packs")
    .then((packs) => {
      packTitles = new Map(packs.map((p) => [p.packId, p.title]));
      packList = packs;
      // The lobby shows the settings: drawn again with the pack's title.
      if (page.snap && page.stage.key === "lobby") {
        page.stage.key = null;
        page.render();
      }
    })
    .catch(() => {});
}

/** The music's level as the box has it; the panel is drawn again with it. */
function musicLevel(p) {
  if (typeof p.gainDb === "number") gainDb = p.gainDb;
  return true;
}

/**
 * How long a control that moves the game on ignores taps after its screen appeared and after the
 * last such tap: the screen that follows puts its own button in the same place, and a double tap
 * would otherwise land on it and skip a clue or a followup's results.
 */
const SETTLE_MS = 650;
// The step of the game the host's screen shows (phase, clue, followup), and since when.
let shownStep = "";
let stepSince = 0;
let lastMove = 0;

function noteStep(snap) {
  const f = snap.followup;
  const next = JSON.stringify([snap.phase, snap.round?.index ?? 0, snap.clue?.levelIndex, f?.index, f?.isOpen, !!f?.results]);
  if (next === shownStep) return;
  shownStep = next;
  stepSince = performance.now();
}

function settlingFor() {
  return SETTLE_MS - (performance.now() - Math.max(stepSince, lastMove));
}

/** Disabled while the game settles (see SETTLE_MS), without looking disabled: it comes back by itself. */
function settle(button, enabled) {
  const wait = settlingFor();
  if (!enabled || wait <= 0) return;
  button.disabled = true;
  button.classList.add("settling");
  setTimeout(() => {
    button.disabled = false;
    button.classList.remove("settling");
  }, wait);
}

function control(id, label, type, { kind = "", enabled = true, payload, moves = true } = {}) {
  const button = h(
    "button",
    {
      class: `${kind} block`,
      id,
      disabled: !enabled,
      onclick: () => {
        if (moves) {
          if (settlingFor() > 0) return;
          lastMove = performance.now();
          settle(button, true);
        }
        page.send(type, payload);
      },
    },
    label,
  );
  if (moves) settle(button, enabled);
  return button;
}

// MARK: the panel under every screen: players, music, pause, end

/**
 * Where the room's sound plays (CONTRACT 4.5): the box's own output, the TV page, or both; and the
 * box muted or not while the TV page plays (muted, it plays again whenever the TV page does not).
 * A box without a sound device says so in its health line.
 */
function soundLine(snap) {
  const sound = snap.sound;
  if (!sound) return null;
  const tv = sound.tvPage && snap.hasTv;
  if (!sound.boxOutput) return h("p", { id: "sound-where", role: "status" }, t(tv ? "host.soundTvOnly" : "host.soundNoOutput"));
  const where = tv ? (sound.boxMuted ? "host.soundTv" : "host.soundBoth") : "host.soundBox";
  return h(
    "div",
    { class: "row" },
    h("p", { class: "grow", id: "sound-where", role: "status" }, t(where)),
    h(
      "button",
      {
        class: "secondary small",
        id: "box-sound",
        "aria-pressed": String(sound.boxMuted),
        onclick: () => page.send("SOUND_OUTPUT_SET", { boxMuted: !sound.boxMuted }),
      },
      sound.boxMuted ? t("host.unmuteBox") : t("host.muteBox"),
    ),
  );
}

function panel(snap) {
  const inGame = !["LOBBY", "FINAL_RESULTS", "ROUND_END"].includes(snap.phase);
  const music = h(
    "div",
    { class: "segmented", role: "group", "aria-label": t("host.music") },
    MUSIC_LEVELS.map(([name, db]) =>
      h(
        "button",
        {
          id: `music-${name}`,
          "aria-pressed": String(closestLevel(gainDb) === db),
          onclick: () => {
            gainDb = db;
            page.send("MUSIC_GAIN_SET", { gainDb: db });
            page.render();
          },
        },
        t(`host.music.${name}`),
      ),
    ),
  );
  return h(
    "div",
    { class: "card stack" },
    h("h2", {}, t("lobby.players", { n: snap.players.length })),
    snap.players.length
      ? peopleList(snap.players, {
          withPoints: true,
          note: (p) => {
            const link = linkOf(p);
            return h("span", { class: `rtt${link && isSlow(link) ? " warn" : ""}`, title: t("host.roundTrip"), dataset: { rtt: p.playerId } }, roundTripText(p));
          },
          extra: (p) =>
            h(
              "button",
              {
                class: "danger small",
                "aria-label": t("host.kickName", { name: p.name }),
                dataset: { kick: p.playerId },
                onclick: () => {
                  if (confirm(t("host.kickConfirm", { name: p.name }))) page.send("HOST_KICK", { playerId: p.playerId });
                },
              },
              t("host.kick"),
            ),
        })
      : h("p", { class: "dim" }, t("tv.noPlayers")),
    slowLinkWarning(h("div", { class: "link-warning", id: "slow-links", role: "status" }), snap),
    h("h2", {}, t("host.music")),
    music,
    soundLine(snap),
    h(
      "div",
      { class: "controls" },
      inGame
        ? snap.paused
          ? control("resume", t("host.resume"), "HOST_RESUME", { kind: "success", moves: false })
          : control("pause", t("host.pause"), "HOST_PAUSE", { moves: false })
        : null,
      // The finale now, with the points as they stand (a venue's staff closing a game early).
      inGame
        ? h(
            "button",
            {
              class: "secondary block",
              id: "end-game",
              onclick: () => {
                if (confirm(t("host.endGameConfirm"))) page.send("HOST_END_GAME");
              },
            },
            t("host.endGame"),
          )
        : null,
      h(
        "button",
        {
          class: "danger block",
          id: "end-session",
          onclick: () => {
            if (confirm(t("host.endConfirm"))) page.send("HOST_END_SESSION");
          },
        },
        t("host.end"),
      ),
    ),
  );
}

function closestLevel(db) {
  return MUSIC_LEVELS.reduce((best, [, level]) => (Math.abs(level - db) < Math.abs(best - db) ? level : best), 0);
}

// MARK: screens

/**
 * The host's screens: one for the intro and every clue (roundScreen redraws its own parts and keeps
 * the destination's card), and since the Next buttons wait while the game is paused, the screens
 * with one follow the pause too.
 */
function screenFor(step) {
  const snap = page.snap;
  noteStep(snap);
  switch (step.screen) {
    case "intro":
      return { screen: "round", key: `intro:${step.round}` };
    case "clue":
      return { screen: "round", key: `clue:${step.round}` };
    case "reveal":
    case "followup":
    case "score":
      return { ...step, key: `${step.key}:${snap.paused}` };
    case "final":
      return { ...step, key: snap.phase === "ROUND_END" ? "final:end" : `final:${finaleStep(snap, page.clock) === "standings"}:${snap.paused}` };
    default:
      return step;
  }
}

function lobbyScreen() {
  const startButton = h("button", { class: "success block", id: "start", onclick: () => page.send("HOST_START_GAME") }, t("host.start"));
  const startHelp = h("p", { class: "help center" });
  const tvStatus = h("p", { id: "tv-status" });
  const base = location.origin;
  const tvLink = seat.tvJoinToken ? `${base}/tv?s=${encodeURIComponent(seat.sessionId)}&k=${encodeURIComponent(seat.tvJoinToken)}` : null;
  const settings = h("dl", { class: "kv card" });
  let shownSettings = "";
  // The next game's pack, of those a new session may choose (HOST_SET_PACK).
  const pack = h("select", { id: "pack", "aria-label": t("host.nextPack") });
  pack.addEventListener("change", () => page.send("HOST_SET_PACK", { packId: pack.value }));
  const fillPacks = () => {
    if (!packList.length || pack.options.length) return;
    fill(pack, packList.map((p) => h("option", { value: p.packId }, `${p.title} (${p.language.toUpperCase()})`)));
  };
  return {
    el: h(
      "section",
      { class: "stack" },
      h("h1", {}, t("host.lobby")),
      h(
        "div",
        { class: "card stack center" },
        h("h2", {}, t("host.forPlayers")),
        h("img", { class: "qr", src: `/v1/sessions/${encodeURIComponent(seat.sessionId)}/qr.svg`, alt: t("tv.qrAlt") }),
        h("p", { class: "code-input mono", id: "join-code" }, page.snap.joinCode),
        h("p", { class: "url mono", id: "join-url" }, page.snap.joinUrl),
      ),
      h(
        "div",
        { class: "card stack" },
        h("h2", {}, t("host.forTv")),
        tvStatus,
        tvLink ? h("p", { class: "url mono", id: "tv-link" }, tvLink) : null,
        h("p", { class: "help" }, t("host.tvHelp", { url: `${base}/tv`, code: page.snap.joinCode })),
      ),
      h("label", { class: "stack" }, t("host.nextPack"), pack),
      settings,
      startButton,
      startHelp,
    ),
    update() {
      fillPacks();
      if (document.activeElement !== pack) pack.value = page.snap.settings.packId;
      const next = JSON.stringify([page.snap.settings, packTitles?.size ?? 0]);
      if (next !== shownSettings) {
        shownSettings = next;
        fill(settings, settingsList());
      }
      startButton.disabled = page.snap.players.length === 0;
      startHelp.textContent = page.snap.players.length === 0 ? t("host.needPlayer") : "";
      tvStatus.textContent = page.snap.hasTv ? t("host.tvConnected") : t("host.tvMissing");
      tvStatus.className = page.snap.hasTv ? "ok" : "dim";
    },
  };
}

function settingsList() {
  const s = page.snap.settings;
  return [
    [t("create.pack"), packTitles?.get(s.packId) ?? s.packId],
    [t("create.count"), s.destinationsCount],
    [t("host.followups"), s.followupsPerDestination],
    [t("host.followupSeconds"), `${s.followupSeconds} s`],
    [t("host.brakeSeconds"), `${s.brakeAnswerSeconds} s`],
  ].flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, String(v))]);
}

function destinationCard() {
  const d = page.snap.round?.destination;
  if (!d) return null;
  return h(
    "div",
    { class: "card stack" },
    h("p", { class: "dim" }, t("host.destination", { n: page.snap.round.index, total: page.snap.round.total })),
    h("h2", { class: "secret", id: "host-destination" }, d.name, " · ", d.country),
    d.aliases?.length ? h("p", { class: "help" }, t("host.aliases"), " ", d.aliases.join(", ")) : null,
    d.sources?.length
      ? h("details", {}, h("summary", {}, t("host.sources")), h("ul", { class: "sources" }, d.sources.map((s) => h("li", {}, s))))
      : null,
  );
}

function lockedList() {
  if (!page.snap.lockedAnswers.length) return h("p", { class: "dim" }, t("tv.noneLocked"));
  return h(
    "ul",
    { class: "people", id: "locked" },
    page.snap.lockedAnswers.map((a) =>
      h(
        "li",
        {},
        h("span", { class: "name" }, nameOf(page.snap, a.playerId)),
        h("span", { class: "secret" }, a.answerText ?? ""),
        h("span", { class: "points" }, t("game.points", { n: a.lockedAtLevelPoints })),
      ),
    ),
  );
}

function roundScreen() {
  const body = h("div", { class: "stack" });
  let signature = "";
  return {
    el: h("section", { class: "stack" }, destinationCard(), body),
    update() {
      const next = JSON.stringify([page.snap.phase, page.snap.clue, page.snap.brake, brakeTimer(page.snap), page.snap.lockedAnswers, page.snap.paused, page.snap.players]);
      if (next === signature) return;
      signature = next;
      if (page.snap.phase === "ROUND_INTRO") {
        fill(
          body,
          h("p", { class: "badge" }, t("intro.title")),
          control("next-clue", t("host.skipIntro"), "HOST_NEXT_CLUE", { kind: "primary", enabled: !page.snap.paused }),
        );
        return;
      }
      const brake = page.snap.brake;
      fill(
        body,
        h(
          "div",
          { class: "card stack" },
          h("div", { class: "row" }, h("span", { class: "badge level", id: "level" }, t("game.points", { n: page.snap.clue?.levelPoints ?? "" })), h("span", { class: "dim" }, t("host.clueOf", { n: page.snap.clue?.levelIndex ?? "", total: page.snap.clue?.totalLevels ?? 5 }))),
          h("p", { class: "clue-text" }, page.snap.clue?.clueText ?? ""),
        ),
        brake
          ? h(
              "div",
              { class: "banner brake-banner row" },
              h("span", { class: "grow" }, t("tv.brake", { name: nameOf(page.snap, brake.brakeOwnerPlayerId) })),
              secondsLeftOf(brakeTimer(page.snap), page.clock),
            )
          : null,
        h("div", { class: "card stack" }, h("h2", {}, t("tv.locked")), lockedList()),
        h(
          "div",
          { class: "controls" },
          control("next-clue", page.snap.clue?.levelPoints === 2 ? t("host.toReveal") : t("host.nextClue"), "HOST_NEXT_CLUE", { kind: "primary", enabled: !page.snap.paused }),
          control("force-reveal", t("host.forceReveal"), "HOST_FORCE_REVEAL", { kind: "secondary", enabled: !page.snap.paused }),
        ),
      );
    },
  };
}

function revealScreen() {
  const results = page.snap.round.results ?? [];
  return h(
    "section",
    { class: "stack" },
    destinationCard(),
    h("p", {}, page.snap.round.destination?.revealText ?? ""),
    h("div", { class: "card" }, resultsList(page.snap, results, { empty: t("tv.nobodyAnswered") })),
    control("next", page.snap.settings.followupsPerDestination > 0 ? t("host.toFollowups") : t("host.toScoreboard"), "HOST_NEXT", {
      kind: "primary",
      enabled: !page.snap.paused,
    }),
  );
}

function followupScreen() {
  const f = page.snap.followup;
  const answers = h("ul", { class: "people results", id: "followup-answers" });
  const counter = h("p", { class: "dim" });
  const timer = followedTimer((x) => countdown(x, page.clock));
  let signature = "";
  return {
    el: h(
      "section",
      { class: "stack" },
      h("p", { class: "badge" }, t("followup.count", { n: f.index, total: f.total })),
      h("h1", { id: "question" }, f.questionText),
      f.options?.length ? h("p", { class: "dim" }, f.options.join(" · ")) : null,
      h("p", {}, t("followup.correct"), " ", h("strong", { class: "secret", id: "correct" }, f.correctAnswer ?? "")),
      f.isOpen ? timer.el : f.results ? null : h("p", { class: "dim" }, t("followup.closed")),
      h("div", { class: "card stack" }, counter, answers),
      control("next", f.isOpen ? t("host.closeFollowup") : f.index < f.total ? t("host.nextFollowup") : t("host.toScoreboard"), "HOST_NEXT", {
        kind: "primary",
        enabled: !page.snap.paused,
      }),
    ),
    update() {
      // The followup as it is now: the answers come in while the screen stays.
      const now = page.snap.followup;
      if (!now) return;
      timer.set(now.timer);
      const next = JSON.stringify([now, page.snap.players]);
      if (next === signature) return;
      signature = next;
      counter.textContent = t("tv.answered", { n: now.answeredCount, total: page.snap.players.length });
      const byPlayer = new Map((now.results ?? now.answers ?? []).map((a) => [a.playerId, a]));
      fill(
        answers,
        page.snap.players.map((p) => {
          const a = byPlayer.get(p.playerId);
          return h(
            "li",
            {},
            answerMark(now, a),
            h("span", { class: "name" }, p.name),
            h("span", { class: "dim" }, a?.answerText ?? t(now.isOpen ? "host.noAnswerYet" : "host.noAnswer")),
            a && "pointsAwarded" in a ? h("span", { class: "points" }, `+${a.pointsAwarded}`) : null,
          );
        }),
      );
    },
  };
}

/** Before the results a mark says only who answered; after them, as on the TV, who was right. */
function answerMark(f, a) {
  if (!a?.answerText) return h("span", { class: "dim", "aria-label": t("host.noAnswer") }, "–");
  if (!f.results) return h("span", { class: "dim", "aria-label": t("host.answered") }, "●");
  return h("span", { class: a.isCorrect ? "ok" : "bad", "aria-label": t(a.isCorrect ? "common.right" : "common.wrong") }, a.isCorrect ? "✓" : "✗");
}

function scoreScreen() {
  const last = page.snap.round && page.snap.round.index >= page.snap.round.total;
  return h(
    "section",
    { class: "stack" },
    h("h1", {}, t("score.title")),
    h("div", { class: "card" }, standingsList(page.snap.scoreboard, { label: t("score.title") })),
    control("next", last ? t("host.toFinale") : t("host.nextDestination"), "HOST_NEXT", { kind: "primary", enabled: !page.snap.paused }),
  );
}

function finalScreen() {
  const results = page.snap.finalResults;
  return h(
    "section",
    { class: "stack" },
    h("h1", {}, t("final.standings")),
    h("p", {}, results?.isTie ? t("final.tie") : t("final.winnerIs"), " ", h("strong", { id: "winner" }, winnerText(page.snap))),
    h("div", { class: "card" }, standingsList(results?.standingsFull ?? page.snap.scoreboard, { label: t("final.standings") })),
    page.snap.phase === "FINAL_RESULTS" ? control("next", t("host.endFinale"), "HOST_NEXT", { enabled: !page.snap.paused }) : null,
    control("restart", t("host.restart"), "HOST_RESTART", { kind: "primary" }),
  );
}

start();

// The host's pro view (phone or tablet): everything the host projection holds — the destination,
// sources, every locked answer — and every control of the game.
import { api, seats, BoxLink, runCountdowns } from "./box.js";
import { t, errorMessage, mountLanguagePicker } from "./i18n.js";
import { h, fill, Stage, toast, peopleList, standingsList } from "./ui.js";
import { nameOf, countdown, brakeTimer, followedTimer, secondsLeftOf, finaleStep, winnerText, showConnection, endedScreen, resultsList } from "./game.js";

const main = document.getElementById("main");
const stage = new Stage(main);
const panel = document.getElementById("panel");

const seat = seats.get("host");
let snap = null;
let link = null;
let gainDb = -8;
// The packs' titles by id (GET /v1/packs), for the settings; null until they came.
let packTitles = null;

/** Music levels of the host view, as gains in dB (−60 is off). */
const MUSIC_LEVELS = [
  ["off", -60],
  ["low", -18],
  ["med", -8],
  ["high", 0],
];

mountLanguagePicker(() => {
  stage.key = null;
  if (snap) render();
  else start();
});

function start() {
  document.documentElement.lang = t("lang");
  if (!seat) {
    stage.show("noseat", () =>
      h(
        "section",
        { class: "stack center" },
        h("h1", {}, t("host.noSession")),
        h("p", { class: "dim" }, t("host.noSessionHelp")),
        h("a", { class: "button primary block", href: "/" }, t("launch.create")),
      ),
    );
    return;
  }
  link = new BoxLink(seat.token, {
    onstatus: (status) => showConnection(status, { retry: () => link.checkNow() }),
    onmessage,
    onend: ({ end, endedReason }) => {
      // The seat is gone: stop drawing the game, keep only why it ended.
      const reason = endedReason ?? snap?.endedReason;
      snap = null;
      seats.clear("host");
      fill(panel);
      stage.show("ended", () => endedScreen(end, reason, { role: "host" }));
    },
  });
  runCountdowns(link.clock);
  setInterval(() => snap && render(), 1000);
  api("GET", "/v1/packs")
    .then((packs) => {
      packTitles = new Map(packs.map((p) => [p.packId, p.title]));
      // The lobby shows the settings: drawn again with the pack's title.
      if (snap && stage.key === "lobby") {
        stage.key = null;
        render();
      }
    })
    .catch(() => {});
}

function onmessage(message) {
  const p = message.payload;
  switch (message.type) {
    case "WELCOME":
      snap = p.projection;
      break;
    case "STATE_SNAPSHOT":
      snap = p;
      break;
    case "MUSIC_GAIN_SET":
    case "MUSIC_SET":
      if (typeof p.gainDb === "number") gainDb = p.gainDb;
      break;
    case "BRAKE_ACCEPTED":
      toast(t("tv.brake", { name: p.playerName }));
      return;
    case "ERROR":
      toast(errorMessage(p));
      return;
    default:
      return;
  }
  render();
}

function send(type, payload = {}) {
  if (!link.send(type, payload)) toast(t("conn.notSent"));
}

/**
 * How long a control that moves the game on ignores taps after its screen appeared and after the
 * last such tap: the screen that follows puts its own button in the same place, and a double tap
 * would otherwise land on it and skip a clue or a followup's results.
 */
const SETTLE_MS = 650;
// The step of the game the host's screen shows (phase, clue, followup), and since when.
let step = "";
let stepSince = 0;
let lastMove = 0;

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
        send(type, payload);
      },
    },
    label,
  );
  if (moves) settle(button, enabled);
  return button;
}

// MARK: the panel under every screen: players, music, pause, end

let panelSignature = "";
function renderPanel() {
  // Rebuilt only when something in it changed, so a tap never lands on a button being replaced.
  const signature = JSON.stringify([snap.players, snap.phase, snap.paused, gainDb, t("lang")]);
  if (signature === panelSignature) return;
  panelSignature = signature;
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
            send("MUSIC_GAIN_SET", { gainDb: db });
            render();
          },
        },
        t(`host.music.${name}`),
      ),
    ),
  );
  fill(
    panel,
    h(
      "div",
      { class: "card stack" },
      h("h2", {}, t("lobby.players", { n: snap.players.length })),
      snap.players.length
        ? peopleList(snap.players, {
            withPoints: true,
            extra: (p) =>
              h(
                "button",
                {
                  class: "danger small",
                  "aria-label": t("host.kickName", { name: p.name }),
                  dataset: { kick: p.playerId },
                  onclick: () => {
                    if (confirm(t("host.kickConfirm", { name: p.name }))) send("HOST_KICK", { playerId: p.playerId });
                  },
                },
                t("host.kick"),
              ),
          })
        : h("p", { class: "dim" }, t("tv.noPlayers")),
      h("h2", {}, t("host.music")),
      music,
      h(
        "div",
        { class: "controls" },
        inGame
          ? snap.paused
            ? control("resume", t("host.resume"), "HOST_RESUME", { kind: "success", moves: false })
            : control("pause", t("host.pause"), "HOST_PAUSE", { moves: false })
          : null,
        h(
          "button",
          {
            class: "danger block",
            id: "end-session",
            onclick: () => {
              if (confirm(t("host.endConfirm"))) send("HOST_END_SESSION");
            },
          },
          t("host.end"),
        ),
      ),
    ),
  );
}

function closestLevel(db) {
  return MUSIC_LEVELS.reduce((best, [, level]) => (Math.abs(level - db) < Math.abs(best - db) ? level : best), 0);
}

// MARK: screens

function render() {
  document.documentElement.lang = t("lang");
  renderPanel();
  const round = snap.round?.index ?? 0;
  const f = snap.followup;
  const nextStep = JSON.stringify([snap.phase, round, snap.clue?.levelIndex, f?.index, f?.isOpen, !!f?.results]);
  if (nextStep !== step) {
    step = nextStep;
    stepSince = performance.now();
  }
  const key = {
    LOBBY: "lobby",
    PREPARING_ROUND: "lobby",
    ROUND_INTRO: `intro:${round}`,
    CLUE_LEVEL: `clue:${round}`,
    PAUSED_FOR_BRAKE: `clue:${round}`,
    // The Next buttons wait while the game is paused, so these screens follow the pause too.
    REVEAL_DESTINATION: `reveal:${round}:${snap.paused}`,
    FOLLOWUP_QUESTION: `followup:${round}:${f?.index}:${f?.isOpen}:${!!f?.results}:${snap.paused}`,
    SCOREBOARD: `score:${round}:${snap.paused}`,
    FINAL_RESULTS: `final:${finaleStep(snap, link.clock) === "standings"}:${snap.paused}`,
    ROUND_END: "final:end",
  }[snap.phase];
  stage.show(key, screenFor(snap.phase));
}

function screenFor(phase) {
  switch (phase) {
    case "LOBBY":
    case "PREPARING_ROUND":
      return lobbyScreen;
    case "ROUND_INTRO":
    case "CLUE_LEVEL":
    case "PAUSED_FOR_BRAKE":
      return roundScreen;
    case "REVEAL_DESTINATION":
      return revealScreen;
    case "FOLLOWUP_QUESTION":
      return followupScreen;
    case "SCOREBOARD":
      return scoreScreen;
    case "FINAL_RESULTS":
    case "ROUND_END":
      return finalScreen;
  }
}

function lobbyScreen() {
  const start = h("button", { class: "success block", id: "start", onclick: () => send("HOST_START_GAME") }, t("host.start"));
  const startHelp = h("p", { class: "help center" });
  const tvStatus = h("p", { id: "tv-status" });
  const base = location.origin;
  const tvLink = seat.tvJoinToken ? `${base}/tv?s=${encodeURIComponent(seat.sessionId)}&k=${encodeURIComponent(seat.tvJoinToken)}` : null;
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
        h("p", { class: "code-input mono", id: "join-code" }, snap.joinCode),
        h("p", { class: "url mono", id: "join-url" }, snap.joinUrl),
      ),
      h(
        "div",
        { class: "card stack" },
        h("h2", {}, t("host.forTv")),
        tvStatus,
        tvLink ? h("p", { class: "url mono", id: "tv-link" }, tvLink) : null,
        h("p", { class: "help" }, t("host.tvHelp", { url: `${base}/tv`, code: snap.joinCode })),
      ),
      h("dl", { class: "kv card" }, settingsList()),
      start,
      startHelp,
    ),
    update() {
      start.disabled = snap.players.length === 0;
      startHelp.textContent = snap.players.length === 0 ? t("host.needPlayer") : "";
      tvStatus.textContent = snap.hasTv ? t("host.tvConnected") : t("host.tvMissing");
      tvStatus.className = snap.hasTv ? "ok" : "dim";
    },
  };
}

function settingsList() {
  const s = snap.settings;
  return [
    [t("create.pack"), packTitles?.get(s.packId) ?? s.packId],
    [t("create.count"), s.destinationsCount],
    [t("host.followups"), s.followupsPerDestination],
    [t("host.followupSeconds"), `${s.followupSeconds} s`],
    [t("host.brakeSeconds"), `${s.brakeAnswerSeconds} s`],
  ].flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, String(v))]);
}

function destinationCard() {
  const d = snap.round?.destination;
  if (!d) return null;
  return h(
    "div",
    { class: "card stack" },
    h("p", { class: "dim" }, t("host.destination", { n: snap.round.index, total: snap.round.total })),
    h("h2", { class: "secret", id: "host-destination" }, d.name, " · ", d.country),
    d.aliases?.length ? h("p", { class: "help" }, t("host.aliases"), " ", d.aliases.join(", ")) : null,
    d.sources?.length
      ? h("details", {}, h("summary", {}, t("host.sources")), h("ul", { class: "sources" }, d.sources.map((s) => h("li", {}, s))))
      : null,
  );
}

function lockedList() {
  if (!snap.lockedAnswers.length) return h("p", { class: "dim" }, t("tv.noneLocked"));
  return h(
    "ul",
    { class: "people", id: "locked" },
    snap.lockedAnswers.map((a) =>
      h(
        "li",
        {},
        h("span", { class: "name" }, nameOf(snap, a.playerId)),
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
      const next = JSON.stringify([snap.phase, snap.clue, snap.brake, brakeTimer(snap), snap.lockedAnswers, snap.paused, snap.players]);
      if (next === signature) return;
      signature = next;
      if (snap.phase === "ROUND_INTRO") {
        fill(
          body,
          h("p", { class: "badge" }, t("intro.title")),
          control("next-clue", t("host.skipIntro"), "HOST_NEXT_CLUE", { kind: "primary", enabled: !snap.paused }),
        );
        return;
      }
      const brake = snap.brake;
      fill(
        body,
        h(
          "div",
          { class: "card stack" },
          h("div", { class: "row" }, h("span", { class: "badge level", id: "level" }, t("game.points", { n: snap.clue?.levelPoints ?? "" })), h("span", { class: "dim" }, t("host.clueOf", { n: snap.clue?.levelIndex ?? "", total: snap.clue?.totalLevels ?? 5 }))),
          h("p", { class: "clue-text" }, snap.clue?.clueText ?? ""),
        ),
        brake
          ? h(
              "div",
              { class: "banner brake-banner row" },
              h("span", { class: "grow" }, t("tv.brake", { name: nameOf(snap, brake.brakeOwnerPlayerId) })),
              secondsLeftOf(brakeTimer(snap), link.clock),
            )
          : null,
        h("div", { class: "card stack" }, h("h2", {}, t("tv.locked")), lockedList()),
        h(
          "div",
          { class: "controls" },
          control("next-clue", snap.clue?.levelPoints === 2 ? t("host.toReveal") : t("host.nextClue"), "HOST_NEXT_CLUE", { kind: "primary", enabled: !snap.paused }),
          control("force-reveal", t("host.forceReveal"), "HOST_FORCE_REVEAL", { kind: "secondary", enabled: !snap.paused }),
        ),
      );
    },
  };
}

function revealScreen() {
  const results = snap.round.results ?? [];
  return h(
    "section",
    { class: "stack" },
    destinationCard(),
    h("p", {}, snap.round.destination?.revealText ?? ""),
    h("div", { class: "card" }, resultsList(snap, results, { empty: t("tv.nobodyAnswered") })),
    control("next", snap.settings.followupsPerDestination > 0 ? t("host.toFollowups") : t("host.toScoreboard"), "HOST_NEXT", {
      kind: "primary",
      enabled: !snap.paused,
    }),
  );
}

function followupScreen() {
  const f = snap.followup;
  const answers = h("ul", { class: "people results", id: "followup-answers" });
  const counter = h("p", { class: "dim" });
  const timer = followedTimer((x) => countdown(x, link.clock));
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
        enabled: !snap.paused,
      }),
    ),
    update() {
      const f = snap.followup;
      if (!f) return;
      timer.set(f.timer);
      const next = JSON.stringify([f, snap.players]);
      if (next === signature) return;
      signature = next;
      counter.textContent = t("tv.answered", { n: f.answeredCount, total: snap.players.length });
      const byPlayer = new Map((f.results ?? f.answers ?? []).map((a) => [a.playerId, a]));
      fill(
        answers,
        snap.players.map((p) => {
          const a = byPlayer.get(p.playerId);
          return h(
            "li",
            {},
            answerMark(f, a),
            h("span", { class: "name" }, p.name),
            h("span", { class: "dim" }, a?.answerText ?? t(f.isOpen ? "host.noAnswerYet" : "host.noAnswer")),
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
  const last = snap.round && snap.round.index >= snap.round.total;
  return h(
    "section",
    { class: "stack" },
    h("h1", {}, t("score.title")),
    h("div", { class: "card" }, standingsList(snap.scoreboard, { label: t("score.title") })),
    control("next", last ? t("host.toFinale") : t("host.nextDestination"), "HOST_NEXT", { kind: "primary", enabled: !snap.paused }),
  );
}

function finalScreen() {
  const results = snap.finalResults;
  return h(
    "section",
    { class: "stack" },
    h("h1", {}, t("final.standings")),
    h("p", {}, results?.isTie ? t("final.tie") : t("final.winnerIs"), " ", h("strong", { id: "winner" }, winnerText(snap))),
    h("div", { class: "card" }, standingsList(results?.standingsFull ?? snap.scoreboard, { label: t("final.standings") })),
    snap.phase === "FINAL_RESULTS" ? control("next", t("host.endFinale"), "HOST_NEXT", { enabled: !snap.paused }) : null,
    control("restart", t("host.restart"), "HOST_RESTART", { kind: "primary" }),
  );
}

start();

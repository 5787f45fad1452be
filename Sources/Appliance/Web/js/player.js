// The player's phone: name entry from the QR link, the lobby, the brake, answers, followups, results.
import { api, seats, eventTime } from "./box.js";
import { t, errorMessage } from "./i18n.js";
import { h, fill, toast, peopleList, standingsList, messageScreen, keepAwake, letSleep, tonightList } from "./ui.js";
import { GamePage, introScreen, revealedDestination, nameOf, countdown, brakeTimer, followedTimer, finaleStep, winnerText, endedScreen, resultsList, nextClueLine } from "./game.js";
import { journeyMap, preloadMap } from "./map.js";

const params = new URLSearchParams(location.search);
const pathSession = decodeURIComponent(location.pathname.match(/^\/join\/([^/]+)/)?.[1] ?? "");

let seat = seats.get("player");
let brakePending = false;
let leaving = false;

const page = new GamePage({
  role: "player",
  redrawMs: 500,
  redraw: start,
  leave: leaveWhileAway,
  parts: [
    { el: document.getElementById("status"), shows: (snap) => [snap.joinCode, snap.you, snap.paused], draw: statusBar },
    { el: document.getElementById("captain"), shows: (snap) => [isCaptain(snap), snap.phase, snap.paused, snap.players.length], draw: captainBar },
    { el: document.getElementById("leave-game"), shows: (snap) => [snap.phase === "LOBBY"], draw: leaveGameButton },
  ],
  screens: {
    lobby: lobbyScreen,
    intro: () => introScreen(page.snap, "stack center", h("p", { class: "dim" }, t("intro.help"))),
    clue: clueScreen,
    answer: answerScreen,
    reveal: revealScreen,
    followup: followupScreen,
    score: scoreScreen,
    final: finalScreen,
  },
  screenFor,
  shown: (keyBefore) => {
    toldIfNotLocked(keyBefore);
    // The screen stays on from the lobby to the game's end; after its finale it may sleep.
    if (page.snap.phase === "ROUND_END") letSleep();
    else keepAwake();
  },
  events: {
    STATE_SNAPSHOT: () => {
      brakePending = false;
    },
    BRAKE_ACCEPTED: (p) => {
      if (p.brakeOwnerPlayerId === seat?.playerId) buzz(BUZZ_ACCEPTED);
    },
    BRAKE_REJECTED: (p) => {
      brakePending = false;
      buzz(BUZZ_REJECTED);
      // not_allowed during a clue: the pull named a clue that has moved on, or this player's own brake
      // ran out on this one (docs/protocol.md).
      toast(t(p.reason === "not_allowed" && page.snap?.phase === "CLUE_LEVEL" ? "brake.rejected.notThisClue" : `brake.rejected.${p.reason}`));
      return true;
    },
    ERROR: (p) => {
      toast(p.code === "INVALID_PHASE" && page.snap?.paused ? t("game.pausedWait") : errorMessage(p));
      // A refused answer can be sent again.
      page.stage.view?.refused?.();
    },
  },
  ended,
});

// MARK: haptics

/** Vibration patterns (ms): one firm pulse for your brake, two short ones for a pull that lost. */
const BUZZ_ACCEPTED = 120;
const BUZZ_REJECTED = [40, 60, 40];
/** A tick in each of the last three seconds of your answer's countdown. */
const BUZZ_TICK = 25;

/** Vibrates where the phone can (`navigator.vibrate`: Chrome for Android; Safari has none). */
function buzz(pattern) {
  navigator.vibrate?.(pattern);
}

// The last seconds of the answer the player is giving (the brake's, a followup's) tick.
let lastTick = null;
setInterval(() => {
  const answering = /^(answer|followup:[^:]*:[^:]*:true)/.test(page.stage.key ?? "");
  const left = answering ? Number(document.querySelector("#main .countdown[data-deadline]")?.textContent) : NaN;
  if (left >= 1 && left <= 3 && left !== lastTick) buzz(BUZZ_TICK);
  lastTick = left;
}, 250);

// MARK: joining

function start() {
  if (seat && (!pathSession || seat.sessionId === pathSession)) {
    connect();
  } else if (pathSession && (params.get("t") || params.get("code"))) {
    page.show("name", nameScreen);
  } else {
    page.show("nolink", () =>
      messageScreen({ title: t("player.noLink"), text: t("player.noLinkHelp"), link: { href: "/", label: t("launch.join") } }),
    );
  }
}

function nameScreen() {
  const input = h("input", {
    type: "text",
    id: "name",
    autocomplete: "nickname",
    enterkeyhint: "go",
    placeholder: t("name.placeholder"),
    "aria-describedby": "name-help",
    value: localStorage.getItem("tripto.lastName") ?? "",
  });
  const counter = h("span", { class: "help", "aria-hidden": "true" });
  const error = h("p", { class: "error-text", role: "alert", id: "name-error" });
  const submit = h("button", { class: "primary block", id: "name-submit", type: "submit" }, t("name.join"));
  const sync = (event) => {
    // The box counts a name's characters as people see them (a family emoji is one), after leading
    // spaces: so does the field, and it never cuts one in half (maxlength would count UTF-16 units),
    // nor a character an input method is still composing (it is cut when the composition ends).
    const characters = graphemes(input.value.trimStart());
    if (characters.length > 20 && !event?.isComposing) input.value = characters.slice(0, 20).join("");
    const name = input.value.trim();
    counter.textContent = `${graphemes(name).length}/20`;
    submit.disabled = name.length === 0;
  };
  input.addEventListener("input", sync);
  input.addEventListener("compositionend", sync);
  sync();
  setTimeout(() => input.focus(), 0);
  return h(
    "form",
    {
      class: "stack",
      onsubmit: async (event) => {
        event.preventDefault();
        const name = input.value.trim();
        if (!name) return;
        submit.disabled = true;
        error.textContent = "";
        const body = { name, role: "PLAYER" };
        if (params.get("t")) body.joinToken = params.get("t");
        else body.joinCode = params.get("code");
        try {
          const joined = await api("POST", `/v1/sessions/${encodeURIComponent(pathSession)}/join`, body);
          localStorage.setItem("tripto.lastName", name);
          seat = { sessionId: joined.sessionId, playerId: joined.playerId, token: joined.playerAuthToken, joinCode: joined.joinCode, answers: {} };
          seats.set("player", seat);
          // The address bar keeps the session but no longer the token.
          history.replaceState(null, "", `/join/${encodeURIComponent(joined.sessionId)}`);
          connect();
        } catch (e) {
          if (e.code === "SESSION_ENDED") return page.show("ended", () => endedScreen("ended", undefined, { role: "player" }));
          // FORBIDDEN on a join: the host kicked this phone from the game (docs/protocol.md, "Devices").
          error.textContent = e.code === "FORBIDDEN" ? t("name.keptOut") : errorMessage(e);
          submit.disabled = false;
          input.focus();
        }
      },
    },
    h("h1", {}, t("name.title")),
    h("label", { for: "name" }, t("name.label")),
    input,
    h("div", { class: "row" }, h("p", { id: "name-help", class: "help grow" }, t("name.help")), counter),
    submit,
    error,
  );
}

/** The characters of a text as people see them (grapheme clusters), as the box counts a name. */
function graphemes(text) {
  if (!("Segmenter" in Intl)) return [...text];
  return [...new Intl.Segmenter().segment(text)].map((s) => s.segment);
}

function connect() {
  page.connect(seat.token);
}

/** The seat is gone: the player may take a new one in the same game, where the page was opened for it. */
function ended(end, reason) {
  letSleep();
  if (leaving) return location.assign("/");
  page.clearParts();
  // Opened from this session's join link (the TV's QR code, scanned again): the player can
  // take a new seat, at once if the box does not know the old one at all.
  const canRejoin = end !== "ended" && seat.sessionId === pathSession && (params.get("t") || params.get("code"));
  if (canRejoin && end === "unknown") return page.show("name", nameScreen);
  page.showEnded(end, reason, canRejoin ? () => page.show("name", nameScreen) : null);
}

/**
 * "Leave" on the connection-lost screen: this phone lets go of its seat (the box keeps it until the
 * host removes it). The box is out of reach, so the page says so itself rather than loading another.
 */
function leaveWhileAway() {
  if (!confirm(t("conn.leaveConfirm"))) return;
  page.dropSeat();
  page.show("left", () =>
    messageScreen({
      id: "left",
      title: t("conn.left"),
      text: t("conn.leftHelp"),
      link: { href: "/", id: "join-another", label: t("ended.another") },
    }),
  );
}

// MARK: screens

/** The brake's owner answers instead of seeing the clue; the finale's lead-in is one screen. */
function screenFor(step) {
  const snap = page.snap;
  const mine = snap.brake && snap.brake.brakeOwnerPlayerId === seat.playerId && !snap.you?.hasLockedAnswer;
  if (step.screen === "clue" && mine) return { screen: "answer", key: `answer:${step.round}:${snap.brake.levelPoints}` };
  if (step.screen === "final") {
    const finale = finaleStep(snap, page.clock);
    return { screen: "final", key: `final:${finale === "lead" || finale === "drumroll"}` };
  }
  return step;
}

/**
 * The brake's time ran out, or the host moved on, before this player's answer was locked: the
 * answer screen is gone, and with it what they typed, so they are told why.
 */
function toldIfNotLocked(keyBefore) {
  const answering = keyBefore?.startsWith("answer:");
  if (answering && !page.stage.key?.startsWith("answer:") && !page.snap.you?.hasLockedAnswer) toast(t("answer.notLocked"));
}

function statusBar(snap) {
  const you = snap.you;
  return [
    h("span", { class: "pill mono", title: t("game.code") }, snap.joinCode),
    you ? h("span", { class: "name", id: "me" }, you.name) : null,
    you ? h("span", { class: "badge", id: "my-score", "aria-label": t("player.scoreLabel", { points: you.points, rank: you.rank }) }, `${you.points} p · #${you.rank}`) : null,
    snap.paused ? h("span", { class: "pill", role: "status" }, t("game.paused")) : null,
  ];
}

/** During a game, a quiet way out (the lobby has its own): the points stay on the scoreboard as "left". */
function leaveGameButton(snap) {
  if (snap.phase === "LOBBY") return [];
  return h(
    "button",
    {
      class: "link-button",
      id: "leave-game-button",
      onclick: () => {
        if (!confirm(t("game.leaveConfirm"))) return;
        leaving = true;
        page.send("PLAYER_LEAVE", {});
      },
    },
    t("game.leave"),
  );
}

/** Whether this phone has the controls of a game without a host (CONTRACT 4.2). */
function isCaptain(snap) {
  return Boolean(seat) && snap.captainPlayerId === seat.playerId && !snap.hasHost;
}

/**
 * The captain's controls, under every screen: in the lobby the QR code for the others, the TV's
 * link and Start; during the game Pause/Resume and End; after the finale Play again and End.
 */
function captainBar(snap) {
  if (!isCaptain(snap)) return [];
  const send = (type) => page.send(type, {});
  const end = h(
    "button",
    {
      class: "danger",
      id: "captain-end",
      onclick: () => {
        if (confirm(t("host.endConfirm"))) send("HOST_END_SESSION");
      },
    },
    t("host.end"),
  );
  if (snap.phase === "LOBBY") {
    const tvLink = seat.tvJoinToken ? `${location.origin}/tv?s=${encodeURIComponent(seat.sessionId)}&k=${encodeURIComponent(seat.tvJoinToken)}` : null;
    return h(
      "div",
      { class: "card stack center" },
      h("h2", {}, t("captain.title")),
      h("p", { class: "help" }, t("captain.help")),
      h("img", { class: "qr", src: `/v1/sessions/${encodeURIComponent(seat.sessionId)}/qr.svg`, alt: t("tv.qrAlt") }),
      h("p", { class: "code-input mono", id: "captain-code" }, snap.joinCode),
      h("p", { class: "url mono", id: "captain-join-url" }, snap.joinUrl),
      tvLink ? h("p", { class: "help" }, t("captain.tv")) : null,
      tvLink ? h("p", { class: "url mono", id: "captain-tv-link" }, tvLink) : null,
      h("button", { class: "success block", id: "captain-start", disabled: snap.players.length === 0, onclick: () => send("HOST_START_GAME") }, t("host.start")),
    );
  }
  const finished = snap.phase === "FINAL_RESULTS" || snap.phase === "ROUND_END";
  return h(
    "div",
    { class: "row captain-bar" },
    finished
      ? h("button", { class: "primary", id: "captain-restart", onclick: () => send("HOST_RESTART") }, t("host.restart"))
      : snap.paused
        ? h("button", { class: "success", id: "captain-resume", onclick: () => send("HOST_RESUME") }, t("host.resume"))
        : h("button", { class: "secondary", id: "captain-pause", onclick: () => send("HOST_PAUSE") }, t("host.pause")),
    end,
  );
}

/** How often a phone in a kiosk's lobby asks for tonight's leaderboard. */
const TONIGHT_MS = 5000;

/**
 * In a kiosk's lobby: tonight's top 10 with this phone's row marked, and its place if it is lower
 * (GET /v1/kiosk/tonight, which knows the phone by its device cookie). Hidden elsewhere.
 */
function tonightCard() {
  const el = h("div", { class: "card", id: "tonight", hidden: true });
  let asking = null;
  const ask = async () => {
    // Only a game that plays itself with no captain can be a kiosk's.
    if (!page.snap?.settings.autoAdvance || page.snap.captainPlayerId) return;
    try {
      const tonight = await api("GET", "/v1/kiosk/tonight");
      if (tonight.sessionId !== seat.sessionId) return;
      const yours = tonight.you && !tonight.top.some((r) => r.you) ? h("p", { class: "dim", id: "tonight-you" }, t("lobby.tonightYou", tonight.you)) : null;
      fill(el, h("h2", {}, t("tv.tonightTitle")), tonight.top.length ? tonightList(tonight.top, { label: t("tv.tonightTitle") }) : h("p", { class: "dim" }, t("tv.tonightEmpty")), yours);
      el.hidden = false;
    } catch (e) {
      // Not a kiosk (404): asked no more. The box busy: the next try.
      if (e.status === 404) clearInterval(asking);
    }
  };
  ask();
  asking = setInterval(() => (el.isConnected ? ask() : clearInterval(asking)), TONIGHT_MS);
  return el;
}

function lobbyScreen() {
  // The reveal's map, fetched while the lobby fills rather than by every phone at once at the reveal.
  preloadMap();
  const list = h("div");
  const count = h("h2");
  const waiting = h("p", { class: "dim center", "aria-live": "polite" });
  const leave = h(
    "button",
    {
      class: "danger block",
      id: "leave",
      onclick: () => {
        if (!confirm(t("lobby.leaveConfirm"))) return;
        leaving = true;
        page.send("PLAYER_LEAVE", {});
      },
    },
    t("lobby.leave"),
  );
  return {
    el: h(
      "section",
      { class: "stack" },
      h("h1", {}, t("lobby.title")),
      h("p", { class: "row" }, h("span", { class: "dot on", "aria-hidden": "true" }), t("lobby.connected")),
      h("div", { class: "card" }, count, list),
      waiting,
      tonightCard(),
      leave,
    ),
    update() {
      count.textContent = t("lobby.players", { n: page.snap.players.length });
      // A captain's game starts when the captain says; a kiosk's (autoAdvance, no host) by itself.
      const captain = !page.snap.hasHost && page.snap.captainPlayerId;
      waiting.textContent = captain
        ? isCaptain(page.snap)
          ? t("lobby.captainYou")
          : t("lobby.captainWaits", { name: nameOf(page.snap, captain) })
        : !page.snap.hasHost && page.snap.settings.autoAdvance
          ? t("lobby.autoStart")
          : t("lobby.waiting");
      const me = page.snap.players.filter((p) => p.playerId === seat.playerId);
      const others = page.snap.players.filter((p) => p.playerId !== seat.playerId);
      fill(list, peopleList([...me, ...others], { me: seat.playerId }));
    },
  };
}

function brakeState() {
  const you = page.snap.you;
  if (you?.hasLockedAnswer) {
    const locked = page.snap.lockedAnswers.find((a) => a.playerId === seat.playerId);
    return { enabled: false, reason: t("brake.youLocked", { points: locked?.lockedAtLevelPoints ?? "" }) };
  }
  if (page.snap.paused) return { enabled: false, reason: t("brake.paused") };
  if (page.snap.brake) return { enabled: false, reason: t("brake.taken", { name: nameOf(page.snap, page.snap.brake.brakeOwnerPlayerId) }) };
  if (page.snap.phase !== "CLUE_LEVEL") return { enabled: false, reason: t("brake.notNow") };
  return { enabled: true, reason: "" };
}

function clueScreen() {
  const next = nextClueLine(page.clock);
  const badge = h("span", { class: "badge level" });
  const text = h("p", { class: "clue-text", id: "clue" });
  const reason = h("p", { class: "center dim", id: "brake-reason", "aria-live": "polite" });
  const mine = h("p", { class: "center", id: "my-answer" });
  // The box judges a pull by when it was pressed (CONTRACT 4.1): it goes when the finger comes down,
  // stamped with that moment on the clock the box's probes measure. Waiting for the click would send
  // it as late as the finger stayed down, after the box may have decided. A click with no pointer
  // before it (the keyboard, a switch, a screen reader) pulls at its own moment.
  const pull = (event) => {
    if (brakePending || button.disabled) return;
    brakePending = true;
    button.disabled = true;
    page.send("BRAKE_PULL", { atClientMs: eventTime(event), levelPoints: page.snap.clue?.levelPoints });
    setTimeout(() => (brakePending = false), 1500);
  };
  const button = h(
    "button",
    {
      class: "brake",
      id: "brake",
      onpointerdown: (event) => {
        if (event.isPrimary && event.button === 0) pull(event);
      },
      onclick: pull,
    },
    t("brake.pull"),
  );
  return {
    el: h(
      "section",
      { class: "stack" },
      h("div", { class: "row" }, badge, h("span", { class: "dim" }, t("game.destinationOf", { n: page.snap.round.index, total: page.snap.round.total }))),
      text,
      next.el,
      button,
      reason,
      mine,
    ),
    update() {
      next.set(page.snap);
      badge.textContent = t("game.points", { n: page.snap.clue?.levelPoints ?? "" });
      text.textContent = page.snap.clue?.clueText ?? "";
      const state = brakeState();
      button.disabled = !state.enabled || brakePending;
      button.textContent = state.enabled ? t("brake.pull") : t("brake.pulled");
      button.setAttribute("aria-describedby", "brake-reason");
      reason.textContent = state.reason;
      const answer = seat.answers?.[page.snap.round.index];
      mine.textContent = page.snap.you?.hasLockedAnswer && answer ? t("player.yourAnswer", { answer }) : "";
    },
  };
}

function answerScreen() {
  const input = h("input", { type: "text", id: "answer", maxlength: 100, autocomplete: "off", enterkeyhint: "send", placeholder: t("answer.placeholder") });
  const submit = h("button", { class: "primary block", id: "answer-submit", type: "submit" }, t("answer.lock"));
  const note = h("p", { class: "dim", id: "answer-note", "aria-live": "polite" });
  const timer = followedTimer((x) => countdown(x, page.clock));
  // An answer on its way: the button waits for the box, which locks it (this screen then goes) or
  // refuses it (ERROR: it can be sent again). Lost on a dying connection, it can be sent again after 4 s.
  let waiting = false;
  let waitTimer = 0;
  const settle = () => {
    waiting = false;
    clearTimeout(waitTimer);
    // Only while this screen is up: the lock (or the session's end) may have replaced it.
    if (page.stage.view === view && page.snap) view.update();
  };
  setTimeout(() => input.focus(), 0);
  const view = {
    el: h(
      "form",
      {
        class: "stack",
        role: "dialog",
        "aria-labelledby": "answer-title",
        onsubmit: (event) => {
          event.preventDefault();
          const answerText = input.value.trim();
          if (!answerText) return input.focus();
          if (waiting || page.snap.paused) return;
          seat.answers = { ...(seat.answers ?? {}), [page.snap.round.index]: answerText };
          seats.set("player", seat);
          if (!page.send("BRAKE_ANSWER_SUBMIT", { answerText })) return;
          waiting = true;
          waitTimer = setTimeout(settle, 4000);
          view.update();
        },
      },
      h("h1", { id: "answer-title" }, t("answer.title", { points: page.snap.brake.levelPoints })),
      h("p", { class: "clue-text" }, page.snap.clue?.clueText ?? ""),
      h("label", { for: "answer" }, t("answer.label")),
      input,
      timer.el,
      submit,
      note,
    ),
    update() {
      timer.set(brakeTimer(page.snap));
      submit.disabled = waiting || page.snap.paused;
      note.textContent = page.snap.paused ? t("game.pausedWait") : "";
    },
    refused: settle,
  };
  return view;
}

function revealScreen() {
  const d = page.snap.round.destination;
  const result = page.snap.round.results?.find((r) => r.playerId === seat.playerId);
  let verdict;
  if (!result) verdict = h("p", { class: "dim" }, t("reveal.noAnswer"));
  else if (result.isCorrect) verdict = h("p", { class: "ok" }, t("reveal.right", { points: result.pointsAwarded }));
  else verdict = h("p", { class: "bad" }, t("reveal.wrong", { answer: result.answerText }));
  // A small map of where the train arrived (the TV shows the big one).
  let map = null;
  if (d?.lat != null) {
    map = journeyMap({ label: t("tv.mapLabel"), scale: 0.55 });
    const journey = page.snap.journey ?? [];
    map.arrive({ lat: d.lat, lon: d.lon, name: d.name }, { from: journey.length > 1 ? journey[journey.length - 2] : null, animate: true });
  }
  return h(
    "section",
    { class: "stack center" },
    revealedDestination(d),
    map ? h("div", { class: "phone-map", id: "map" }, map.el) : null,
    h("div", { class: "card", id: "verdict" }, verdict),
    h("div", { class: "card" }, resultsList(page.snap, page.snap.round.results, { me: seat.playerId, empty: t("tv.nobodyAnswered") })),
  );
}

function followupScreen() {
  const f = page.snap.followup;
  const head = [
    h("p", { class: "badge" }, t("followup.count", { n: f.index, total: f.total })),
    h("h1", { id: "question" }, f.questionText),
  ];
  if (f.results) {
    const mine = f.results.find((r) => r.playerId === seat.playerId);
    return h(
      "section",
      { class: "stack" },
      head,
      h("p", {}, t("followup.correct"), " ", h("strong", { id: "correct" }, f.correctAnswer ?? "")),
      h(
        "div",
        { class: "card", id: "verdict" },
        !mine?.answerText
          ? h("p", { class: "dim" }, t("followup.noAnswer"))
          : mine.isCorrect
            ? h("p", { class: "ok" }, t("followup.right", { points: mine.pointsAwarded }))
            : h("p", { class: "bad" }, t("followup.wrong", { answer: mine.answerText })),
      ),
    );
  }
  if (!f.isOpen) {
    return h("section", { class: "stack" }, head, h("p", { class: "dim", "aria-live": "polite" }, t("followup.closed")));
  }
  const saved = h("p", { class: "dim", id: "saved", "aria-live": "polite" });
  let controls;
  let optionButtons = [];
  if (f.options?.length) {
    optionButtons = f.options.map((option) =>
      h(
        "button",
        { class: "block", dataset: { option }, onclick: () => page.send("FOLLOWUP_ANSWER_SUBMIT", { index: f.index, answerText: option }) },
        option,
      ),
    );
    controls = h("div", { class: "options", role: "group", "aria-label": t("followup.options") }, optionButtons);
  } else {
    const input = h("input", { type: "text", id: "followup-answer", maxlength: 100, autocomplete: "off", enterkeyhint: "send", placeholder: t("answer.placeholder") });
    controls = h(
      "form",
      {
        class: "stack",
        onsubmit: (event) => {
          event.preventDefault();
          const answerText = input.value.trim();
          if (answerText) page.send("FOLLOWUP_ANSWER_SUBMIT", { index: f.index, answerText });
        },
      },
      h("label", { for: "followup-answer" }, t("answer.label")),
      input,
      h("button", { class: "primary block", id: "followup-submit", type: "submit" }, t("followup.send")),
    );
  }
  const timer = followedTimer((x) => countdown(x, page.clock));
  return {
    el: h("section", { class: "stack" }, head, timer.el, controls, saved),
    update() {
      timer.set(page.snap.followup?.timer);
      const answer = page.snap.you?.followupAnswer;
      saved.textContent = answer ? t("followup.saved", { answer }) : "";
      for (const b of optionButtons) {
        const chosen = b.dataset.option === answer;
        b.classList.toggle("chosen", chosen);
        b.setAttribute("aria-pressed", String(chosen));
      }
    },
  };
}

function scoreScreen() {
  return h(
    "section",
    { class: "stack" },
    h("h1", {}, t("score.title")),
    page.snap.you ? h("p", { class: "badge" }, t("score.you", { rank: page.snap.you.rank, points: page.snap.you.points })) : null,
    h("div", { class: "card" }, standingsList(page.snap.scoreboard, { me: seat.playerId, label: t("score.title") })),
    h("p", { class: "dim center" }, page.snap.round && page.snap.round.index < page.snap.round.total ? t("score.next") : t("score.last")),
  );
}

function finalScreen() {
  const step = finaleStep(page.snap, page.clock);
  if (step === "lead" || step === "drumroll") {
    return h("section", { class: "stack center" }, h("h1", {}, t("final.lead")));
  }
  const results = page.snap.finalResults;
  const mine = results?.standingsFull.find((s) => s.playerId === seat.playerId);
  const iWon = results && (results.isTie ? results.tieWinners.includes(seat.playerId) : results.winnerPlayerId === seat.playerId);
  return h(
    "section",
    { class: "stack center" },
    h("p", { class: "dim" }, results?.isTie ? t("final.tie") : t("final.winnerIs")),
    h("h1", { id: "winner" }, winnerText(page.snap)),
    iWon ? h("p", { class: "ok" }, t("final.youWon")) : mine ? h("p", {}, t("score.you", { rank: page.snap.you?.rank ?? "", points: mine.points })) : null,
    h("div", { class: "card" }, standingsList(results?.standingsFull ?? page.snap.scoreboard, { me: seat.playerId, label: t("score.title") })),
    h("p", {}, t("final.thanks")),
  );
}

start();

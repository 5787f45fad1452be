// The player's phone: name entry from the QR link, the lobby, the brake, answers, followups, results.
import { api, seats, BoxLink, runCountdowns } from "./box.js";
import { t, errorMessage, mountLanguagePicker } from "./i18n.js";
import { h, fill, overlay, Stage, toast, peopleList, standingsList, keepAwake } from "./ui.js";
import { nameOf, countdown, brakeTimer, followedTimer, finaleStep, winnerText, showConnection, endedScreen, resultsList } from "./game.js";

const main = document.getElementById("main");
const header = document.getElementById("status");
const stage = new Stage(main);
const params = new URLSearchParams(location.search);
const pathSession = decodeURIComponent(location.pathname.match(/^\/join\/([^/]+)/)?.[1] ?? "");

let seat = seats.get("player");
let snap = null;
let link = null;
let brakePending = false;
let leaving = false;
let ticking = false;

mountLanguagePicker(() => {
  stage.key = null;
  refresh();
});

function refresh() {
  document.documentElement.lang = t("lang");
  headerSignature = "";
  if (snap) render();
  else if (!link) start();
}

// MARK: joining

function start() {
  if (seat && (!pathSession || seat.sessionId === pathSession)) {
    connect();
  } else if (pathSession && (params.get("t") || params.get("code"))) {
    stage.show("name", nameScreen);
  } else {
    stage.show("nolink", () =>
      h(
        "section",
        { class: "stack center" },
        h("h1", {}, t("player.noLink")),
        h("p", { class: "dim" }, t("player.noLinkHelp")),
        h("a", { class: "button primary block", href: "/" }, t("launch.join")),
      ),
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
          if (e.code === "SESSION_ENDED") return stage.show("ended", () => endedScreen("ended", undefined, { role: "player" }));
          error.textContent = errorMessage(e);
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
  keepAwake();
  link = new BoxLink(seat.token, {
    onstatus: (status) => showConnection(status, { retry: () => link.checkNow(), leave: leaveWhileAway }),
    onmessage,
    onend: ({ end, endedReason }) => {
      // The seat is gone: stop drawing the game, keep only why it ended.
      const reason = endedReason ?? snap?.endedReason;
      const sessionId = seat.sessionId;
      snap = null;
      seats.clear("player");
      if (leaving) return location.assign("/");
      fill(header);
      headerSignature = "";
      // Opened from this session's join link (the TV's QR code, scanned again): the player can
      // take a new seat, at once if the box does not know the old one at all.
      const canRejoin = end !== "ended" && sessionId === pathSession && (params.get("t") || params.get("code"));
      if (canRejoin && end === "unknown") return stage.show("name", nameScreen);
      const rejoin = canRejoin ? () => stage.show("name", nameScreen) : null;
      stage.show("ended", () => endedScreen(end, reason, { rejoin, role: "player" }));
    },
  });
  // Once per page: a player who takes a new seat connects again, with a new link.
  if (ticking) return;
  ticking = true;
  runCountdowns({ now: () => link.clock.now() });
  setInterval(() => snap && render(), 500);
}

/**
 * "Leave" on the connection-lost screen: this phone lets go of its seat (the box keeps it until the
 * host removes it). The box is out of reach, so the page says so itself rather than loading another.
 */
function leaveWhileAway() {
  if (!confirm(t("conn.leaveConfirm"))) return;
  link.stop();
  seats.clear("player");
  snap = null;
  overlay("connection", null);
  fill(header);
  headerSignature = "";
  stage.show("left", () =>
    h(
      "section",
      { class: "stack center", id: "left" },
      h("h1", {}, t("conn.left")),
      h("p", { class: "dim" }, t("conn.leftHelp")),
      h("a", { class: "button primary block", href: "/", id: "join-another" }, t("ended.another")),
    ),
  );
}

function onmessage(message) {
  const p = message.payload;
  switch (message.type) {
    case "WELCOME":
      snap = p.projection;
      break;
    case "STATE_SNAPSHOT":
      snap = p;
      brakePending = false;
      break;
    case "BRAKE_REJECTED":
      brakePending = false;
      // not_allowed during a clue: the pull named a clue that has moved on, or this player's own brake
      // ran out on this one (docs/protocol.md).
      toast(t(p.reason === "not_allowed" && snap?.phase === "CLUE_LEVEL" ? "brake.rejected.notThisClue" : `brake.rejected.${p.reason}`));
      break;
    case "ERROR":
      toast(p.code === "INVALID_PHASE" && snap?.paused ? t("game.pausedWait") : errorMessage(p));
      // A refused answer can be sent again.
      stage.view?.refused?.();
      return;
    default:
      return;
  }
  render();
}

/** Whether it went out; if not, the player is told. */
function send(type, payload) {
  if (link.send(type, payload)) return true;
  toast(t("conn.notSent"));
  return false;
}

// MARK: screens

function render() {
  renderHeader();
  const answering = stage.key?.startsWith("answer:");
  show();
  // The brake's time ran out, or the host moved on, before this player's answer was locked: the
  // answer screen is gone, and with it what they typed, so they are told why.
  if (answering && !stage.key?.startsWith("answer:") && !snap.you?.hasLockedAnswer) toast(t("answer.notLocked"));
}

function show() {
  const round = snap.round?.index ?? 0;
  switch (snap.phase) {
    case "LOBBY":
    case "PREPARING_ROUND":
      return stage.show("lobby", lobbyScreen);
    case "ROUND_INTRO":
      return stage.show(`intro:${round}`, introScreen);
    case "CLUE_LEVEL":
    case "PAUSED_FOR_BRAKE": {
      const mine = snap.brake && snap.brake.brakeOwnerPlayerId === seat.playerId && !snap.you?.hasLockedAnswer;
      if (mine) return stage.show(`answer:${round}:${snap.brake.levelPoints}`, answerScreen);
      return stage.show(`clue:${round}:${snap.clue?.levelIndex}`, clueScreen);
    }
    case "REVEAL_DESTINATION":
      return stage.show(`reveal:${round}`, revealScreen);
    case "FOLLOWUP_QUESTION": {
      const f = snap.followup;
      return stage.show(`followup:${round}:${f?.index}:${f?.isOpen}:${!!f?.results}`, followupScreen);
    }
    case "SCOREBOARD":
      return stage.show(`score:${round}`, scoreScreen);
    case "FINAL_RESULTS":
    case "ROUND_END":
      return stage.show(`final:${finaleStep(snap, link.clock) === "lead" || finaleStep(snap, link.clock) === "drumroll"}`, finalScreen);
  }
}

let headerSignature = "";
function renderHeader() {
  const you = snap.you;
  const signature = JSON.stringify([snap.joinCode, you, snap.paused]);
  if (signature === headerSignature) return;
  headerSignature = signature;
  fill(
    header,
    h("span", { class: "pill mono", title: t("game.code") }, snap.joinCode),
    you ? h("span", { class: "name", id: "me" }, you.name) : null,
    you ? h("span", { class: "badge", id: "my-score", "aria-label": t("player.scoreLabel", { points: you.points, rank: you.rank }) }, `${you.points} p · #${you.rank}`) : null,
    snap.paused ? h("span", { class: "pill", role: "status" }, t("game.paused")) : null,
  );
}

function lobbyScreen() {
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
        send("PLAYER_LEAVE", {});
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
      leave,
    ),
    update() {
      count.textContent = t("lobby.players", { n: snap.players.length });
      // A kiosk's game (autoAdvance, no host) starts by itself.
      waiting.textContent = !snap.hasHost && snap.settings.autoAdvance ? t("lobby.autoStart") : t("lobby.waiting");
      const me = snap.players.filter((p) => p.playerId === seat.playerId);
      const others = snap.players.filter((p) => p.playerId !== seat.playerId);
      fill(list, peopleList([...me, ...others], { me: seat.playerId }));
    },
  };
}

function introScreen() {
  return h(
    "section",
    { class: "stack center" },
    h("p", { class: "badge" }, t("game.destinationOf", { n: snap.round.index, total: snap.round.total })),
    h("h1", {}, t("intro.title")),
    h("p", { class: "dim" }, t("intro.help")),
  );
}

function brakeState() {
  const you = snap.you;
  if (you?.hasLockedAnswer) {
    const locked = snap.lockedAnswers.find((a) => a.playerId === seat.playerId);
    return { enabled: false, reason: t("brake.youLocked", { points: locked?.lockedAtLevelPoints ?? "" }) };
  }
  if (snap.paused) return { enabled: false, reason: t("brake.paused") };
  if (snap.brake) return { enabled: false, reason: t("brake.taken", { name: nameOf(snap, snap.brake.brakeOwnerPlayerId) }) };
  if (snap.phase !== "CLUE_LEVEL") return { enabled: false, reason: t("brake.notNow") };
  return { enabled: true, reason: "" };
}

function clueScreen() {
  const badge = h("span", { class: "badge level" });
  const text = h("p", { class: "clue-text", id: "clue" });
  const reason = h("p", { class: "center dim", id: "brake-reason", "aria-live": "polite" });
  const mine = h("p", { class: "center", id: "my-answer" });
  const button = h(
    "button",
    {
      class: "brake",
      id: "brake",
      onclick: () => {
        if (brakePending) return;
        brakePending = true;
        button.disabled = true;
        send("BRAKE_PULL", { atClientMs: Date.now(), levelPoints: snap.clue?.levelPoints });
        setTimeout(() => (brakePending = false), 1500);
      },
    },
    t("brake.pull"),
  );
  return {
    el: h(
      "section",
      { class: "stack" },
      h("div", { class: "row" }, badge, h("span", { class: "dim" }, t("game.destinationOf", { n: snap.round.index, total: snap.round.total }))),
      text,
      button,
      reason,
      mine,
    ),
    update() {
      badge.textContent = t("game.points", { n: snap.clue?.levelPoints ?? "" });
      text.textContent = snap.clue?.clueText ?? "";
      const state = brakeState();
      button.disabled = !state.enabled || brakePending;
      button.textContent = state.enabled ? t("brake.pull") : t("brake.pulled");
      button.setAttribute("aria-describedby", "brake-reason");
      reason.textContent = state.reason;
      const answer = seat.answers?.[snap.round.index];
      mine.textContent = snap.you?.hasLockedAnswer && answer ? t("player.yourAnswer", { answer }) : "";
    },
  };
}

function answerScreen() {
  const input = h("input", { type: "text", id: "answer", maxlength: 100, autocomplete: "off", enterkeyhint: "send", placeholder: t("answer.placeholder") });
  const submit = h("button", { class: "primary block", id: "answer-submit", type: "submit" }, t("answer.lock"));
  const note = h("p", { class: "dim", id: "answer-note", "aria-live": "polite" });
  const timer = followedTimer((x) => countdown(x, link.clock));
  // An answer on its way: the button waits for the box, which locks it (this screen then goes) or
  // refuses it (ERROR: it can be sent again). Lost on a dying connection, it can be sent again after 4 s.
  let waiting = false;
  let waitTimer = 0;
  const settle = () => {
    waiting = false;
    clearTimeout(waitTimer);
    // Only while this screen is up: the lock (or the session's end) may have replaced it.
    if (stage.view === view && snap) view.update();
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
          if (waiting || snap.paused) return;
          seat.answers = { ...(seat.answers ?? {}), [snap.round.index]: answerText };
          seats.set("player", seat);
          if (!send("BRAKE_ANSWER_SUBMIT", { answerText })) return;
          waiting = true;
          waitTimer = setTimeout(settle, 4000);
          view.update();
        },
      },
      h("h1", { id: "answer-title" }, t("answer.title", { points: snap.brake.levelPoints })),
      h("p", { class: "clue-text" }, snap.clue?.clueText ?? ""),
      h("label", { for: "answer" }, t("answer.label")),
      input,
      timer.el,
      submit,
      note,
    ),
    update() {
      timer.set(brakeTimer(snap));
      submit.disabled = waiting || snap.paused;
      note.textContent = snap.paused ? t("game.pausedWait") : "";
    },
    refused: settle,
  };
  return view;
}

function revealScreen() {
  const d = snap.round.destination;
  const result = snap.round.results?.find((r) => r.playerId === seat.playerId);
  let verdict;
  if (!result) verdict = h("p", { class: "dim" }, t("reveal.noAnswer"));
  else if (result.isCorrect) verdict = h("p", { class: "ok" }, t("reveal.right", { points: result.pointsAwarded }));
  else verdict = h("p", { class: "bad" }, t("reveal.wrong", { answer: result.answerText }));
  return h(
    "section",
    { class: "stack center" },
    h("p", { class: "dim" }, t("reveal.lead")),
    h("h1", { id: "destination" }, d?.name ?? ""),
    h("p", { class: "dim" }, d?.country ?? ""),
    h("p", {}, d?.revealText ?? ""),
    h("div", { class: "card", id: "verdict" }, verdict),
    h("div", { class: "card" }, resultsList(snap, snap.round.results, { me: seat.playerId, empty: t("tv.nobodyAnswered") })),
  );
}

function followupScreen() {
  const f = snap.followup;
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
        { class: "block", dataset: { option }, onclick: () => send("FOLLOWUP_ANSWER_SUBMIT", { index: f.index, answerText: option }) },
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
          if (answerText) send("FOLLOWUP_ANSWER_SUBMIT", { index: f.index, answerText });
        },
      },
      h("label", { for: "followup-answer" }, t("answer.label")),
      input,
      h("button", { class: "primary block", id: "followup-submit", type: "submit" }, t("followup.send")),
    );
  }
  const timer = followedTimer((x) => countdown(x, link.clock));
  return {
    el: h("section", { class: "stack" }, head, timer.el, controls, saved),
    update() {
      timer.set(snap.followup?.timer);
      const answer = snap.you?.followupAnswer;
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
    snap.you ? h("p", { class: "badge" }, t("score.you", { rank: snap.you.rank, points: snap.you.points })) : null,
    h("div", { class: "card" }, standingsList(snap.scoreboard, { me: seat.playerId, label: t("score.title") })),
    h("p", { class: "dim center" }, snap.round && snap.round.index < snap.round.total ? t("score.next") : t("score.last")),
  );
}

function finalScreen() {
  const step = finaleStep(snap, link.clock);
  if (step === "lead" || step === "drumroll") {
    return h("section", { class: "stack center" }, h("h1", {}, t("final.lead")));
  }
  const results = snap.finalResults;
  const mine = results?.standingsFull.find((s) => s.playerId === seat.playerId);
  const iWon = results && (results.isTie ? results.tieWinners.includes(seat.playerId) : results.winnerPlayerId === seat.playerId);
  return h(
    "section",
    { class: "stack center" },
    h("p", { class: "dim" }, results?.isTie ? t("final.tie") : t("final.winnerIs")),
    h("h1", { id: "winner" }, winnerText(snap)),
    iWon ? h("p", { class: "ok" }, t("final.youWon")) : mine ? h("p", {}, t("score.you", { rank: snap.you?.rank ?? "", points: mine.points })) : null,
    h("div", { class: "card" }, standingsList(results?.standingsFull ?? snap.scoreboard, { me: seat.playerId, label: t("score.title") })),
    h("p", {}, t("final.thanks")),
  );
}

start();

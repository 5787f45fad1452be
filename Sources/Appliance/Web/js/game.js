// What the player, TV and host pages share about a game in progress: the page skeleton (GamePage),
// names, timers, the finale's timeline and the connection overlays.
import { seats, BoxLink, runCountdowns } from "./box.js";
import { t, errorMessage, mountLanguagePicker } from "./i18n.js";
import { h, fill, overlay, toast, Stage } from "./ui.js";

export function nameOf(snap, playerId) {
  return (
    snap.players.find((p) => p.playerId === playerId)?.name ??
    snap.scoreboard.find((s) => s.playerId === playerId)?.name ??
    "?"
  );
}

/** The deadline of a timer, or its frozen remainder while the host has paused. */
export function timerParts(timer) {
  if (!timer) return null;
  if (timer.remainingMs !== undefined && timer.remainingMs !== null) {
    return { paused: true, remainingMs: timer.remainingMs, durationMs: timer.durationMs };
  }
  return { paused: false, end: timer.startAtServerMs + timer.durationMs, durationMs: timer.durationMs };
}

/** The brake answer's timer: frozen (`remainingMs`) while the host has paused. */
export function brakeTimer(snap) {
  return snap.brake ? (snap.timers.find((x) => x.phase === "PAUSED_FOR_BRAKE") ?? null) : null;
}

/** A game that plays itself (`autoAdvance`): the clue's own timer, until the next clue or the reveal. */
export function clueTimer(snap) {
  return snap.settings.autoAdvance ? (snap.timers.find((x) => x.phase === "CLUE_LEVEL") ?? null) : null;
}

/**
 * "Next clue in 12 s" (at 2 points: "The answer in 12 s") under a clue of a game that plays itself,
 * following its timer; empty in a game a host moves on.
 */
export function nextClueLine(clock) {
  const line = followedTimer(
    (x) =>
      x && h("p", { class: "dim next-clue", id: "next-clue" }, t(x.levelPoints === 2 ? "game.revealIn" : "game.nextClueIn"), " ", secondsLeftOf(x, clock), " s"),
    "div",
  );
  return {
    el: line.el,
    set(snap) {
      const timer = clueTimer(snap);
      line.set(timer && { ...timer, levelPoints: snap.clue?.levelPoints });
    },
  };
}

/** The seconds left, counting down; frozen while paused. */
export function secondsLeftOf(timer, clock) {
  const parts = timerParts(timer);
  if (!parts) return null;
  return parts.paused
    ? h("span", { class: "countdown" }, Math.ceil(parts.remainingMs / 1000))
    : h("span", { class: "countdown", dataset: { deadline: parts.end } }, Math.max(0, Math.ceil((parts.end - clock.now()) / 1000)));
}

/**
 * A place on a screen for a timer's countdown that follows the timer as the box moves it (a pause
 * freezes it, a resume moves its start on): `set(timer)` redraws it with `draw(timer)` only when the
 * timer changed, so the rest of the screen, and what a player is typing, stays.
 */
export function followedTimer(draw, tag = "div") {
  const el = h(tag);
  let signature;
  return {
    el,
    set(timer) {
      const next = JSON.stringify(timerParts(timer));
      if (next === signature) return;
      signature = next;
      fill(el, draw(timer));
    },
  };
}

/** "12" counting down, plus a shrinking bar; frozen while paused. */
export function countdown(timer, clock, { bar = true, label } = {}) {
  const parts = timerParts(timer);
  if (!parts) return null;
  const seconds = secondsLeftOf(timer, clock);
  const fillEl = h("div");
  if (parts.paused) fillEl.style.width = `${(100 * parts.remainingMs) / parts.durationMs}%`;
  else Object.assign(fillEl.dataset, { barEnd: parts.end, barTotal: parts.durationMs });
  return h(
    "div",
    { class: "stack", role: "timer", "aria-label": label ?? t("game.timeLeft") },
    h("div", { class: "row" }, h("span", { class: "dim" }, t("game.timeLeft")), seconds, h("span", { class: "dim" }, "s")),
    bar ? h("div", { class: "timerbar", "aria-hidden": "true" }, fillEl) : null,
  );
}

/** The round's intro: which destination this is, and the train about to leave; `more` under it. */
export function introScreen(snap, className, more) {
  return h(
    "section",
    { class: className },
    h("p", { class: "badge" }, t("game.destinationOf", { n: snap.round.index, total: snap.round.total })),
    h("h1", {}, t("intro.title")),
    more,
  );
}

/** The destination revealed: "We are in…", its name and country, and what the pack tells about it. */
export function revealedDestination(d, { countryTag = "p", textClass } = {}) {
  return [
    h("p", { class: "dim" }, t("reveal.lead")),
    h("h1", { id: "destination" }, d?.name ?? ""),
    h(countryTag, { class: "dim" }, d?.country ?? ""),
    h("p", { class: textClass }, d?.revealText ?? ""),
  ];
}

/**
 * Where the finale is on the blueprint's timeline (section 12.7), counted from the finale timer's
 * start: "lead" until 0.8 s, "drumroll" until 3.2 s, "winner" until 7 s, then "standings".
 */
export function finaleStep(snap, clock) {
  if (snap.phase !== "FINAL_RESULTS") return "standings";
  const timer = snap.timers.find((x) => x.phase === "FINAL_RESULTS");
  if (!timer) return "standings";
  const elapsed = timer.remainingMs != null ? timer.durationMs - timer.remainingMs : clock.now() - timer.startAtServerMs;
  if (elapsed < 800) return "lead";
  if (elapsed < 3200) return "drumroll";
  if (elapsed < 7000) return "winner";
  return "standings";
}

export function winnerText(snap) {
  const results = snap.finalResults;
  if (!results || !results.standingsFull.length) return t("final.noPlayers");
  if (results.isTie) return results.tieWinners.map((id) => nameOf(snap, id)).join(" & ");
  return nameOf(snap, results.winnerPlayerId);
}

/**
 * Scored answers (a destination's or a followup's): right or wrong, who, what they answered, points.
 * `empty` is shown when there are none.
 */
export function resultsList(snap, results, { me, empty } = {}) {
  if (!results?.length) return empty ? h("p", { class: "dim" }, empty) : null;
  return h(
    "ul",
    { class: "people results" },
    results.map((r) =>
      h(
        "li",
        { class: r.playerId === me ? "me" : "" },
        h("span", { class: r.isCorrect ? "ok" : "bad", "aria-label": t(r.isCorrect ? "common.right" : "common.wrong") }, r.isCorrect ? "✓" : "✗"),
        h("span", { class: "name" }, nameOf(snap, r.playerId)),
        h("span", { class: "dim" }, r.answerText ?? "–"),
        h("span", { class: "points" }, `+${r.pointsAwarded}`),
      ),
    ),
  );
}

/**
 * The connection overlay every game page shows while its socket is down. `retry` tries again at
 * once (the page keeps trying by itself, more slowly); `leave`, where given, lets the player go.
 */
export function showConnection(status, { retry, leave } = {}) {
  if (status === "open") {
    overlay("connection", null);
    return;
  }
  // "elsewhere": the seat is open in other tabs, which took this one's place; it waits for Retry.
  const elsewhere = status === "elsewhere";
  const key = elsewhere ? "conn.elsewhere" : status === "lost" ? "conn.lost" : "conn.connecting";
  overlay(
    "connection",
    h(
      "div",
      { class: "card stack", "aria-live": "assertive" },
      elsewhere ? null : h("div", { class: "spinner", "aria-hidden": "true" }),
      h("h2", {}, t(key)),
      h("p", { class: "dim" }, t(`${key}Help`)),
      retry
        ? h("button", { class: "primary block", id: "conn-retry", onclick: retry }, t(elsewhere ? "conn.useHere" : "conn.retry"))
        : null,
      leave ? h("button", { class: "danger block", id: "conn-leave", onclick: leave }, t("lobby.leave")) : null,
    ),
  );
}

/** Where each role goes from the ended screen: a player to the code entry, the TV to a new game on this TV. */
const AFTER_THE_END = {
  player: ["/?join", "ended.another"],
  host: ["/", "ended.home"],
  tv: ["/tv", "ended.newOnTv"],
};

/**
 * The screen after the seat is gone, by how it ended (BoxLink's `end`): "ended" the session ended,
 * "revoked" this seat was taken away (kicked, left, replaced), "unknown" a token the box does not know.
 * `rejoin`, where given, offers a new seat in the same game. A host or TV seat is taken away only
 * when another host or TV took it over (a host after 60 s away), so they are told so.
 */
export function endedScreen(end, reason, { rejoin, role = "player" } = {}) {
  overlay("connection", null);
  const kind = end === "revoked" ? (role === "player" ? "removed" : "replaced") : end;
  const title = { ended: t("ended.title"), removed: t("ended.removed"), replaced: t(`ended.replaced.${role}`), unknown: t("ended.unknown") }[kind];
  const detail = {
    ended: t(`ended.reason.${reason}`, {}, t("ended.reason.other")),
    removed: t("ended.removedHelp"),
    replaced: t(`ended.replacedHelp.${role}`),
    unknown: t("ended.unknownHelp"),
  }[kind];
  const [href, label] = AFTER_THE_END[role];
  return h(
    "section",
    { class: "stack center", id: "ended" },
    h("h1", {}, title),
    h("p", { class: "dim" }, detail),
    rejoin ? h("button", { class: "primary block", id: "rejoin", onclick: rejoin }, t("ended.rejoin")) : null,
    h("a", { class: `button ${rejoin ? "" : "primary "}block`, href, id: "join-another" }, t(label)),
  );
}

/**
 * The step of the game a projection is at: which screen shows it (`screen`), and the `key` that has
 * that screen built again when it changes (a new clue, a followup closing). While the key stays, the
 * screen only updates its live parts. A page may refine both (GamePage's `screenFor`).
 */
export function gameStep(snap) {
  const round = snap.round?.index ?? 0;
  const f = snap.followup;
  switch (snap.phase) {
    case "LOBBY":
    case "PREPARING_ROUND":
      return { screen: "lobby", key: "lobby", round };
    case "ROUND_INTRO":
      return { screen: "intro", key: `intro:${round}`, round };
    case "CLUE_LEVEL":
    case "PAUSED_FOR_BRAKE":
      return { screen: "clue", key: `clue:${round}:${snap.clue?.levelIndex}`, round };
    case "REVEAL_DESTINATION":
      return { screen: "reveal", key: `reveal:${round}`, round };
    case "FOLLOWUP_QUESTION":
      return { screen: "followup", key: `followup:${round}:${f?.index}:${f?.isOpen}:${!!f?.results}`, round };
    case "SCOREBOARD":
      return { screen: "score", key: `score:${round}`, round };
    case "FINAL_RESULTS":
    case "ROUND_END":
      return { screen: "final", key: "final", round };
  }
  return null;
}

/** Momentary messages every game page answers the same way, unless it has its own handler. */
const COMMON_EVENTS = {
  ERROR: (payload) => toast(errorMessage(payload)),
};

/**
 * The skeleton of the player, TV and host pages. It holds the seat's connection (BoxLink) and the
 * latest projection (`snap`), draws the screen the game's step asks for, keeps countdowns ticking,
 * shows the connection overlays and the ended screen, and draws everything again in a new language.
 * A page gives it only what is its own:
 *
 * - `role`: "player", "tv" or "host": where its seat is kept, and what its ended screen offers.
 * - `screens`: a builder for each screen, by the names `gameStep` gives (lobby, intro, clue, reveal,
 *   followup, score, final), plus any the page's `screenFor` adds. A builder returns an element, or
 *   `{ el, update }` to refresh its live parts between rebuilds.
 * - `screenFor(step)`: the page's own screen and key for a step, where they differ from `gameStep`'s.
 * - `parts`: what it draws outside its screens (the top bar's status, the host's panel), as
 *   `{ el, shows(snap), draw(snap) }`: drawn again only when `shows` (and the language) changed, so
 *   a tap never lands on a button being replaced.
 * - `events`: a handler for each momentary message it cares about (by type, given the payload); one
 *   that returns true has the page drawn again. WELCOME and STATE_SNAPSHOT always are.
 * - `shown(keyBefore)`: after each drawing, with the screen key from before it.
 * - `redrawMs`: how often the page is drawn again between messages (countdowns' ends, the finale's steps).
 * - `redraw()`: draws the page's screen from before its game (no connection yet) in a new language.
 * - `ended(end, reason)`: what happens when the seat is gone, instead of the ended screen.
 * - `leave`: a "Leave" button for the connection-lost overlay (the player's).
 */
export class GamePage {
  constructor(options) {
    this.options = options;
    this.role = options.role;
    this.stage = new Stage(document.getElementById("main"));
    this.parts = (options.parts ?? []).map((part) => ({ ...part, signature: "" }));
    this.snap = null;
    this.link = null;
    this.ticking = false;
    // How the seat ended, to draw the ended screen again in another language.
    this.endedWith = null;
    mountLanguagePicker(() => this.languageChanged());
  }

  /** The box's clock, as this page's connection sees it. */
  get clock() {
    return this.link.clock;
  }

  /** Connects with a seat's token; a page that takes a new seat (a player again, a kiosk TV) connects again. */
  connect(token) {
    this.endedWith = null;
    this.link = new BoxLink(token, {
      onstatus: (status) => showConnection(status, { retry: () => this.link.checkNow(), leave: this.options.leave }),
      onmessage: (message) => this.receive(message),
      onend: ({ end, endedReason }) => this.end(end, endedReason ?? this.snap?.endedReason),
    });
    // Once per page: the countdowns follow whichever link is the current one.
    if (this.ticking) return;
    this.ticking = true;
    runCountdowns({ now: () => this.link.clock.now() });
    setInterval(() => this.render(), this.options.redrawMs);
  }

  receive(message) {
    const payload = message.payload;
    if (message.type === "WELCOME") this.snap = payload.projection;
    if (message.type === "STATE_SNAPSHOT") this.snap = payload;
    const handler = this.options.events?.[message.type] ?? COMMON_EVENTS[message.type];
    const redraw = handler?.(payload);
    if (redraw || message.type === "WELCOME" || message.type === "STATE_SNAPSHOT") this.render();
  }

  /** Sends a message; whether it went out (if not, the viewer is told). */
  send(type, payload = {}) {
    if (this.link.send(type, payload)) return true;
    toast(t("conn.notSent"));
    return false;
  }

  /** Draws the page from the latest projection: its parts, then the screen for the game's step. */
  render() {
    const snap = this.snap;
    if (!snap) return;
    for (const part of this.parts) {
      const signature = JSON.stringify([t("lang"), part.shows(snap)]);
      if (signature === part.signature) continue;
      part.signature = signature;
      fill(part.el, part.draw(snap));
    }
    const keyBefore = this.stage.key;
    const base = gameStep(snap);
    const step = base && (this.options.screenFor?.(base) ?? base);
    if (step) this.stage.show(step.key, this.options.screens[step.screen]);
    this.options.shown?.(keyBefore);
  }

  /** A screen outside the game (a name entry, a pairing, a message). */
  show(key, build) {
    this.endedWith = null;
    this.stage.show(key, build);
  }

  /** Empties the parts drawn outside the screens: no game is on this page any more. */
  clearParts() {
    for (const part of this.parts) {
      part.signature = "";
      fill(part.el);
    }
  }

  /** The seat is gone (BoxLink's `end`): the game is no longer drawn, and the seat is forgotten. */
  end(end, reason) {
    this.snap = null;
    seats.clear(this.role);
    if (this.options.ended) this.options.ended(end, reason);
    else this.showEnded(end, reason);
  }

  /** The ended screen (see endedScreen); `rejoin`, where given, offers a new seat in the same game. */
  showEnded(end, reason, rejoin = null) {
    this.clearParts();
    this.endedWith = [end, reason, rejoin];
    this.stage.show("ended", () => endedScreen(end, reason, { rejoin, role: this.role }));
  }

  /** This browser lets go of its seat itself (the box keeps it until the host removes it). */
  dropSeat() {
    this.link.stop();
    seats.clear(this.role);
    this.snap = null;
    overlay("connection", null);
    this.clearParts();
  }

  languageChanged() {
    // Every screen is built again, in the new language.
    this.stage.key = null;
    if (this.snap) this.render();
    else if (this.endedWith) this.showEnded(...this.endedWith);
    // Before the game, the page's own first screen; not once a connection is on its way (drawing
    // that screen again would connect a second time, and the game comes in the new language anyway).
    else if (!this.link) this.options.redraw?.();
  }
}

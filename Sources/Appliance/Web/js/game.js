// What the player, TV and host pages share about a game in progress: names, timers, the finale's
// timeline and the connection overlays.
import { t } from "./i18n.js";
import { h, fill, overlay } from "./ui.js";

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

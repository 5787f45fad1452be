// Building the page. Every text goes in through text nodes, never as markup, so a player's name or
// answer can never become HTML: these pages never parse markup from a string.
import { t } from "./i18n.js";

/** h("button", { class: "primary", onclick: go }, "Start") */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "class") {
      el.className = value;
    } else if (key === "dataset") {
      Object.assign(el.dataset, value);
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace an element's children. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/**
 * Shows one screen at a time. A screen is rebuilt only when its key changes, so an input the
 * player is typing into survives the snapshots that keep arriving; in between, `update` refreshes it.
 */
export class Stage {
  constructor(root) {
    this.root = root;
    this.key = null;
    this.view = null;
  }

  show(key, build) {
    if (key !== this.key) {
      this.key = key;
      this.view = build();
      const el = this.view.el ?? this.view;
      el.classList.add("screen");
      this.root.replaceChildren(el);
    }
    this.view.update?.();
  }
}

let toastTimer = 0;
/** A short message at the bottom of the screen, read out by screen readers. */
export function toast(text, ms = 3500) {
  let el = document.getElementById("toast");
  if (!el) {
    el = h("div", { id: "toast", class: "toast", role: "status", "aria-live": "polite" });
    document.body.append(el);
  }
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (el.hidden = true), ms);
}

/** A full-screen overlay (connection lost, paused…); `null` removes it. */
export function overlay(id, content) {
  let el = document.getElementById(id);
  if (!content) {
    el?.remove();
    return;
  }
  if (!el) {
    el = h("div", { id, class: "overlay", role: "alertdialog", "aria-modal": "true" });
    document.body.append(el);
  }
  fill(el, content);
}

/** A screen that only says something: a title, a line below it, and where there is one, a link on. */
export function messageScreen({ id, title, text, link }) {
  return h(
    "section",
    { class: "stack center", id },
    h("h1", {}, title),
    h("p", { class: "dim" }, text),
    link ? h("a", { class: "button primary block", href: link.href, id: link.id }, link.label) : null,
  );
}

/**
 * Players list with connection dots; `me` highlights one row. `note(p)` goes right after a name,
 * `extra(p)` at the end of its row.
 */
export function peopleList(players, { me, withPoints = false, note, extra } = {}) {
  return h(
    "ul",
    { class: "people" },
    players.map((p) =>
      h(
        "li",
        { class: p.playerId === me ? "me" : "", dataset: { playerId: p.playerId } },
        h("span", { class: "dot" + (p.isConnected ? " on" : ""), "aria-hidden": "true" }),
        h("span", { class: "name" }, p.name),
        h("span", { class: "visually-hidden" }, ` (${t(p.isConnected ? "people.connected" : "people.disconnected")})`),
        note?.(p),
        withPoints ? h("span", { class: "points" }, p.points) : null,
        extra?.(p),
      ),
    ),
  );
}

/** Competition ranks (1, 1, 3) for a list sorted by points. */
export function ranked(standings) {
  return standings.map((s) => ({ ...s, rank: 1 + standings.filter((o) => o.points > s.points).length }));
}

export function standingsList(standings, { me, label } = {}) {
  return h(
    "ol",
    { class: "people standings", "aria-label": label },
    ranked(standings).map((s) =>
      h(
        "li",
        { class: s.playerId === me ? "me" : "" },
        h("span", { class: `rank r${s.rank}` }, s.rank),
        h("span", { class: "name" }, s.name, s.left ? h("span", { class: "dim left" }, ` (${t("standings.left")})`) : null),
        h("span", { class: "points" }, s.points),
      ),
    ),
  );
}

/** Tonight's leaderboard of a kiosk (GET /v1/kiosk/tonight): rank, name, points, the phone's own row marked. */
export function tonightList(rows, { label } = {}) {
  return h(
    "ol",
    { class: "people standings tonight", "aria-label": label },
    rows.map((r) =>
      h(
        "li",
        { class: r.you ? "me" : "" },
        h("span", { class: `rank r${r.rank}` }, r.rank),
        h("span", { class: "name" }, r.name),
        h("span", { class: "points" }, r.points),
      ),
    ),
  );
}

/** The six dots that fill as a join code is typed. */
export function codeDots() {
  const dots = h("div", { class: "dots", "aria-hidden": "true" }, [0, 1, 2, 3, 4, 5].map(() => h("span")));
  dots.set = (n) => [...dots.children].forEach((d, i) => d.classList.toggle("filled", i < n));
  return dots;
}

/** The characters a join code may use; everything else (spaces, dashes) is dropped while typing. */
export function cleanCode(text) {
  return text
    .toUpperCase()
    .replace(/[^ABCDEFGHJKMNPQRSTUVWXYZ23456789]/g, "")
    .slice(0, 6);
}

export function reducedMotion() {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** Confetti for the finale (nothing when the viewer asked for reduced motion). */
export function confetti(durationMs = 2500) {
  if (reducedMotion()) return;
  const colors = ["#f5c542", "#5b93ff", "#2fbf71", "#ff5d62", "#ffffff"];
  const box = h("div", { class: "confetti", "aria-hidden": "true" });
  for (let i = 0; i < 90; i++) {
    const bit = h("i");
    bit.style.left = `${Math.random() * 100}vw`;
    bit.style.background = colors[i % colors.length];
    bit.style.animationDuration = `${1.6 + Math.random() * 1.4}s`;
    bit.style.animationDelay = `${Math.random() * 0.8}s`;
    box.append(bit);
  }
  document.body.append(box);
  setTimeout(() => box.remove(), durationMs + 2000);
}

/** The phone's screen kept on, while a game is under way (`keepAwake`); null when not. */
let awake = null;

/**
 * Keeps a phone's screen on during a game (docs/web.md, "Keeping phones awake"): the Wake Lock API
 * where the browser offers it (a secure context: https, or the box's own localhost), otherwise a
 * muted, looping, inline video of 16×16 black pixels, for which Chrome for Android and Safari on iOS
 * keep the screen on over plain http. Asked for at once, again whenever the page is shown, and at
 * every tap (Safari plays only after one in low-power mode). `release()` lets the screen sleep.
 */
export function keepAwake() {
  if (awake) return awake;
  let sentinel = null;
  let asking = false;
  let video = null;
  let released = false;
  const playVideo = () => {
    if (!video) {
      video = h(
        "video",
        { class: "wake", muted: true, loop: true, playsinline: true, "aria-hidden": "true", tabindex: "-1" },
        h("source", { src: "/static/media/wake.webm", type: "video/webm" }),
        h("source", { src: "/static/media/wake.mp4", type: "video/mp4" }),
      );
      // The attribute is not enough for autoplay rules: the property must be set too.
      video.muted = true;
      document.body.append(video);
    }
    if (video.paused) video.play().catch(() => {});
  };
  const request = () => {
    if (released || document.visibilityState !== "visible") return;
    if (!("wakeLock" in navigator)) return playVideo();
    if (sentinel || asking) return;
    asking = true;
    navigator.wakeLock.request("screen").then(
      (lock) => {
        asking = false;
        sentinel = lock;
        lock.addEventListener("release", () => (sentinel = null));
        if (released) lock.release();
      },
      // Not allowed here (plain http on the LAN, battery saver): the video instead.
      () => {
        asking = false;
        playVideo();
      },
    );
  };
  document.addEventListener("visibilitychange", request);
  document.addEventListener("pointerdown", request, { capture: true });
  request();
  awake = {
    release() {
      released = true;
      awake = null;
      document.removeEventListener("visibilitychange", request);
      document.removeEventListener("pointerdown", request, { capture: true });
      sentinel?.release();
      video?.pause();
      video?.remove();
    },
  };
  return awake;
}

/** The game is over for this page: its screen may sleep again. */
export function letSleep() {
  awake?.release();
}

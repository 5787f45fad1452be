// Talking to the box: REST calls, the WebSocket with its reconnect loop and clock sync, and the
// seats (tokens) this browser holds, kept in localStorage so a reload or a phone that slept comes back.

export class ApiError extends Error {
  /** `problems`: a pack's problems by field (`422 INVALID_PACK`), else empty. */
  constructor(status, code, message, problems = []) {
    super(message);
    this.status = status;
    this.code = code;
    this.problems = problems;
  }
}

export async function api(method, path, body, token) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, "NETWORK", "The box cannot be reached");
  }
  if (response.status === 204) return null;
  let json = null;
  try {
    json = await response.json();
  } catch {
    // fall through: a non-JSON answer is reported by its status
  }
  if (!response.ok) {
    throw new ApiError(response.status, json?.error ?? "HTTP_" + response.status, json?.message ?? response.statusText, json?.problems ?? []);
  }
  return json;
}

/** The seat this browser holds in a session, per role ("player", "host", "tv"). */
export const seats = {
  get(role) {
    try {
      return JSON.parse(localStorage.getItem(`tripto.${role}`) ?? "null");
    } catch {
      return null;
    }
  },
  set(role, seat) {
    localStorage.setItem(`tripto.${role}`, JSON.stringify(seat));
  },
  clear(role) {
    localStorage.removeItem(`tripto.${role}`);
  },
};

/**
 * This page's monotonic clock, in milliseconds since the epoch: the clock of CLOCK_ECHO and of
 * BRAKE_PULL's press time, which the box measures against its own (CONTRACT 4.1). Unlike Date.now()
 * it never jumps when the phone sets its time.
 */
export function monotonicNow() {
  return Math.round(performance.timeOrigin + performance.now());
}

/**
 * When an input event happened on the monotonic clock: its own time stamp (the moment the finger
 * came down, not when a busy page got to it), where the browser keeps it on that clock, as every
 * current one does; the time it is handled otherwise.
 */
export function eventTime(event) {
  const stamp = event.timeStamp;
  if (!(stamp > 0 && stamp <= performance.now())) return monotonicNow();
  return Math.round(performance.timeOrigin + stamp);
}

/**
 * The box's clock as seen from here. Each PONG gives a sample; the one with the shortest round trip
 * is the most trustworthy, so it wins until a better one arrives (samples age out after a minute).
 */
export class ServerClock {
  constructor() {
    this.offset = 0;
    this.best = null;
  }
  sample(clientSentMs, serverMs, receivedMs = Date.now()) {
    const rtt = receivedMs - clientSentMs;
    const offset = serverMs - (clientSentMs + rtt / 2);
    if (!this.best || rtt <= this.best.rtt || receivedMs - this.best.at > 60_000) {
      this.best = { rtt, at: receivedMs };
      this.offset = offset;
    }
  }
  now() {
    return Date.now() + this.offset;
  }
}

/**
 * One WebSocket to the box that keeps itself alive: it reconnects forever with a growing delay
 * (up to 5 s), pings every 5 s to sync the clock, and treats 10 s of silence as a lost line (a
 * phone waking from sleep often has a dead socket that has not noticed yet).
 *
 * It echoes the box's CLOCK_PROBEs itself, at once (they never reach `onmessage`): the box judges
 * a brake by when it was pressed, on this page's clock (`monotonicNow`), from those echoes.
 *
 * Events: onmessage(msg), onstatus("connecting" | "open" | "lost" | "elsewhere"), onend({ end,
 * endedReason }) when the box closed the seat for good: `end` is "ended" (the session ended, close
 * 1000), "revoked" (kicked, left, or replaced: 4001 with the reason REVOKED) or "unknown" (a token the
 * box does not know: 4001);
 * `endedReason` is the SESSION_ENDED reason that came before the close, if one did (it can come
 * before any state to keep it in: a page that reloads after the end).
 *
 * It asks the box for STATE_PATCH (`patches=1`) and applies each patch to the projection it has, so
 * the pages only ever see STATE_SNAPSHOT messages, as if the box had sent the whole projection.
 */
export class BoxLink {
  constructor(token, handlers) {
    this.token = token;
    this.handlers = handlers;
    this.clock = new ServerClock();
    this.socket = null;
    this.attempt = 0;
    this.stopped = false;
    this.everOpen = false;
    this.lastHeard = 0;
    // The projection the box's next STATE_PATCH applies to; null until a STATE_SNAPSHOT arrives.
    this.state = null;
    // When a whole projection was asked for (RESUME_SESSION) because a patch did not fit.
    this.resyncAsked = 0;
    this.timer = setInterval(() => this.tick(), 1000);
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.checkNow();
    });
    window.addEventListener("online", () => this.checkNow());
    this.connect();
  }

  connect() {
    if (this.stopped) return;
    this.handlers.onstatus?.(this.everOpen ? "lost" : "connecting");
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(
      `${scheme}://${location.host}/ws?token=${encodeURIComponent(this.token)}&patches=1`,
    );
    this.socket = socket;
    this.state = null;
    this.resyncAsked = 0;
    socket.onopen = () => {
      this.lastHeard = Date.now();
      this.ping();
    };
    socket.onmessage = (event) => {
      // Read first: a CLOCK_PROBE is echoed with the moment it arrived, before anything else is done.
      const arrivedMs = monotonicNow();
      if (socket !== this.socket) return;
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === "CLOCK_PROBE") {
        this.send("CLOCK_ECHO", { probeId: message.payload?.probeId, clientTimeMs: arrivedMs });
        this.lastHeard = Date.now();
        return;
      }
      this.lastHeard = Date.now();
      if (message.type === "PONG") {
        this.clock.sample(message.payload.clientTimeMs, message.payload.serverTimeMs);
        return;
      }
      if (message.type === "STATE_SNAPSHOT") {
        this.state = message.payload;
        this.resyncAsked = 0;
      } else if (message.type === "STATE_PATCH") {
        message = this.patched(message);
        if (!message) return;
      }
      if (message.type === "WELCOME") {
        this.attempt = 0;
        this.everOpen = true;
        this.handlers.onstatus?.("open");
      }
      if (message.type === "SESSION_ENDED") this.endedReason = message.payload?.reason;
      if (message.serverTimeMs && !this.clock.best) this.clock.offset = message.serverTimeMs - Date.now();
      this.handlers.onmessage?.(message);
    };
    socket.onclose = (event) => {
      if (socket !== this.socket) return;
      this.socket = null;
      if (event.code === 1000 || event.code === 4001) {
        this.stop();
        const end = event.code === 1000 ? "ended" : event.reason === "REVOKED" ? "revoked" : "unknown";
        this.handlers.onend?.({ end, endedReason: this.endedReason });
        return;
      }
      // The seat is open in more tabs than the box takes, and this was the oldest. Connecting
      // again by itself would push out another, round and round: it waits for Retry (checkNow).
      if (event.code === 1008 && event.reason === "TOO_MANY_CONNECTIONS") {
        clearTimeout(this.retryTimer);
        this.handlers.onstatus?.("elsewhere");
        return;
      }
      this.retry();
    };
  }

  /**
   * A STATE_PATCH as the STATE_SNAPSHOT it stands for; null if it does not fit what this page has.
   * Then the page asks for the whole projection, and if none has come 2 s later (the request can be
   * dropped, say over the rate limit), it connects again, which always brings one.
   */
  patched(message) {
    const { baseVersion, ops } = message.payload;
    if (this.state && this.state.version === baseVersion) {
      try {
        this.state = applyPatch(this.state, ops);
        return { ...message, type: "STATE_SNAPSHOT", payload: this.state };
      } catch {
        // falls through to ask for the whole projection
      }
    }
    this.state = null;
    if (!this.resyncAsked) {
      if (this.send("RESUME_SESSION")) this.resyncAsked = Date.now();
    } else if (Date.now() - this.resyncAsked > 2000) {
      this.drop();
    }
    return null;
  }

  retry() {
    if (this.stopped) return;
    this.handlers.onstatus?.(this.everOpen ? "lost" : "connecting");
    const delay = Math.min(5000, 400 * 2 ** this.attempt) + Math.random() * 300;
    this.attempt += 1;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  tick() {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return;
    if (Date.now() - this.lastHeard > 10_000) {
      this.drop();
      return;
    }
    if (Date.now() - (this.lastPing ?? 0) >= 5000) this.ping();
  }

  /**
   * After sleep, a network change or a tap on Retry: a socket that is not open (none, or one still
   * connecting, perhaps for ever) is replaced at once; an open one is pinged, and given up if it
   * stays silent.
   */
  checkNow() {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) {
      const stale = this.socket;
      this.socket = null;
      try {
        stale?.close();
      } catch {
        // already closing
      }
      clearTimeout(this.retryTimer);
      this.attempt = 0;
      this.connect();
      return;
    }
    this.ping();
    const asked = Date.now();
    setTimeout(() => {
      if (this.socket && this.lastHeard < asked) this.drop();
    }, 3000);
  }

  drop() {
    const socket = this.socket;
    this.socket = null;
    try {
      socket?.close();
    } catch {
      // already closing
    }
    this.retry();
  }

  ping() {
    this.lastPing = Date.now();
    this.send("PING", { clientTimeMs: Date.now() });
  }

  send(type, payload = {}) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify({ type, payload }));
    return true;
  }

  stop() {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.retryTimer);
    const socket = this.socket;
    this.socket = null;
    socket?.close();
  }
}

/**
 * JSON Patch (RFC 6902: add, remove, replace) applied to `doc`, which is left as it is: the result
 * is a new object that copies only the objects and arrays on the operations' paths and shares the
 * rest. Throws if a path does not exist, or an operation is not one of the three.
 */
export function applyPatch(doc, ops) {
  const copy = (value) => (Array.isArray(value) ? [...value] : { ...value });
  const result = copy(doc);
  const copied = new Set([result]);
  for (const { op, path, value } of ops) {
    const keys = path
      .split("/")
      .slice(1)
      .map((key) => key.replace(/~1/g, "/").replace(/~0/g, "~"));
    const last = keys.pop();
    let parent = result;
    for (const key of keys) {
      let child = parent[key];
      if (child === null || typeof child !== "object") throw new Error(`no ${path}`);
      if (!copied.has(child)) {
        child = copy(child);
        parent[key] = child;
        copied.add(child);
      }
      parent = child;
    }
    if (Array.isArray(parent)) {
      const index = last === "-" && op === "add" ? parent.length : Number(last);
      const limit = op === "add" ? parent.length : parent.length - 1;
      if (!(Number.isInteger(index) && index >= 0 && index <= limit)) throw new Error(`no ${path}`);
      if (op === "add") parent.splice(index, 0, value);
      else if (op === "remove") parent.splice(index, 1);
      else if (op === "replace") parent[index] = value;
      else throw new Error(`unknown op ${op}`);
    } else if (op === "add") {
      parent[last] = value;
    } else if (!Object.prototype.hasOwnProperty.call(parent, last)) {
      throw new Error(`no ${path}`);
    } else if (op === "remove") {
      delete parent[last];
    } else if (op === "replace") {
      parent[last] = value;
    } else {
      throw new Error(`unknown op ${op}`);
    }
  }
  return result;
}

/** Seconds left until a server time, for countdowns (never negative). */
export function secondsLeft(clock, deadlineMs) {
  return Math.max(0, Math.ceil((deadlineMs - clock.now()) / 1000));
}

/** A countdown turns red in its last seconds (seed 001: the last five). */
export const LAST_SECONDS = 5;

/**
 * Keeps every `[data-deadline]` element on the page counting down, and every `[data-bar-end]`
 * bar shrinking, against the box's clock, both red (`last-seconds`) in the last five seconds.
 * Paused timers carry `data-remaining` instead.
 */
export function runCountdowns(clock) {
  setInterval(() => {
    for (const el of document.querySelectorAll("[data-deadline]")) {
      const left = secondsLeft(clock, Number(el.dataset.deadline));
      el.textContent = left;
      el.classList.toggle("last-seconds", left <= LAST_SECONDS);
    }
    for (const el of document.querySelectorAll("[data-bar-end]")) {
      const total = Number(el.dataset.barTotal);
      const left = Math.max(0, Number(el.dataset.barEnd) - clock.now());
      el.style.width = `${total > 0 ? Math.min(100, (100 * left) / total) : 0}%`;
      el.classList.toggle("last-seconds", left <= LAST_SECONDS * 1000);
    }
  }, 250);
}

// The launch page: create a game (as host or TV) or join one with its code (as player or host).
import { api, seats } from "./box.js";
import { t, errorMessage, mountLanguagePicker } from "./i18n.js";
import { h, fill, Stage, codeDots, cleanCode } from "./ui.js";

const stage = new Stage(document.getElementById("main"));
let packs = [];

mountLanguagePicker(() => render(current));

// "/?join" (where an ended game sends its players) opens on the code entry.
let current = { screen: new URLSearchParams(location.search).has("join") ? "join" : "start" };
/**
 * To another screen. The button that was pressed is gone with the old one, so keyboard and
 * screen-reader users are taken to the new screen's heading (a screen with a field to fill then
 * moves on to that field).
 */
function go(next) {
  current = next;
  render(current);
  const heading = document.querySelector("#main h1");
  if (heading) {
    heading.tabIndex = -1;
    heading.focus();
  }
}

function render(state) {
  document.documentElement.lang = t("lang");
  stage.key = null;
  switch (state.screen) {
    case "start":
      return stage.show("start", startScreen);
    case "create":
      return stage.show("create", createScreen);
    case "join":
      return stage.show("join", () => joinScreen(state));
    case "role":
      return stage.show("role", () => roleScreen(state));
  }
}

function startScreen() {
  const resume = h("div", { class: "stack" });
  for (const [role, path] of [["player", null], ["host", "/host"], ["tv", "/tv"]]) {
    const seat = seats.get(role);
    if (!seat) continue;
    const href = path ?? `/join/${encodeURIComponent(seat.sessionId)}`;
    const offer = h("a", { class: "button secondary block", href }, t(`resume.${role}`, { code: seat.joinCode ?? "" }));
    resume.append(offer);
    stillOn(seat).then((on) => {
      if (on) return;
      seats.clear(role);
      offer.remove();
    });
  }
  return h(
    "section",
    { class: "stack", "aria-labelledby": "title" },
    h("h1", { id: "title", class: "title-big brand" }, "TRIPTO"),
    h("p", { class: "subtitle" }, t("launch.subtitle")),
    resume,
    h("button", { class: "primary block", id: "create", onclick: () => go({ screen: "create" }) }, t("launch.create")),
    h("button", { class: "secondary block", id: "join", onclick: () => go({ screen: "join" }) }, t("launch.join")),
    h("p", { class: "help center" }, t("launch.help")),
  );
}

/**
 * Whether a seat's game is still on: the box answers 404 for the code of a game that ended (its
 * code is free again, perhaps already another game's). A box out of reach keeps the offer.
 */
async function stillOn(seat) {
  if (!seat.joinCode) return true;
  try {
    const found = await api("GET", `/v1/sessions/by-code/${encodeURIComponent(seat.joinCode)}`);
    return found.sessionId === seat.sessionId;
  } catch (e) {
    return e.status !== 404 && e.status !== 410;
  }
}

function createScreen() {
  const error = h("p", { class: "error-text", role: "alert" });
  const packSelect = h("select", { id: "pack", name: "pack" });
  const count = h(
    "select",
    { id: "count", name: "count" },
    [1, 2, 3, 4, 5, 6, 8, 10].map((n) => h("option", { value: n, selected: n === 3 }, String(n))),
  );
  const fillPacks = () => {
    // The first pack in the page's language: with two of them, the last one marked would win.
    const first = packs.find((p) => p.language === t("lang"));
    fill(
      packSelect,
      packs.map((p) =>
        h(
          "option",
          { value: p.packId, selected: p === first && !packSelect.dataset.touched },
          `${p.title} (${[
            p.language.toUpperCase(),
            t("create.destinations", { n: p.destinations }),
            // A v1 box says nothing of difficulty; "standard" goes without saying.
            ...(p.difficulty === "easy" || p.difficulty === "hard" ? [t(`create.difficulty.${p.difficulty}`)] : []),
          ].join(", ")})`,
        ),
      ),
    );
  };
  packSelect.addEventListener("change", () => (packSelect.dataset.touched = "1"));
  if (packs.length) fillPacks();
  else
    api("GET", "/v1/packs")
      .then((list) => {
        packs = list;
        fillPacks();
        // Nothing to play: said here, before anyone presses Create.
        if (!packs.length) error.textContent = t("create.noPacks");
      })
      .catch((e) => (error.textContent = errorMessage(e)));

  const buttons = [];
  // The captain's name, asked for when they choose "Everyone plays".
  const name = h("input", { id: "captain-name", type: "text", maxlength: 20, autocomplete: "nickname", value: localStorage.getItem("tripto.lastName") ?? "" });
  const nameForm = h("form", { class: "stack", id: "captain-form", hidden: true });
  const create = async (role) => {
    buttons.forEach((b) => (b.disabled = true));
    // The pressed button spins while the box makes the game.
    const pressed = document.activeElement;
    if (buttons.includes(pressed)) pressed.setAttribute("aria-busy", "true");
    error.textContent = "";
    try {
      const settings = { destinationsCount: Number(count.value) };
      if (packSelect.value) settings.packId = packSelect.value;
      const made = await api("POST", "/v1/sessions", role === "PLAYER" ? { role, name: name.value.trim(), settings } : { role, settings });
      if (role === "PLAYER") {
        // Everyone plays: the creator is the first player and the captain (CONTRACT 4.2).
        localStorage.setItem("tripto.lastName", name.value.trim());
        seats.set("player", {
          sessionId: made.sessionId,
          playerId: made.playerId,
          token: made.playerAuthToken,
          joinCode: made.joinCode,
          tvJoinToken: made.tvJoinToken,
          answers: {},
        });
        location.assign(`/join/${encodeURIComponent(made.sessionId)}`);
      } else if (role === "HOST") {
        seats.set("host", {
          sessionId: made.sessionId,
          token: made.hostAuthToken,
          tvJoinToken: made.tvJoinToken,
          joinCode: made.joinCode,
        });
        location.assign("/host");
      } else {
        seats.set("tv", { sessionId: made.sessionId, token: made.tvAuthToken, joinCode: made.joinCode });
        location.assign("/tv");
      }
    } catch (e) {
      error.textContent = errorMessage(e);
      buttons.forEach((b) => {
        b.disabled = false;
        b.removeAttribute("aria-busy");
      });
    }
  };
  buttons.push(
    h("button", { class: "primary block", id: "create-host", onclick: () => create("HOST") }, t("create.asHost")),
    h("button", { class: "secondary block", id: "create-tv", onclick: () => create("TV") }, t("create.asTv")),
    h(
      "button",
      {
        class: "secondary block",
        id: "create-player",
        onclick: () => {
          nameForm.hidden = false;
          name.focus();
        },
      },
      t("create.asPlayer"),
    ),
  );
  const playGo = h("button", { class: "success block", id: "captain-go", type: "submit" }, t("create.playerGo"));
  buttons.push(playGo);
  fill(nameForm, h("label", { for: "captain-name" }, t("name.label")), name, playGo);
  nameForm.addEventListener("submit", (event) => {
    event.preventDefault();
    if (name.value.trim()) create("PLAYER");
  });
  return h(
    "section",
    { class: "stack" },
    h("h1", {}, t("create.title")),
    h("div", {}, h("label", { for: "pack" }, t("create.pack")), packSelect),
    h("div", {}, h("label", { for: "count" }, t("create.count")), count),
    h("p", { class: "help" }, t("create.roleHelp")),
    buttons[0],
    h("p", { class: "help" }, t("create.hostHelp")),
    buttons[1],
    h("p", { class: "help" }, t("create.tvHelp")),
    buttons[2],
    h("p", { class: "help" }, t("create.playerHelp")),
    nameForm,
    error,
    h("button", { class: "block", onclick: () => go({ screen: "start" }) }, t("common.back")),
  );
}

function joinScreen(state) {
  const error = h("p", { class: "error-text", role: "alert" }, state.error ?? "");
  const dots = codeDots();
  const input = h("input", {
    type: "text",
    id: "code",
    class: "code-input",
    inputmode: "text",
    autocomplete: "off",
    autocapitalize: "characters",
    spellcheck: "false",
    // A code as the box makes them: no I, L, O, 0 or 1, which are easily misread.
    placeholder: "ABC-234",
    "aria-describedby": "code-help",
    value: state.code ?? "",
  });
  const submit = h("button", { class: "primary block", id: "code-submit", type: "submit", disabled: true }, t("join.go"));
  // Shown as the TV shows it, ABC-234 (seed 001); read without the dash.
  const shown = (code) => (code.length > 3 ? `${code.slice(0, 3)}-${code.slice(3)}` : code);
  const sync = () => {
    const code = cleanCode(input.value);
    if (input.value !== shown(code)) input.value = shown(code);
    dots.set(code.length);
    submit.disabled = code.length !== 6;
    input.classList.toggle("complete", code.length === 6);
  };
  input.addEventListener("input", () => {
    input.removeAttribute("aria-invalid");
    sync();
  });
  // While the code is looked up: the button waits, with a spinner.
  const busy = (on) => {
    submit.disabled = on;
    if (on) submit.setAttribute("aria-busy", "true");
    else submit.removeAttribute("aria-busy");
  };
  const form = h(
    "form",
    {
      class: "stack",
      onsubmit: async (event) => {
        event.preventDefault();
        const code = cleanCode(input.value);
        if (code.length !== 6) return;
        busy(true);
        error.textContent = "";
        try {
          const found = await api("GET", `/v1/sessions/by-code/${code}`);
          go({ screen: "role", session: found });
        } catch (e) {
          error.textContent = errorMessage(e);
          // A code no game has: the field says so in red until it is changed.
          if (e.code === "SESSION_NOT_FOUND") input.setAttribute("aria-invalid", "true");
          busy(false);
        }
      },
    },
    h("h1", {}, t("join.title")),
    h("label", { for: "code" }, t("join.label")),
    input,
    dots,
    h("p", { id: "code-help", class: "help" }, t("join.help")),
    submit,
    error,
    h("button", { class: "block", type: "button", onclick: () => go({ screen: "start" }) }, t("common.back")),
  );
  sync();
  setTimeout(() => input.focus(), 0);
  return form;
}

function roleScreen({ session }) {
  const error = h("p", { class: "error-text", role: "alert" });
  // A kiosk's game has no host, but its staff may take the controls with their PIN (CONTRACT 4.4).
  const staff = h("form", { class: "stack", id: "staff", hidden: true });
  const asPlayer = () =>
    location.assign(`/join/${encodeURIComponent(session.sessionId)}?code=${encodeURIComponent(session.joinCode)}`);
  const hostButton = h(
    "button",
    {
      class: "secondary block",
      id: "role-host",
      disabled: session.hasHost,
      onclick: async () => {
        hostButton.disabled = true;
        try {
          await joinAsHost();
        } catch (e) {
          // FORBIDDEN: a kiosk's game, which runs by itself, or its staff's. Anything else can be
          // tried again.
          if (e.code === "FORBIDDEN") {
            error.textContent = t("role.noHostHere");
            staff.hidden = false;
          } else {
            error.textContent = errorMessage(e);
            hostButton.disabled = false;
          }
        }
      },
    },
    t("role.host"),
  );
  const joinAsHost = async (staffPin) => {
    const joined = await api("POST", `/v1/sessions/${session.sessionId}/join`, {
      role: "HOST",
      joinCode: session.joinCode,
      ...(staffPin ? { staffPin } : {}),
    });
    seats.set("host", { sessionId: joined.sessionId, token: joined.playerAuthToken, joinCode: joined.joinCode });
    location.assign("/host");
  };
  const pin = h("input", { id: "staff-pin", type: "password", autocomplete: "off", maxlength: 32, required: true });
  const staffButton = h("button", { class: "secondary block", type: "submit" }, t("role.staffJoin"));
  fill(
    staff,
    h("p", { class: "help" }, t("role.staffHelp")),
    h("label", { for: "staff-pin" }, t("role.staffPin")),
    pin,
    staffButton,
  );
  staff.addEventListener("submit", async (event) => {
    event.preventDefault();
    staffButton.disabled = true;
    try {
      await joinAsHost(pin.value);
    } catch (e) {
      error.textContent = e.code === "FORBIDDEN" ? t("role.wrongPin") : errorMessage(e);
      staffButton.disabled = false;
      pin.select();
    }
  });
  return h(
    "section",
    { class: "stack" },
    h("h1", {}, t("role.title")),
    h("p", { class: "dim" }, t("role.session", { code: session.joinCode, n: session.playerCount })),
    h("button", { class: "primary block", id: "role-player", onclick: asPlayer }, t("role.player")),
    hostButton,
    session.hasHost ? h("p", { class: "help", id: "host-taken" }, t("error.HOST_ROLE_TAKEN")) : null,
    error,
    staff,
    h("button", { class: "block", onclick: () => go({ screen: "join", code: session.joinCode }) }, t("common.back")),
  );
}

render(current);

// The pack studio (/studio): a family writes its own pack on the box. The box's own validator checks it
// as it is typed (POST /v1/packs/{packId}/check), a destination plays through as the TV shows it, and
// the pack is saved with the admin token (PUT /v1/packs/{packId}). docs/web.md, "The pack studio".
import { api } from "./box.js";
import { t, addTexts, errorMessage, mountLanguagePicker } from "./i18n.js";
import { h, fill, Stage, toast, messageScreen } from "./ui.js";
import { revealedDestination } from "./game.js";
import { studioTexts, templates } from "./studio-texts.js";

addTexts(studioTexts);

const TOKEN_KEY = "tripto.adminToken";
// The pack being written, kept so a reload or a phone that slept does not lose it.
const DRAFT_KEY = "tripto.studioDraft";
const CLUE_POINTS = [10, 8, 6, 4, 2];
const CHECK_DELAY_MS = 400;
// What the box takes as a pack id (PackLibrary.isWellFormed): the check itself needs one in its address.
const PACK_ID = /^[a-z0-9][a-z0-9-]{2,39}$/;
// The TV page is drawn for this screen, then scaled to the preview's width.
const TV_WIDTH = 1920;
const TV_HEIGHT = 1080;

const stage = new Stage(document.getElementById("main"));
let token = takeToken();
let current = { screen: token ? "home" : "noToken" };
/** The pack being written: the JSON object itself, so keys this page does not know go back as they came. */
let draft = null;
/** The id it was last saved under on this box, if it was. */
let savedAs = null;
let dirty = false;
let boxPacks = [];
let checked = { problems: [], warnings: [], state: "idle" };

mountLanguagePicker(() => render());

/** The token arrives once in the studio link (`/studio#token=…`) and is kept; the address bar forgets it. */
function takeToken() {
  const fromLink = new URLSearchParams(location.hash.slice(1)).get("token");
  if (fromLink) {
    localStorage.setItem(TOKEN_KEY, fromLink);
    history.replaceState(null, "", location.pathname + location.search);
  }
  return localStorage.getItem(TOKEN_KEY);
}

function forgetToken() {
  localStorage.removeItem(TOKEN_KEY);
  token = null;
  go({ screen: "noToken", refused: true });
}

/** A call with the admin token. A refused token is forgotten and the page says whom to ask. */
async function call(method, path, body) {
  try {
    return await api(method, path, body, token);
  } catch (e) {
    // A token the box no longer takes (a new one was made): the page asks for the link again.
    if (e.status === 401) forgetToken();
    throw e;
  }
}

function go(next) {
  current = next;
  render();
  window.scrollTo(0, 0);
  const heading = document.querySelector("#main h1");
  if (heading) {
    heading.tabIndex = -1;
    heading.focus();
  }
}

function render() {
  document.documentElement.lang = t("lang");
  document.title = `Tripto – ${t("studio.title")}`;
  stage.key = null;
  switch (current.screen) {
    case "noToken":
      return stage.show("noToken", () =>
        messageScreen({ id: "no-token", title: t("studio.noToken"), text: t(current.refused ? "studio.badToken" : "studio.noTokenHelp") }),
      );
    case "home":
      return stage.show("home", homeScreen);
    case "edit":
      return stage.show("edit", editScreen);
    case "preview":
      return stage.show("preview", () => previewScreen(current.index));
  }
}

// MARK: Packs to start from

function slug(text, fallback) {
  const made = (text ?? "")
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  return made.length >= 3 ? made : fallback;
}

function emptyClaim(id) {
  return { id, statement: "", sources: [] };
}

function emptyFollowup() {
  return { question: "", answer: "", sources: [] };
}

function emptyDestination() {
  return {
    id: "",
    name: "",
    aliases: [],
    country: "",
    region: "",
    revealText: "",
    clues: CLUE_POINTS.map((points, k) => ({ points, text: "", claims: [emptyClaim(`c${k + 1}`)] })),
    followups: [emptyFollowup(), emptyFollowup()],
  };
}

function emptyPack(language) {
  return {
    format: 1,
    packId: "",
    title: "",
    language,
    version: "1.0.0",
    licence: "CC-BY-4.0",
    destinations: [emptyDestination()],
  };
}

function fromTemplate(name) {
  const language = t("lang");
  const text = templates[name][language];
  const pack = emptyPack(language);
  pack.title = text.title;
  pack.packId = slug(text.title, "our-pack");
  pack.description = text.description;
  const d = pack.destinations[0];
  d.revealText = text.reveal;
  d.clues.forEach((clue, k) => {
    clue.text = text.clues[k];
    clue.claims[0].statement = text.statement;
  });
  d.followups = text.followups.map((f) => ({ ...f, sources: [] }));
  d.banter = [...text.banter];
  return pack;
}

/** An id no pack of this box has yet: `base`, else `base-2`, `base-3`… */
function freeId(base) {
  const taken = new Set(boxPacks.map((p) => p.packId));
  let id = base.slice(0, 40);
  for (let n = 2; taken.has(id); n++) id = `${base.slice(0, 36)}-${n}`;
  return id;
}

function startWriting(pack, { from = null } = {}) {
  draft = pack;
  savedAs = from;
  dirty = from === null;
  checked = { problems: [], warnings: [], state: "idle" };
  keepDraft();
  go({ screen: "edit" });
  scheduleCheck(0);
}

function clearFile(input) {
  input.value = "";
}

function keepDraft() {
  if (dirty) localStorage.setItem(DRAFT_KEY, JSON.stringify({ draft, savedAs }));
  else localStorage.removeItem(DRAFT_KEY);
}

function keptDraft() {
  try {
    return JSON.parse(localStorage.getItem(DRAFT_KEY) ?? "null");
  } catch {
    return null;
  }
}

function homeScreen() {
  const error = h("p", { class: "error-text", role: "alert" });
  const own = h("div", { id: "box-packs" }, h("p", { class: "dim" }, "…"));
  const copySelect = h("select", { id: "copy-pack" });
  const copyButton = h("button", { class: "secondary", id: "copy-go", disabled: true }, t("studio.copyGo"));
  const fileInput = h("input", { type: "file", id: "import-file", accept: ".json,application/json" });

  const load = async () => {
    try {
      boxPacks = [];
      // The list is for everyone: an empty check asks whether the box still takes this token.
      await call("POST", "/v1/packs/studio-draft/check", {});
      const list = await call("GET", "/v1/packs");
      boxPacks = list.filter((p) => p.origin === "box");
      const shipped = list.filter((p) => p.origin === "shipped");
      fill(copySelect, shipped.map((p) => h("option", { value: p.packId }, `${p.title} (${p.language.toUpperCase()})`)));
      copyButton.disabled = !shipped.length;
      fill(own, boxPacks.length ? h("ul", { class: "people" }, boxPacks.map(packRow)) : h("p", { class: "dim" }, t("studio.noBoxPacks")));
    } catch (e) {
      error.textContent = errorMessage(e);
    }
  };
  const packRow = (p) =>
    h(
      "li",
      { dataset: { packId: p.packId } },
      h("span", { class: "name grow" }, p.title, h("br"), h("span", { class: "help" }, `${p.packId} · ${p.language.toUpperCase()} · ${t("studio.destinationsCount", { n: p.destinations })}`)),
      h("button", { class: "small secondary", onclick: () => edit(p) }, t("studio.edit")),
      h("button", { class: "small danger", onclick: () => remove(p) }, t("studio.delete")),
    );
  const edit = async (p) => {
    try {
      startWriting(await call("GET", `/v1/packs/${encodeURIComponent(p.packId)}`), { from: p.packId });
    } catch (e) {
      error.textContent = errorMessage(e);
    }
  };
  const remove = async (p) => {
    if (!confirm(t("studio.deleteConfirm", { title: p.title }))) return;
    try {
      await call("DELETE", `/v1/packs/${encodeURIComponent(p.packId)}`);
      toast(t("studio.deleted", { title: p.title }));
      await load();
    } catch (e) {
      error.textContent = errorMessage(e);
    }
  };
  copyButton.addEventListener("click", async () => {
    try {
      const pack = await call("GET", `/v1/packs/${encodeURIComponent(copySelect.value)}`);
      pack.packId = freeId(`${pack.packId}-copy`);
      pack.title = `${pack.title} (${t("lang") === "sv" ? "kopia" : "copy"})`.slice(0, 60);
      startWriting(pack);
    } catch (e) {
      error.textContent = errorMessage(e);
    }
  });
  fileInput.addEventListener("change", async () => {
    const file = fileInput.files?.[0];
    if (!file) return;
    try {
      const pack = JSON.parse(await file.text());
      if (typeof pack !== "object" || pack === null || Array.isArray(pack)) throw new Error("not an object");
      startWriting(pack);
    } catch (e) {
      error.textContent = t("studio.importBad", { message: e.message });
      clearFile(fileInput);
    }
  });
  load();

  const kept = keptDraft();
  return h(
    "section",
    { class: "stack", "aria-labelledby": "studio-title" },
    h("h1", { id: "studio-title" }, t("studio.title")),
    h("p", { class: "dim" }, t("studio.intro")),
    kept?.draft
      ? h(
          "button",
          { class: "primary block", id: "continue", onclick: () => startWriting(kept.draft, { from: kept.savedAs }) },
          t("studio.continue", { title: kept.draft.title || t("studio.empty") }),
        )
      : null,
    h(
      "section",
      { class: "card stack", "aria-labelledby": "new-title" },
      h("h2", { id: "new-title" }, t("studio.new")),
      h("button", { class: "primary block", id: "new-empty", onclick: () => startWriting(emptyPack(t("lang"))) }, t("studio.empty")),
      h("button", { class: "secondary block", id: "new-holiday", onclick: () => startWriting(fromTemplate("holiday")) }, t("studio.templateHoliday")),
      h("button", { class: "secondary block", id: "new-home", onclick: () => startWriting(fromTemplate("home")) }, t("studio.templateHome")),
      h("div", {}, h("label", { for: "copy-pack" }, t("studio.copy")), h("div", { class: "row nowrap" }, copySelect, copyButton)),
      h("div", {}, h("label", { for: "import-file" }, t("studio.import")), fileInput),
      error,
    ),
    h("section", { class: "card stack", "aria-labelledby": "own-title" }, h("h2", { id: "own-title" }, t("studio.boxPacks")), own),
  );
}

// MARK: The editor

/** Where each problem goes: a JSON path (as the validator writes it) → its place on the page. */
let slots = new Map();

function pathId(path) {
  return "f" + path.replace(/[^A-Za-z0-9]+/g, "-").replace(/-$/, "");
}

/** The place for the problems of `path` (a group: a destination, a clue, a followup…). */
function groupSlot(path, where, focus) {
  const el = h("div", { class: "problem", id: `${pathId(path)}-problem`, "aria-live": "polite" });
  slots.set(path, { el, where, focus: () => focus?.() });
  return el;
}

/**
 * A field bound to `obj[key]`, with its label, its help and the place for its problems. `kind`: "text",
 * "long" (several lines), "lines" (an array of strings, one a line), "number", or "select" (`choices`).
 * An `optional` key goes from the pack when the field is emptied, rather than stay as "" or [].
 */
function field(obj, key, path, { label, help, kind = "text", choices, optional = false, where, onInput }) {
  const id = pathId(path);
  const describedBy = [help ? `${id}-help` : null, `${id}-problem`].filter(Boolean).join(" ");
  let input;
  if (kind === "select") {
    input = h(
      "select",
      { id, "aria-describedby": describedBy },
      choices.map(([value, text]) => h("option", { value, selected: (obj[key] ?? choices[0][0]) === value }, text)),
    );
  } else if (kind === "long" || kind === "lines") {
    const value = kind === "lines" ? (obj[key] ?? []).join("\n") : (obj[key] ?? "");
    input = h("textarea", { id, rows: kind === "lines" ? 2 : 3, "aria-describedby": describedBy, spellcheck: kind === "long" ? "true" : "false" });
    input.value = value;
  } else {
    input = h("input", {
      type: "text",
      id,
      "aria-describedby": describedBy,
      inputmode: kind === "number" ? "decimal" : null,
      autocomplete: "off",
    });
    input.value = obj[key] === undefined ? "" : String(obj[key]);
  }
  input.addEventListener(kind === "select" ? "change" : "input", () => {
    const raw = input.value;
    if (kind === "lines") {
      const lines = raw.split("\n").map((l) => l.trim()).filter(Boolean);
      if (optional && !lines.length) delete obj[key];
      else obj[key] = lines;
    } else if (kind === "number") {
      const number = Number(raw.trim().replace(",", "."));
      if (!raw.trim()) delete obj[key];
      // Not a number: sent as typed, so the box's check says so at this field.
      else obj[key] = Number.isFinite(number) ? number : raw;
    } else if (optional && !raw.trim()) {
      delete obj[key];
    } else {
      obj[key] = raw;
    }
    onInput?.(raw);
    changed();
  });
  const problem = h("div", { class: "problem", id: `${id}-problem`, "aria-live": "polite" });
  slots.set(path, { el: problem, where: where ?? (() => label), focus: () => input.focus(), input });
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    help ? h("p", { class: "help", id: `${id}-help` }, help) : null,
    input,
    problem,
  );
}

function changed() {
  dirty = true;
  keepDraft();
  scheduleCheck();
}

function editScreen() {
  slots = new Map();
  const summary = h("div", { id: "check-summary", class: "card stack", tabindex: "-1" });
  const status = h("button", { class: "link-button grow", id: "check-status", onclick: () => summary.focus() });
  const save = h("button", { class: "primary", id: "save", onclick: () => saveDraft() }, t("studio.save"));
  const el = h(
    "section",
    { class: "studio-editor stack" },
    h("h1", { id: "editor-title" }, draft.title || t("studio.new")),
    h(
      "div",
      { class: "row" },
      h("button", { class: "small", id: "back", onclick: leaveEditor }, t("studio.back")),
      h("button", { class: "small secondary", id: "export", "aria-label": t("studio.exportLabel"), onclick: exportDraft }, t("studio.export")),
    ),
    packCard(),
    h("h2", {}, t("studio.destinations")),
    groupSlot("$.destinations", () => t("studio.destinations")),
    (Array.isArray(draft.destinations) ? draft.destinations : []).map((d, i) => destinationCard(d, i)),
    h("button", { class: "secondary block", id: "add-destination", onclick: addDestination }, t("studio.addDestination")),
    summary,
    h("div", { class: "studio-bar row nowrap" }, status, save),
  );
  return { el, summary, status, update: () => showChecked() };
}

function packCard() {
  const idField = field(draft, "packId", "$.packId", { label: t("studio.packId"), help: t("studio.packIdHelp") });
  const idInput = idField.querySelector("input");
  const titleField = field(draft, "title", "$.title", {
    label: t("studio.packTitle"),
    onInput: (title) => {
      document.getElementById("editor-title").textContent = title || t("studio.new");
      // A new pack's id follows its title until it is written by hand.
      if (savedAs === null && (idInput.dataset.auto === "1" || !draft.packId)) {
        draft.packId = freeId(slug(title, "our-pack"));
        idInput.value = draft.packId;
        idInput.dataset.auto = "1";
      }
    },
  });
  idInput.dataset.auto = savedAs === null && draft.packId === slug(draft.title, "our-pack") ? "1" : "";
  idInput.addEventListener("input", () => (idInput.dataset.auto = ""));
  const where = (label) => () => `${t("studio.where.pack")} › ${label}`;
  return h(
    "section",
    { class: "card stack", "aria-labelledby": "pack-title" },
    h("h2", { id: "pack-title" }, t("studio.pack")),
    groupSlot("$", () => t("studio.where.pack"), () => titleField.querySelector("input").focus()),
    titleField,
    idField,
    h(
      "div",
      { class: "pair" },
      field(draft, "language", "$.language", {
        label: t("studio.language"),
        kind: "select",
        choices: [["sv", t("studio.languageSv")], ["en", t("studio.languageEn")]],
        where: where(t("studio.language")),
      }),
      field(draft, "difficulty", "$.difficulty", {
        label: t("studio.difficulty"),
        kind: "select",
        optional: false,
        choices: ["standard", "easy", "hard"].map((d) => [d, t(`studio.difficulty.${d}`)]),
        where: where(t("studio.difficulty")),
      }),
    ),
    field(draft, "description", "$.description", { label: t("studio.description"), kind: "long", optional: true }),
    h(
      "details",
      {},
      h("summary", {}, t("studio.more")),
      h(
        "div",
        { class: "stack" },
        field(draft, "version", "$.version", { label: t("studio.version") }),
        field(draft, "licence", "$.licence", { label: t("studio.licence") }),
        field(draft, "attribution", "$.attribution", { label: t("studio.attribution"), kind: "long", optional: true }),
      ),
    ),
  );
}

function destinationCard(d, i) {
  const path = `$.destinations[${i}]`;
  const title = () => (typeof d.name === "string" && d.name.trim()) || t("studio.destination", { n: i + 1 });
  const heading = h("span", {}, title());
  const at = (label) => () => `${title()} › ${label}`;
  const idField = field(d, "id", `${path}.id`, { label: t("studio.id"), where: at(t("studio.id")) });
  const idInput = idField.querySelector("input");
  idInput.dataset.auto = !d.id || d.id === slug(d.name, "") ? "1" : "";
  idInput.addEventListener("input", () => (idInput.dataset.auto = ""));
  const nameField = field(d, "name", `${path}.name`, {
    label: t("studio.name"),
    where: at(t("studio.name")),
    onInput: (name) => {
      heading.textContent = title();
      // Its id follows its name until it is written by hand.
      if (idInput.dataset.auto === "1") {
        d.id = slug(name, `place-${i + 1}`);
        idInput.value = d.id;
      }
    },
  });
  const clues = Array.isArray(d.clues) ? d.clues : [];
  const followups = Array.isArray(d.followups) ? d.followups : [];
  const details = h(
    "details",
    { class: "card destination", id: `destination-${i}`, open: true },
    h("summary", {}, h("h3", {}, heading)),
    h(
      "div",
      { class: "stack" },
      groupSlot(path, title, () => nameField.querySelector("input").focus()),
      h("div", { class: "pair" }, nameField, idField),
      field(d, "aliases", `${path}.aliases`, { label: t("studio.aliases"), help: t("studio.onePerLine"), kind: "lines", where: at(t("studio.aliases")) }),
      h(
        "div",
        { class: "pair" },
        field(d, "country", `${path}.country`, { label: t("studio.country"), where: at(t("studio.country")) }),
        field(d, "region", `${path}.region`, { label: t("studio.region"), where: at(t("studio.region")) }),
      ),
      field(d, "countryAliases", `${path}.countryAliases`, {
        label: t("studio.countryAliases"),
        help: t("studio.onePerLine"),
        kind: "lines",
        optional: true,
        where: at(t("studio.countryAliases")),
      }),
      h(
        "div",
        { class: "pair" },
        field(d, "lat", `${path}.lat`, { label: t("studio.lat"), kind: "number", where: at(t("studio.lat")) }),
        field(d, "lon", `${path}.lon`, { label: t("studio.lon"), kind: "number", where: at(t("studio.lon")) }),
      ),
      h("p", { class: "help" }, t("studio.coordsHelp")),
      h("h4", {}, t("studio.clues")),
      groupSlot(`${path}.clues`, at(t("studio.clues"))),
      clues.map((clue, j) => clueBlock(d, clue, `${path}.clues[${j}]`, at)),
      h("h4", {}, t("studio.followups")),
      groupSlot(`${path}.followups`, at(t("studio.followups"))),
      followups.map((f, k) => followupBlock(d, f, k, `${path}.followups[${k}]`, at)),
      followups.length < 3
        ? h("button", { class: "small secondary", id: `add-followup-${i}`, onclick: () => addFollowup(i) }, t("studio.addFollowup"))
        : null,
      field(d, "revealText", `${path}.revealText`, { label: t("studio.reveal"), help: t("studio.revealHelp"), kind: "long", where: at(t("studio.reveal")) }),
      field(d, "banter", `${path}.banter`, { label: t("studio.banter"), help: t("studio.onePerLine"), kind: "lines", optional: true, where: at(t("studio.banter")) }),
      h(
        "div",
        { class: "row" },
        h("button", { class: "primary", id: `preview-${i}`, onclick: () => go({ screen: "preview", index: i }) }, t("studio.preview")),
        h("button", { class: "small danger", id: `remove-destination-${i}`, onclick: () => removeDestination(i) }, t("studio.removeDestination")),
      ),
    ),
  );
  return details;
}

function clueBlock(d, clue, path, at) {
  const label = t("studio.clue", { n: clue.points });
  const claims = Array.isArray(clue.claims) ? clue.claims : [];
  const where = (more) => at(more ? `${label} › ${more}` : label);
  return h(
    "fieldset",
    { class: "clue" },
    h("legend", {}, label),
    groupSlot(path, where()),
    field(clue, "text", `${path}.text`, {
      label: t("studio.clueText"),
      help: clue.points === 10 ? `${t("studio.clueHelp")} ${t("studio.clueHelp10")}` : t("studio.clueHelp"),
      kind: "long",
      where: where(),
    }),
    groupSlot(`${path}.claims`, where(t("studio.claims"))),
    claims.map((claim, k) => {
      const claimPath = `${path}.claims[${k}]`;
      const name = t("studio.claim", { n: k + 1 });
      return h(
        "div",
        { class: "claim stack" },
        groupSlot(claimPath, where(name)),
        field(claim, "statement", `${claimPath}.statement`, { label: `${name}: ${t("studio.statement")}`, kind: "long", where: where(name) }),
        field(claim, "sources", `${claimPath}.sources`, {
          label: `${name}: ${t("studio.sources")}`,
          help: t("studio.onePerLine"),
          kind: "lines",
          where: where(`${name} › ${t("studio.sources")}`),
        }),
        claims.length > 1
          ? h("button", { class: "small danger", onclick: () => rebuildAfter(() => claims.splice(k, 1)) }, t("studio.removeClaim", { n: k + 1 }))
          : null,
      );
    }),
    h("button", { class: "small secondary", onclick: () => rebuildAfter(() => claims.push(emptyClaim(newClaimId(d))), `${path}.claims[${claims.length}].statement`) }, t("studio.addClaim")),
  );
}

function newClaimId(d) {
  const taken = new Set((d.clues ?? []).flatMap((c) => (c.claims ?? []).map((x) => x.id)));
  let n = taken.size + 1;
  while (taken.has(`c${n}`)) n++;
  return `c${n}`;
}

function followupBlock(d, f, k, path, at) {
  const label = t("studio.followup", { n: k + 1 });
  const where = (more) => at(more ? `${label} › ${more}` : label);
  return h(
    "fieldset",
    { class: "followup" },
    h("legend", {}, label),
    groupSlot(path, where()),
    field(f, "question", `${path}.question`, { label: t("studio.question"), kind: "long", where: where(t("studio.question")) }),
    field(f, "answer", `${path}.answer`, { label: t("studio.answer"), where: where(t("studio.answer")) }),
    field(f, "accepted", `${path}.accepted`, { label: t("studio.accepted"), help: t("studio.onePerLine"), kind: "lines", optional: true, where: where(t("studio.accepted")) }),
    field(f, "options", `${path}.options`, { label: t("studio.options"), help: t("studio.optionsHelp"), kind: "lines", optional: true, where: where(t("studio.options")) }),
    field(f, "sources", `${path}.sources`, { label: t("studio.sources"), help: t("studio.onePerLine"), kind: "lines", where: where(t("studio.sources")) }),
    h("button", { class: "small danger", onclick: () => rebuildAfter(() => d.followups.splice(k, 1)) }, t("studio.removeFollowup", { n: k + 1 })),
  );
}

/** A change to the pack's shape (a destination, a fact, a followup added or removed): the editor is drawn again. */
function rebuildAfter(change, focusPath) {
  const y = window.scrollY;
  change();
  changed();
  render();
  window.scrollTo(0, y);
  if (focusPath) document.getElementById(pathId(focusPath))?.focus();
}

function addDestination() {
  if (!Array.isArray(draft.destinations)) draft.destinations = [];
  const n = draft.destinations.length;
  rebuildAfter(() => draft.destinations.push(emptyDestination()), `$.destinations[${n}].name`);
}

function addFollowup(i) {
  const d = draft.destinations[i];
  if (!Array.isArray(d.followups)) d.followups = [];
  const n = d.followups.length;
  rebuildAfter(() => d.followups.push(emptyFollowup()), `$.destinations[${i}].followups[${n}].question`);
}

function removeDestination(i) {
  const name = draft.destinations[i]?.name || t("studio.destination", { n: i + 1 });
  if (!confirm(t("studio.removeDestinationConfirm", { name }))) return;
  rebuildAfter(() => draft.destinations.splice(i, 1));
}

function leaveEditor() {
  if (dirty && !confirm(t("studio.leaveConfirm"))) return;
  clearTimeout(checkTimer);
  checkRound++;
  dirty = false;
  keepDraft();
  go({ screen: "home" });
}

function exportDraft() {
  const text = JSON.stringify(draft, null, 2) + "\n";
  // A data: address rather than a blob: the file comes from the page itself, nothing is fetched.
  const link = h("a", { href: "data:application/json;charset=utf-8," + encodeURIComponent(text), download: `${draft.packId || "pack"}.json` });
  document.body.append(link);
  link.click();
  link.remove();
}

// MARK: The live checks

let checkTimer = 0;
let checkRound = 0;

function scheduleCheck(delay = CHECK_DELAY_MS) {
  clearTimeout(checkTimer);
  checked.state = "checking";
  showStatus();
  checkTimer = setTimeout(runCheck, delay);
}

/** Asks the box what a save would find. An id it cannot take yet is said here, and checked as a stand-in. */
async function runCheck() {
  const round = ++checkRound;
  const id = typeof draft.packId === "string" && PACK_ID.test(draft.packId) ? draft.packId : null;
  try {
    const result = await call("POST", `/v1/packs/${id ?? "studio-draft"}/check`, id ? draft : { ...draft, packId: "studio-draft" });
    if (round !== checkRound) return;
    const problems = result.problems.filter((p) => id || p.path !== "$.packId");
    if (!id) problems.unshift({ path: "$.packId", message: t("studio.packIdBad") });
    checked = { problems, warnings: result.warnings, state: problems.length ? "problems" : "ok" };
  } catch (e) {
    if (round !== checkRound || !token) return;
    checked = { problems: checked.problems, warnings: [], state: "failed", message: errorMessage(e) };
  }
  showChecked();
}

/**
 * The place a problem goes: its field, or else the nearest group above it, or else the pack's; and
 * what of the path that place does not say (a key the page has no field for).
 */
function slotFor(path) {
  let at = path;
  while (at) {
    if (slots.has(at)) break;
    const shorter = at.replace(/(\.[^.[\]]+|\[[^\]]*\])$/, "");
    if (shorter === at) break;
    at = shorter;
  }
  if (!slots.has(at)) at = "$";
  return { slot: slots.get(at), rest: path.slice(at.length).replace(/^\./, "") };
}

/** The validator's terse English, in plain words of the page's language where it has a usual form. */
function plainWords(message) {
  const range = (text) => text.replace(/^at least (\d+)$/, (_, n) => t("problem.atLeast", { n })).replace(/^exactly (\d+)$/, (_, n) => t("problem.exactly", { n }));
  let m;
  if (message === "is required") return t("problem.required");
  if (message === "must not be empty") return t("problem.empty");
  if (message.startsWith("must be a number")) return t("problem.number");
  if (message.startsWith("must be an http(s) URL")) return t("problem.url");
  if ((m = message.match(/^must be (.+) characters long, is (\d+)$/))) return t("problem.length", { range: range(m[1]), n: m[2] });
  if ((m = message.match(/^must have (.+) entries, has (\d+)$/))) return t("problem.entries", { range: range(m[1]), n: m[2] });
  return message;
}

function showStatus() {
  const status = document.getElementById("check-status");
  if (!status) return;
  const n = checked.problems.length;
  status.classList.toggle("bad", checked.state === "problems" || checked.state === "failed");
  status.classList.toggle("ok", checked.state === "ok");
  // Short: it shares a line with Save on a phone. The whole sentence is the summary's heading.
  status.textContent =
    checked.state === "checking"
      ? t("studio.checking")
      : checked.state === "failed"
        ? t("studio.checkFailed", { message: checked.message })
        : n === 0
          ? t("studio.barOk")
          : t("studio.barProblems", { n });
}

function showChecked() {
  if (current.screen !== "edit") return;
  for (const slot of slots.values()) {
    fill(slot.el);
    slot.input?.removeAttribute("aria-invalid");
  }
  const listed = [];
  for (const problem of checked.problems) {
    const { slot, rest } = slotFor(problem.path);
    const words = rest ? `${rest}: ${plainWords(problem.message)}` : plainWords(problem.message);
    slot.el.append(h("p", { dataset: { path: problem.path } }, words));
    slot.input?.setAttribute("aria-invalid", "true");
    listed.push(
      h(
        "li",
        {},
        h(
          "button",
          {
            class: "link-button",
            onclick: () => {
              slot.el.closest("details")?.setAttribute("open", "");
              slot.focus();
            },
          },
          `${slot.where()}: ${words}`,
        ),
      ),
    );
  }
  const summary = document.getElementById("check-summary");
  if (summary) {
    const n = checked.problems.length;
    fill(
      summary,
      h("h2", { class: n ? "bad" : "ok" }, n === 0 ? t("studio.allGood") : n === 1 ? t("studio.problem") : t("studio.problems", { n })),
      n ? h("ul", { class: "problems" }, listed) : null,
      checked.warnings.map((w) => h("p", { class: "warning" }, t("studio.warning", { text: w }))),
    );
  }
  showStatus();
}

function markSaved(saved) {
  savedAs = saved.packId;
  dirty = false;
  keepDraft();
  if (!boxPacks.some((p) => p.packId === saved.packId)) boxPacks.push(saved);
  checked = { problems: [], warnings: saved.warnings, state: "ok" };
  showChecked();
  toast(t("studio.saved", { title: saved.title }));
}

async function saveDraft() {
  const id = draft.packId;
  if (typeof id !== "string" || !PACK_ID.test(id)) {
    checked = { problems: [{ path: "$.packId", message: t("studio.packIdBad") }, ...checked.problems.filter((p) => p.path !== "$.packId")], warnings: [], state: "problems" };
    showChecked();
    document.getElementById(pathId("$.packId"))?.focus();
    return;
  }
  if (id !== savedAs && boxPacks.some((p) => p.packId === id) && !confirm(t("studio.replaceConfirm", { id }))) return;
  clearTimeout(checkTimer);
  checkRound++;
  const button = document.getElementById("save");
  button.disabled = true;
  try {
    markSaved(await call("PUT", `/v1/packs/${encodeURIComponent(id)}`, draft));
  } catch (e) {
    if (!token) return;
    if (e.code === "INVALID_PACK") {
      checked = { problems: e.problems, warnings: [], state: "problems" };
      showChecked();
      toast(t("studio.notSaved"));
    } else {
      toast(errorMessage(e));
    }
  } finally {
    button.disabled = false;
  }
}

// MARK: The preview

/** The steps of a destination as the TV shows them: each clue from 10 to 2, the reveal, each followup asked and answered. */
function previewSteps(d) {
  const clues = (Array.isArray(d.clues) ? d.clues : []).map((clue) => ({ kind: "clue", clue }));
  const followups = Array.isArray(d.followups) ? d.followups : [];
  return [
    ...clues,
    { kind: "reveal" },
    ...followups.flatMap((f, k) => [
      { kind: "followup", f, k, answered: false },
      { kind: "followup", f, k, answered: true },
    ]),
  ];
}

function tvScreen(d, step, total) {
  const text = (value) => (typeof value === "string" ? value : "");
  switch (step.kind) {
    case "clue":
      return h(
        "section",
        { class: "tv-body" },
        h("div", {}, h("span", { class: "badge level", id: "level" }, t("game.points", { n: step.clue.points }))),
        h("p", { class: "clue-text", id: "clue" }, text(step.clue.text)),
        h("div", { class: "stack" }, h("h2", { class: "dim" }, t("tv.locked")), h("div", { class: "markers" }, h("span", { class: "dim" }, t("tv.noneLocked")))),
      );
    case "reveal":
      return h(
        "section",
        { class: "tv-body center" },
        revealedDestination({ name: text(d.name), country: text(d.country), revealText: text(d.revealText) }, { countryTag: "h2", textClass: "clue-text" }),
      );
    case "followup": {
      const options = Array.isArray(step.f.options) ? step.f.options : [];
      return h(
        "section",
        { class: step.answered ? "tv-body followup-results" : "tv-body" },
        h("p", { class: "badge" }, t("followup.count", { n: step.k + 1, total })),
        h("h1", { id: "question" }, text(step.f.question)),
        options.length ? h("div", { class: "markers" }, options.map((o) => h("span", { class: "pill" }, text(o)))) : null,
        step.answered ? h("h2", {}, t("followup.correct"), " ", h("span", { class: "secret", id: "correct" }, text(step.f.answer))) : null,
      );
    }
  }
}

function previewScreen(index) {
  const d = draft.destinations[index];
  const steps = previewSteps(d);
  const followups = Array.isArray(d.followups) ? d.followups.length : 0;
  let at = 0;
  const frame = h("iframe", { class: "tv-frame", title: t("studio.previewFrame"), width: TV_WIDTH, height: TV_HEIGHT });
  const holder = h("div", { class: "tv-preview" }, frame);
  const label = h("p", { class: "dim grow", id: "preview-step", "aria-live": "polite" });
  const prev = h("button", { id: "preview-prev", onclick: () => move(-1) }, t("studio.previewPrev"));
  const next = h("button", { class: "primary", id: "preview-next", onclick: () => move(1) }, t("studio.previewNext"));
  // The TV page's own stylesheet and body, in a frame the size of a TV: what the room will see.
  const draw = () => {
    const doc = frame.contentDocument;
    if (!doc?.body) return;
    if (!doc.querySelector("link")) {
      doc.head.append(h("meta", { charset: "utf-8" }), h("link", { rel: "stylesheet", href: "/static/css/tripto.css" }));
    }
    doc.documentElement.lang = t("lang");
    doc.body.className = "tv";
    doc.body.replaceChildren(
      h(
        "header",
        { class: "topbar" },
        h(
          "span",
          { class: "row grow", id: "status" },
          h("span", { class: "brand" }, "TRIPTO"),
          h("span", {}, t("game.destinationOf", { n: index + 1, total: draft.destinations.length })),
        ),
      ),
      h("main", {}, steps[at] ? tvScreen(d, steps[at], followups) : null),
    );
    label.textContent = t("studio.previewStep", { n: at + 1, total: steps.length });
    prev.disabled = at === 0;
    next.disabled = at >= steps.length - 1;
  };
  const move = (by) => {
    at = Math.max(0, Math.min(steps.length - 1, at + by));
    draw();
  };
  const scale = () => (frame.style.transform = `scale(${holder.clientWidth / TV_WIDTH})`);
  new ResizeObserver(scale).observe(holder);
  frame.addEventListener("load", draw);
  let drawn = false;
  return {
    el: h(
      "section",
      { class: "stack" },
      h("h1", {}, t("studio.previewTitle", { name: (typeof d.name === "string" && d.name) || t("studio.destination", { n: index + 1 }) })),
      holder,
      h("div", { class: "row nowrap" }, prev, label, next),
      h("button", { class: "block", id: "preview-back", onclick: () => go({ screen: "edit" }) }, t("studio.previewBack")),
    ),
    update() {
      if (drawn) return;
      drawn = true;
      scale();
      draw();
    },
  };
}

render();

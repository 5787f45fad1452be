// The map of the journey (docs/web.md, "The map of the journey"): the countries of /static/media/world.svg
// (Natural Earth, made by scripts/make-world-map) in an inline SVG, with the route of the stops so far
// and a pin for where the train has arrived. The caller decides what may be shown: a destination is
// only ever passed in once it is revealed.
//
//   const map = journeyMap({ label, scale });  // map.el goes on the screen
//   map.route(stops, { animate });        // the stops so far ({ lat, lon, name }), framed; none: the whole map
//   map.arrive(stop, { from, animate });  // flies to `stop` (from `from`), then pins it with its name
//
// Dots and names are sized in pixels of a 1080-line TV, times `scale` (by default the screen's
// height over 1080, so they keep their share of a 720-line TV), whatever the zoom; lines keep their
// width. With prefers-reduced-motion the view is set at once and nothing fades in.

import { reducedMotion } from "./ui.js";

const SVG = "http://www.w3.org/2000/svg";
/** The map's extent (as the script's): Antarctica is left out. */
const NORTH = 84;
const SOUTH = -58;
const WIDTH = 360;

function miller(lat) {
  const phi = (Math.max(SOUTH, Math.min(NORTH, lat)) * Math.PI) / 180;
  return ((1.25 * Math.log(Math.tan(Math.PI / 4 + 0.4 * phi))) * 180) / Math.PI;
}

const TOP = miller(NORTH);
const HEIGHT = TOP - miller(SOUTH);

/** A place's point in the map's units (Miller cylindrical, as scripts/make-world-map projects). */
function project(lat, lon) {
  return [lon + 180, TOP - miller(lat)];
}

/**
 * Points along a way, each moved by whole turns of the globe so that it is reached from the one before
 * the short way (Tokyo to Lima across the Pacific, not round the world), then all together so that
 * their middle (or the point `anchor`, where the view goes) is on the map; the map draws the world
 * again on either side for what lies past its edges.
 */
function shortWays(points, anchor = null) {
  const out = [];
  for (const [x, y] of points) {
    const before = out.at(-1)?.[0];
    out.push([before === undefined ? x : before + ((((x - before + 180) % WIDTH) + WIDTH) % WIDTH) - 180, y]);
  }
  const xs = out.map((p) => p[0]);
  const middle = anchor === null ? (Math.min(...xs) + Math.max(...xs)) / 2 : xs[anchor];
  const turns = Math.floor(middle / WIDTH) * WIDTH;
  return out.map(([x, y]) => [x - turns, y]);
}

/** Tells each map's world apart (its copies on either side refer to it by id). */
let maps = 0;

/** The countries' outlines, fetched once for the page's lifetime. */
let countries = null;
function loadCountries() {
  countries ??= fetch("/static/media/world.svg")
    .then((response) => (response.ok ? response.text() : Promise.reject(new Error(`HTTP ${response.status}`))))
    .then((text) => [...new DOMParser().parseFromString(text, "image/svg+xml").querySelectorAll("path")].map((p) => p.getAttribute("d")))
    .catch((e) => {
      countries = null;
      console.info("No map:", e.message);
      return [];
    });
  return countries;
}

/**
 * Fetches the countries ahead (a phone in the lobby): at a venue, two hundred phones then do not all
 * ask for them in the second of the first reveal.
 */
export function preloadMap() {
  loadCountries();
}

function node(tag, attrs = {}, parent = null) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, value);
  parent?.append(el);
  return el;
}

/** How long a flight takes, and how long the route takes to draw. */
const FLIGHT_MS = 2600;
/** The narrowest views: a route of one stop, and a destination's close-up (map units, ~degrees). */
const ROUTE_MIN_WIDTH = 40;
const CLOSE_UP_WIDTH = 30;
/** The last stop is in the reveal's frame when it is this close (map units); else only the destination. */
const NEAR = 45;

const ease = (t) => (t < 0.5 ? 4 * t * t * t : 1 - (-2 * t + 2) ** 3 / 2);

export function journeyMap({ label = "", scale = window.innerHeight / 1080 } = {}) {
  const el = node("svg", { class: "map", role: "img", "aria-label": label, preserveAspectRatio: "xMidYMid slice" });
  node("rect", { class: "map-sea", x: -WIDTH, y: -HEIGHT, width: 3 * WIDTH, height: 3 * HEIGHT }, el);
  const land = node("g", { class: "map-land", id: `map-land-${++maps}` }, el);
  for (const turn of [-WIDTH, WIDTH]) node("use", { href: `#${land.id}`, x: turn }, el);
  const routeLayer = node("g", { class: "map-route" }, el);
  const pinLayer = node("g", { class: "map-pins" }, el);
  // The view: a centre and a width in map units; the height follows the element's shape.
  let view = { x: WIDTH / 2, y: HEIGHT / 2, w: WIDTH };
  let flight = 0;
  // What is drawn at a size in pixels: [element, attribute, pixels].
  let sized = [];

  loadCountries().then((paths) => {
    for (const d of paths) node("path", { d }, land);
  });
  // The view follows the element's size: its shape sets the view's height, its width the sizes.
  // Once the screen that held it is gone, the map lets go (and a flight under way stops).
  let shown = false;
  const resized = new ResizeObserver(() => {
    if (el.isConnected) shown = true;
    else if (shown) {
      resized.disconnect();
      cancelAnimationFrame(flight);
      return;
    }
    show(view);
  });
  resized.observe(el);

  function aspect() {
    const { width, height } = el.getBoundingClientRect();
    return width > 0 && height > 0 ? height / width : 9 / 16;
  }

  /** The view that shows the box [x0, y0, x1, y1] whole, at least `minWidth` wide. */
  function framing([x0, y0, x1, y1], minWidth) {
    const a = aspect();
    let w = Math.max(minWidth, (x1 - x0) * 1.5, ((y1 - y0) * 1.6) / a);
    // Never wider than the world and a margin, unless the route itself is.
    w = Math.min(w, Math.max(WIDTH * 1.2, (x1 - x0) * 1.1));
    return { x: (x0 + x1) / 2, y: (y0 + y1) / 2, w };
  }

  /** Sets the view, and the sizes that follow it. */
  function show(v) {
    view = v;
    const a = aspect();
    const h = v.w * a;
    el.setAttribute("viewBox", `${v.x - v.w / 2} ${v.y - h / 2} ${v.w} ${h}`);
    const unitsPerPixel = v.w / Math.max(1, el.getBoundingClientRect().width || 1280);
    for (const [item, attribute, pixels] of sized) item.setAttribute(attribute, pixels * unitsPerPixel);
  }

  /** The whole map: the world fits the element (both ways), centred. */
  function worldView() {
    const a = aspect();
    return { x: WIDTH / 2, y: HEIGHT / 2, w: Math.max(WIDTH * 0.92, HEIGHT / a) };
  }

  /** Flies to `to`: out and in again when the way is long, in the map's units. */
  function fly(to, animate, done) {
    const from = view;
    cancelAnimationFrame(flight);
    if (!animate || reducedMotion()) {
      show(to);
      done?.();
      return;
    }
    const distance = Math.hypot(to.x - from.x, to.y - from.y);
    const high = Math.max(from.w, to.w, Math.min(WIDTH, distance * 1.4));
    const started = performance.now();
    const step = (now) => {
      const t = Math.min(1, (now - started) / FLIGHT_MS);
      const e = ease(t);
      // The width goes up to `high` and down to the target in log space, the centre glides.
      const lw0 = Math.log(from.w);
      const lw1 = Math.log(to.w);
      const lh = Math.log(high);
      const lw = t < 0.5 ? lw0 + (lh - lw0) * ease(t * 2) : lh + (lw1 - lh) * ease(t * 2 - 1);
      show({ x: from.x + (to.x - from.x) * e, y: from.y + (to.y - from.y) * e, w: Math.exp(lw) });
      if (t < 1 && (el.isConnected || !shown)) flight = requestAnimationFrame(step);
      else done?.();
    };
    flight = requestAnimationFrame(step);
  }

  function clear() {
    routeLayer.replaceChildren();
    pinLayer.replaceChildren();
    sized = [];
  }

  function size(item, attribute, pixels) {
    sized.push([item, attribute, pixels * scale]);
    return item;
  }

  /** The railway from stop to stop: gentle arcs, drawn from the first to the last. */
  function railway(points, animate) {
    if (points.length < 2) return;
    let d = `M${points[0][0]} ${points[0][1]}`;
    for (let i = 1; i < points.length; i++) {
      const [x0, y0] = points[i - 1];
      const [x1, y1] = points[i];
      // The control point lifts the arc to the left of the way, by a fifth of its length.
      const cx = (x0 + x1) / 2 - (y1 - y0) * 0.2;
      const cy = (y0 + y1) / 2 + (x1 - x0) * 0.2;
      d += ` Q${cx} ${cy} ${x1} ${y1}`;
    }
    const line = node("path", { class: "map-line", d }, routeLayer);
    if (animate && !reducedMotion()) line.classList.add("fading");
  }

  function stopDot([x, y], here) {
    const dot = node("circle", { class: here ? "map-stop here" : "map-stop", cx: x, cy: y }, routeLayer);
    size(dot, "r", here ? 10 : 7);
  }

  function stopLabel([x, y], name, { big = false } = {}) {
    const text = node("text", { class: big ? "map-label big" : "map-label", x, y }, pinLayer);
    text.textContent = name;
    size(text, "font-size", big ? 46 : 28);
    size(text, "dy", big ? -34 : -18);
    // A halo in the sea's colour keeps the name readable over borders and the railway.
    size(text, "stroke-width", big ? 10 : 6);
    return text;
  }

  function pin([x, y], name) {
    const glow = node("circle", { class: "map-glow", cx: x, cy: y }, pinLayer);
    size(glow, "r", 34);
    const dot = node("circle", { class: "map-pin", cx: x, cy: y }, pinLayer);
    size(dot, "r", 13);
    stopLabel([x, y], name, { big: true });
  }

  /** Runs `draw` once the element is on the page (screens are built before they are shown). */
  function placed(draw) {
    requestAnimationFrame(() => {
      show(view);
      draw();
    });
  }

  return {
    el,

    route(stops, { animate = false } = {}) {
      clear();
      el.dataset.view = "route";
      placed(() => {
        if (!stops.length) {
          fly(worldView(), animate);
          return;
        }
        const points = shortWays(stops.map((s) => project(s.lat, s.lon)));
        railway(points, animate);
        points.forEach((p, i) => stopDot(p, i === points.length - 1));
        stops.forEach((s, i) => stopLabel(points[i], s.name));
        const xs = points.map((p) => p[0]);
        const ys = points.map((p) => p[1]);
        show(view);
        fly(framing([Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)], ROUTE_MIN_WIDTH), animate);
      });
    },

    arrive(stop, { from = null, animate = false } = {}) {
      clear();
      el.dataset.view = "arrive";
      placed(() => {
        const stops = [...(from ? [project(from.lat, from.lon)] : []), project(stop.lat, stop.lon)];
        // The destination on the map itself: the flight from the whole map goes the short way to it.
        const way = shortWays(stops, stops.length - 1);
        const there = way.at(-1);
        const start = from ? way[0] : null;
        if (start) {
          railway([start, there], animate);
          stopDot(start, false);
          stopLabel(start, from.name);
        }
        // Close up, with the stop before it where that is near enough to keep the close-up close.
        const near = start && Math.hypot(start[0] - there[0], start[1] - there[1]) < NEAR;
        const box = near
          ? [Math.min(start[0], there[0]), Math.min(start[1], there[1]), Math.max(start[0], there[0]), Math.max(start[1], there[1])]
          : [there[0], there[1], there[0], there[1]];
        const close = framing(box, CLOSE_UP_WIDTH);
        const landed = () => {
          pin(there, stop.name);
          show(close);
          el.dataset.arrived = "true";
        };
        if (!animate || reducedMotion()) {
          landed();
          return;
        }
        show(worldView());
        fly(close, true, landed);
      });
    },
  };
}

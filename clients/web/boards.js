// Each game as a person looks at it, drawn from the seat's view only (what the service
// sends this seat: nobody else's hand is ever in it). A board is
//   render(ctx) -> html, targets(action, content) -> keys ("card:<id>", "pos:r,c", "seat:n")
// naming what a move is about, so a click on that card, space or player picks the move;
// optional: labels (a heading per action type), colour(seat), load(api, id, extra).

import { html, raw, words } from "./dom.js";
import { SYMBOLS, explain } from "./rules.js";

/** A thing of the game a person may tap or hover for what it is (rules.js says): its
 * attributes. A tap shows the words beside the moves (GameScreen.click); a hover, its title. */
export function explained(ctx, kind, id, fallback = "") {
  const text = explain(ctx.game.game, kind, id, ctx.content) || fallback;
  return text ? html`data-explain="${kind}:${id}" title="${text}"` : "";
}

// Seat colours as the game service draws Footprints' figures (games/footprints/rules.py)
const SEAT_COLOURS = ["#e53935", "#1e88e5", "#fdd835", "#8e24aa", "#fb8c00", "#00897b"];
const colour = (seat) => SEAT_COLOURS[seat % SEAT_COLOURS.length];

/** Strings in an action that are cards of the game (its question and text aside). */
function cardsNamed(value, content, out = []) {
  if (typeof value === "string") {
    if (content.byId.has(value)) out.push(`card:${value}`);
  } else if (Array.isArray(value)) {
    for (const v of value) cardsNamed(v, content, out);
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) if (k !== "question" && k !== "text") cardsNamed(v, content, out);
  }
  return out;
}

/** A card face: its corner glyph, name, traits and text; clickable when a move names it.
 * `as`: the card's face drawn for a name that is no card's id (an Itchy Feet kind). */
export function card(ctx, id, { mark = () => false, note = "", as = null, name = null } = {}) {
  const info = ctx.cards.get(as || id);
  const key = `card:${id}`;
  const can = ctx.index.has(key);
  const focused = ctx.focus === key;
  if (!info) return html`<div class="card unknown" title="${id}">${id}</div>`;
  const why = explain(ctx.game.game, "card", as || id, ctx.content);
  return html`<div class="card kind-${info.kind} ${can ? "can" : ""} ${focused ? "focused" : ""}"
      data-card="${id}" ${can ? html`data-target="${key}" role="button"` : ""} tabindex="0"
      ${why ? html`data-explain="card:${as || id}"` : ""} title="${why || name || info.name}">
    ${!as && info.glyph && info.glyph.length <= 3 ? html`<span class="corner">${info.glyph}</span>` : ""}
    <span class="name">${name || info.name}</span>
    ${info.traits.length ? html`<ul class="traits">${info.traits.map(
      (t) => html`<li class="${mark(t) ? "wanted" : ""}">${t}</li>`
    )}</ul>` : ""}
    ${info.text ? html`<p class="text">${info.text}</p>` : ""}
    ${note ? html`<p class="note">${note}</p>` : ""}
  </div>`;
}

const cards = (ctx, ids, options) =>
  ids.length ? html`<div class="cards">${ids.map((id) => card(ctx, id, options))}</div>` : html`<p class="quiet">none</p>`;

function seatRow(ctx, seat, body) {
  const key = `seat:${seat}`;
  const can = ctx.index.has(key);
  return html`<tr class="${ctx.game.to_act.includes(seat) ? "acting" : ""} ${can ? "can" : ""}"
      ${can ? html`data-target="${key}" tabindex="0" role="button"` : ""}>
    <th><span class="swatch" style="background:${colour(seat)}"></span>${ctx.names[seat]}${seat === ctx.me ? " (you)" : ""}</th>
    ${body}</tr>`;
}

// -- itty bitty ------------------------------------------------------------------------------

const ittyBitty = {
  labels: {
    keep_collector: "Keep a collector",
    take_ittybit: "Take an ittybit from the market",
    draw_collectors: "Draw collectors",
    complete_collector: "Complete a collector",
    pass_turn: "Pass",
  },
  colour,
  targets: (action, content) => cardsNamed(action, content),
  render(ctx) {
    const pub = ctx.view.public;
    const own = ctx.view.private;
    // the traits your collectors ask for stand out on every card
    const grails = new Set();
    for (const c of ctx.content.collectors) {
      if (own?.collectors.includes(c.id)) for (const g of c.grails) grails.add(g.trait);
    }
    const wanted = (trait) => grails.has(trait);
    return html`<div class="itty-bitty">
      <section class="market"><h3>Market</h3>
        <div class="cards">${pub.market.map((id) =>
          id ? card(ctx, id, { mark: wanted }) : html`<div class="card empty">empty</div>`
        )}</div>
        <p class="quiet">Supply: ${pub.supply.ittybits} ittybits, ${pub.supply.collectors} collectors ·
          discard: ${pub.discard.ittybits.length} ittybits, ${pub.discard.collectors.length} collectors</p>
      </section>
      ${own ? html`
        ${own.choice.length ? html`<section class="choice"><h3>Collectors offered: keep one</h3>${cards(ctx, own.choice)}</section>` : ""}
        <section class="hand"><h3>Your ittybits (${own.ittybits.length})</h3>${cards(ctx, own.ittybits, { mark: wanted })}</section>
        <section class="hand"><h3>Your collectors (${own.collectors.length})</h3>${cards(ctx, own.collectors)}</section>
        ${own.completed.length ? html`<section><h3>Your completed collectors</h3>${cards(ctx, own.completed)}</section>` : ""}
      ` : ""}
      <section><h3>The table</h3>
        <table class="holdings"><thead><tr><th>Player</th><th>Coins</th><th>Ittybits</th><th>Collectors</th><th>Completed</th></tr></thead>
        <tbody>${pub.players.map((p) => seatRow(ctx, p.seat, html`
          <td>${p.coins}</td><td>${p.ittybits}</td><td>${p.collectors}${p.choosing ? html` <span class="quiet">(choosing of ${p.choosing})</span>` : ""}</td>
          <td>${p.completed.map((c) => html`<span class="chip" title="${c.ittybits} ittybits paid">${c.coins} coins</span>`)}</td>`))}
        </tbody></table>
        ${pub.end_triggered_by !== null ? html`<p class="warn">${ctx.names[pub.end_triggered_by]} triggered the end: the round is the last.</p>` : ""}
      </section>
    </div>`;
  },
};

// -- Itchy Feet --------------------------------------------------------------------------------

const itchyFeet = {
  labels: {
    draw: "Draw a card",
    recycle: "Recycle: take a card from the discard",
    offer_trade: "Offer a trade",
    accept_trade: "Accept the trade",
    decline_trade: "Decline the trade",
    draw_bonus: "Bonus card",
    skip_bonus: "Bonus card",
    steal: "Steal",
    allow_steal: "A steal against you",
    cancel_steal: "A steal against you",
    travel: "Travel",
    play_special: "Play a special item",
    dispose_forbidden: "Get rid of a forbidden item",
    discard: "Discard down to your hand limit",
    keep_card: "Keep one card",
    choose_character: "Choose your character",
    pass_turn: "Pass",
  },
  colour,
  targets(action, content) {
    const keys = cardsNamed(action, content);
    // a card to take from the discard is named by its kind, as the discard shows it
    if (action.type === "recycle" && !content.byId.has(action.take)) keys.push(`card:${action.take}`);
    if (action.type === "steal") keys.push(`seat:${action.victim}`);
    if (action.type === "offer_trade") keys.push(`seat:${action.to}`);
    return keys;
  },
  render(ctx) {
    const pub = ctx.view.public;
    const own = ctx.view.private;
    const countries = new Map(ctx.content.countries.map((c) => [c.id, c]));
    const kinds = new Map(ctx.content.cards.map((c) => [c.kind, c.name]));
    const kindOf = new Map(ctx.content.cards.map((c) => [c.id, c.kind]));
    const held = new Set((own?.hand || []).map((id) => kindOf.get(id)));
    // a copy the table sees by its kind (the discard, an offer): drawn as the kind's first card
    const firstOf = new Map();
    const named = new Map(); // a kind's name: its cards' own, or the kind where they differ
    for (const c of ctx.content.cards) {
      if (!firstOf.has(c.kind)) firstOf.set(c.kind, c.id);
      named.set(c.kind, named.has(c.kind) && named.get(c.kind) !== c.name ? words(c.kind) : c.name);
    }
    const shown = (ids) => ids.length
      ? html`<div class="cards">${ids.map((id) => (ctx.cards.has(id)
        ? card(ctx, id) : card(ctx, id, { as: firstOf.get(id), name: named.get(id) })))}</div>`
      : html`<p class="quiet">none</p>`;
    const country = (id, label, done) => {
      const c = countries.get(id);
      if (!c) return html`<div class="country">${id}</div>`;
      return html`<div class="country ${done ? "done" : ""}"><span class="quiet">${label}</span>
        <b>${c.name}</b> <span class="quiet">${c.capital?.name || ""}</span>
        <ul class="needs">${c.items.map(
          (k) => html`<li class="${own && held.has(k) ? "have" : ""}">${kinds.get(k) || words(k)}${own && held.has(k) ? " ✓" : ""}</li>`
        )}</ul></div>`;
    };
    const character = (id) => {
      if (!id) return "";
      const info = ctx.cards.get(id) || ctx.cards.get(`character-${id}`);
      return html`<span class="explainable" tabindex="0" ${explained(ctx, "character", id, info?.text || "")}>${info?.name || words(id)}</span>`;
    };
    const me = ctx.me;
    return html`<div class="itchy-feet">
      ${me !== null ? html`<section class="route"><h3>Your journey</h3>
        <div class="countries">
          ${country(pub.homes[me], "first home:", pub.visited_home[me])}
          <span class="arrow">→</span>
          ${country(pub.centre, "then the centre:", false)}
        </div></section>` : html`<section class="route"><h3>The centre</h3>${country(pub.centre, "", false)}</section>`}
      ${own ? html`<section class="hand"><h3>Your hand (${own.hand.length})</h3>${cards(ctx, own.hand)}</section>` : ""}
      ${own?.keep_one_of?.length ? html`<section><h3>Keep one of</h3>${cards(ctx, own.keep_one_of)}</section>` : ""}
      <section class="discard"><h3>Discard pile (face up, newest last)</h3>
        ${shown(pub.discard)}
        <p class="quiet">Draw pile: ${pub.draw_pile} cards · turn ${pub.turn}
          ${pub.current !== null ? html` · ${ctx.names[pub.current]} has ${pub.actions_left} action(s) left` : ""}</p>
        ${pub.revealed.length ? html`<h3>Events revealed</h3>${cards(ctx, pub.revealed)}` : ""}
      </section>
      <section><h3>The travellers</h3>
        <table class="holdings"><thead><tr><th>Player</th><th>Home</th><th>Visited home</th><th>Cards in hand</th><th>Character</th></tr></thead>
        <tbody>${pub.homes.map((home, seat) => seatRow(ctx, seat, html`
          <td>${countries.get(home)?.name || home}</td><td>${pub.visited_home[seat] ? "yes ✓" : "not yet"}</td>
          <td>${pub.hand_sizes[seat]}${pub.skips[seat] ? html` <span class="quiet">(skips ${pub.skips[seat]})</span>` : ""}</td>
          <td>${character(pub.characters[seat])}</td>`))}
        </tbody></table>
        ${pub.winner !== null ? html`<p><b>${ctx.names[pub.winner]}</b> reached the centre.</p>` : ""}
      </section>
    </div>`;
  },
};

// -- Footprints -------------------------------------------------------------------------------

const RESOURCE_MARK = { stone: "stone", mammoth: "mammoth", wood: "wood", berries: "berries" };

function place(pos) {
  return pos ? `pos:${pos[0]},${pos[1]}` : null;
}

/** The service's drawing of the map (board.svg, from this seat's view), with the seat's own
 * figure ringed and every space a move can reach marked and clickable. */
function drawMap(ctx) {
  const svgText = ctx.extra?.svg;
  if (!svgText) return html`<p class="quiet">Loading the map…</p>`;
  const doc = new DOMParser().parseFromString(svgText, "image/svg+xml");
  const svg = doc.documentElement;
  if (svg.nodeName !== "svg") return html`<p class="quiet">The map could not be read.</p>`;
  // our own service's drawing; still, nothing in it may run
  for (const el of svg.querySelectorAll("script, foreignObject")) el.remove();
  for (const el of svg.querySelectorAll("*")) {
    for (const a of [...el.attributes]) if (a.name.startsWith("on")) el.removeAttribute(a.name);
  }
  const NS = "http://www.w3.org/2000/svg";
  const centreOf = (polygon) => {
    const pts = polygon.getAttribute("points").trim().split(/\s+/).map((p) => p.split(",").map(Number));
    return [pts.reduce((s, p) => s + p[0], 0) / pts.length, pts.reduce((s, p) => s + p[1], 0) / pts.length];
  };
  const spaces = new Map([...svg.querySelectorAll("polygon.space")].map((p) => [`pos:${p.getAttribute("data-pos")}`, p]));
  // houses carry no position: each stands left of its row's first space, at the same height
  const houses = new Map();
  for (const house of svg.querySelectorAll("polygon.house")) {
    const [, y] = centreOf(house);
    for (const h of ctx.extra.map?.houses || []) {
      const entry = spaces.get(place(h.entry));
      if (entry && Math.abs(centreOf(entry)[1] - y) < 1) houses.set(place(h.at), house);
    }
  }
  const shapeAt = (key) => spaces.get(key) || houses.get(key);
  drawPieces(svg, ctx.view.public, ctx.names, shapeAt, centreOf);
  const overlay = doc.createElementNS(NS, "g");
  overlay.setAttribute("class", "overlay");
  svg.appendChild(overlay);
  for (const [key] of ctx.index) {
    const shape = shapeAt(key);
    if (!shape) continue;
    const [x, y] = centreOf(shape);
    const mark = doc.createElementNS(NS, "circle");
    // a space a move reaches: a button for the pointer, a finger and the keyboard alike
    Object.entries({
      cx: x.toFixed(1), cy: y.toFixed(1), r: "22", class: `reach ${ctx.focus === key ? "focused" : ""}`,
      "data-target": key, tabindex: "0", role: "button", "aria-label": `Move to ${placeText(key.slice(4).split(",").map(Number), ctx) || key.slice(4)}`,
    }).forEach(([k, v]) => mark.setAttribute(k, v));
    const title = doc.createElementNS(NS, "title");
    title.textContent = `Move to ${placeText(key.slice(4).split(",").map(Number), ctx) || key.slice(4)}`;
    mark.appendChild(title);
    overlay.appendChild(mark);
  }
  const mine = ctx.view.public.players[ctx.me]?.position;
  const shape = mine && shapeAt(place(mine));
  if (shape) {
    const [x, y] = centreOf(shape);
    const ring = doc.createElementNS(NS, "circle");
    Object.entries({ cx: x.toFixed(1), cy: (y + 8).toFixed(1), r: "11", class: "you", stroke: colour(ctx.me) })
      .forEach(([k, v]) => ring.setAttribute(k, v));
    overlay.appendChild(ring);
  }
  // as wide as its box on a wide screen; on a phone at its own size (each space a finger's
  // width), scrolled in its box (style.css)
  const natural = Number(svg.getAttribute("width")) || Number(svg.getAttribute("viewBox")?.split(/\s+/)[2]) || 0;
  if (natural) svg.setAttribute("style", `--natural-width: ${natural}px`);
  svg.removeAttribute("width");
  svg.removeAttribute("height");
  svg.setAttribute("class", "map");
  return raw(new XMLSerializer().serializeToString(svg));
}

/** Black or white, whichever reads better on a seat's colour (as the service's drawing has it). */
function ink(fill) {
  const lin = (v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  const [r, g, b] = [1, 3, 5].map((i) => lin(parseInt(fill.slice(i, i + 2), 16) / 255));
  const light = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return (light + 0.05) / 0.05 >= 1.05 / (light + 0.05) ? "#000" : "#fff";
}

/** The pieces, drawn from the view over the map as set up (board.svg?pieces=false, fetched
 * once a game): each engraving in its builder's colour, each figure, each cave painted in its
 * painter's, each arrival on the cairn track. */
function drawPieces(svg, pub, who, shapeAt, centreOf) {
  const NS = "http://www.w3.org/2000/svg";
  const add = (name, attrs, title) => {
    const el = svg.ownerDocument.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    if (title) {
      const t = svg.ownerDocument.createElementNS(NS, "title");
      t.textContent = title;
      el.appendChild(t);
    }
    svg.appendChild(el);
  };
  const names = (seat) => who?.[seat] || `seat ${seat + 1}`;
  for (const e of pub.engraved || []) {
    const shape = shapeAt(place(e.at));
    if (!shape) continue;
    const [x, y] = centreOf(shape);
    add("rect", { class: "engraving", x: (x - 7).toFixed(1), y: (y - 13).toFixed(1), width: 14, height: 9, fill: colour(e.seat), stroke: "#000" },
      `${names(e.seat)}'s ${e.terrain} engraving`);
  }
  pub.players.forEach((p, seat) => {
    const cave = p.cave_site && svg.querySelector(`circle.cave[data-site="${CSS.escape(p.cave_site)}"]`);
    if (cave) cave.setAttribute("fill", colour(seat));
    const label = cave?.nextElementSibling;
    if (label?.getAttribute("class") === "cave-label") label.setAttribute("fill", ink(colour(seat)));
  });
  pub.players.forEach((p, seat) => {
    const shape = p.position && shapeAt(place(p.position));
    if (!shape) return;
    const [x, y] = centreOf(shape);
    add("circle", { class: "figure", cx: x.toFixed(1), cy: (y + 8).toFixed(1), r: 7, fill: colour(seat), stroke: "#000", "stroke-width": 2 },
      `${names(seat)}'s figure`);
  });
  (pub.cairn_track || []).forEach((seat, i) => {
    const slot = svg.querySelector(`rect.track[data-slot="${i}"]`);
    if (!slot) return;
    slot.setAttribute("fill", colour(seat));
    const points = slot.nextElementSibling;
    if (points) points.setAttribute("fill", ink(colour(seat)));
  });
}

/** A bonus as a short noun ("a wood token", "+1 forest skill"). */
function bonusNoun(b) {
  return {
    resource: () => `a ${b.resource} token`,
    skill: () => `+1 ${b.terrain} skill`,
    skill_any: () => "+1 any skill",
    fire: () => "a fire card",
    footprint: () => "a footprint card",
  }[b?.kind]?.() || "";
}

/** A place as a person finds it on the map: what it looks like (its terrain and bonus, a
 * cairn, a house) and where it lies from the seat's own figure ("2 up, 3 right of you"; rows
 * and columns counted from 1 before the figure is placed). */
function placeText(pos, ctx) {
  const map = ctx.extra?.map;
  if (!map || !Array.isArray(pos)) return null;
  const [row, column] = pos;
  if (column === -1) {
    const house = map.houses.find((h) => h.at[0] === row);
    const gives = (house?.bonuses || []).map(bonusNoun).filter(Boolean);
    return `the house of row ${row + 1}${gives.length ? ` (${gives.join(", ")})` : ""}`;
  }
  const space = map.spaces.find((s) => s.at[0] === row && s.at[1] === column);
  if (!space) return `row ${row + 1}, column ${column + 1}`;
  const bonus = bonusNoun(space.bonus);
  const what = space.cairn
    ? `the cairn (${space.terrains.join(" and ")})`
    : `the ${space.terrains.join(" and ")} space${bonus ? ` with ${bonus}` : ""}`;
  const from = ctx.view?.public?.players?.[ctx.me]?.position;
  if (!from) return `${what} in row ${row + 1}, column ${column + 1}`;
  const [dr, dc] = [row - from[0], column - from[1]];
  const ways = [
    dr ? `${Math.abs(dr)} ${dr < 0 ? "up" : "down"}` : "",
    dc ? `${Math.abs(dc)} ${dc < 0 ? "left" : "right"}` : "",
  ].filter(Boolean);
  return ways.length ? `${what} ${ways.join(", ")} of you` : `${what} where you stand`;
}

const footprints = {
  placeText,
  labels: {
    choose_leader: "Choose your leader",
    keep_starting_footprint: "Keep a starting footprint card",
    place_figure: "Place your figure on a house",
    play: "Play a card from your panel",
    top: "Top action: move",
    bottom: "Bottom action",
    lead: "Lead",
    build_engraving: "Build an engraving",
    build_cave_painting: "Paint a cave",
    use_power: "Use a power",
    skip: "Skip",
    discard_fire: "Discard fire cards",
    complete_footprint: "Complete a footprint card",
    decide_footprint: "The footprint card drawn",
  },
  colour,
  async load(api, id, extra) {
    // the map and its drawing never change in a game: both fetched once (the drawing without
    // the pieces, which the page draws from the view), so a whole game moves well under a
    // megabyte
    const [map, svg] = await Promise.all([
      extra?.map || api.map(id).then((m) => m.map),
      extra?.svg || api.boardSvg(id),
    ]);
    return { map, svg };
  },
  targets(action, content) {
    const keys = cardsNamed(action, content);
    const last = (path) => (path && path.length ? path[path.length - 1] : null);
    const to = {
      place_figure: () => [action.row, -1],
      top: () => last(action.path),
      bottom: () => action.to,
      lead: () => action.to || last(action.path),
      build_engraving: () => action.at,
    }[action.type]?.();
    if (to) keys.push(place(to));
    return keys;
  },
  render(ctx) {
    const pub = ctx.view.public;
    const own = ctx.view.private;
    const clans = ctx.content.clans || {};
    const me = pub.players[ctx.me];
    const skills = (p) => Object.entries(p.skills).map(([t, n]) => html`<span class="chip" title="${t}">${t} ${n}</span>`);
    const resources = (p) =>
      Object.entries(p.resources).filter(([, n]) => n).map(([r, n]) => html`<span class="chip">${n} ${RESOURCE_MARK[r] || r}</span>`);
    return html`<div class="footprints">
      <section class="map-box"><h3>The map <span class="quiet">(your figure ringed; glowing circles: where a move takes you, click one)</span></h3>
        ${drawMap(ctx)}
        <details class="symbols"><summary>What the map's marks mean</summary>
          <dl>${Object.entries(SYMBOLS).map(([mark, text]) => html`<dt>${mark}</dt><dd>${text}</dd>`)}</dl></details></section>
      ${me ? html`<section class="hand"><h3>Your panel</h3>${cards(ctx, me.panel)}
        ${own?.fire_hand.length ? html`<h3>Your fire cards</h3>${cards(ctx, own.fire_hand)}` : ""}
        <h3>Your footprint cards</h3>${cards(ctx, me.footprints)}
        ${own?.leaders.length ? html`<h3>Your leader(s)</h3>${cards(ctx, own.leaders)}` : ""}
        <p class="quiet">Clan deck: ${me.deck} cards · played: ${me.played.length}</p>
      </section>` : ""}
      ${own?.questions.some((q) => q.cards) ? html`<section><h3>To choose from</h3>${own.questions.map((q) => (q.cards ? cards(ctx, q.cards) : ""))}</section>` : ""}
      <section><h3>The clans</h3>
        <table class="holdings"><thead><tr><th>Player</th><th>Clan</th><th>Skills</th><th>Resources</th><th>Fire</th><th>Footprints</th><th>Cairn</th></tr></thead>
        <tbody>${pub.players.map((p) => seatRow(ctx, p.seat, html`
          <td>${clans[p.clan]?.name || p.clan}</td><td>${skills(p)}</td><td>${resources(p)}</td>
          <td>${p.fire_cards}</td><td>${p.footprints.length} held, ${p.completed.length} done</td>
          <td>${p.cairn_points ?? ""}</td>`))}
        </tbody></table>
        <p class="quiet">Fire deck ${pub.fire_deck} · footprint deck ${pub.footprint_deck}${pub.end_triggered ? " · the end is triggered" : ""}</p>
      </section>
    </div>`;
  },
};

/** Any other game: its view as the service sends it. */
export const GENERIC = {
  colour,
  targets: (action, content) => cardsNamed(action, content),
  render: (ctx) => html`<pre class="raw-view">${JSON.stringify(ctx.view, null, 1)}</pre>`,
};

export const BOARDS = { "itty-bitty": ittyBitty, "itchy-feet": itchyFeet, footprints };

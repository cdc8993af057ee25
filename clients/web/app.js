// Turnpost's reference web client: register, the catalog, rooms, then a game (game.js).
// Routes live in the hash: #/ (lobby), #/room/<id>, #/game/<id>. Each tab keeps its own
// player in sessionStorage, so two tabs can be two players at one table.

import { Api, ApiError } from "./api.js";
import { html, mount, problemText, tell, words } from "./dom.js";
import { GameScreen } from "./game.js";
import { ReplayScreen, leaderboardScreen, profileScreen } from "./record.js";

const SESSION_KEY = "turnpost.player";
// A room's clock (docs/api.md, "Clocks"): a limit per move (its seconds), or a time bank
// ("bank:<start>:<increment>:<cap>", seconds), or one of the person's own ("custom").
const CLOCKS = [
  ["", "No clock"],
  ["30", "30 s a move"],
  ["300", "5 min a move"],
  ["86400", "A day a move"],
  ["bank:600:10:1200", "10 min in all, 10 s added a turn"],
  ["bank:259200:86400:604800", "3 days in all, a day added a turn (a week at most)"],
  ["custom", "Your own…"],
];
const ON_TIMEOUT = [
  ["bot_move", "a bot makes that one move for the seat"],
  ["bot_takeover", "a bot plays the seat to the end"],
  ["wait", "nothing: the others may hand the seat to a bot"],
];

/** The room's `timing` from the form, or null for no clock. */
function timingOf(data) {
  const clock = data.get("clock");
  if (!clock) return null;
  const secs = (name) => Math.round(Number(data.get(name) || 0) * 60);
  let timing;
  if (clock === "custom") {
    timing = data.get("clock_kind") === "bank"
      ? { bank_s: secs("bank_min"), increment_s: secs("increment_min"), cap_s: secs("cap_min") || null }
      : { per_move_s: secs("per_move_min") };
  } else if (clock.startsWith("bank:")) {
    const [bank, increment, cap] = clock.slice(5).split(":").map(Number);
    timing = { bank_s: bank, increment_s: increment, cap_s: cap };
  } else {
    timing = { per_move_s: Number(clock) };
  }
  if (timing.cap_s === null) delete timing.cap_s;
  timing.on_timeout = data.get("on_timeout") || "bot_move";
  // what the service would refuse, said in the form's words
  if (timing.bank_s && timing.cap_s && timing.cap_s < timing.bank_s) {
    throw new Error("The most a bank may hold is at least what it starts with.");
  }
  if (timing.bank_s && timing.on_timeout === "bot_move" && !timing.increment_s) {
    throw new Error("A bank needs time added each turn when a bot moves once at a timeout (the bank is empty after it).");
  }
  return timing;
}

/** The clock in words, as the room shows it. */
export function timingText(t) {
  if (!t || !(t.per_move_s || t.bank_s)) return "no clock";
  const span = (s) => (s % 86400 === 0 ? `${s / 86400} d` : s % 3600 === 0 ? `${s / 3600} h` : s % 60 === 0 ? `${s / 60} min` : `${s} s`);
  const what = t.per_move_s
    ? `${span(t.per_move_s)} a move`
    : `${span(t.bank_s)} in all${t.increment_s ? `, ${span(t.increment_s)} added a turn` : ""}${t.cap_s ? ` (${span(t.cap_s)} at most)` : ""}`;
  const then = { bot_move: "then a bot moves once", bot_takeover: "then a bot takes the seat", wait: "then the others may claim the seat" };
  return `${what}, ${then[t.on_timeout || "bot_move"]}`;
}

const main = document.getElementById("main");
let api;
let config;
let screen = null; // the screen on show: stop() before leaving it

export function player() {
  try {
    return JSON.parse(sessionStorage.getItem(SESSION_KEY));
  } catch {
    return null;
  }
}

function showWho() {
  const me = player();
  mount(
    document.getElementById("who"),
    me
      ? html`Playing as <a class="me" href="#/player/${encodeURIComponent(me.id)}"><b id="me">${me.name}</b></a>
        <button id="sign-out" class="link">sign out</button>`
      : ""
  );
}

// -- register ------------------------------------------------------------------------------

function registerScreen() {
  mount(
    main,
    html`<section class="panel narrow">
      <h1>Sit at a table</h1>
      <p>Pick a name: it is how the other players and the log will call you.</p>
      <form id="register">
        <input id="name" name="name" maxlength="40" required autocomplete="nickname" placeholder="Your name" />
        <button type="submit">Register</button>
      </form>
    </section>`
  );
  return {
    async submit(form) {
      const made = await api.register(form.name.value.trim());
      sessionStorage.setItem(SESSION_KEY, JSON.stringify(made));
      api.token = made.token;
      showWho();
      route();
    },
  };
}

// -- lobby: the catalog, a new room, open rooms, your games ----------------------------------

function optionFields(game) {
  let schema = game.options_schema || {};
  if (schema.$ref) schema = schema.$defs?.[schema.$ref.split("/").pop()] || {};
  return Object.entries(schema.properties || {}).map(([name, prop]) => {
    if (prop.type === "boolean") {
      return html`<label class="opt"><input type="checkbox" name="opt:${name}" ${prop.default ? "checked" : ""} />
        ${words(name)}</label>`;
    }
    if (prop.enum) {
      return html`<label class="opt">${words(name)}
        <select name="opt:${name}">${prop.enum.map(
          (v) => html`<option value="${v}" ${v === prop.default ? "selected" : ""}>${words(v)}</option>`
        )}</select>${prop.description ? html`<small class="hint">${prop.description}</small>` : ""}</label>`;
    }
    return "";
  });
}

/** A bot level's rating as a person reads it: from rated games, else as measured. */
function levelRating(bot) {
  const r = bot?.rating?.rating ?? bot?.measured?.rating;
  return r === undefined || r === null ? "" : `rating ${r.toFixed(1)}`;
}

/** The game's bot levels, weakest first: what each does and its rating. */
function botLevels(game) {
  if (!game.bots?.length) return "";
  return html`<details class="levels"><summary>The bots, weakest first</summary><dl>${game.bots.map(
    (b) => html`<dt>${words(b.level)} bot${levelRating(b) ? html` <span class="quiet">(${levelRating(b)}${b.rating ? "" : ", measured"})</span>` : ""}</dt>
      <dd>${b.description}</dd>`
  )}</dl></details>`;
}

function seatFields(game, seats) {
  const rows = [html`<li>Seat 1: you</li>`];
  for (let seat = 1; seat < seats; seat++) {
    rows.push(html`<li><label>Seat ${seat + 1}:
      <select name="seat:${seat}">
        ${game.bot_levels.map(
          (level) => html`<option value="${level}" ${level === "greedy" ? "selected" : ""}>${words(level)} bot${
            levelRating(game.bots?.find((b) => b.level === level)) ? ` (${levelRating(game.bots.find((b) => b.level === level))})` : ""}</option>`
        )}
        <option value="">Open, for a person</option>
      </select></label></li>`);
  }
  return rows;
}

function newRoomForm(game) {
  const seats = Math.min(Math.max(2, game.min_seats), game.max_seats);
  const counts = [];
  for (let n = game.min_seats; n <= game.max_seats; n++) counts.push(n);
  return html`<form class="new-room" data-game="${game.key}">
    <label>Seats <select name="seats">${counts.map(
      (n) => html`<option ${n === seats ? "selected" : ""}>${n}</option>`
    )}</select></label>
    <label>Clock <select name="clock">${CLOCKS.map(([v, t]) => html`<option value="${v}">${t}</option>`)}</select></label>
    <fieldset class="custom-clock" hidden disabled><legend>Your clock</legend>
      <label><input type="radio" name="clock_kind" value="move" checked /> a limit per move:</label>
      <label>minutes <input type="number" name="per_move_min" min="0.1" max="129600" step="any" value="60" required /></label>
      <label><input type="radio" name="clock_kind" value="bank" /> a time bank:</label>
      <label>minutes to start <input type="number" name="bank_min" min="0.1" max="129600" step="any" value="1440" required /></label>
      <label>added a turn <input type="number" name="increment_min" min="0" max="129600" step="any" value="60" /></label>
      <label>at most <input type="number" name="cap_min" min="0" max="129600" step="any" value="" placeholder="no cap" /></label>
    </fieldset>
    <label class="on-timeout" hidden>When time runs out <select name="on_timeout">${ON_TIMEOUT.map(
      ([v, t]) => html`<option value="${v}">${t}</option>`
    )}</select></label>
    <label>Who may join <select name="visibility">
      <option value="public">anyone (listed)</option>
      <option value="unlisted">those with its invite code</option>
    </select></label>
    ${optionFields(game)}
    <ul class="seat-list">${seatFields(game, seats)}</ul>
    <button type="submit">Create the room</button>
  </form>`;
}

function lobbyScreen() {
  let catalog = null;
  let timer = null;
  const me = player();

  async function draw() {
    if (!catalog) {
      // the catalog and its forms once; only the lists are drawn again (a form being filled
      // in is never redrawn under the person's hands)
      catalog = await api.catalog();
      mount(
        main,
        html`<section class="lobby">
          <div class="panel" id="lists"><p class="quiet">Loading…</p></div>
          <div class="catalog">${catalog.games.map(
            (game) => html`<article class="panel game-entry" data-key="${game.key}">
              <h2>${game.name}</h2>
              <p class="quiet">${game.min_seats}–${game.max_seats} seats · bots: ${game.bot_levels.join(", ")}
                · <a href="#/leaderboard/${encodeURIComponent(game.key)}">leaderboard</a></p>
              ${botLevels(game)}
              <p><button class="primary" data-quick="${game.key}">Quick match</button>
                <span class="quiet">a table with whoever comes; bots after 30 s</span></p>
              ${newRoomForm(game)}
            </article>`
          )}</div>
        </section>`
      );
    }
    const [open, mine, invited, watch] = await Promise.all([
      api.rooms("open"),
      api.myGames(),
      api.myInvitations(),
      api.watchable(),
    ]);
    const names = Object.fromEntries(catalog.games.map((g) => [g.key, g.name]));
    const seated = (room) => room.seats.some((s) => s.player_id === me.id);
    const free = (room) => room.seats.filter((s) => !s.player_id).length;
    const lists = main.querySelector("#lists");
    if (!lists) return;
    mount(
      lists,
      html`<p class="quiet">Your player id (to be invited): <code id="my-id">${me.id}</code></p>
        ${invited.items.length ? html`<h2>Invitations</h2>` : ""}
        <ul class="rows" id="invitations">${invited.items.map(
          (i) => html`<li data-room="${i.room_id}">${i.invited_by_name} asks you to
            ${names[i.game] || i.game} (seat ${i.seat + 1})
            <button data-accept="${i.room_id}">Accept</button>
            <button data-decline="${i.room_id}">Decline</button></li>`
        )}</ul>
        <h2>Your games</h2>
        ${mine.items.length === 0 ? html`<p class="quiet">None yet.</p>` : ""}
        <ul class="rows" id="my-games">${mine.items.map(
          (g) => html`<li><a href="#/game/${g.id}">${names[g.game] || g.game}</a>
            <span class="quiet">version ${g.version}</span>
            ${g.status === "finished" ? html`<span class="tag">finished</span> <a href="#/replay/${encodeURIComponent(g.id)}">replay</a>` : ""}
            ${g.your_turn ? html`<span class="tag hot">your turn</span>` : ""}</li>`
        )}</ul>
        <h2>Open rooms</h2>
        ${open.items.length === 0 ? html`<p class="quiet">No room waits for players.</p>` : ""}
        <ul class="rows" id="open-rooms">${open.items.map(
          (room) => html`<li data-room="${room.id}">${names[room.game] || room.game}:
            ${room.seats.map((s) => s.name || "·").join(", ")}
            <span class="quiet">(${free(room)} free)</span>
            ${seated(room)
              ? html`<a class="button" href="#/room/${room.id}">Enter</a>`
              : free(room)
                ? html`<button data-join="${room.id}">Join</button>`
                : ""}</li>`
        )}</ul>
        <h2>Games to watch</h2>
        ${watch.items.length === 0 ? html`<p class="quiet">Nobody is playing in public now.</p>` : ""}
        <ul class="rows" id="watch">${watch.items.map(
          (g) => html`<li data-game="${g.id}">${g.title}:
            ${g.seats.map((s) => s.name || "·").join(", ")}
            <a class="button" href="#/game/${g.id}">Watch</a></li>`
        )}</ul>`
    );
  }

  const refresh = () => draw().catch((err) => tell(problemText(err), "error"));
  let stopped = false;
  const again = () => {
    if (stopped) return;
    timer = setTimeout(async () => {
      await refresh();
      if (!stopped) again();
    }, 3000);
  };
  refresh().then(again);

  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
    change(target) {
      if (target.name === "clock") {
        const form = target.form;
        const custom = form.querySelector(".custom-clock");
        custom.hidden = custom.disabled = target.value !== "custom"; // a hidden field blocks nothing
        form.querySelector(".on-timeout").hidden = !target.value;
        return;
      }
      if (target.name !== "seats") return;
      const form = target.form;
      const game = catalog.games.find((g) => g.key === form.dataset.game);
      mount(form.querySelector(".seat-list"), seatFields(game, Number(target.value)));
    },
    async submit(form) {
      const data = new FormData(form);
      const options = {};
      for (const el of form.elements) {
        if (!el.name?.startsWith("opt:")) continue;
        options[el.name.slice(4)] = el.type === "checkbox" ? el.checked : el.value;
      }
      const body = { game: form.dataset.game, seats: Number(data.get("seats")), options };
      if (data.get("visibility") === "unlisted") body.visibility = "unlisted";
      const timing = timingOf(data);
      if (timing) body.timing = timing;
      let room = await api.createRoom(body);
      for (let seat = 1; seat < body.seats; seat++) {
        const level = data.get(`seat:${seat}`);
        if (level) room = await api.roomPost(room.id, "bots", { level, seat });
      }
      location.hash = `#/room/${room.id}`;
    },
    async click(target) {
      if (target.dataset.join) {
        await api.roomPost(target.dataset.join, "join");
        location.hash = `#/room/${target.dataset.join}`;
      } else if (target.dataset.quick) {
        target.disabled = true;
        const form = main.querySelector(`form.new-room[data-game="${target.dataset.quick}"]`);
        const seats = Number(form.querySelector("select[name=seats]").value);
        const match = await api.quickMatch({ game: target.dataset.quick, seats, fill_with_bots_after_s: 30 });
        location.hash = match.game_id ? `#/game/${match.game_id}` : `#/room/${match.room.id}`;
      } else if (target.dataset.accept) {
        await api.roomPost(target.dataset.accept, "join"); // the seat held for you
        location.hash = `#/room/${target.dataset.accept}`;
      } else if (target.dataset.decline) {
        await api.decline(target.dataset.decline);
        await refresh();
      }
    },
  };
}

// -- a room: seats, bots, start ---------------------------------------------------------------

function roomScreen(roomId) {
  const me = player();
  let timer = null;
  let stopped = false;
  let catalog = null;

  async function draw() {
    const room = await api.room(roomId);
    catalog = catalog || (await api.catalog());
    if (stopped) return false; // the person went elsewhere meanwhile
    const levels = catalog.games.find((g) => g.key === room.game)?.bot_levels || ["greedy"];
    if (room.game_id) {
      location.hash = `#/game/${room.game_id}`;
      return false;
    }
    const host = room.host === me.id;
    const mine = room.seats.some((s) => s.player_id === me.id);
    const held = room.seats.some((s) => s.reserved_for === me.id);
    const open = room.status === "open";
    mount(
      main,
      html`<section class="panel narrow room" data-status="${room.status}">
        <h1>${catalog.games.find((g) => g.key === room.game)?.name || room.game} <span class="tag">${room.status}</span></h1>
        <p class="quiet">Room ${room.id} · <span class="timing">${timingText(room.timing)}</span></p>
        <ol class="seats">${room.seats.map(
          (s) => html`<li>${s.player_id
            ? html`<b>${s.name}</b>${s.bot ? html` <span class="tag">bot</span>` : ""}${s.player_id === room.host ? html` <span class="tag">host</span>` : ""}${
              s.rating !== null && s.rating !== undefined ? html` <span class="quiet">rating ${s.rating.toFixed(1)}</span>` : ""}`
            : html`<span class="quiet">${s.reserved_for ? "held for an invited player" : "empty"}</span>
              ${host && open
                ? html`<select data-level-for="${s.seat}" aria-label="The bot's level for seat ${s.seat + 1}">${levels.map(
                    (l) => html`<option value="${l}" ${l === "greedy" ? "selected" : ""}>${words(l)} bot</option>`
                  )}</select> <button data-bot="${s.seat}">Seat a bot</button>`
                : ""}`}</li>`
        )}</ol>
        ${room.invite_code ? html`<p>Invite code: <code id="invite-code">${room.invite_code}</code>
          <span class="quiet">(the room is unlisted: give it to whom you want)</span></p>` : ""}
        ${room.quick_match && mine && open ? html`<p class="waiting">Waiting for players; bots take the
          empty seats at ${new Date(room.fill_due_at).toLocaleTimeString()}.
          <button id="leave-queue">Leave the queue</button></p>` : ""}
        ${host && open && !room.quick_match ? html`<p><button id="start" class="primary">Start</button>
          <span class="quiet">Empty seats get greedy bots.</span></p>
          <form id="invite"><input name="player" required maxlength="64" placeholder="A player's id"
            aria-label="The player to invite" /> <button type="submit">Invite to a seat</button></form>` : ""}
        ${!mine && open ? html`<p>${room.visibility === "unlisted" && !held
          ? html`<input id="code" maxlength="64" placeholder="Invite code" aria-label="Invite code" /> `
          : ""}<button id="join" class="primary">${held ? "Accept your seat" : "Join this room"}</button>
          ${held ? html` <button id="decline">Decline</button>` : ""}</p>` : ""}
        ${mine && open && !room.quick_match ? html`<p><button id="leave">Leave the room</button></p>` : ""}
        ${room.status === "starting" ? html`<p>Starting…</p>` : ""}
        <p><a href="#/">Back to the lobby</a></p>
      </section>`
    );
    return true;
  }

  async function poll() {
    try {
      if (!(await draw())) return;
    } catch (err) {
      tell(problemText(err), "error");
    }
    if (!stopped) timer = setTimeout(poll, 1500);
  }
  poll();

  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
    async submit(form) {
      if (form.id !== "invite") return;
      await api.invite(roomId, form.player.value.trim());
      form.reset();
      tell("Invited: their seat is held for them.");
      await draw();
    },
    async click(target) {
      if (target.id === "start") {
        target.disabled = true;
        const room = await api.request(api.lobby, "POST", `/v1/rooms/${encodeURIComponent(roomId)}/start?wait=10`);
        if (room.game_id) location.hash = `#/game/${room.game_id}`;
      } else if (target.id === "join") {
        const code = main.querySelector("#code")?.value.trim();
        await api.roomPost(roomId, "join", code ? { invite_code: code } : undefined);
        await draw();
      } else if (target.id === "decline") {
        await api.decline(roomId);
        location.hash = "#/";
      } else if (target.id === "leave-queue") {
        await api.leaveMatch();
        location.hash = "#/";
      } else if (target.id === "leave") {
        await api.roomPost(roomId, "leave");
        location.hash = "#/";
      } else if (target.dataset.bot !== undefined) {
        const seat = Number(target.dataset.bot);
        const level = main.querySelector(`[data-level-for="${seat}"]`).value;
        await api.roomPost(roomId, "bots", { level, seat });
        await draw();
      }
    },
  };
}

// -- routing and events ---------------------------------------------------------------------

function route() {
  screen?.stop?.();
  document.title = "Turnpost";
  tell("");
  const me = player();
  api.token = me?.token || null;
  showWho();
  if (!me) {
    screen = registerScreen();
    return;
  }
  // the screen left is taken down at once: its buttons are not clicked, nor its parts taken
  // for the next screen's, while that one waits for its first answers
  mount(main, html`<p class="quiet">Loading…</p>`);
  const [, kind, id] = location.hash.split("/");
  if (kind === "room" && id) screen = roomScreen(decodeURIComponent(id));
  else if (kind === "game" && id) screen = new GameScreen(api, main, decodeURIComponent(id), me, failed);
  else if (kind === "replay" && id) screen = new ReplayScreen(api, main, decodeURIComponent(id), failed);
  else if (kind === "player" && id) screen = profileScreen(api, main, decodeURIComponent(id), failed);
  else if (kind === "leaderboard" && id) screen = leaderboardScreen(api, main, decodeURIComponent(id), failed);
  else screen = lobbyScreen();
}

/** A problem shown; a 401 (a token this stack no longer honours: its secret changed) sends
 * the tab back to registering. */
function failed(err) {
  if (err instanceof ApiError && err.status === 401) {
    sessionStorage.removeItem(SESSION_KEY);
    route();
    tell(`${problemText(err)}: please register again`, "error");
    return;
  }
  tell(problemText(err), "error");
}

async function guarded(work) {
  try {
    await work();
  } catch (err) {
    failed(err);
  }
}

document.addEventListener("submit", (event) => {
  event.preventDefault();
  const form = event.target;
  const button = form.querySelector("button[type=submit]");
  if (button) button.disabled = true;
  guarded(() => screen?.submit?.(form)).finally(() => {
    if (button) button.disabled = false;
  });
});

document.addEventListener("change", (event) => {
  guarded(async () => screen?.change?.(event.target));
});

document.addEventListener("click", (event) => {
  const target = event.target.closest("button, [data-target], [data-explain]");
  if (!target || (target.type === "submit" && target.form)) return;
  if (target.id === "sign-out") {
    sessionStorage.removeItem(SESSION_KEY);
    location.hash = "#/";
    route();
    return;
  }
  guarded(() => screen?.click?.(target));
});

// a card or a player a move names is a button for the keyboard too, and so is anything a
// person may ask about (its words)
document.addEventListener("keydown", (event) => {
  if (screen?.key) guarded(() => screen.key(event)); // a screen's own keys (the replay's arrows)
  const target = event.target.closest?.("[data-target], [data-explain]");
  if (!target || (event.key !== "Enter" && event.key !== " ")) return;
  event.preventDefault();
  guarded(() => screen?.click?.(target));
});

window.addEventListener("hashchange", route);

async function start() {
  try {
    config = await (await fetch("/play/config.json", { cache: "no-store" })).json();
  } catch {
    config = { lobby_url: "", game_url: "" };
  }
  api = new Api(config);
  route();
}

start();

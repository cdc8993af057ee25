// A player's record and the games' past: a profile with its history (#/player/<id>), a
// game's leaderboard (#/leaderboard/<game>), and a finished game replayed step by step
// (#/replay/<id>): each version's view as the service gives it (GET /v1/games/{id}?at=N,
// the caller's own seat's view then: nothing another seat held in secret), the board drawn
// from it, the log up to it.

import { BOARDS, GENERIC } from "./boards.js";
import { html, mount, problemText, tell } from "./dom.js";
import { catalogOf, contentOf, gameNames } from "./game.js";

const when = (iso) => (iso ? new Date(iso).toLocaleString() : "");
const signed = (x) => (x === null || x === undefined ? "" : `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(1)}`);
const rating = (r) =>
  r ? html`${r.rating.toFixed(1)}${r.provisional ? html` <span class="tag">provisional</span>` : ""}` : html`<span class="quiet">none yet</span>`;

/** Someone at a table, linked to their profile (a bot's level has no page of its own). */
const who = (seat) => (seat.bot && seat.player_id?.startsWith("bot-")
  ? html`${seat.name} <span class="tag">${seat.bot} bot</span>`
  : html`<a href="#/player/${encodeURIComponent(seat.player_id)}">${seat.name}</a>`);

// -- a profile and its history -----------------------------------------------------------------

export function profileScreen(api, main, id, fail) {
  let stopped = false;
  const pages = []; // the history read so far, newest first
  let next = null;
  let profile = null;

  let loading = false;
  async function more() {
    if (loading) return;
    loading = true;
    const page = await api.history(id, next).finally(() => (loading = false));
    if (stopped) return;
    pages.push(...page.items);
    next = page.next;
    draw();
  }

  function draw() {
    const names = gameNames();
    mount(
      main,
      html`<section class="panel record profile">
        <h1>${profile.name}${profile.bot ? html` <span class="tag">${profile.bot} bot</span>` : ""}</h1>
        <p class="quiet">Playing since ${when(profile.since)} · id <code>${profile.id}</code></p>
        <h2>By game</h2>
        <table class="holdings"><thead><tr><th>Game</th><th>Played</th><th>Won</th><th>Playing now</th><th>Rating</th><th></th></tr></thead>
        <tbody>${profile.games.map((g) => html`<tr><td>${names[g.game] || g.game}</td><td>${g.played}</td><td>${g.won}</td>
          <td>${g.current}</td><td>${rating(g.rating)}</td>
          <td><a href="#/leaderboard/${encodeURIComponent(g.game)}">leaderboard</a></td></tr>`)}</tbody></table>
        <h2>Finished games</h2>
        ${pages.length === 0 ? html`<p class="quiet">None yet.</p>` : ""}
        <table class="holdings history"><thead><tr><th>Ended</th><th>Game</th><th>Players, by rank</th><th>Rank</th><th>Rating</th><th></th></tr></thead>
        <tbody>${pages.map((g) => html`<tr data-game="${g.game_id}">
          <td>${when(g.finished_at)}</td><td>${names[g.game] || g.game}${g.rated ? "" : html` <span class="tag">unrated</span>`}</td>
          <td>${[...g.seats].sort((a, b) => a.rank - b.rank).map((s, i) => html`${i ? ", " : ""}${s.rank}. ${who(s)}`)}</td>
          <td>${g.rank ?? ""}</td><td>${signed(g.rating_change)}</td>
          <td><a class="button" href="#/replay/${encodeURIComponent(g.game_id)}">Replay</a></td></tr>`)}</tbody></table>
        ${next ? html`<p><button id="older">Older games</button></p>` : ""}
        <p><a href="#/">Back to the lobby</a></p>
      </section>`
    );
  }

  (async () => {
    try {
      await catalogOf(api);
      profile = await api.profile(id);
      if (stopped) return;
      await more();
    } catch (err) {
      if (!stopped) fail(err);
    }
  })();

  return {
    stop() {
      stopped = true;
    },
    async click(target) {
      if (target.id === "older") await more();
    },
  };
}

// -- a leaderboard ----------------------------------------------------------------------------

export function leaderboardScreen(api, main, game, fail) {
  let stopped = false;
  let provisional = false;
  let items = [];
  let next = null;

  let asked = 0; // the last request's ticket: an older answer is dropped
  async function load(reset) {
    const ticket = ++asked;
    const page = await api.leaderboard(game, provisional, reset ? null : next);
    if (stopped || ticket !== asked) return;
    items = reset ? page.items : [...items, ...page.items];
    next = page.next;
    const title = gameNames()[game] || game;
    mount(
      main,
      html`<section class="panel record leaderboard">
        <h1>${title}: leaderboard</h1>
        <p><button id="settled" aria-pressed="${provisional ? "false" : "true"}">Settled ratings</button>
          <button id="provisional" aria-pressed="${provisional ? "true" : "false"}">Provisional (fewer than 10 games)</button></p>
        <p class="quiet">A rating is openskill's conservative estimate (mu − 3 sigma): it rises as a player wins, and as their results grow surer. Each bot level has one too.</p>
        ${items.length === 0 ? html`<p class="quiet">Nobody here yet.</p>` : ""}
        <table class="holdings"><thead><tr><th>Place</th><th>Player</th><th>Rating</th><th>Games</th><th>Wins</th></tr></thead>
        <tbody>${items.map((r) => html`<tr><td>${r.place}</td>
          <td>${r.bot ? html`${r.name} <span class="tag">bot level</span>` : html`<a href="#/player/${encodeURIComponent(r.subject)}">${r.name}</a>`}</td>
          <td>${r.rating.rating.toFixed(1)}</td><td>${r.rating.games}</td><td>${r.rating.wins}</td></tr>`)}</tbody></table>
        ${next ? html`<p><button id="more">More</button></p>` : ""}
        <p><a href="#/">Back to the lobby</a></p>
      </section>`
    );
  }

  catalogOf(api)
    .then(() => load(true))
    .catch((err) => !stopped && fail(err));
  return {
    stop() {
      stopped = true;
    },
    async click(target) {
      if (target.id === "more") await load(false);
      else if (target.id === "settled" || target.id === "provisional") {
        provisional = target.id === "provisional";
        await load(true);
      }
    },
  };
}

// -- a finished game, replayed ------------------------------------------------------------------

export class ReplayScreen {
  constructor(api, main, id, fail) {
    Object.assign(this, { api, main, id, fail });
    this.stopped = false;
    this.views = new Map(); // version -> the view then
    this.log = []; // every item of the feed, in order
    this.at = 1;
    this.target = 1; // the version asked for last: what is drawn once its answers come
    this.ready = false;
    this.playing = null;
    this.begin().catch((err) => !this.stopped && this.fail(err));
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.playing);
  }

  async begin() {
    mount(this.main, html`<p class="quiet">Loading the game…</p>`);
    await catalogOf(this.api);
    this.final = await this.api.view(this.id);
    if (this.stopped) return;
    if (this.final.status !== "finished") {
      mount(this.main, html`<section class="panel narrow"><p>A game is replayed once it is over.</p>
        <p><a class="button" href="#/game/${encodeURIComponent(this.id)}">Back to the game</a></p></section>`);
      return;
    }
    this.content = await contentOf(this.api, this.final.game);
    for (let after = 0; ; ) {
      const page = await this.api.events(this.id, after, 0);
      this.log.push(...page.events);
      after = page.last_version;
      if (!page.has_more || this.stopped) break;
    }
    if (this.stopped) return;
    // a game with a map: the map and its drawing once, the pieces drawn from each version's view
    if (BOARDS[this.final.game]?.load) this.map = await BOARDS[this.final.game].load(this.api, this.id, null);
    this.ready = true;
    await this.show(1);
  }

  get last() {
    return this.final.version;
  }

  /** Show version `at`: the answers of an earlier request that come later are kept, never
   * drawn (the last version asked for is the one shown). */
  async show(at) {
    if (!this.ready) return;
    at = Math.max(1, Math.min(this.last, at));
    this.target = at;
    if (!this.views.has(at)) this.views.set(at, await this.api.viewAt(this.id, at));
    if (this.stopped || this.target !== at) return;
    this.at = at;
    this.draw();
  }

  draw() {
    const v = this.views.get(this.at);
    const board = BOARDS[v.game] || GENERIC;
    const names = v.seats.map((s) => s.name || `seat ${s.seat + 1}`);
    const ctx = {
      view: v.view,
      me: v.your_seat,
      names,
      game: v,
      cards: this.content.byId,
      content: this.content.raw,
      extra: this.map,
      index: new Map(), // nothing to play: a replay
      focus: null,
    };
    const now = this.log.find((e) => e.version === this.at);
    const title = gameNames()[v.game] || v.game;
    let section = this.main.querySelector(":scope > section.replay");
    if (!section) {
      mount(
        this.main,
        html`<section class="replay game">
          <div class="status-bar replay-bar"></div>
          <div class="layout">
            <aside class="side"><div class="log-part"><h3>Log</h3><div class="log-box"></div></div></aside>
            <div class="board"></div>
          </div>
        </section>`
      );
      section = this.main.querySelector(":scope > section.replay");
    }
    section.dataset.version = this.at;
    // the control in use keeps the keyboard through the redraw of the bar
    const active = document.activeElement;
    const focused = active?.dataset?.step ? `[data-step="${active.dataset.step}"]` : active?.id === "scrub" ? "#scrub" : null;
    const disabled = (cond) => (cond ? "disabled" : "");
    mount(
      section.querySelector(".replay-bar"),
      html`<b>${title}</b> <span class="tag">replay</span>
        <span class="step">Version <b id="at">${this.at}</b> of ${this.last}</span>
        <span class="now">${now?.text || ""}</span>
        <span class="controls">
          <button data-step="first" ${disabled(this.at === 1)} aria-label="The first version">⏮</button>
          <button data-step="prev" ${disabled(this.at === 1)} aria-label="One version back">◀</button>
          <button data-step="play" aria-label="${this.playing ? "Pause" : "Play on"}">${this.playing ? "Pause" : "Play"}</button>
          <button data-step="next" ${disabled(this.at === this.last)} aria-label="One version on">▶</button>
          <button data-step="last" ${disabled(this.at === this.last)} aria-label="The last version">⏭</button>
          <input type="range" id="scrub" min="1" max="${this.last}" value="${this.at}" aria-label="The version shown" />
        </span>
        <a class="button" href="#/">Leave</a>`
    );
    mount(section.querySelector(".board"), board.render(ctx));
    if (focused) section.querySelector(focused)?.focus({ preventScroll: true });
    mount(
      section.querySelector(".log-box"),
      html`<ol class="log" tabindex="0" aria-label="The game's log">${this.log
        .filter((e) => e.version <= this.at)
        .map((e) => html`<li class="${e.version === this.at ? "current" : ""}" data-v="${e.version}">
          <span class="v">${e.version}</span> ${e.text}</li>`)}</ol>`
    );
    const log = section.querySelector(".log");
    if (log) log.scrollTop = log.scrollHeight;
  }

  async click(target) {
    const step = target.dataset.step;
    if (!step) return;
    if (step === "play") {
      if (this.playing) {
        clearTimeout(this.playing);
        this.playing = null;
        this.draw();
      } else {
        // one step after another, each once the one before is drawn (never two in flight)
        const step = async () => {
          if (!this.playing || this.stopped) return;
          if (this.target >= this.last) {
            this.playing = null;
            this.draw();
            return;
          }
          await this.show(this.target + 1);
          if (this.playing) this.playing = setTimeout(() => step().catch((err) => tell(problemText(err), "error")), 700);
        };
        this.playing = setTimeout(() => step().catch((err) => tell(problemText(err), "error")), 0);
        this.draw();
      }
      return;
    }
    // from the version last asked for: three quick taps are three steps
    const to = { first: 1, prev: this.target - 1, next: this.target + 1, last: this.last }[step];
    await this.show(to);
  }

  async change(target) {
    if (target.id === "scrub") await this.show(Number(target.value));
  }

  /** ← and → step through the game. */
  async key(event) {
    if (event.target.closest?.("input, select, textarea")) return;
    if (event.key === "ArrowLeft") await this.show(this.target - 1);
    else if (event.key === "ArrowRight") await this.show(this.target + 1);
  }
}

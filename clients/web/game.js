// A game on screen: the seat's view drawn by the game's board (boards.js), the moves the
// seat may make (legal-actions, grouped, each posted with an Idempotency-Key against the
// version they were listed at), the log of readable events, whose turn, the clock, the
// outcome; followed live through the SSE stream, or by long-polling /events without it.

import { ApiError } from "./api.js";
import { html, mount, problemText, raw, tell, words } from "./dom.js";
import { BOARDS, GENERIC } from "./boards.js";
import { explain } from "./rules.js";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const isPlace = (v) => Array.isArray(v) && v.length === 2 && v.every(Number.isInteger);
const MAX_CHOICES = 12; // buttons at once in the moves (a few more are a page away)
const QUIET = new Set(["chat_said", "turn_began", "turn_started", "time_used", "seat_returned"]); // news, not moves
const SEAT_FIELDS = new Set(["to", "victim", "seat", "target", "partner", "responder"]); // a seat's number
const contents = new Map(); // game key -> {byId, raw}: a game's cards never change
let catalog = null;

/** The catalog, read once (the games' names and forms). */
export async function catalogOf(api) {
  catalog = catalog || (await api.catalog());
  return catalog;
}

/** Each game's name by its key, from the catalog once read ({} before). */
export const gameNames = () => Object.fromEntries((catalog?.games || []).map((g) => [g.key, g.name]));

export async function contentOf(api, key) {
  if (!contents.has(key)) {
    const raw = await api.content(key);
    contents.set(key, { raw, byId: new Map(raw.all_cards.map((c) => [c.id, c])) });
  }
  return contents.get(key);
}

const secondsLeft = (deadline) => Math.max(0, Math.round((Date.parse(deadline) - Date.now()) / 1000));

// a clock face drawn, not a character some fonts lack (Debian's Chromium drew ⏱ as a box)
const CLOCK_ICON = raw(
  '<svg class="icon" viewBox="0 0 16 16" aria-hidden="true" focusable="false"><circle cx="8" cy="8" r="6.5" fill="none" stroke="currentColor" stroke-width="1.6"/><path d="M8 4v4.2l2.8 1.8" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linecap="round"/></svg>'
);

/** Low on time: 20 s or less, or a tenth or less of a turn's whole time (`full`: the room's
 * time per move, or its bank's cap or start; a day's clock warns in its last hours, not its
 * last seconds), or else of what was left when the page first saw this deadline. */
const firstSeen = new Map(); // deadline -> seconds left then
function lowOnTime(deadline, full) {
  const left = secondsLeft(deadline);
  if (!firstSeen.has(deadline)) firstSeen.set(deadline, left);
  return left <= Math.max(20, (Number(full) || firstSeen.get(deadline)) / 10);
}

/** A turn's whole time under the room's timing (null: unknown). */
function fullTime(timing) {
  return timing?.per_move_s ?? timing?.cap_s ?? timing?.bank_s ?? null;
}

function clockText(deadline) {
  const left = secondsLeft(deadline);
  const d = Math.floor(left / 86400);
  const h = Math.floor((left % 86400) / 3600);
  const m = Math.floor((left % 3600) / 60);
  const s = String(left % 60).padStart(2, "0");
  if (d) return `${d}d ${h}h`;
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** The seat's standing, when a bot plays it (a timeout handed it over, or its player
 * resigned): the level of that bot, else null. */
function botPlaying(view) {
  const seat = view.your_seat;
  if (seat === null || seat === undefined) return null;
  return (view.standings || []).find((s) => s.seat === seat)?.bot || null;
}

/** A problem a retry cannot mend (the game is gone, the token is refused...): no 408, 429. */
const lasting = (err) =>
  err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429;

export class GameScreen {
  /** `fail(err)`: the app's answer to a problem (a 401 sends the tab back to registering). */
  constructor(api, main, id, me, fail = (err) => tell(problemText(err), "error")) {
    Object.assign(this, { api, main, id, me, fail });
    this.view = null; // GET /v1/games/{id}
    this.legal = null; // GET .../legal-actions (null: not seated, or nothing to do)
    this.log = new Map(); // version -> feed item
    this.after = 0; // the feed read so far
    this.focus = null; // a card or space clicked: the moves naming it
    this.busy = false;
    this.stopped = false;
    this.abort = new AbortController();
    this.refreshing = null;
    this.stale = false;
    this.live = "connecting";
    this.streamed = 0; // feed items read from the stream
    this.chat = { muted: [], hide_spectators: false }; // what this player reads of chats
    this.wasMyTurn = null; // the turn last announced (null: nothing announced yet)
    this.wasFinished = null; // the game's end, likewise
    this.warned = new Set(); // deadlines the person was warned of
    this.explained = null; // "kind:id" of the thing last tapped: its words beside the moves
    this.choosing = null; // {label, picks: [[field, value as read]], page}: a kind being narrowed
    this.flat = false; // every move at once ("all moves")
    this.begin();
  }

  stop() {
    this.stopped = true;
    this.abort.abort();
    clearInterval(this.ticker);
  }

  async begin() {
    mount(this.main, html`<p class="quiet">Loading the game…</p>`);
    // the person may leave while any of these is awaited: nothing is drawn or followed then
    try {
      catalog = catalog || (await this.api.catalog());
      if (this.stopped) return;
      this.chat = await this.api.chatSettings();
      if (this.stopped) return;
      await this.load();
      if (this.stopped) return;
      await this.readLog();
      if (this.stopped) return;
      // a move between the view's read and the log's: the stream goes on after the log, so
      // it will not tell of that move; the view is read again (the log's reads hold it)
      if (this.after > this.view.version) await this.load();
      if (this.stopped) return;
      this.draw();
    } catch (err) {
      if (!this.stopped) this.fail(err);
      return;
    }
    if (this.stopped) return;
    clearInterval(this.ticker);
    this.ticker = setInterval(() => this.tick(), 1000);
    this.follow();
  }

  get board() {
    return BOARDS[this.view?.game] || GENERIC;
  }

  /** The view, the moves, and what the board needs besides (the map, its drawing). */
  async load() {
    const view = await this.api.view(this.id, true); // with the seat's moves: one read
    if (this.stopped) return; // left meanwhile: nothing more is asked
    const content = await contentOf(this.api, view.game);
    if (this.stopped) return;
    // a seat a bot plays has no moves of its own (each would be refused: seat_played_by_bot)
    const seated = view.your_seat !== null && view.your_seat !== undefined && !botPlaying(view);
    const board = BOARDS[view.game] || GENERIC;
    const [legal, extra] = await Promise.all([
      // a service of an older release (a rolling upgrade) answers the view without them
      seated && view.status === "active" ? (view.legal_actions ?? this.api.legal(this.id)) : null,
      board.load ? board.load(this.api, this.id, this.extra, view) : null,
    ]);
    Object.assign(this, { view, content, legal, extra });
  }

  /** Every event so far, for the log (the feed pages at 500). */
  async readLog() {
    for (;;) {
      const page = await this.api.events(this.id, this.after, 0);
      this.news(page.events, false);
      this.after = Math.max(this.after, page.last_version);
      if (!page.has_more) return;
    }
  }

  news(items, refresh = true, via = "") {
    if (refresh) this.heed(items.filter((item) => !this.log.has(item.version)));
    for (const item of items) {
      // a stream opened before a mute still carries the muted: the page leaves them out
      if (!this.log.has(item.version) && !this.unread(item)) this.log.set(item.version, { ...item, via });
      this.after = Math.max(this.after, item.version);
    }
    if (refresh && items.length) this.refresh();
  }

  /** Load and draw again; news arriving meanwhile makes one more round, not one each. */
  refresh() {
    if (this.stopped) return Promise.resolve();
    if (this.refreshing) {
      this.stale = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      let tries = 0;
      do {
        this.stale = false;
        try {
          await this.load();
          this.draw();
        } catch (err) {
          if (this.stopped) break;
          if (lasting(err) || ++tries > 3) {
            this.fail(err);
          } else {
            // a read lost, timed out or refused for now: read again, a moment later
            this.stale = true;
            await sleep(500 * tries);
          }
        }
      } while (this.stale && !this.stopped);
      this.refreshing = null;
    })();
    return this.refreshing;
  }

  /** Live: the SSE stream; after three failures in a row (a stream closed before the game's
   * end without a word counts as one), long-polls (`/events?wait=`). A problem no retry mends
   * (4xx but 408 and 429: the game gone, the token refused) stops following. */
  async follow() {
    // ?live=poll in the page's address long-polls from the start (a proxy that breaks streams)
    let failures = new URLSearchParams(location.search).get("live") === "poll" ? 3 : 0;
    while (!this.stopped && this.view.status !== "finished") {
      try {
        if (failures < 3) {
          this.setLive("live (stream)");
          let got = 0;
          for await (const item of this.api.stream(this.id, this.after, this.abort.signal)) {
            got += 1;
            failures = 0;
            this.streamed += 1;
            this.main.querySelector("section.game")?.setAttribute("data-streamed", this.streamed);
            this.news([item], true, "stream");
          }
          await this.refresh(); // the stream ends with the game
          if (this.stopped || this.view.status === "finished") break;
          if (!got) failures += 1; // else a proxy closed it after some news
          if (failures < 3) await sleep(Math.min(5000, 500 * Math.max(1, failures)));
        } else {
          this.setLive("live (long-poll)");
          const page = await this.api.events(this.id, this.after, 25, this.abort.signal);
          this.news(page.events, true, "poll");
          this.after = Math.max(this.after, page.last_version);
          if (page.status === "finished") await this.refresh();
        }
      } catch (err) {
        if (this.stopped || err.name === "AbortError") return;
        if (lasting(err)) {
          this.setLive("not live");
          this.fail(err);
          return;
        }
        failures += 1;
        this.setLive("reconnecting");
        await sleep(Math.min(5000, 500 * failures));
      }
    }
    if (!this.stopped) this.setLive(this.view.status === "finished" ? "finished" : "");
  }

  setLive(text) {
    this.live = text;
    const el = this.main.querySelector("#live");
    if (el) el.textContent = text;
  }

  tick() {
    for (const el of this.main.querySelectorAll("[data-deadline]")) {
      const deadline = el.dataset.deadline;
      el.textContent = clockText(deadline);
      const low = lowOnTime(deadline, el.dataset.full);
      el.closest(".clock")?.classList.toggle("low", low);
      if (low && el.dataset.mine === "1" && !this.warned.has(deadline) && secondsLeft(deadline) > 0) {
        this.warned.add(deadline);
        const policy = this.view?.clock?.timing?.on_timeout;
        tell(`Your time is running out: ${clockText(deadline)} left${policy === "wait" ? "" : ", then a bot moves for you"}.`, "warn");
        this.announce(`Your time is running out: ${clockText(deadline)} left.`);
      }
    }
  }

  /** Said to a screen reader (the live region), and nothing drawn. What one piece of news
   * brings is said together, in order ("Your time ran out: …" then the other's move, then
   * "Your turn."): set one after another, each would replace the last before it is read. */
  announce(text) {
    if (!text) return;
    this.toSay = [...(this.toSay || []), text];
    if (this.toSay.length > 1) return;
    queueMicrotask(() => {
      const el = this.main.querySelector("#announce");
      if (el) el.textContent = this.toSay.join(" ");
      this.toSay = [];
    });
  }

  /** What news tells the person beyond the log: a bot that moved for them, their turn. */
  heed(items) {
    const me = this.view?.your_seat;
    for (const item of items) {
      if (item.type === "timed_out" && item.data?.seat === me && me !== null && me !== undefined) {
        const bot = item.data.bot ? `a ${item.data.bot} bot` : "nobody";
        const said = {
          bot_move: `Your time ran out: ${bot} made that move for you; the seat is yours again.`,
          bot_takeover: `Your time ran out: ${bot} plays your seat to the end.`,
          wait: "Your time ran out: the others may hand your seat to a bot.",
        }[item.data.on_timeout] || "Your time ran out.";
        tell(said, "warn");
        this.announce(said);
      } else if (item.seat !== me && item.seat !== null && item.seat !== undefined && item.text && !QUIET.has(item.type)) {
        this.announce(item.text); // another's move, a bot's among them
      }
    }
  }

  // -- moves --------------------------------------------------------------------------------

  targetIndex() {
    const index = new Map();
    (this.legal?.actions || []).forEach((action, i) => {
      for (const key of this.board.targets(action, this.content)) {
        if (!index.has(key)) index.set(key, []);
        if (!index.get(key).includes(i)) index.get(key).push(i);
      }
    });
    return index;
  }

  /** The room this game was played in (the lobby's recent rooms), asked for a rematch. */
  async rematch() {
    for (const status of ["finished", "playing"]) {
      const rooms = await this.api.rooms(status);
      const room = rooms.items.find((r) => r.game_id === this.id);
      if (room) {
        const again = await this.api.roomPost(room.id, "rematch");
        location.hash = `#/room/${again.id}`;
        return;
      }
    }
    tell("The room of this game is not among the lobby's recent rooms: create a new one.", "warn");
  }

  async click(target) {
    if (target.dataset.mute) {
      await this.setChat({ ...this.chat, muted: [...new Set([...this.chat.muted, target.dataset.mute])] });
      tell("Muted: their messages no longer reach you, in any game.");
      return;
    }
    if (target.dataset.explain || target.id === "explain-close") {
      // a tap (or a click, or Enter) on a card, a character, a symbol: what it is, in words
      this.explained = target.id === "explain-close" ? null : target.dataset.explain;
      // a card tapped to learn what it is is never played by that tap: its moves, listed
      if (target.dataset.target) this.focus = target.dataset.target;
      this.draw();
      if (this.explained) this.main.querySelector(".explain")?.scrollIntoView?.({ block: "nearest" });
      return;
    }
    if (target.id === "resign") {
      const sure = window.confirm("Resign this game? A bot plays your seat to the end, and you are ranked last.");
      if (!sure) return;
      target.disabled = true;
      await this.api.resign(this.id);
      tell("You resigned: a bot plays your seat to the end.");
      await this.refresh();
      return;
    }
    if (target.dataset.open) {
      this.choosing = { label: target.dataset.open, picks: [], page: 0, version: this.legal?.version };
      this.draw();
      this.main.querySelector(".moves .group.open button")?.focus({ preventScroll: true });
      return;
    }
    if (target.dataset.pick || target.dataset.back || target.dataset.more || target.id === "all-moves") {
      if (target.id === "all-moves") this.flat = !this.flat;
      else if (target.dataset.more) {
        this.choosing.page = ((this.choosing.page || 0) + 1) % Number(target.dataset.more);
      } else if (target.dataset.back) {
        if (this.choosing.picks.length) this.choosing.picks.pop();
        else this.choosing = null;
        if (this.choosing) this.choosing.page = 0;
      } else {
        this.choosing.picks.push([target.dataset.pick, target.dataset.value]);
        this.choosing.page = 0;
      }
      this.draw();
      this.main.querySelector(".moves .group.open button, .moves button.action, .moves button.choose")?.focus({ preventScroll: true });
      return;
    }
    if (target.id === "rematch") {
      target.disabled = true;
      await this.rematch();
    } else if (target.id === "show-all") {
      this.focus = null;
      this.draw();
    } else if (target.dataset.action !== undefined) {
      await this.play(this.legal.actions[Number(target.dataset.action)]);
    } else if (target.dataset.target) {
      const found = this.targetIndex().get(target.dataset.target) || [];
      if (found.length === 1) await this.play(this.legal.actions[found[0]]);
      else if (found.length > 1) {
        this.focus = target.dataset.target;
        this.draw();
      }
    }
  }

  async play(action) {
    if (this.busy || !action) return;
    this.busy = true;
    this.draw();
    const { text, ...move } = action; // the service reads only the action
    try {
      const answer = await this.api.act(this.id, move, this.legal.version);
      tell("");
      this.news(answer.events || [], false);
    } catch (err) {
      if (err instanceof ApiError && err.status === 409 && err.code === "stale_version") {
        const now = err.problem.current_version;
        tell(
          `The game moved on while you chose (now at version ${now}): the table is reloaded, choose again.`,
          "warn"
        );
      } else {
        tell(`“${text}” was refused: ${problemText(err)}`, "error");
      }
    } finally {
      this.busy = false;
      this.focus = null;
      this.choosing = null; // the next move is chosen afresh
      await this.refresh();
      // the keyboard stays with the moves (a redraw would drop it on the page's body)
      const next = this.main.querySelector(".moves button.action:not([disabled])") || this.main.querySelector(".moves h3");
      next?.focus({ preventScroll: true });
    }
  }

  canResign() {
    const v = this.view;
    const me = v.your_seat;
    return v.status === "active" && me !== null && me !== undefined && !botPlaying(v);
  }

  /** The versions of others' news since the person's own last move (the log marks them). */
  sinceMine(me) {
    if (me === null || me === undefined) return new Set();
    const items = [...this.log.values()].sort((a, b) => a.version - b.version);
    let last = -1;
    items.forEach((e, i) => {
      if (e.seat === me && e.type !== "chat_said") last = i;
    });
    if (last < 0) return new Set();
    // the others' moves (news of whose turn it is, and the table's, is in the log alone)
    const others = (e) => e.seat !== me && e.seat !== null && e.seat !== undefined && !QUIET.has(e.type);
    return new Set(items.slice(last + 1).filter(others).map((e) => e.version));
  }

  /** "Since your last turn": what the others did, in a few lines above the moves. */
  since(me, versions) {
    if (!versions.size || !this.view.to_act.includes(me)) return "";
    const lines = [...versions].sort((a, b) => a - b).map((v) => this.log.get(v)).filter((e) => e.text);
    const shown = lines.slice(-8);
    return html`<div class="since"><h3>Since your last turn</h3>
      <ul>${shown.map((e) => html`<li>${e.text}</li>`)}</ul>
      ${lines.length > shown.length ? html`<p class="quiet">and ${lines.length - shown.length} earlier, in the log</p>` : ""}</div>`;
  }

  /** The words on the thing last tapped (rules.js), until closed or another is tapped. */
  explanation() {
    if (!this.explained) return "";
    const cut = this.explained.indexOf(":");
    const [kind, id] = [this.explained.slice(0, cut), this.explained.slice(cut + 1)];
    const text = explain(this.view.game, kind, id, this.content.raw);
    if (!text) return "";
    const name = kind === "card" ? this.content.byId.get(id)?.name : "";
    return html`<div class="explain" role="status">${name ? html`<b>${name}</b>: ` : ""}${text}
      <button id="explain-close" class="link">close</button></div>`;
  }

  /** The game's rules in short, and its pieces explained (rules.js). */
  rulesHelp() {
    const rules = this.content.raw?.how_to_play; // the game's own, with its content
    if (!rules) return "";
    return html`<details class="rules"><summary>How to play ${rules.title}</summary>${rules.sections.map(
      (sec) => html`<h4>${sec.heading}</h4><ul>${sec.items.map((item) => html`<li>${item}</li>`)}</ul>`
    )}</details>`;
  }

  // -- drawing ------------------------------------------------------------------------------

  /** Draw the game: its parts each in a container of their own, each replaced only when its
   * own content changed (mount), so news that adds a line to the log leaves the move buttons,
   * maybe under the pointer, as they are. */
  draw() {
    if (this.stopped || !this.view) return;
    const v = this.view;
    const names = v.seats.map((s) => s.name || `seat ${s.seat + 1}`);
    const me = v.your_seat;
    const title = catalog?.games.find((g) => g.key === v.game)?.name || v.game;
    const index = this.targetIndex();
    const ctx = {
      view: v.view,
      me,
      names,
      game: v,
      cards: this.content.byId,
      content: this.content.raw,
      extra: this.extra,
      index,
      focus: this.focus,
    };
    let section = this.main.querySelector(":scope > section.game");
    if (!section) {
      mount(
        this.main,
        html`<section class="game">
          <div class="status-bar"></div>
          <div id="announce" class="sr-only" aria-live="polite" aria-atomic="true"></div>
          <div class="outcome-box"></div>
          <div class="layout">
            <aside class="side">
              <div class="explain-box"></div>
              <div class="since-box"></div>
              <div class="moves-box"></div>
              <div class="seats-box"></div>
              <div class="rules-box"></div>
              <div class="chat-part"><h3>Chat</h3>
                <div class="chat-box"></div>
                <div class="chat-form-box"></div></div>
              <div class="log-part"><h3>Log</h3>
                <div class="log-box"></div></div>
            </aside>
            <div class="board"></div>
          </div>
        </section>`
      );
      section = this.main.querySelector(":scope > section.game");
    }
    Object.assign(section.dataset, {
      game: v.game,
      status: v.status,
      version: v.version,
      streamed: this.streamed,
    });
    const part = (name) => section.querySelector(name);
    mount(
      part(".status-bar"),
      html`<b>${title}</b>
        <span class="quiet">version ${v.version}</span>
        ${this.turnLine(names, me)}
        ${this.clocks(names)}
        <span id="live" class="quiet">${this.live}</span>
        ${this.canResign() ? html`<button id="resign" class="quiet-button">Resign</button>` : ""}
        <a class="button" href="#/">Leave the table</a>`
    );
    mount(part(".outcome-box"), v.outcome ? this.outcome(names, me) : "");
    mount(part(".board"), this.board.render(ctx));
    const playing = v.status === "active" && me !== null && me !== undefined && !botPlaying(v);
    mount(part(".explain-box"), this.explanation());
    const since = this.sinceMine(me); // once a draw: the box and the log's marks
    mount(part(".since-box"), playing ? this.since(me, since) : "");
    // the keyboard's place in the moves survives their redraw (news, the next turn's list)
    const hadFocus = part(".moves-box").contains(document.activeElement);
    mount(part(".moves-box"), playing ? this.moves() : "");
    if (hadFocus && !part(".moves-box").contains(document.activeElement)) {
      const next = part(".moves-box").querySelector("button:not([disabled])") || part(".moves-box h3");
      next?.focus({ preventScroll: true });
    }
    mount(part(".rules-box"), this.rulesHelp());
    mount(part(".seats-box"), this.seats(names));
    mount(part(".chat-box"), this.chatList());
    mount(part(".chat-form-box"), this.chatForm());
    mount(
      part(".log-box"),
      html`<ol class="log" data-keep-scroll="log" data-follow tabindex="0" aria-label="The game's log">${[...this.log.values()]
        .sort((a, b) => a.version - b.version)
        .map(
          (e) => html`<li class="${e.seat === null ? "table" : ""} ${since.has(e.version) ? "since" : ""}" data-type="${e.type}" data-seat="${e.seat ?? ""}" data-via="${e.via}">
            <span class="v">${e.version}</span> ${e.text}</li>`
        )}</ol>`
    );
    this.tick();
    // another tab's title says whose turn it is; a screen reader hears it when it comes
    const mine = v.status === "active" && v.to_act.includes(me) && !botPlaying(v);
    if (this.wasMyTurn !== null && mine && !this.wasMyTurn) this.announce("Your turn.");
    if (v.status === "finished" && this.wasMyTurn !== null && this.wasFinished === false) {
      this.announce("The game is over.");
    }
    this.wasMyTurn = mine;
    this.wasFinished = v.status === "finished";
    document.title = `${mine ? "● Your turn · " : ""}${title} · Turnpost`;
  }

  // -- table chat: plain text (html`` escapes it), muted players and a hidden channel ----------

  chatList() {
    const said = [...this.log.values()]
      .filter((e) => e.type === "chat_said")
      .sort((a, b) => a.version - b.version);
    return html`<ol class="chat" data-keep-scroll="chat" data-follow>${said.map(
      (e) => html`<li data-channel="${e.data.channel}" data-player="${e.data.player_id}"><b>${e.data.name}</b>${
        e.data.channel === "spectators" ? html` <span class="tag">watching</span>` : ""
      }: <span class="said">${e.data.text}</span>${
        e.data.player_id !== this.me.id
          ? html` <button class="link" data-mute="${e.data.player_id}" title="Hide this player's messages">mute</button>`
          : ""
      }</li>`
    )}</ol>`;
  }

  chatForm() {
    const hide = html`<label class="quiet"><input type="checkbox" id="hide-spectators"
      ${this.chat.hide_spectators ? "checked" : ""} /> hide the spectators' messages</label>`;
    if (this.view.status !== "active") return hide;
    return html`<form class="chat-form"><input name="text" maxlength="500" required autocomplete="off"
        placeholder="${this.view.your_seat === null ? "Say something (as a spectator)" : "Say something"}"
        aria-label="Message" /> <button type="submit">Send</button></form>${hide}`;
  }

  /** A chat message the person chose not to read. */
  unread(e) {
    return (
      e.type === "chat_said" &&
      (this.chat.muted.includes(e.data.player_id) || (this.chat.hide_spectators && e.data.channel === "spectators"))
    );
  }

  /** What the person chose not to read, gone from the page too, and never drawn again (the
   * service leaves it out of the feeds and streams it opens from now on). */
  async setChat(settings) {
    this.chat = await this.api.putChatSettings(settings);
    for (const [version, e] of this.log) if (this.unread(e)) this.log.delete(version);
    this.draw();
  }

  async submit(form) {
    if (!form.classList.contains("chat-form")) return;
    const text = form.text.value;
    await this.api.say(this.id, text);
    form.reset();
  }

  async change(target) {
    if (target.id === "hide-spectators") {
      await this.setChat({ ...this.chat, hide_spectators: target.checked });
    }
  }

  turnLine(names, me) {
    const v = this.view;
    if (v.status === "finished") return html`<span class="turn done">Game over</span>`;
    const bot = botPlaying(v);
    if (bot) {
      // resigned, or handed over at a timeout: every move of the seat is the bot's
      const who = v.to_act.map((s) => (s === me ? `your ${bot} bot` : names[s])).join(", ");
      return html`<span class="turn bot">A ${bot} bot plays your seat${who ? ` · waiting for ${who}` : ""}</span>`;
    }
    if (v.to_act.includes(me)) return html`<span class="turn mine">Your turn</span>`;
    const who = v.to_act.map((s) => names[s]).join(", ");
    return html`<span class="turn">Waiting for ${who || "the table"}</span>`;
  }

  clocks(names) {
    const seats = this.view.clock?.seats || [];
    const full = fullTime(this.view.clock?.timing);
    return seats
      .filter((c) => c.deadline && this.view.status === "active")
      .map(
        (c) => html`<span class="clock ${c.overdue ? "overdue" : ""} ${lowOnTime(c.deadline, full) ? "low" : ""}">${CLOCK_ICON}
          <span class="sr-only">clock of</span> ${c.seat === this.view.your_seat ? "you" : names[c.seat]}
          <b data-deadline="${c.deadline}" data-full="${full ?? ""}" data-mine="${c.seat === this.view.your_seat ? 1 : 0}">${clockText(c.deadline)}</b></span>`
      );
  }

  seats(names) {
    const standing = new Map((this.view.standings || []).map((s) => [s.seat, s]));
    return html`<h3>Players</h3><ul class="seats">${names.map((name, seat) => {
      const s = standing.get(seat);
      const bot = this.view.seats[seat]?.bot;
      return html`<li class="${this.view.to_act.includes(seat) ? "acting" : ""}">
        <span class="swatch" style="background:${this.board.colour?.(seat) || "#999"}"></span>
        ${name}${seat === this.view.your_seat ? " (you)" : ""}
        ${bot ? html`<span class="tag">${bot} bot</span>` : ""}
        ${s && s.standing !== "playing" && s.standing !== "bot" ? html`<span class="tag">${words(s.standing)}</span>` : ""}
      </li>`;
    })}</ul>`;
  }

  /** The moves, a few at a time (never more than MAX_CHOICES buttons at once): the kinds of
   * move first when there are many; a kind with many moves asks for one of its fields at a
   * time (the card, then the target, then the payment...: the first field its remaining
   * moves differ in), each value named as a person sees it; the moves left, once few, are
   * buttons that play. Values that read alike are one choice (two copies of one card). "All
   * moves" shows the whole list, grouped by kind. */
  moves() {
    const actions = this.legal?.actions || [];
    const shown = this.focus ? this.targetIndex().get(this.focus) || [] : actions.map((_, i) => i);
    // one heading per kind of move, as the board names it (two types may share one)
    const labels = this.board.labels || {};
    const groups = new Map();
    for (const i of shown) {
      const label = labels[actions[i].type] || words(actions[i].type);
      if (!groups.has(label)) groups.set(label, { types: new Set(), list: [] });
      groups.get(label).types.add(actions[i].type);
      groups.get(label).list.push(i);
    }
    const few = shown.length <= MAX_CHOICES || this.flat;
    // choices made on another version's list (a bot moved for the seat meanwhile): forgotten
    if (this.choosing && this.choosing.version !== this.legal?.version) this.choosing = null;
    if (this.choosing && !groups.has(this.choosing.label)) this.choosing = null; // gone since
    if (!few && !this.choosing && groups.size === 1) {
      const label = [...groups.keys()][0]; // one kind: open
      this.choosing = { label, picks: [], page: 0, version: this.legal?.version };
    }
    const disabled = this.busy ? "disabled" : "";
    const play = (i) => html`<button class="action" data-action="${i}" ${disabled}>${this.actionText(actions[i])}</button>`;
    const body = ([label, { types, list }]) => {
      const open = this.choosing?.label === label;
      let inner;
      if (few || list.length === 1) inner = list.map(play);
      else if (!open) {
        inner = html`<button class="choose" data-open="${label}" ${disabled}>${label} <span class="quiet">(${list.length})</span></button>`;
      } else inner = this.chooser(list, actions, play);
      return html`<div class="group ${open ? "open" : ""}" data-types="${[...types].join(" ")}">
        ${few || list.length === 1 || open ? html`<h4>${label} ${list.length > 1 ? html`<span class="quiet">(${list.length})</span>` : ""}</h4>` : ""}
        ${inner}</div>`;
    };
    // while one kind is open, the others wait behind "back"
    const visible = this.choosing && !few ? [...groups].filter(([label]) => label === this.choosing.label) : [...groups];
    const unavailable = this.legal?.unavailable || [];
    return html`<div class="moves ${this.busy ? "busy" : ""}">
      <h3 tabindex="-1">Your moves ${this.focus ? html`<button id="show-all" class="link">show all</button>` : ""}
        ${shown.length > MAX_CHOICES ? html`<button id="all-moves" class="link" aria-pressed="${this.flat ? "true" : "false"}">${this.flat ? "fewer at a time" : `all ${shown.length} moves`}</button>` : ""}</h3>
      ${actions.length === 0 ? html`<p class="quiet">Nothing to do now.</p>` : ""}
      <div class="move-list">${visible.map(body)}</div>
      ${unavailable.map(
        (u) => html`<p class="unavailable">Not now: ${words(u.type)}: ${u.message}</p>`
      )}
    </div>`;
  }

  /** One kind's moves narrowed by the choices made so far (this.choosing.picks). */
  chooser(list, actions, play) {
    const picks = this.choosing.picks;
    const left = list.filter((i) => picks.every(([field, said]) => this.valueText(actions[i][field], field) === said));
    if (!left.length) {
      this.choosing.picks = [];
      return this.chooser(list, actions, play);
    }
    const crumbs = html`<p class="picks">${picks.map(([field, said]) => html`<span class="chip">${words(field)}: ${said}</span> `)}
      <button class="link choose-back" data-back="1">back</button></p>`;
    const seen = new Set();
    const distinct = left.filter((i) => !seen.has(actions[i].text) && seen.add(actions[i].text));
    if (distinct.length <= MAX_CHOICES) return html`${crumbs}${distinct.map(play)}`;
    // the first field (in the moves' own order) whose values read differently
    const fields = [...new Set(left.flatMap((i) => Object.keys(actions[i])))].filter(
      (f) => f !== "type" && f !== "text" && !picks.some(([p]) => p === f)
    );
    for (const field of fields) {
      const values = [...new Set(left.map((i) => this.valueText(actions[i][field], field)))];
      if (values.length < 2) continue;
      const pages = Math.ceil(values.length / (MAX_CHOICES - 1));
      const page = Math.min(this.choosing.page || 0, pages - 1);
      this.choosing.page = page;
      const slice = values.slice(page * (MAX_CHOICES - 1), (page + 1) * (MAX_CHOICES - 1));
      return html`${crumbs}<p class="quiet">Choose the ${words(field).toLowerCase()}:</p>
        ${slice.map((said) => html`<button class="choose" data-pick="${field}" data-value="${said}" ${this.busy ? "disabled" : ""}>${said}</button>`)}
        ${pages > 1 ? html`<button class="choose more" data-more="${pages}">more (${page + 1}/${pages})</button>` : ""}`;
    }
    return html`${crumbs}${distinct.slice(0, MAX_CHOICES).map(play)}`; // alike to a person
  }

  /** A value of a move's field as a person reads it: cards by name, places, words; a field
   * naming a seat, by the player's name (and the seat, where two share a name). */
  valueText(value, field = "") {
    const byId = this.content.byId;
    if (SEAT_FIELDS.has(field) && Number.isInteger(value)) {
      const names = this.view.seats.map((s) => s.name || `seat ${s.seat + 1}`);
      const name = names[value] ?? `seat ${value + 1}`;
      return names.filter((n) => n === name).length > 1 ? `${name} (seat ${value + 1})` : name;
    }
    if (value === null || value === undefined) return "none";
    // a house, named by its row (Footprints' place_figure)
    if (field === "row" && this.board.placeText && Number.isInteger(value)) return this.placeText([value, -1]);
    if (typeof value === "string") return byId.get(value)?.name || words(value);
    if (typeof value === "number" || typeof value === "boolean") return String(value);
    if (Array.isArray(value)) {
      if (isPlace(value)) return this.placeText(value);
      if (this.board.placeText && value.length && value.every(isPlace)) return `to ${this.placeText(value[value.length - 1])}`; // a path
      return value.length ? value.map((v) => this.valueText(v)).join(", ") : "none";
    }
    const parts = Object.entries(value).filter(([k]) => k !== "type").map(([k, v]) => `${words(k).toLowerCase()} ${this.valueText(v)}`);
    return [value.type ? words(value.type) : "", ...parts].filter(Boolean).join(": ") || "none";
  }

  /** A place on the board in words (the board's own, where it has them). */
  placeText(pos) {
    const ctx = { view: this.view.view, me: this.view.your_seat, extra: this.extra };
    return this.board.placeText?.(pos, ctx) || `row ${pos[0] + 1}, column ${pos[1] + 1}`;
  }

  /** A move's text with its places in words (the service names them "[row, column]"). */
  actionText(action) {
    if (!this.board.placeText) return action.text;
    return action.text.replace(/\[(-?\d+), (-?\d+)\]/g, (_, r, c) => this.placeText([Number(r), Number(c)]));
  }

  outcome(names, me) {
    const o = this.view.outcome;
    const order = names.map((_, seat) => seat).sort((a, b) => o.ranks[a] - o.ranks[b]);
    const solo = o.detail?.solo;
    const headline = solo
      ? solo.won ? "You won the solo game" : "The solo game is lost"
      : o.winners.length === 0
      ? "A draw"
      : o.winners.includes(me)
        ? o.winners.length > 1 ? "You share the win" : "You won"
        : `${o.winners.map((s) => names[s]).join(" and ")} won`;
    const { columns, why } = breakdown(this.view.game, o);
    const forfeited = new Set(o.detail?.forfeited || []);
    const standing = new Map((this.view.standings || []).map((s) => [s.seat, s.standing]));
    return html`<div class="outcome">
      <h2>${headline}</h2>
      ${why ? html`<p class="why">${why}</p>` : ""}
      <div class="scroll-x"><table><thead><tr><th>Rank</th><th>Player</th>${columns.map((c) => html`<th>${c.name}</th>`)}<th>Score</th></tr></thead><tbody>${order.map(
        (seat) => html`<tr class="${o.winners.includes(seat) ? "winner" : ""}">
          <td>${o.ranks[seat]}</td><td>${names[seat]}${seat === me ? " (you)" : ""}${forfeited.has(seat)
            ? html` <span class="tag">${standing.get(seat) === "timed_out" ? "timed out" : "resigned"}: ranked last</span>`
            : ""}</td>${columns.map((c) => html`<td>${c.value(seat)}</td>`)}<td>${o.scores[seat]}</td></tr>`
      )}</tbody></table></div>
      ${o.tie_break ? html`<p class="quiet">Tie-break: ${words(o.tie_break)}</p>` : ""}
      ${forfeited.size ? html`<p class="quiet">A seat whose player resigned or ran out of time is ranked below every other, whatever the bot that finished it scored.</p>` : ""}
      ${me !== null ? html`<p><button id="rematch" class="primary">Play again</button>
        <span class="quiet">the same game, settings and bots, the same people</span></p>` : ""}
      <p><a class="button" id="replay" href="#/replay/${encodeURIComponent(this.id)}">Replay this game</a>
        <a class="button" href="#/leaderboard/${encodeURIComponent(this.view.game)}">Leaderboard</a></p>
    </div>`;
  }
}

// How each game's outcome adds up, from its `detail` (the engines' own words on the end).
const REASONS = {
  centre: "A traveller reached the centre: the first to get there wins.",
  postcards: "A traveller holds four postcards: that wins at once.",
  turn_limit: "A draw: the game's turn limit passed.",
  no_cards: "A draw: no cards are left to draw.",
  eight_collectors: "A player completed their eighth collector card; everyone else had one more turn.",
  stalemate: "Nobody could do anything more (every seat passed in a row).",
};
const FOOTPRINT_PARTS = {
  cairn: "Cairn",
  engravings: "Engravings",
  skills: "Skills",
  footprints: "Footprints",
  cave: "Cave painting",
  resources: "Resources",
  fire_cards: "Fire cards",
};
function breakdown(game, o) {
  const d = o.detail || {};
  if (game === "itty-bitty" && Array.isArray(d.penalties)) {
    return {
      columns: [
        { name: "Coins", value: (seat) => o.scores[seat] + d.penalties[seat] },
        { name: "Unfinished collectors", value: (seat) => (d.penalties[seat] ? `−${d.penalties[seat]}` : "0") },
      ],
      why: `${REASONS[d.reason] || ""} Each collector card left unfinished in a hand costs a coin.`.trim(),
    };
  }
  if (game === "footprints" && Array.isArray(d.parts) && d.parts.length === o.scores.length) {
    const keys = [...new Set(d.parts.flatMap((p) => Object.keys(p)))].filter((k) => d.parts.some((p) => p[k]));
    return {
      columns: keys.map((k) => ({ name: FOOTPRINT_PARTS[k] || words(k), value: (seat) => d.parts[seat][k] ?? 0 })),
      why: d.solo ? `Solo: ${d.solo.points} points${d.solo.achievement ? `, ${words(d.solo.achievement).toLowerCase()}` : ""}.` : "",
    };
  }
  return { columns: [], why: REASONS[d.reason] || (d.reason ? words(d.reason) : "") };
}

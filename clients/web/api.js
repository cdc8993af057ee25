// The two Turnpost services over fetch(): bearer token, JSON bodies, RFC 9457 problems as
// ApiError, Idempotency-Key on moves, and the live feed read from a fetch() stream (an
// EventSource cannot send the Authorization header the stream needs).

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.code = problem.code || "";
    this.problem = problem;
  }
}

/** A random UUID; crypto.randomUUID exists only in secure contexts (not plain-http LAN hosts). */
export function uuid() {
  if (globalThis.crypto?.randomUUID && globalThis.isSecureContext) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long a request may take before it is given up as a network failure (a read retried,
 * a move sent again with its key): 20 s, or `?read_timeout=<seconds>` in the page's address.
 * Long-polls and the stream carry their own signal and are not cut. */
const TIMEOUT_MS = Number(new URLSearchParams(location.search).get("read_timeout")) * 1000 || 20_000;

export class Api {
  constructor(config, token = null) {
    this.lobby = config.lobby_url || location.origin;
    this.game = config.game_url || location.origin;
    this.token = token;
  }

  async request(base, method, path, { body, headers = {}, signal, raw = false, cache = "no-store" } = {}) {
    const timed = !signal; // a request that nobody else can stop: it stops itself
    signal = signal || AbortSignal.timeout(TIMEOUT_MS);
    const sent = { ...headers };
    if (this.token) sent.authorization = `Bearer ${this.token}`;
    if (body !== undefined) sent["content-type"] = "application/json";
    let resp;
    try {
      resp = await fetch(base + path, {
        method,
        headers: sent,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
        cache, // "no-cache" for the map's drawing: kept, and asked again with its ETag
      });
    } catch (err) {
      if (err.name === "AbortError" && !timed) throw err;
      const why = timed && signal.aborted ? `no answer in ${TIMEOUT_MS / 1000} s` : err.message;
      throw new ApiError(0, { code: "network", detail: `cannot reach ${base}: ${why}` });
    }
    if (!resp.ok) {
      let problem = {};
      try {
        problem = await resp.json();
      } catch {
        problem = { detail: `${resp.status} ${resp.statusText}` };
      }
      throw new ApiError(resp.status, problem);
    }
    if (raw) return resp;
    return resp.status === 204 ? null : resp.json();
  }

  // -- lobby ---------------------------------------------------------------------------------
  register(name) {
    return this.request(this.lobby, "POST", "/v1/players", { body: { name } });
  }
  catalog() {
    return this.request(this.lobby, "GET", "/v1/catalog");
  }
  content(game) {
    return this.request(this.lobby, "GET", `/v1/catalog/${encodeURIComponent(game)}/content`);
  }
  rooms(status) {
    return this.request(this.lobby, "GET", `/v1/rooms?status=${status}&limit=50`);
  }
  room(id) {
    return this.request(this.lobby, "GET", `/v1/rooms/${encodeURIComponent(id)}`);
  }
  createRoom(body) {
    return this.request(this.lobby, "POST", "/v1/rooms", { body });
  }
  roomPost(id, verb, body) {
    return this.request(this.lobby, "POST", `/v1/rooms/${encodeURIComponent(id)}/${verb}`, { body });
  }
  quickMatch(body) {
    return this.request(this.lobby, "POST", "/v1/match", { body });
  }
  leaveMatch() {
    return this.request(this.lobby, "DELETE", "/v1/match");
  }
  myInvitations() {
    return this.request(this.lobby, "GET", "/v1/me/invitations");
  }
  invite(roomId, playerId) {
    return this.roomPost(roomId, "invitations", { player_id: playerId });
  }
  decline(roomId) {
    return this.roomPost(roomId, "invitations/decline");
  }

  // -- a player's record ---------------------------------------------------------------------
  profile(id) {
    return this.request(this.lobby, "GET", `/v1/players/${encodeURIComponent(id)}`);
  }
  history(id, cursor) {
    const q = `limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    return this.request(this.lobby, "GET", `/v1/players/${encodeURIComponent(id)}/games?${q}`);
  }
  leaderboard(game, provisional, cursor) {
    const q = `limit=50&provisional=${provisional ? "true" : "false"}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    return this.request(this.lobby, "GET", `/v1/leaderboards/${encodeURIComponent(game)}?${q}`);
  }
  viewAt(id, at) {
    return this.request(this.game, "GET", `/v1/games/${encodeURIComponent(id)}?at=${at}`);
  }

  // -- game ----------------------------------------------------------------------------------
  myGames() {
    return this.request(this.game, "GET", "/v1/me/games?limit=20");
  }
  watchable() {
    return this.request(this.game, "GET", "/v1/games?status=active&limit=10");
  }
  say(id, text) {
    const path = `/v1/games/${encodeURIComponent(id)}/chat`;
    return this.request(this.game, "POST", path, { body: { text }, headers: { "Idempotency-Key": uuid() } });
  }
  chatSettings() {
    return this.request(this.game, "GET", "/v1/me/chat-settings");
  }
  putChatSettings(settings) {
    return this.request(this.game, "PUT", "/v1/me/chat-settings", { body: settings });
  }
  /** The caller's view; with `legal`, its legal actions at the same version inside it. */
  view(id, legal = false) {
    const query = legal ? "?include=legal_actions" : "";
    return this.request(this.game, "GET", `/v1/games/${encodeURIComponent(id)}${query}`);
  }
  resign(id) {
    return this.request(this.game, "POST", `/v1/games/${encodeURIComponent(id)}/resign`);
  }
  legal(id) {
    return this.request(this.game, "GET", `/v1/games/${encodeURIComponent(id)}/legal-actions`);
  }
  map(id) {
    return this.request(this.game, "GET", `/v1/games/${encodeURIComponent(id)}/map`);
  }
  /** The map as set up, without the pieces (the page draws them): fixed for the game, and
   * kept by the browser (immutable). */
  async boardSvg(id) {
    const path = `/v1/games/${encodeURIComponent(id)}/board.svg?pieces=false`;
    return (await this.request(this.game, "GET", path, { raw: true })).text();
  }
  events(id, after, wait, signal) {
    const q = `after=${after}&wait=${wait}&limit=500`;
    return this.request(this.game, "GET", `/v1/games/${encodeURIComponent(id)}/events?${q}`, { signal });
  }

  /** Post a move once: the same Idempotency-Key on a retry after a lost answer, so a move
   * that did land is answered again (`replayed`), never played twice. */
  async act(id, action, expectedVersion) {
    const key = uuid();
    const path = `/v1/games/${encodeURIComponent(id)}/actions`;
    const body = { action, expected_version: expectedVersion };
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.request(this.game, "POST", path, { body, headers: { "Idempotency-Key": key } });
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 0 || attempt >= 2) throw err;
        await sleep(500 * (attempt + 1));
      }
    }
  }

  /** The game's feed as Server-Sent Events, read from a fetch() body: yields each item
   * (`/events`' shape) as it comes; returns when the stream ends (the game finished: 204). */
  async *stream(id, after, signal) {
    const resp = await this.request(
      this.game,
      "GET",
      `/v1/games/${encodeURIComponent(id)}/stream?after=${after}`,
      { raw: true, signal, headers: { accept: "text/event-stream" } }
    );
    if (resp.status === 204 || !resp.body) return;
    const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer = (buffer + value).replace(/\r\n?/g, "\n");
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block
            .split("\n")
            .filter((line) => line.startsWith("data:"))
            .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5))
            .join("\n");
          if (data) yield JSON.parse(data);
        }
      }
    } finally {
      reader.cancel().catch(() => {});
    }
  }
}

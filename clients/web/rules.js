// `explain`: a thing of the game a player taps or hovers (a card, a character, a leader, a
// map symbol...) said in words, for a player who has never played it (the rules in short
// come with the game's content: its package's HOW_TO_PLAY.md, served as `how_to_play`). Plain strings only (the page escapes them); nothing is imported, so this
// module also loads outside a browser (tests/unit/test_web_rules.py runs it under node).
//
// The texts follow the rulebooks (shared/rules/*.txt) and the project's rulings
// (games/<game>/RULES.md, games/footprints/CONTENT.md). Explanations are built from the
// game's content (GET /v1/catalog/{game}/content: `all_cards` and the game's own tables),
// so every card of the content has one.

// -- helpers ----------------------------------------------------------------------------------

/** "a", "a and b", "a, b and c" */
function listing(items) {
  const words = items.filter((w) => w);
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
/** The word with its article: "a Male", "an Alien", "an ice". */
const a = (word) => `${/^[aeiou]/i.test(word) ? "an" : "a"} ${word}`;
const capital = (text) => (text ? text.charAt(0).toUpperCase() + text.slice(1) : text);
const sentence = (text) => {
  const t = capital(String(text || "").trim());
  return !t || /[.!?]$/.test(t) ? t : `${t}.`;
};
const join = (...parts) => parts.filter((p) => p).map(sentence).join(" ");

/** "itty-bitty" (the service's key) and "itty_bitty" are the same game. */
const gameKey = (game) => String(game || "").replace(/-/g, "_");

// Indexes of a content document, made once per document.
const indexes = new WeakMap();
function indexOf(content) {
  if (!content || typeof content !== "object") return null;
  let index = indexes.get(content);
  if (!index) {
    index = { cards: new Map((content.all_cards || []).map((c) => [c.id, c])) };
    indexes.set(content, index);
  }
  return index;
}
const cardInfo = (content, id) => indexOf(content)?.cards.get(id) || null;

// -- itty bitty -------------------------------------------------------------------------------

const PUNK_TYPES = ["Male", "Female", "Zombie", "Ape", "Alien"];

function ittybitParts(content, id) {
  const own = (content?.ittybits || []).find((i) => i.id === id);
  if (own) return { number: own.number, type: own.type, traits: own.traits };
  const info = cardInfo(content, id);
  if (!info) return null;
  const [type, ...traits] = info.traits;
  return { number: null, type, traits };
}

function explainIttybit(content, id) {
  const punk = ittybitParts(content, id);
  if (!punk) return "";
  const info = cardInfo(content, id);
  const name = info?.name || `Ittybit #${punk.number}`;
  const every = [punk.type, ...punk.traits];
  const wanted = (content?.collectors || []).filter((c) => c.grails.some((g) => every.includes(g.trait))).length;
  return join(
    `${name}: ${a(punk.type)} punk${punk.traits.length ? ` with ${listing(punk.traits)}` : ""}`,
    `It pays for one unit of a grail asking for any of these traits (its type, ${punk.type}, counts as a trait)`,
    wanted ? `${wanted} of the ${content.collectors.length} collectors ask for at least one of them` : "",
    "Ittybits still in hand break a tie on coins"
  );
}

const grailText = (g) =>
  PUNK_TYPES.includes(g.trait)
    ? `${plural(g.qty, `${g.trait} ittybit`)} for ${plural(g.coins, "coin")}`
    : `${plural(g.qty, "ittybit")} with ${g.trait} for ${plural(g.coins, "coin")}`;

function explainCollector(content, id) {
  const own = (content?.collectors || []).find((c) => c.id === id);
  const info = cardInfo(content, id);
  let grails = own?.grails;
  if (!grails && info) {
    // "2 Earring: 3 coins" (the shape of all_cards)
    grails = info.traits.map((t) => {
      const m = /^(\d+) (.+): (\d+) coins?$/.exec(t);
      return m ? { qty: Number(m[1]), trait: m[2], coins: Number(m[3]) } : null;
    }).filter((g) => g);
  }
  if (!grails || !grails.length) return "";
  const name = info?.name || id;
  const most = grails.reduce((s, g) => s + g.coins, 0);
  return join(
    `${name} pays ${listing(grails.map(grailText))}`,
    grails.length > 1
      ? `Complete it by paying one or more of its grails in a single action (up to ${most} coins for all ${grails.length}); grails left unpaid are lost`
      : "Complete it by paying its grail in one action",
    "Each ittybit pays one unit of one grail, and is discarded",
    "Still uncompleted in your hand at the end, it costs you 1 coin"
  );
}

function explainTrait(content, trait) {
  const punks = (content?.ittybits || []).filter((i) => i.type === trait || i.traits.includes(trait)).length;
  const asked = (content?.collectors || []).filter((c) => c.grails.some((g) => g.trait === trait)).length;
  if (!punks && !asked && !PUNK_TYPES.includes(trait)) return "";
  return join(
    PUNK_TYPES.includes(trait) ? `${trait}: a punk type, which counts as a trait` : `${trait}: a trait`,
    content?.ittybits ? `${punks} of the ${content.ittybits.length} ittybits show it` : "",
    content?.collectors ? `${asked} of the ${content.collectors.length} collectors ask for it` : ""
  );
}

function explainIttyBitty(kind, id, content) {
  if (kind === "trait") return explainTrait(content, id);
  if (kind === "card" || kind === "ittybit" || kind === "collector") {
    const what = cardInfo(content, id)?.kind || (String(id).startsWith("collector") ? "collector" : "ittybit");
    return what === "collector" ? explainCollector(content, id) : explainIttybit(content, id);
  }
  return "";
}

// -- Itchy Feet -------------------------------------------------------------------------------

const EVENT_RULE =
  "Events are played the moment they are drawn, then the player who drew it draws again. Events go to the discard pile but can never be recycled.";
const EVENT_NOTES = {
  "civil-unrest": "The new centre comes from the countries set aside, and the old centre goes back among them.",
  "duty-free": "The player who drew it draws last.",
  pickpockets:
    "It is one exchange: all the cards pass at the same moment, to the next player in turn order, and only then are postcards counted.",
  strike: "The player who skips is the one after the player whose turn it is, whoever drew the card. Skips add up.",
};
const SPECIAL_NOTES = {
  "poorly-drawn-map":
    "Each map covers one item you lack, never one you hold, so two maps can cover two items. It can't be played on its own.",
  "travel-insurance":
    "When someone steals from you, you are asked whether to cancel; the thief's paid card stays discarded and their action is spent.",
  espresso: "Playing it costs no action.",
  "change-of-plans": "Playing it costs no action, and it is discarded even if you have already been home.",
  "lucky-find": "Playing it costs no action, and you may travel with what it brings in the same turn.",
};
const FORBIDDEN_RULE =
  "On your turn, getting rid of it is a free move; the other card may be any card, even another forbidden item. It can't pay for a steal or a recycle, but it can be stolen, traded, or discarded to meet the hand limit. A Customs Sweep discards it.";
const POSTCARD_RULE =
  "Hold four postcards at the same moment and you win at once, even on another player's turn. There are five, each from a different city.";
const CHARACTER_NOTES = {
  backpacker: "An older card of the discard pile still costs two.",
  pickpocket:
    "The hands are compared after you pay the steal's card. A victim with one card loses just that one, and a Travel Insurance cancels both.",
  hoarder: "The two cards come with the Draw action only.",
  planner:
    "With the Draw action only. The card let go is discarded face up; between a forbidden item and another card, you must keep the forbidden item.",
  haggler:
    "The offer passes to each next player holding as many cards as you ask for, until it would come back to you. The card you get is no steal, so Travel Insurance can't stop it.",
  globetrotter: "The trip home costs no action, so you act again after it (once a game).",
};

/** A card of Itchy Feet by its id ("item-camera-2") or its kind ("camera", as the discard and
 * the offers show copies), from the content's `cards`. */
function itchyCard(content, id) {
  const cards = content?.cards || [];
  const key = String(id);
  return (
    cards.find((c) => c.id === key) ||
    cards.find((c) => c.kind === key) ||
    cards.find((c) => c.type === "character" && c.id === `character-${key}`) ||
    null
  );
}

const kindName = (content, kind) => (content?.cards || []).find((c) => c.kind === kind)?.name || kind;

function explainItem(content, card) {
  const copies = (content?.cards || []).filter((c) => c.kind === card.kind).length;
  const needed = (content?.countries || []).filter((c) => c.items.includes(card.kind)).map((c) => c.name);
  return join(
    `${card.name}: an item${copies > 1 ? ` (${copies} identical copies)` : ""}`,
    needed.length ? `You need one to travel to ${listing(needed)}` : "",
    "A journey pays the items with it to the discard pile"
  );
}

function explainCharacter(content, id) {
  const card = itchyCard(content, id);
  const kind = card ? card.kind : String(id).replace(/^character-/, "");
  const info = card || cardInfo(content, `character-${kind}`);
  if (!info) return "";
  return join(`${info.name}: ${info.text}`, CHARACTER_NOTES[kind] || "", "Characters are face up for everyone");
}

function explainCountry(content, id) {
  const country = (content?.countries || []).find((c) => c.id === id || c.name === id);
  if (!country) return "";
  const items = country.items.map((k) => kindName(content, k));
  return join(
    `${country.name}${country.capital?.name ? ` (capital ${country.capital.name})` : ""}: to travel here you need a passport and these items: ${listing(items)}`
  );
}

function explainItchyCard(content, id) {
  const card = itchyCard(content, id);
  if (!card) {
    const info = cardInfo(content, id);
    return info ? join(`${info.name}: ${info.text}`) : "";
  }
  switch (card.type) {
    case "item":
      return explainItem(content, card);
    case "passport":
      return join(
        "Passport: you need one in your hand to travel, and you keep it when you travel",
        "Any passport will do, not only your own. If yours is stolen, trade or steal to get one back"
      );
    case "event":
      return join(`${card.name} (event): ${card.text}`, EVENT_NOTES[card.kind] || "", EVENT_RULE);
    case "special":
      return join(`${card.name} (special item): ${card.text}`, SPECIAL_NOTES[card.kind] || "");
    case "forbidden":
      return join(`${card.name} (forbidden item): ${card.text}`, FORBIDDEN_RULE);
    case "postcard":
      return join(`${card.name}: a postcard`, POSTCARD_RULE);
    case "character":
      return explainCharacter(content, card.id);
    case "actions":
      return join(
        `${card.name}: a reminder of the five actions: draw, recycle, trade, steal or travel, one a turn`,
        "It is never dealt or played"
      );
    default:
      return card.text ? join(`${card.name}: ${card.text}`) : "";
  }
}

function explainItchyFeet(kind, id, content) {
  if (kind === "character") return explainCharacter(content, id);
  if (kind === "country") return explainCountry(content, id);
  if (["card", "kind", "item", "event", "special", "forbidden", "postcard", "passport"].includes(kind)) {
    return explainItchyCard(content, id);
  }
  return "";
}

// -- Footprints -------------------------------------------------------------------------------

const TERRAINS = ["mountain", "ice", "forest", "swamp"];
const MARKER = { mountain: "grey", ice: "light blue", forest: "dark green", swamp: "light green" };
const RESOURCES = ["stone", "mammoth", "wood", "berries"];
const token = (resource, n = 1) => `${n === 1 ? "a" : n} ${resource} token${n === 1 ? "" : "s"}`;

/** A bonus, a fire card's effect or cost ({kind, ...} as the content has them), in words. */
function effectText(e) {
  switch (e?.kind) {
    case "resource":
      return `take ${token(e.resource)}`;
    case "skill":
      return `advance your ${e.terrain} skill marker 1 space`;
    case "skill_any":
      return "advance any one of your skill markers 1 space";
    case "fire":
      return "take a fire card";
    case "footprint":
      return "take a footprint card (keep it on your board or discard it at once)";
    case "move":
      return `move up to ${e.spaces} spaces of ${e.terrain}`;
    case "skill_back":
      return `move your ${e.terrain} skill marker back 1 space, collecting no bonus`;
    case "give":
      return `give up ${token(e.resource)}`;
    case "both_actions":
      return `if the follower you play this turn is ${a(listing(e.terrains).replace(" and ", " or "))} follower, perform both its top and its bottom action, in either order, finishing one before starting the other`;
    default:
      return "";
  }
}
const COSTS = ["skill_back", "give"];

/** Several effects in words, the same one said once with how many times ("take 2 berries
 * tokens", "advance any one of your skill markers 1 space, twice"). */
function effectsText(effects) {
  const groups = new Map();
  for (const e of effects) {
    const key = JSON.stringify(e);
    groups.set(key, { e, n: (groups.get(key)?.n || 0) + 1 });
  }
  return listing(
    [...groups.values()].map(({ e, n }) => {
      if (n === 1) return effectText(e);
      if (e.kind === "resource") return `take ${token(e.resource, n)}`;
      if (e.kind === "give") return `give up ${token(e.resource, n)}`;
      return `${effectText(e)}, ${n === 2 ? "twice" : `${n} times`}${e.kind === "skill_any" ? " (the same marker or two different ones)" : ""}`;
    })
  );
}

function goalText(g) {
  switch (g?.kind) {
    case "engraving":
      return `you have built your ${g.terrain} engraving`;
    case "cave_painting":
      return "you have built your cave painting";
    case "resource":
      return `you own ${token(g.resource, g.count)}`;
    case "skill":
      return `your ${g.terrain} skill is at ${g.level} or higher`;
    case "skills_total":
      return `your ${listing(g.terrains)} skills add up to ${g.total} or more`;
    default:
      return "";
  }
}

/** What a cave token scores (its `scoring` and `terrain`, as the content has them). */
function caveScoring(scoring, terrain) {
  switch (scoring) {
    case "skill_x2":
      return `2 points for each level of your ${terrain} skill`;
    case "lowest_skill_x3":
      return "3 points for each level of your lowest skill";
    case "cairn_plus_10":
      return "10 points plus your cairn track points (10 if you never reached a cairn)";
    case "per_engraving_5":
      return "5 points for each engraving you built";
    case "bonus_icons_next_to_engravings_x3":
      return "3 points for each bonus icon on the spaces next to your engravings, occupied or not (a space next to two of them counts once)";
    case "engraving_points_again":
      return "your engravings' points once more";
    case "per_footprint_card_5":
      return "5 points for each footprint card you completed";
    default:
      return "";
  }
}
const caveText = (scoring, terrain) =>
  join(`A cave token: if you build your cave painting on it, at the end you score ${caveScoring(scoring, terrain)}`);

// The marks of the map drawing (games/footprints/svg.py: RESOURCE_MARK, SKILL_MARK, mark,
// TOKEN_MARK, LEGEND): each code the map and its legend show, in words.
const RESOURCE_MARK = { stone: "St", mammoth: "Ma", wood: "Wo", berries: "Be" };
const SKILL_MARK = { mountain: "+M", ice: "+I", forest: "+F", swamp: "+S" };
const CAVE_MARK = {
  skill_x2: "2x", // then the terrain's first letter: 2xM, 2xI, 2xF, 2xS
  lowest_skill_x3: "3xlow",
  cairn_plus_10: "10+C",
  per_engraving_5: "5/En",
  bonus_icons_next_to_engravings_x3: "3/ic",
  engraving_points_again: "Enx2",
  per_footprint_card_5: "5/Fp",
};
const bonusSymbol = (bonus) => join(`Bonus: ${effectText(bonus)}`);

export const SYMBOLS = (() => {
  const out = {};
  for (const r of RESOURCES) out[RESOURCE_MARK[r]] = bonusSymbol({ kind: "resource", resource: r });
  for (const t of TERRAINS) {
    out[SKILL_MARK[t]] = join(bonusSymbol({ kind: "skill", terrain: t }), "Its track bonuses come with it");
  }
  out["+?"] = join(bonusSymbol({ kind: "skill_any" }), "You name which; if you don't, your lowest skill advances");
  out.Fi = bonusSymbol({ kind: "fire" });
  out.Fp = bonusSymbol({ kind: "footprint" });
  for (const [scoring, mark] of Object.entries(CAVE_MARK)) {
    if (scoring === "skill_x2") {
      for (const t of TERRAINS) out[mark + t[0].toUpperCase()] = caveText(scoring, t);
    } else {
      out[mark] = caveText(scoring, null);
    }
  }
  out.cairn = join(
    "A cairn space: it counts as both of its terrains. End your turn on it to reach the cairn track (the game then ends after this round); you may move through it, and build from it, but never on it"
  );
  out["cairn track"] = join("The figures that reached a cairn, in order of arrival: 15, 14, 13, 12, 11 and 10 points");
  out["dashed cave"] = join("A cave site out of play: no token lies there, so nobody can paint on it");
  return out;
})();

function explainSymbol(content, code) {
  const text = String(code ?? "").trim();
  if (!text) return "";
  if (SYMBOLS[text]) return SYMBOLS[text];
  const cave = (content?.all_cards || []).find((c) => c.kind === "cave_token" && c.glyph === text);
  if (cave) return caveText(cave.traits[0], cave.traits[1] || null);
  const parts = text.split(/\s+/).filter((p) => p !== "/");
  if (parts.length > 1 && parts.every((p) => SYMBOLS[p])) {
    return parts.map((p) => `${p}: ${SYMBOLS[p]}`).join(" ");
  }
  return "";
}

const clanName = (content, clan) => content?.clans?.[clan]?.name || "";

function findFollower(content, id) {
  for (const clan of Object.values(content?.clans || {})) {
    const f = clan.followers.find((x) => x.id === id);
    if (f) return { clan, follower: f };
  }
  return null;
}

function findLeader(content, id) {
  for (const clan of Object.values(content?.clans || {})) {
    const i = clan.leaders.findIndex((x) => x.id === id || x.ability === id);
    if (i >= 0) return { clan, leader: clan.leaders[i], letter: "AB"[i] || "" };
  }
  return null;
}

function explainFollower(content, id) {
  const found = findFollower(content, id);
  if (!found) return "";
  const { clan, follower: f } = found;
  const t = f.terrain;
  const top = f.extra_move
    ? `move up to your ${t} skill level across ${t} spaces, plus 1 space of ${f.extra_move}, taken before, during, after or instead of that move`
    : `move up to your ${t} skill level across ${t} spaces`;
  const advance = f.extra_advance
    ? `advance your ${t} and ${f.extra_advance} skill markers 1 space each`
    : `advance your ${t} skill marker 1 space`;
  return join(
    `${capital(a(t))} follower of the ${clan.name}. Play it and choose one action`,
    `Top action: ${top}`,
    `Bottom action: ${advance} (collecting ${f.extra_advance ? "their" : "its"} track bonuses), and move to the next unoccupied space of any terrain: an adjacent one, or past a straight line of figures`,
    "You may also play one fire card with it"
  );
}

// Each leader ability (the content's `ability`) in words, with the project's readings.
const LEADER_ABILITIES = {
  advance_two_skills:
    "Advance two different skill markers 2 spaces each, collecting the bonuses of the track spaces they reach.",
  scout:
    "Move up to 6 spaces in one straight line, along the row or a diagonal, whatever the terrain. You may pass figures but must stop on an unoccupied space, never on or past a house; you collect the bonuses on the way as usual. Not used on the Snake map.",
  take_three_resources: "Take 3 resource tokens of your choice, any mix of stone, mammoth, wood and berries.",
  recluse:
    "Move to any unoccupied space at most 4 map columns from yours, either way, with no other figure within 2 spaces of it (figures on houses count), and collect its bonus. Not used on the Snake map.",
  shaman:
    "Perform the top action of any terrain you choose, moving up to your skill level in it. The Shaman is the one leader you may play a fire card with.",
  renew_footprints:
    "Discard any footprint cards from your board without losing points, then take 2 footprint cards, keeping or discarding each before the next is drawn.",
  fire_and_footprint: "Take 2 fire cards and 1 footprint card.",
  build_twice:
    "You may move to the next unoccupied space, as a bottom action does; this turn you may build two creations, but you still use only one engraving power.",
  top_action_plus_two:
    "Perform the top action of any terrain you choose, moving up to 2 spaces more than your skill level in it (no extra space of another terrain).",
  trade_resources: "Give up any number of resource tokens (even none), then take that many of your choice, plus 1 more.",
  two_fire_cards:
    "Play up to 2 fire cards from your hand and use both (only one of them may move you), then take 1 fire card. Playing none still takes the card.",
  replay_follower:
    "Perform the top or the bottom action of one follower already in your clan discard pile, with its extra space or extra advance, but without a fire card.",
};

function explainLeader(content, id) {
  const found = findLeader(content, id);
  if (!found) {
    return LEADER_ABILITIES[id] ? join(`A leader: ${LEADER_ABILITIES[id]}`) : "";
  }
  const { clan, leader, letter } = found;
  const ability = LEADER_ABILITIES[leader.ability] || leader.text;
  return join(
    `${leader.name}, leader ${letter} of the ${clan.name}: ${ability}`,
    letter === "A" ? "Leader A is the one used in a first game" : "",
    "Playing a leader is your action for the turn, and no fire card comes with it unless the leader says so"
  );
}

function explainFire(content, id) {
  const fire = content?.fire_cards?.[id];
  if (!fire) return "";
  const name = cardInfo(content, id)?.name || "A fire card";
  const costs = effectsText(fire.effects.filter((e) => COSTS.includes(e.kind)));
  const gains = effectsText(fire.effects.filter((e) => !COSTS.includes(e.kind)));
  return join(
    costs ? `${name}: first pay: ${costs}; then ${gains}` : `${name}: ${gains}`,
    fire.effects.some((e) => e.kind === "both_actions")
      ? "Play it with a follower in step 1"
      : "Play it with a follower and use it before, during or after the action",
    costs ? "If you can't pay its cost, it can't be used" : "",
    "Each unused fire card in your hand scores 1 point at the end"
  );
}

function explainFootprint(content, id) {
  const card = content?.footprint_cards?.[id];
  if (!card) return "";
  const name = cardInfo(content, id)?.name || "A footprint card";
  return join(
    `${name}: complete it once ${listing(card.goals.map(goalText))}`,
    "The goals are only checked, nothing is spent. Flip it on your own turn once they are all met: 6 points if completed, 3 points lost if it is still on your board at the end"
  );
}

function explainCave(content, id) {
  const t = content?.cave_tokens?.[id];
  if (t) return caveText(t.scoring, t.terrain);
  const info = cardInfo(content, id);
  return info?.kind === "cave_token" ? caveText(info.traits[0], info.traits[1] || null) : "";
}

function explainTerrain(terrain) {
  if (!TERRAINS.includes(terrain)) return "";
  return join(
    `${capital(terrain)} spaces: a top action of ${a(terrain)} follower crosses as many of them as your ${terrain} skill (the ${MARKER[terrain]} marker)`,
    `Your ${terrain} engraving is built on an empty ${terrain} space next to your figure. A cairn space counts as both of its terrains`
  );
}

function explainSkill(content, id) {
  const [clan, terrain] = String(id).includes(":") ? String(id).split(":") : [null, String(id)];
  if (!TERRAINS.includes(terrain)) return "";
  const track = clan ? content?.boards?.[clan]?.tracks?.[terrain] : null;
  const bonuses = track
    ? Object.entries(track.bonuses).map(([level, b]) => `${level}: ${effectText(b)}`)
    : [];
  return join(
    `Your ${terrain} skill (the ${MARKER[terrain]} marker) starts at 2 and goes up to 11: it is how far ${a(terrain)} top action moves`,
    "Each advance collects the bonus of the track space reached, on spaces 3 to 9; 10 and 11 have none but score 3 and 7 points at the end",
    track ? `On the ${clanName(content, clan)} board: ${bonuses.join("; ")}` : "",
    track ? `Past 11, each advance gives ${token(track.past_11)} instead` : "Past 11, each advance gives the resource shown after 11 instead"
  );
}

function explainResource(resource) {
  if (!RESOURCES.includes(resource)) return "";
  return join(
    `${capital(resource)}: a resource token. Resources pay for engravings, the cave painting, engraving powers and some fire cards`,
    "There is no limit on tokens. At the end every 2 tokens score 1 point"
  );
}

function explainClan(content, id) {
  const clan = content?.clans?.[id];
  if (!clan) return "";
  const board = content?.boards?.[id];
  const deck = board ? Object.entries(board.deck).map(([t, n]) => `${n} ${t}`) : [];
  const leaders = clan.leaders.map((l, i) => `${l.name} (${"AB"[i]})`);
  const costs = (cost) => listing(Object.entries(cost).map(([r, n]) => token(r, n)));
  const engravings = board
    ? Object.entries(board.engravings).map(
        ([t, e]) => `${t}: ${costs(e.cost)} for ${e.points} points, power paid in ${e.power}`
      )
    : [];
  return join(
    `The ${clan.name}${board ? ` (symbol: ${board.symbol})` : ""}`,
    deck.length ? `Its deck: ${listing(deck)} followers, and a leader: ${listing(leaders).replace(" and ", " or ")}` : "",
    engravings.length ? `Engravings: ${engravings.join("; ")}` : "",
    board ? `Cave painting: ${costs(board.cave_painting.cost)}` : ""
  );
}

// each kind of Footprints card (as the content's `all_cards` says) and its words
const FOOTPRINTS_CARDS = {
  follower: explainFollower,
  leader: explainLeader,
  fire: explainFire,
  footprint: explainFootprint,
  cave_token: explainCave,
  cave: explainCave,
};

function explainFootprints(kind, id, content) {
  if (kind === "card") kind = cardInfo(content, id)?.kind;
  if (FOOTPRINTS_CARDS[kind]) return FOOTPRINTS_CARDS[kind](content, id);
  switch (kind) {
    case "symbol":
      return explainSymbol(content, id);
    case "bonus":
      return id && typeof id === "object" ? bonusSymbol(id) : explainSymbol(content, id);
    case "terrain":
      return explainTerrain(id);
    case "skill":
      return explainSkill(content, id);
    case "resource":
      return explainResource(id);
    case "clan":
      return explainClan(content, id);
    default:
      return "";
  }
}

// -- explain ----------------------------------------------------------------------------------

/**
 * A thing of a game in words, for a player who taps or hovers it; "" when there is nothing to
 * say. `game`: "itty-bitty" / "itty_bitty", "itchy-feet" / "itchy_feet", "footprints";
 * `content`: the parsed GET /v1/catalog/{game}/content.
 *
 * kinds: every game "card" (an id of `content.all_cards`; Itchy Feet also a kind as the
 * discard shows it, "camera"); itty bitty "trait"; Itchy Feet "character" ("backpacker" as the
 * view has it, or "character-backpacker"), "country" ("germany"); Footprints "follower",
 * "leader" (a leader's card id, or its ability), "fire", "footprint", "cave" (a cave token id),
 * "symbol" (a mark of the map or its legend: "2xM", "St", "+?", "St Fi"...), "bonus" (a bonus
 * object or mark), "terrain", "skill" ("ice", or "clan-1:ice" with that board's track),
 * "resource", "clan" ("clan-1").
 */
export function explain(game, kind, id, content) {
  if (id === null || id === undefined || id === "") return "";
  try {
    switch (gameKey(game)) {
      case "itty_bitty":
        return explainIttyBitty(kind, id, content) || "";
      case "itchy_feet":
        return explainItchyFeet(kind, id, content) || "";
      case "footprints":
        return explainFootprints(kind, id, content) || "";
      default:
        return "";
    }
  } catch {
    return ""; // content of another shape: nothing to add, never a broken page
  }
}

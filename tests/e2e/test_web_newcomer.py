"""The web client for a newcomer (issue 35), in Chromium against the whole stack: a phone, a
laptop and a large screen without horizontal overflow, the moves before the table on a phone,
touch targets of 44 px; axe-core on every screen (0 critical, 0 serious); every clock in the
room form; resigning from the page, and an outcome that explains itself; what changed since
the person's last turn, said to a screen reader too; the rules at hand.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe  # type: ignore[import-untyped]
from playwright.sync_api import Browser, Page, ViewportSize
from playwright.sync_api import Error as PlaywrightError

from tests.e2e.conftest import Stack, bearer
from tests.e2e.test_web_client import VERSION_ABOVE, Tab, browser  # noqa: F401

PHONE: ViewportSize = {"width": 390, "height": 844}
SCREENS: list[ViewportSize] = [
    PHONE,
    {"width": 1280, "height": 800},
    {"width": 2560, "height": 1440},
]
TOUCH = 44  # px: the smallest target a finger is given

# every visible control a finger may need, but the checkboxes and radios (their label is the
# target) and the links inside running text
CONTROLS = (
    "main button, main select, main input:not([type=checkbox]):not([type=radio]), "
    "main .button, main summary, main [data-target]"
)


def open_tab(browser: Browser, stack: Stack, viewport: ViewportSize) -> Iterator[Tab]:  # noqa: F811
    phone = viewport["width"] < 600
    context = browser.new_context(viewport=viewport, has_touch=phone, is_mobile=phone)
    opened = Tab(context, stack)
    yield opened
    context.close()
    assert opened.errors == [], "\n".join(opened.errors)


@pytest.fixture
def phone(browser: Browser, stack: Stack) -> Iterator[Tab]:  # noqa: F811
    yield from open_tab(browser, stack, PHONE)


@pytest.fixture
def laptop(browser: Browser, stack: Stack) -> Iterator[Tab]:  # noqa: F811
    yield from open_tab(browser, stack, {"width": 1400, "height": 1000})


def overflow(page: Page) -> int:
    """How far the page is wider than its window (0: no horizontal scrolling)."""
    return int(
        page.evaluate(
            "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
            " - window.innerWidth"
        )
    )


def small_targets(page: Page) -> list[str]:
    """The visible controls smaller than a finger, as `tag.class "text" WxH`."""
    found: list[str] = page.evaluate(
        """([selector, least]) => [...document.querySelectorAll(selector)]
          .filter((el) => el.offsetParent !== null || el.tagName === 'circle')
          .map((el) => [el, el.getBoundingClientRect()])
          .filter(([, r]) => r.width > 0 && (r.width < least || r.height < least))
          .map(([el, r]) => `${el.tagName.toLowerCase()}.${el.className?.baseVal ?? el.className}`
            + ` "${(el.textContent || '').trim().slice(0, 30)}" ${Math.round(r.width)}x${Math.round(r.height)}`)""",
        [CONTROLS + ", svg.map circle.reach", TOUCH],
    )
    return found


def axe_problems(page: Page, screen: str) -> list[str]:
    """axe-core's critical and serious violations on the page as it stands."""
    results = Axe().run(page)
    return [
        f"{screen}: {v['id']} ({v['impact']}): {v['help']}: "
        + "; ".join(n["target"][0] if n["target"] else "?" for n in v["nodes"][:4])
        for v in results.response["violations"]
        if v["impact"] in ("critical", "serious")
    ]


def new_game(person: Tab, game: str, seats: int, levels: dict[int, str], **options: Any) -> str:
    person.create_room(game, seats, levels, **options)
    person.start()
    person.page.wait_for_selector(".game .board section")
    return person.game_id()


def test_a_phone_plays_with_the_moves_first_and_nothing_too_wide_or_too_small(phone: Tab) -> None:
    page = phone.page
    page.goto(f"{phone.stack.lobby}/play/")
    page.wait_for_selector("#register")
    assert overflow(page) <= 0
    phone.register("Ada")
    page.wait_for_selector(".game-entry form")
    assert overflow(page) <= 0, "the lobby is wider than a phone"
    assert small_targets(page) == []
    new_game(phone, "itty-bitty", 2, {1: "greedy"})
    page.wait_for_selector(".moves button.action")
    assert overflow(page) <= 0, "the table is wider than a phone"
    moves = page.locator(".moves").bounding_box()
    board = page.locator(".game .board").bounding_box()
    assert moves and board and moves["y"] < board["y"], "the moves come after the table"
    assert moves["y"] < PHONE["height"], "the moves are below the first screen"
    assert small_targets(page) == []
    phone.no_errors()
    # Footprints' map: each space a move reaches is a finger's width (the map scrolls in its
    # own box, the page does not)
    page.goto(f"{phone.stack.lobby}/play/#/")
    page.wait_for_selector(".game-entry form")
    new_game(phone, "footprints", 2, {1: "greedy"})
    page.wait_for_selector("svg.map circle.reach")
    assert overflow(page) <= 0, "the map makes the page wider than a phone"
    assert small_targets(page) == []
    phone.shot("phone-footprints")
    phone.no_errors()


@pytest.mark.parametrize("viewport", SCREENS[1:], ids=lambda v: f"{v['width']}x{v['height']}")
def test_larger_screens_have_no_horizontal_overflow(
    browser: Browser,  # noqa: F811
    stack: Stack,
    viewport: ViewportSize,
) -> None:
    for screen in open_tab(browser, stack, viewport):
        screen.register("Ada")
        assert overflow(screen.page) <= 0
        new_game(screen, "footprints", 3, {1: "greedy", 2: "random"})
        screen.page.wait_for_selector("svg.map")
        assert overflow(screen.page) <= 0
        moves = screen.page.locator(".moves").bounding_box()
        assert moves and moves["y"] < viewport["height"], "the moves are below the first screen"
        screen.no_errors()


def test_axe_finds_nothing_critical_or_serious_on_any_screen(laptop: Tab) -> None:
    page = laptop.page
    found: list[str] = []
    page.goto(f"{laptop.stack.lobby}/play/")
    page.wait_for_selector("#register")
    found += axe_problems(page, "register")
    laptop.register("Ada")
    page.wait_for_selector(".game-entry form")
    found += axe_problems(page, "lobby")
    catalog = httpx.get(f"{laptop.stack.lobby}/v1/catalog").json()["games"]
    catalog.sort(key=lambda g: g["key"] == "itty-bitty")  # last: its bots end it in seconds
    for n, game in enumerate(catalog):  # every game's table (the room's screen once)
        if n:
            page.goto(f"{laptop.stack.lobby}/play/#/")
            page.wait_for_selector(".game-entry form")
        seats = max(2, game["min_seats"])
        levels = {seat: "greedy" for seat in range(1, seats)}
        laptop.create_room(game["key"], seats, levels)
        if not n:
            found += axe_problems(page, "room")
        laptop.start()
        page.wait_for_selector(".game .board > *")
        page.wait_for_selector(".moves")
        if page.locator("details.rules summary").count():  # the rules, opened
            page.click("details.rules summary")
        found += axe_problems(page, game["key"])
    # the end: resigned, the bot plays the seat out (the outcome's screen)
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#resign")
    page.wait_for_selector(".outcome", timeout=120_000)
    found += axe_problems(page, "outcome")
    assert found == [], "\n".join(found)
    laptop.no_errors()


def test_the_room_form_offers_every_clock(laptop: Tab) -> None:
    laptop.register("Ada")
    page = laptop.page
    form = page.locator('.game-entry[data-key="itty-bitty"] form')
    assert form.locator("select[name=on_timeout]").is_hidden()  # no clock: nothing to choose
    # the bots, weakest first, each in words (and its rating once measured or played)
    entry = page.locator('.game-entry[data-key="itty-bitty"]')
    entry.locator("details.levels").wait_for(state="attached")
    levels = entry.locator("details.levels dt").all_text_contents()  # closed: not shown
    assert [t.split(" bot")[0] for t in levels] == ["Random", "Greedy", "Mcts", "Expert"]
    assert entry.locator("details.levels dd").count() == 4
    offered = form.locator('select[name="seat:1"] option').all_inner_texts()
    assert [o for o in offered if o.startswith("Expert bot")], offered
    form.locator("select[name=clock]").select_option(value="bank:259200:86400:604800")
    form.locator("select[name=on_timeout]").select_option(value="wait")
    form.locator("button[type=submit]").click()
    page.wait_for_selector(".room")
    assert page.locator(".room .timing").inner_text() == (
        "3 d in all, 1 d added a turn (7 d at most), then the others may claim the seat"
    )
    room_id = page.url.split("#/room/")[1]
    auth = bearer(laptop.player()["token"])
    room = httpx.get(f"{laptop.stack.lobby}/v1/rooms/{room_id}", headers=auth).json()
    assert {k: v for k, v in room["timing"].items() if v is not None} == {
        "bank_s": 259200,
        "increment_s": 86400,
        "cap_s": 604800,
        "on_timeout": "wait",
    }
    # a clock of the person's own: 1.5 minutes a move, a bot takes over
    page.goto(f"{laptop.stack.lobby}/play/#/")
    form = page.locator('.game-entry[data-key="itty-bitty"] form')
    assert form.locator(".custom-clock").is_hidden()
    form.locator("select[name=clock]").select_option(value="custom")
    form.locator("input[name=per_move_min]").fill("1.5")
    form.locator("select[name=on_timeout]").select_option(value="bot_takeover")
    form.locator("button[type=submit]").click()
    page.wait_for_selector(".room")
    assert page.locator(".room .timing").inner_text() == ("90 s a move, then a bot takes the seat")
    laptop.no_errors()


SAID = """() => {
  window.said = [];
  new MutationObserver(() => {
    const text = document.querySelector("#announce")?.textContent || "";
    if (text && text !== window.said.at(-1)) window.said.push(text);
  }).observe(document.body, { childList: true, characterData: true, subtree: true });
}"""


def test_a_running_clock_warns_and_a_bot_moving_for_you_is_said(laptop: Tab) -> None:
    """A 30-second clock, the person idle: the clock is calm at first, turns low with a
    warning (shown and announced) at 20 s left, and the bot's move for the person at the
    timeout is said, on the page and in the live region; the reader on the log stays there."""
    page = laptop.page
    laptop.register("Ada")
    laptop.create_room("itty-bitty", 2, {1: "greedy"}, clock="30")
    laptop.start()
    page.wait_for_selector(".turn.mine")
    mine = page.locator('.clock:has(b[data-mine="1"])')
    assert mine.count() == 1 and "low" not in (mine.get_attribute("class") or "")
    assert mine.locator("b").get_attribute("data-full") == "30"
    page.focus(".log")  # a keyboard reader on the log stays there while news comes
    page.evaluate(SAID)  # every text the live region is given, as a screen reader hears it
    page.wait_for_selector("#notice:has-text('Your time is running out')", timeout=25_000)
    assert "low" in (mine.get_attribute("class") or "")
    assert "then a bot moves for you" in page.inner_text("#notice")
    page.wait_for_function("window.said.some((t) => t.startsWith('Your time is running out'))")
    said = "#notice:has-text('Your time ran out: a greedy bot made that move for you')"
    page.wait_for_selector(said, timeout=30_000)
    # said whole, before whatever the same news brings next (the bot's move, "Your turn.")
    page.wait_for_function("window.said.some((t) => t.startsWith('Your time ran out'))")
    assert page.locator(".log li:has-text('ran out of time')").count() >= 1
    assert page.evaluate("document.activeElement.classList.contains('log')")
    laptop.no_errors()


def test_resigning_from_the_page_and_an_outcome_that_adds_up(laptop: Tab) -> None:
    page = laptop.page
    laptop.register("Ada")
    new_game(laptop, "itty-bitty", 2, {1: "greedy"})
    page.wait_for_selector(".moves button.action")
    dismissed: list[str] = []

    def say_no(dialog: Any) -> None:
        dismissed.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", say_no)
    page.click("#resign")
    page.wait_for_timeout(300)
    assert dismissed and "ranked last" in dismissed[0]
    assert page.locator(".moves button.action").count()  # not resigned: she said no
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#resign")
    page.wait_for_selector(".outcome", timeout=120_000)
    rows = page.locator(".outcome tbody tr")
    assert rows.count() == 2
    last = rows.nth(1).locator("td")
    assert last.nth(1).inner_text().startswith("Ada (you)")
    assert "resigned: ranked last" in last.nth(1).inner_text()
    heads = page.locator(".outcome thead th").all_inner_texts()
    assert heads == ["Rank", "Player", "Coins", "Unfinished collectors", "Score"]
    game = httpx.get(
        f"{laptop.stack.game}/v1/games/{laptop.game_id()}", headers=bearer(laptop.player()["token"])
    ).json()
    outcome = game["outcome"]
    for i in range(2):
        cells = rows.nth(i).locator("td").all_inner_texts()
        seat = 0 if cells[1].startswith("Ada") else 1
        penalty = outcome["detail"]["penalties"][seat]
        # coins less a coin for each unfinished collector is the score the log says
        assert int(cells[2]) - penalty == int(cells[4]) == outcome["scores"][seat]
        assert cells[3] == (f"\u2212{penalty}" if penalty else "0")  # a minus sign
        assert int(cells[0]) == outcome["ranks"][seat]
    assert page.locator("#resign").count() == 0
    laptop.no_errors()


def test_what_changed_since_the_last_turn_is_marked_and_said(laptop: Tab) -> None:
    page = laptop.page
    laptop.register("Ada")
    new_game(laptop, "itty-bitty", 2, {1: "greedy"})
    for _ in range(8):  # her moves (a draw, then a keep, ...) until the bot has moved
        laptop.post()
        try:
            page.wait_for_selector(".since li", timeout=5_000)
            break
        except PlaywrightError:
            continue
    said = page.locator(".since li").all_inner_texts()
    assert said and all(text.startswith("greedy bot") for text in said), said
    assert page.locator(".log li.since").count() == len(said)
    # a screen reader heard the bot's moves and her turn
    page.wait_for_function("document.querySelector('#announce').textContent.length > 0")
    # the keyboard stayed with the moves after her move
    assert page.evaluate("document.activeElement?.closest('.moves') !== null")
    laptop.no_errors()


RAW_ID = re.compile(r"\b(clan-\d+-\w+|fire-\d+|footprint-\d+|collector-\w+|ittybit-\d+)\b")
CHOICES = ".moves button.action, .moves button.choose:not(.more)"


def test_many_moves_are_chosen_a_few_at_a_time(laptop: Tab) -> None:
    """An Itchy Feet turn offers up to some hundred moves (every trade to offer): the page
    shows a dozen choices at most at each step (the kind, then each field the moves differ
    in, named as a person reads them), and the whole list behind "all moves"."""
    page = laptop.page
    laptop.register("Ada")
    new_game(laptop, "itchy-feet", 3, {1: "greedy", 2: "greedy"})
    deadline = time.monotonic() + 240
    # play on (placing the figure, the first choices) until a turn offers many moves
    while True:
        assert time.monotonic() < deadline, page.inner_text(".side")
        try:
            page.wait_for_selector(".moves:not(.busy) .group", timeout=3_000)
        except PlaywrightError:
            continue
        page.wait_for_timeout(300)  # the list of this step, drawn
        if page.locator("#all-moves").count():
            break
        laptop.play()
    total = int(re.findall(r"\d+", page.locator("#all-moves").inner_text())[0])
    assert total > 12
    assert page.locator(CHOICES).count() <= 12  # the kinds of move, a small kind's moves
    openers = page.locator(".moves button[data-open]")
    sizes = [int(re.findall(r"\((\d+)\)", t)[-1]) for t in openers.all_inner_texts()]
    assert sizes and sum(sizes) <= total
    openers.nth(sizes.index(max(sizes))).click()  # the kind with the most moves
    steps = 0
    while not page.locator(".moves .group.open button.action").count():
        choices = page.locator(CHOICES)
        assert 2 <= choices.count() <= 12, choices.all_inner_texts()
        for text in choices.all_inner_texts():
            assert not RAW_ID.search(text), text  # names, not ids
        page.locator(".moves .group.open button.choose:not(.more)").first.click()
        steps += 1
        assert steps < 10
    assert steps >= (1 if max(sizes) > 12 else 0)
    assert 1 <= page.locator(CHOICES).count() <= 12
    assert page.locator(".picks .chip").count() == steps  # each field chosen, shown
    for _ in range(steps + 1):  # back, step by step, to the kinds of move
        page.click(".picks button[data-back]")
    assert page.locator(".moves button[data-open]").count() == len(sizes)
    # every move at once, and back
    page.click("#all-moves")
    assert page.locator(".moves button.action").count() == total
    page.click("#all-moves")
    assert page.locator(CHOICES).count() <= 12
    # a move chosen step by step is played
    before = laptop.version()
    openers.nth(sizes.index(max(sizes))).click()
    with page.expect_request("**/v1/games/*/actions"):
        assert laptop.play()
    page.wait_for_function(VERSION_ABOVE, arg=before)
    laptop.no_errors()


def test_a_finished_game_is_replayed_and_kept_in_the_record(laptop: Tab) -> None:
    """The outcome's Replay steps through the game version by version (buttons, arrows, the
    slider), each step's board drawn from the view at that version; the player's profile
    lists the game (rank, replay), the leaderboard the players and bot levels rated."""
    page = laptop.page
    laptop.register("Ada")
    game_id = new_game(laptop, "itty-bitty", 2, {1: "greedy"})
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#resign")
    page.wait_for_selector(".outcome", timeout=120_000)
    last = laptop.version()
    # the game page's log: "<version> <text>" a line
    said = {}
    for line in page.locator(".game .log li").all_inner_texts():
        version, _, text = line.strip().partition(" ")
        said[int(version)] = text.strip()
    page.click("#replay")
    page.wait_for_selector(".replay .market .card")
    at = page.locator("#at")
    assert at.inner_text() == "1" and page.locator(".replay .log li").count() == 1
    page.click("button[data-step=next]")
    page.wait_for_function("document.querySelector('#at').textContent === '2'")
    assert page.locator(".replay .log li").count() == 2
    assert page.locator(".replay .log li.current").inner_text().startswith("2")
    assert page.locator(".replay-bar .now").inner_text() == said[2]  # what version 2 did
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.querySelector('#at').textContent === '3'")
    page.fill("#scrub", str(last))
    page.dispatch_event("#scrub", "change")
    page.wait_for_function(f"document.querySelector('#at').textContent === '{last}'")
    assert page.locator("button[data-step=next]").is_disabled()
    now = page.locator(".replay-bar .now").inner_text()
    assert now and page.locator(".replay .log li").count() >= last - 1
    page.click("button[data-step=first]")
    page.wait_for_function("document.querySelector('#at').textContent === '1'")
    assert page.locator(".replay .market .card").count() == 4
    assert axe_problems(page, "replay") == []
    # her profile: the game in her history, with its replay
    page.click("a.me")
    page.wait_for_selector(".profile")
    row = page.locator(f'.history tr[data-game="{game_id}"]')
    row.wait_for()
    assert "Ada" in row.inner_text() and "greedy bot" in row.inner_text()
    assert row.locator(f'a[href="#/replay/{game_id}"]').count() == 1
    by_game = page.locator(".profile table").first.inner_text()
    assert "itty bitty" in by_game.lower()
    assert axe_problems(page, "profile") == []
    # the leaderboard: rated moments after the end (the lobby's ratings consumer)
    page.goto(f"{laptop.stack.lobby}/play/#/leaderboard/itty-bitty")
    page.wait_for_selector(".leaderboard")
    deadline = time.monotonic() + 30
    while "greedy" not in page.locator(".leaderboard").inner_text():
        assert time.monotonic() < deadline, page.locator(".leaderboard").inner_text()
        page.click("#provisional")
        page.wait_for_timeout(500)
    assert axe_problems(page, "leaderboard") == []
    laptop.no_errors()


def test_a_whole_footprints_game_by_clicking_moves_under_a_megabyte(laptop: Tab) -> None:
    """A whole game of Footprints played by the page's controls (a person's choices one at a
    time, a greedy bot at the other seat), and everything the page fetched for it: under a
    megabyte (the map's drawing asked again only when something on it moved, gzipped)."""
    page = laptop.page
    fetched: list[tuple[str, int]] = []

    def count(response: Any) -> None:
        try:
            sizes = response.request.sizes()
        except PlaywrightError:  # a stream cut when the page moved on
            return
        fetched.append((response.url, sizes["responseBodySize"] + sizes["responseHeadersSize"]))

    laptop.register("Ada")
    page.on("requestfinished", lambda request: count(request.response()))
    new_game(laptop, "footprints", 2, {1: "greedy"})
    deadline = time.monotonic() + 420
    moves = 0
    while not page.locator(".outcome").count():
        assert time.monotonic() < deadline, f"no outcome after {moves} moves"
        if laptop.play():
            moves += 1
        else:
            page.wait_for_timeout(150)
    laptop.no_errors()
    total = sum(n for _, n in fetched)
    drawings = [url for url, n in fetched if "/board.svg" in url]
    # the map drawn once, as set up; the pieces drawn by the page from each view
    assert moves > 20 and len(drawings) == 1 and drawings[0].endswith("?pieces=false")
    assert total < 1_000_000, (total, len(fetched))
    url = f"{laptop.stack.game}/v1/games/{laptop.game_id()}"
    pub = httpx.get(url, headers=bearer(laptop.player()["token"])).json()["view"]["public"]
    placed = [p["position"] for p in pub["players"] if p["position"]]
    # every figure still on the map (one that reached the cairn left it for the track)
    assert page.locator("svg.map circle.figure").count() == len(placed)
    assert page.locator("svg.map rect.engraving").count() == len(pub["engraved"])
    for seat, site in enumerate(p["cave_site"] for p in pub["players"]):
        if site:
            fill = page.locator(f'svg.map circle.cave[data-site="{site}"]').get_attribute("fill")
            assert fill == ("#e53935", "#1e88e5")[seat]
    slots = page.locator("svg.map rect.track")
    arrivals = [slots.nth(i).get_attribute("fill") for i in range(len(pub["cairn_track"]))]
    assert arrivals == [("#e53935", "#1e88e5")[s] for s in pub["cairn_track"]]


def test_a_whole_itchy_feet_game_by_clicking(laptop: Tab) -> None:
    """A whole game of Itchy Feet played by the page's controls against a greedy bot, to an
    outcome that says why it ended."""
    page = laptop.page
    laptop.register("Ada")
    new_game(laptop, "itchy-feet", 2, {1: "greedy"})
    deadline = time.monotonic() + 480
    moves = 0
    while not page.locator(".outcome").count():
        assert time.monotonic() < deadline, f"no outcome after {moves} moves"
        # as a person might: travel when she can, else anything
        if laptop.play(prefer=("travel",)):
            moves += 1
        else:
            page.wait_for_timeout(150)
    assert page.locator(".outcome .why").inner_text()
    assert moves > 5
    laptop.no_errors()


def test_a_card_tapped_is_explained_and_never_played_by_that_tap(phone: Tab) -> None:
    """On a phone there is no hover: a tap on a card says what it is (above the moves, in
    view) and narrows the moves to that card's, but plays nothing; a move button plays."""
    page = phone.page
    phone.register("Ada")
    new_game(phone, "itty-bitty", 2, {1: "greedy"})
    card = page.locator(".card[data-target][data-explain]").first
    card.wait_for()
    posted: list[str] = []
    page.on("request", lambda r: posted.append(r.url) if "/actions" in r.url else None)
    before = phone.version()
    card.tap()
    page.wait_for_selector(".explain")
    assert page.locator(".explain").inner_text().strip()
    assert page.locator("#show-all").count() == 1  # the moves: that card's
    page.wait_for_timeout(500)
    assert posted == [] and phone.version() == before
    assert page.locator(".explain").bounding_box()["y"] < PHONE["height"]  # type: ignore[index]
    page.click("#explain-close")
    assert page.locator(".explain").count() == 0
    phone.no_errors()

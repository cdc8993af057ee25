"""The reference web client (clients/web) in a real browser: headless Chromium from the
distribution's packages, driven by Playwright, against the stack `make run` starts.

A person registers, creates a room with bots, starts it and plays by clicking: a whole itty
bitty game to its outcome, the first moves of Itchy Feet and of Footprints (on the map drawn
from board.svg), and two people in two tabs at one table. Any JavaScript error the page
raises or logs fails the test. Screenshots of each game in play go to .run/web-screenshots/
(git-ignored); README and docs/web-client.md show copies of them
(clients/web/screenshots/).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from tests.e2e.conftest import ROOT, Stack, bearer

SHOTS = ROOT / ".run" / "web-screenshots"
# What the browser logs itself for an answer a test provokes (no error of the page's): each
# test that expects one allows it (Tab.expected), no other.
STATUS = "Failed to load resource: the server responded with a status of {}"
NETWORK_FAILED = "Failed to load resource: net::ERR_FAILED"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
VERSION_ABOVE = "v => Number(document.querySelector('.game')?.dataset.version) > v"


def chromium() -> str | None:
    """The distribution's Chromium (CHROMIUM names another)."""
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and (found := shutil.which(name)):
            return found
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    executable = chromium()
    if executable is None:
        pytest.skip("no Chromium on this machine (apt-get install chromium; .ci/run does)")
    with sync_playwright() as p:
        # as root (CI, containers) Chromium refuses its sandbox
        args = ["--disable-dev-shm-usage"] + (["--no-sandbox"] if os.geteuid() == 0 else [])
        launched = p.chromium.launch(executable_path=executable, args=args)
        yield launched
        launched.close()


class Tab:
    """One browser tab of one person (its own sessionStorage), recording every error."""

    def __init__(self, context: BrowserContext, stack: Stack) -> None:
        self.page: Page = context.new_page()
        self.stack = stack
        self.errors: list[str] = []
        self.expected: tuple[str, ...] = ()  # console errors that are no error of the page's
        self.page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        self.page.on("console", self._console)
        self.page.set_default_timeout(30_000)

    def _console(self, message: Any) -> None:
        if message.type == "error" and not message.text.startswith(self.expected):
            self.errors.append(f"console error: {message.text}")

    def register(self, name: str, query: str = "") -> None:
        self.page.goto(f"{self.stack.lobby}/play/{query}")
        self.page.fill("#name", name)
        self.page.click("#register button[type=submit]")
        self.page.wait_for_selector(f"#me:text-is('{name}')")

    def create_room(
        self, game: str, seats: int, levels: dict[int, str], clock: str = "", **options: bool
    ) -> None:
        form = self.page.locator(f'.game-entry[data-key="{game}"] form')
        form.locator("select[name=seats]").select_option(str(seats))
        form.locator("select[name=clock]").select_option(value=clock)
        for seat, level in levels.items():
            form.locator(f'select[name="seat:{seat}"]').select_option(value=level)
        for name, on in options.items():
            form.locator(f'input[name="opt:{name}"]').set_checked(on)
        form.locator("button[type=submit]").click()
        self.page.wait_for_selector(".room")

    def start(self) -> None:
        self.page.click("#start")
        self.page.wait_for_selector(".game")

    def version(self) -> int:
        return int(self.page.get_attribute(".game", "data-version") or 0)

    def narrow(self, kind: str = "") -> bool:
        """Choose on, as a person does, until a move of this kind (any: "") is a button that
        plays: open the kind, then pick the first value of each field it asks for (the page
        shows a dozen choices at once). False when the page offers no such move."""
        where = f'.group[data-types~="{kind}"] ' if kind else ""
        for _ in range(12):
            if self.page.locator(f"{where}button.action:not([disabled])").count():
                return True
            step = self.page.locator(f"{where}button.choose:not([disabled])").first
            if not step.count():
                return False
            try:
                step.click(timeout=5_000)
            except PlaywrightError:  # redrawn under the pointer by news: look again
                continue
        return False

    def offered(self, kind: str) -> None:
        """Wait until a move of this kind is on offer, and choose on until it is a button."""
        self.page.wait_for_selector(f'.moves:not(.busy) .group[data-types~="{kind}"]')
        assert self.narrow(kind), f"no {kind} move to narrow to"

    def play(self, prefer: tuple[str, ...] = ()) -> str | None:
        """Click one move when the seat has one (the preferred kinds first): its text."""
        for kind in (*prefer, ""):
            if not self.narrow(kind):
                continue
            where = f'.group[data-types~="{kind}"] ' if kind else ""
            button = self.page.locator(f"{where}button.action:not([disabled])").first
            if button.count():
                try:
                    text = button.inner_text(timeout=2_000)
                    button.click(timeout=5_000)
                except PlaywrightError:  # redrawn under the pointer by news: choose again
                    return None
                return text
        return None

    def post(self, prefer: tuple[str, ...] = ()) -> str:
        """Click a move once, and the page posts it: its text (news drawn meanwhile leaves
        the move buttons alone). It waits for the page to offer a move first: after an answer
        the buttons stay disabled until the page has read the game again."""
        self.page.wait_for_selector(
            ".moves:not(.busy) button.action:not([disabled]),"
            " .moves:not(.busy) button.choose:not([disabled])"
        )
        with self.page.expect_request("**/v1/games/*/actions", timeout=10_000):
            text = self.play(prefer=prefer)
        assert text, f"no move of {prefer} to click"
        return text

    def player(self) -> dict[str, Any]:
        """The tab's player, as it keeps it (id, name, token)."""
        found: dict[str, Any] = json.loads(
            self.page.evaluate("sessionStorage.getItem('turnpost.player')") or "null"
        )
        return found

    def game_id(self) -> str:
        return self.page.url.split("#/game/")[1]

    def click_first(self, where: str | Locator) -> bool:
        """Click the first of these, if any; False when none, or it was redrawn under the
        pointer by news (a person clicks again, so does the test)."""
        found = (self.page.locator(where) if isinstance(where, str) else where).first
        if not found.count():
            return False
        try:
            found.click(timeout=5_000)
        except PlaywrightError:
            return False
        return True

    def shot(self, name: str) -> Path:
        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / f"{name}.png"
        self.page.screenshot(path=path, full_page=True)
        return path

    def no_errors(self) -> None:
        assert self.errors == [], "\n".join(self.errors)
        problems = self.page.locator("#notice.error")
        assert not problems.is_visible(), problems.inner_text()


@pytest.fixture
def tab(browser: Browser, stack: Stack) -> Iterator[Tab]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    opened = Tab(context, stack)
    yield opened
    context.close()
    assert opened.errors == [], "\n".join(opened.errors)


def test_the_page_is_served_by_the_lobby_out_of_the_api(stack: Stack) -> None:
    page = httpx.get(f"{stack.lobby}/play/")
    assert page.status_code == 200 and 'type="module"' in page.text
    assert "no-cache" in page.headers["cache-control"]
    assert f"play in a browser at {stack.lobby}/play/" in stack.log.read_text()  # make run says
    config = httpx.get(f"{stack.lobby}/play/config.json").json()
    assert config == {"lobby_url": "", "game_url": stack.game}  # make run: its own port
    for module in ("app.js", "api.js", "game.js", "boards.js", "dom.js", "style.css"):
        assert httpx.get(f"{stack.lobby}/play/{module}").status_code == 200, module
    assert "RateLimit-Limit" not in httpx.get(f"{stack.lobby}/play/app.js").headers
    schema = httpx.get(f"{stack.lobby}/schema/openapi.json").json()
    assert not [p for p in schema["paths"] if p.startswith("/play")]


def test_a_whole_itty_bitty_game_by_clicking(tab: Tab) -> None:
    tab.register("Ada")
    tab.create_room("itty-bitty", 2, {1: "greedy"})
    tab.start()
    page = tab.page
    # what a person sees: the market's four slots, the hand, the table, whose turn
    page.wait_for_selector(".itty-bitty .market .card")
    assert page.locator(".market .cards > .card").count() == 4
    page.wait_for_selector(".itty-bitty .hand .card")
    assert page.locator(".holdings tbody tr").count() == 2
    assert page.locator(".status-bar .turn").count() == 1
    moves, shot = 0, False
    deadline = time.monotonic() + 420
    while not page.locator(".outcome").count():
        assert time.monotonic() < deadline, f"no outcome after {moves} moves"
        if moves >= 12 and not shot and page.locator(".turn.mine").count():
            page.wait_for_selector(".moves:not(.busy) .group")
            tab.narrow()
            tab.shot("itty-bitty")  # in play, the seat's moves listed
            shot = True
        # as a person might: complete what you can, and now and then draw collectors
        prefer = ("complete_collector", "keep_collector")
        if tab.play(prefer=prefer + (("draw_collectors",) if moves % 4 == 1 else ())):
            moves += 1
        else:
            page.wait_for_timeout(150)
        tab.no_errors()
    outcome = page.locator(".outcome")
    assert outcome.locator("h2").inner_text()  # who won, as words
    rows = outcome.locator("tbody tr")
    assert rows.count() == 2
    assert {rows.nth(i).locator("td").nth(1).inner_text() for i in range(2)} == {
        "Ada (you)",
        "greedy bot",
    }
    assert page.locator(".status-bar .turn").inner_text() == "Game over"
    assert page.locator(".log li").count() > 2 * moves  # every move and its news, as text
    assert moves >= 10
    tab.shot("itty-bitty-outcome")
    tab.no_errors()
    # play again: the same game, bots and people in a new room; nobody else to ask, so it
    # starts by itself and the page goes on to the new game
    first = page.url  # …#/game/<id>
    page.click("#rematch")
    page.wait_for_function(
        "(first) => document.querySelector('.game') && location.hash.startsWith('#/game/')"
        " && !location.hash.endsWith(first)",
        arg=first.rsplit("/", 1)[-1],
        timeout=30_000,
    )
    assert page.locator(".game").count() == 1
    tab.no_errors()


def test_itchy_feet_first_moves(tab: Tab) -> None:
    tab.register("Bea")
    tab.create_room(
        "itchy-feet", 3, {1: "greedy", 2: "random"}, clock="300", events=True, special_items=True
    )
    tab.start()
    page = tab.page
    page.wait_for_selector(".itchy-feet .route .country")
    # three items and a passport dealt, though a bot moving first may have stolen one: on
    # Bea's turn (nobody else moves) the page shows the hand her view holds, at its version
    page.wait_for_selector(".itchy-feet .hand .card")
    page.wait_for_selector(".turn.mine")
    auth = bearer(tab.player()["token"])
    seen = httpx.get(f"{tab.stack.game}/v1/games/{tab.game_id()}", headers=auth).json()
    page.wait_for_function(VERSION_ABOVE, arg=seen["version"] - 1)
    hand = seen["view"]["private"]["hand"]
    assert len(hand) >= 3 and page.locator(".itchy-feet .hand .card").count() == len(hand)
    passports = [card for card in hand if card.startswith("passport-")]
    assert page.locator(".itchy-feet .hand .card.kind-passport").count() == len(passports)
    assert page.locator(".route .country").count() == 2
    assert page.locator(".holdings tbody tr").count() == 3
    start, moves = tab.version(), 0
    deadline = time.monotonic() + 180
    clocked = False
    while moves < 3 and not page.locator(".outcome").count():
        assert time.monotonic() < deadline, f"only {moves} moves"
        if page.locator(".turn.mine").count():  # the room's clock: five minutes a move
            left = page.locator(".status-bar .clock b[data-deadline]").all_inner_texts()
            clocked = clocked or any(re.fullmatch(r"[45]:\d\d", t) for t in left)
        if tab.play(prefer=("travel",)):
            moves += 1
            if moves == 2:
                page.wait_for_timeout(500)
                tab.shot("itchy-feet")
        else:
            page.wait_for_timeout(150)
        tab.no_errors()
    page.wait_for_function(f"Number(document.querySelector('.game').dataset.version) > {start}")
    assert clocked, "no clock counting down the seat's five minutes"
    assert page.locator(".log li").count() > 5
    tab.no_errors()


def test_footprints_first_moves_on_the_map(tab: Tab) -> None:
    tab.register("Cy")
    tab.create_room("footprints", 2, {1: "greedy"})
    tab.start()
    page = tab.page
    # the map as the service draws it, with the places a move takes the figure
    page.wait_for_selector("svg.map polygon.space")
    assert page.locator("svg.map polygon.space").count() > 50
    page.wait_for_selector("svg.map circle.reach", timeout=60_000)  # the houses to start on
    deadline = time.monotonic() + 60
    while not page.locator("svg.map circle.you").count():  # your figure, ringed
        assert time.monotonic() < deadline, f"not placed: {page.inner_text('.side')}"
        tab.click_first("svg.map circle.reach")
        page.wait_for_timeout(300)
        if page.locator(".moves h3 #show-all").count():  # a house with a choice of bonus
            tab.play()
    # turns: a card from the panel, then a destination clicked on the map (the screenshot
    # when a turn offers a few, or else the last chance)
    deadline = time.monotonic() + 240
    moved, shot, worded = 0, False, 0
    while moved < 2 or not shot or not worded:
        assert time.monotonic() < deadline, f"moved {moved} times on the map"
        if page.locator('.group[data-types~="top"]').count():
            reach = page.locator("svg.map circle.reach").count()
            # places in words, as a person finds them: by their look and from the figure
            said = page.locator('.group[data-types~="top"] button.action').all_inner_texts()
            assert not [t for t in said if "[" in t], said
            worded += bool([t for t in said if re.search(r"to the \w+ space.* of you", t)])
            worded += page.locator('svg.map circle.reach[aria-label*=" of you"]').count() > 0
            if not shot and (reach >= 3 or moved >= 1 or time.monotonic() > deadline - 120):
                page.wait_for_timeout(300)
                tab.shot("footprints")
                shot = True
            before = tab.version()
            if not tab.click_first("svg.map circle.reach"):  # nowhere to go: stay
                tab.play(prefer=("top",))
            page.wait_for_timeout(300)
            if page.locator(".moves h3 #show-all").count():  # several moves reach it
                tab.play()
            with contextlib.suppress(PlaywrightError):
                page.wait_for_function(
                    f"Number(document.querySelector('.game').dataset.version) > {before}",
                    timeout=5_000,
                )
            moved += tab.version() > before
        elif (
            fire := page.locator('.group[data-types~="play"] button.action:has-text("fire")')
        ).count():
            tab.click_first(fire)  # a card with a fire card: a longer way to go
        elif not tab.play(prefer=("play",)):
            page.wait_for_timeout(150)
        tab.no_errors()
    assert page.locator(".footprints .hand .card").count() >= 1  # the panel
    assert page.locator(".footprints .holdings tbody tr").count() == 2
    assert worded
    tab.no_errors()


def test_two_people_in_two_tabs(browser: Browser, stack: Stack) -> None:
    contexts = [browser.new_context(viewport={"width": 1200, "height": 900}) for _ in range(2)]
    try:
        ada, bob = (Tab(c, stack) for c in contexts)
        ada.register("Ada")
        ada.create_room("itty-bitty", 3, {1: "", 2: "random"})
        room = ada.page.url.split("#/room/")[1]
        bob.register("Bob", "?live=poll")  # a tab of its own: its own player; long-polls
        bob.page.wait_for_selector(f'#open-rooms [data-join="{room}"]')
        bob.page.click(f'#open-rooms [data-join="{room}"]')
        bob.page.wait_for_selector(".room")
        ada.page.wait_for_selector(".room .seats li:nth-child(2) b:text-is('Bob')")
        ada.start()
        bob.page.wait_for_selector(".game", timeout=30_000)  # the room shows the game to all
        assert bob.page.locator("#me").inner_text() == "Bob"
        # each keeps a collector: two seats answering at once
        for person in (ada, bob):
            person.offered("keep_collector")
            person.post(prefer=("keep_collector",))
        assert bob.page.locator("#live").inner_text() == "live (long-poll)"
        assert ada.page.locator("#live").inner_text() == "live (stream)"
        for person in (ada, bob):  # each hears of the other's choice, live
            person.page.wait_for_selector(".log li:has-text('Ada kept')")
            person.page.wait_for_selector(".log li:has-text('Bob kept')")
            names = person.page.locator(".holdings tbody th").all_inner_texts()
            assert any("Ada" in n for n in names) and any("Bob" in n for n in names)
            person.no_errors()
    finally:
        for c in contexts:
            c.close()


def test_problems_are_shown_and_a_stale_move_reloads(tab: Tab) -> None:
    """The real service's answers to moves the page did not mean: sent against an old version
    (409: reloaded, said so), and one the rules refuse (422: its detail and code shown)."""
    tab.expected = (STATUS.format(409),)
    tab.register("Dee")
    tab.create_room("itty-bitty", 2, {1: "greedy"})
    tab.start()
    page = tab.page
    tab.offered("keep_collector")
    tab.post(prefer=("keep_collector",))
    tab.offered("take_ittybit")
    tab.expected = (STATUS.format(409), STATUS.format(422))

    def rewrite(change: dict[str, Any]) -> None:
        def handle(route: Any) -> None:
            body = {**json.loads(route.request.post_data or "{}"), **change}
            route.continue_(post_data=json.dumps(body))

        page.route("**/v1/games/*/actions", handle, times=1)

    rewrite({"expected_version": 1})  # before this seat's own choice: stale
    tab.post(prefer=("take_ittybit",))
    notice = page.locator("#notice.warn")
    notice.wait_for()
    assert "moved on" in notice.inner_text() and "choose again" in notice.inner_text()
    tab.offered("take_ittybit")

    rewrite({"action": {"type": "take_ittybit", "card": "ittybit-0000"}})  # no such card there
    text = tab.post(prefer=("take_ittybit",))
    refused = page.locator("#notice.error")
    refused.wait_for()
    assert refused.inner_text().startswith(f"“{text}” was refused: "), refused.inner_text()
    assert re.search(r"\(\w+\)$", refused.inner_text()), "the problem's code"
    # and the seat plays on: a move from the list lands
    version = tab.version()
    tab.post(prefer=("take_ittybit",))
    page.wait_for_function(f"Number(document.querySelector('.game').dataset.version) > {version}")
    assert not page.locator("#notice.error").is_visible()
    assert tab.errors == [], tab.errors


# -- a second person at the table, through the API --------------------------------------------


def seat_bob(tab: Tab, name: str) -> dict[str, str]:
    """`name` creates an itty bitty room in the page for two; Bob, through the API, takes the
    other seat and never moves unless told: Bob's auth."""
    tab.register(name)
    tab.create_room("itty-bitty", 2, {1: ""})
    room = tab.page.url.split("#/room/")[1]
    bob = httpx.post(f"{tab.stack.lobby}/v1/players", json={"name": "Bob"}).json()
    auth = bearer(bob["token"])
    joined = httpx.post(f"{tab.stack.lobby}/v1/rooms/{room}/join", headers=auth)
    assert joined.status_code == 200, joined.text
    tab.page.wait_for_selector(".room .seats li:nth-child(2) b:text-is('Bob')")
    return auth


def with_bob(tab: Tab, name: str) -> tuple[str, dict[str, str]]:
    """`seat_bob`, and the game started, on screen: its id, Bob's auth."""
    auth = seat_bob(tab, name)
    tab.start()
    return tab.game_id(), auth


def bob_keeps(tab: Tab, game: str, auth: dict[str, str]) -> None:
    legal = httpx.get(f"{tab.stack.game}/v1/games/{game}/legal-actions", headers=auth).json()
    action = {k: v for k, v in legal["actions"][0].items() if k != "text"}
    assert action["type"] == "keep_collector", legal
    body = {"action": action, "expected_version": legal["version"]}
    posted = httpx.post(f"{tab.stack.game}/v1/games/{game}/actions", json=body, headers=auth)
    assert posted.status_code == 200, posted.text


def test_news_leaves_the_move_buttons_alone(tab: Tab) -> None:
    """Bob's choice, arriving live, adds to the log and the version, and the button under
    Ada's pointer stays the same button: her one click is posted."""
    game, bob = with_bob(tab, "Ada")
    page = tab.page
    keep = ".group[data-types~=keep_collector] button.action:not([disabled])"
    page.wait_for_selector(keep)
    page.wait_for_function("() => document.querySelector('#live').textContent === 'live (stream)'")
    button = page.locator(keep).first.element_handle()
    version = tab.version()
    bob_keeps(tab, game, bob)
    page.wait_for_selector(".log li[data-via=stream]:has-text('Bob kept')")
    page.wait_for_function(VERSION_ABOVE, arg=version)
    assert button.evaluate("b => b.isConnected"), "the move buttons were drawn again"
    assert page.locator(".status-bar .turn.mine").count() == 1
    with page.expect_request("**/v1/games/*/actions"):
        button.click()
    page.wait_for_selector(".log li:has-text('Ada kept')")
    tab.no_errors()


def test_a_move_between_the_first_view_and_the_log_is_drawn(tab: Tab) -> None:
    """Bob moves after the page has read the view and before it reads the log: the stream
    goes on after the log, so the page reads the view again before drawing it, and shows
    the version the log holds (stuck a version behind, it would wait for a turn forever)."""
    moved: list[int] = []

    def bob_first(route: Any) -> None:
        if not moved:
            bob_keeps(tab, tab.game_id(), auth)
            moved.append(1)
        route.continue_()

    auth = seat_bob(tab, "Ada")
    tab.page.route("**/v1/games/*/events?after=0&wait=0*", bob_first)
    tab.start()
    page = tab.page
    page.wait_for_selector(".log li:has-text('Bob kept')")
    seen = httpx.get(f"{tab.stack.game}/v1/games/{tab.game_id()}", headers=auth).json()
    page.wait_for_function(VERSION_ABOVE, arg=seen["version"] - 1, timeout=10_000)
    assert moved and page.locator(".status-bar .turn.mine").count() == 1
    tab.no_errors()


def test_a_seat_a_bot_plays_has_no_moves(tab: Tab) -> None:
    """Resigned (through the API), Ada's seat is a bot's: the page says so and lists no move
    (each would be refused, seat_played_by_bot); the game goes on, waiting for Bob."""
    game, _ = with_bob(tab, "Ada")
    page = tab.page
    tab.offered("keep_collector")
    assert page.locator(".status-bar .turn.mine").inner_text() == "Your turn"
    ada = bearer(tab.player()["token"])
    resigned = httpx.post(f"{tab.stack.game}/v1/games/{game}/resign", headers=ada)
    assert resigned.status_code == 200, resigned.text
    said = page.locator(".status-bar .turn.bot")
    said.wait_for()
    assert said.inner_text().startswith("A greedy bot plays your seat"), said.inner_text()
    assert page.locator(".status-bar .turn.mine").count() == 0
    assert page.locator(".moves, button.action").count() == 0
    assert "Your turn" not in page.title()
    page.wait_for_selector(".log li:has-text('Ada kept')")  # the bot chose for her, live
    assert page.locator(".game").get_attribute("data-status") == "active"  # Bob has yet to
    assert page.locator(".status-bar .turn.bot").inner_text().endswith("waiting for Bob")
    assert page.locator(".moves, button.action").count() == 0
    tab.no_errors()


# -- moves and the live feed when the network fails ----------------------------------------------


def test_a_move_whose_answer_is_lost_is_sent_again_with_its_key(tab: Tab) -> None:
    """Every move carries an Idempotency-Key (a UUID); the first answer lost (the move landed),
    the page sends it again with the same key: the service replays it, one move is played."""
    tab.expected = (NETWORK_FAILED,)
    tab.register("Ada")
    tab.create_room("itty-bitty", 2, {1: "greedy"})
    tab.start()
    page = tab.page
    sent: list[dict[str, Any]] = []

    def lose_the_first_answer(route: Any) -> None:
        answer = route.fetch()  # the move reaches the service
        sent.append({"key": route.request.headers.get("idempotency-key"), "status": answer.status})
        if len(sent) == 1:
            route.abort()  # and its answer is lost on the way back
        else:
            sent[-1]["body"] = answer.json()
            route.fulfill(response=answer)

    page.route("**/v1/games/*/actions", lose_the_first_answer)
    tab.offered("keep_collector")
    tab.post(prefer=("keep_collector",))
    page.wait_for_selector(".log li:has-text('Ada kept')")
    page.wait_for_function("() => !document.querySelector('.moves.busy')")
    assert len(sent) == 2, sent
    assert sent[0]["key"] and UUID.fullmatch(sent[0]["key"]), sent
    assert sent[1]["key"] == sent[0]["key"], sent  # the same move, said again
    assert sent[0]["status"] == sent[1]["status"] == 200, sent
    assert sent[1]["body"]["replayed"] is True, sent
    assert page.locator(".log li:has-text('Ada kept')").count() == 1
    # a next move has a key of its own
    page.unroute("**/v1/games/*/actions")
    keys: list[str] = []
    page.route(
        "**/v1/games/*/actions",
        lambda route: (keys.append(route.request.headers["idempotency-key"]), route.continue_()),
    )
    deadline = time.monotonic() + 120
    while not keys:
        assert time.monotonic() < deadline, "no second move"
        if not tab.play():
            page.wait_for_timeout(150)
    assert UUID.fullmatch(keys[0]) and keys[0] != sent[0]["key"], keys
    tab.no_errors()


def test_a_read_that_never_answers_does_not_stop_the_page(tab: Tab) -> None:
    """A read held without an answer (a proxy, a half-open connection) is given up after the
    read timeout (`?read_timeout=2` here; 20 s by default) and asked again: the page draws
    the next turn and the person moves on. Before, the page waited for it for ever, every
    later news only marking the view stale, the move buttons disabled."""
    tab.expected = (NETWORK_FAILED,)
    held: list[str] = []
    tab.register("Ada", "?read_timeout=2")
    tab.create_room("itty-bitty", 2, {1: "greedy"})
    tab.start()
    page = tab.page
    page.wait_for_selector("button.action:not([disabled])")
    # the next read of the view with its legal actions (after this move) is held: never answered
    page.route(
        re.compile(r"/v1/games/[^/?]+\?include=legal_actions"),
        lambda route: held.append(route.request.url),
        times=1,
    )
    tab.post()
    deadline = time.monotonic() + 60
    moved = 0
    while moved < 2:  # two more moves: the page came through the held read
        assert time.monotonic() < deadline, f"the page stopped after a held read ({held})"
        if tab.play():
            moved += 1
        else:
            page.wait_for_timeout(150)
    assert len(held) == 1, held
    tab.no_errors()


@pytest.mark.parametrize("how", ["refused", "empty"])
def test_a_failing_stream_falls_back_to_long_poll(tab: Tab, how: str) -> None:
    """The stream failing three times in a row (refused; or answered and closed at once, never
    a word: a proxy that cuts streams), the page long-polls: a bot's move reaches it so."""
    tab.expected = (NETWORK_FAILED,)
    streams: list[str] = []

    def fail(route: Any) -> None:
        streams.append(route.request.url)
        if how == "refused":
            route.abort()
        else:
            route.fulfill(status=200, headers={"content-type": "text/event-stream"}, body="")

    tab.page.route("**/v1/games/*/stream*", fail)
    tab.register("Ada")
    tab.create_room("itty-bitty", 2, {1: "greedy"})
    tab.start()
    page = tab.page
    page.wait_for_function(
        "() => document.querySelector('#live')?.textContent === 'live (long-poll)'",
        timeout=20_000,
    )
    assert len(streams) == 3, streams
    deadline = time.monotonic() + 180
    while not page.locator(".log li[data-via=poll][data-seat='1']").count():
        assert time.monotonic() < deadline, "no bot's move by long-poll"
        if not tab.play():
            page.wait_for_timeout(150)
        tab.no_errors()
    assert page.locator("#live").inner_text() == "live (long-poll)"
    assert len(streams) == 3, streams
    tab.no_errors()


@pytest.mark.parametrize("status", [403, 401])
def test_a_lasting_problem_stops_following(tab: Tab, status: int) -> None:
    """A 4xx no retry mends (but 408, 429) stops the live loop, said; a 401 (a token the
    stack no longer honours) sends the tab back to registering."""
    tab.expected = (STATUS.format(status),)
    streams: list[str] = []
    problem = {"title": "no", "status": status, "detail": "not for you", "code": "nope"}

    def refuse(route: Any) -> None:
        streams.append(route.request.url)
        route.fulfill(
            status=status, headers={"content-type": "application/problem+json"}, json=problem
        )

    tab.page.route("**/v1/games/*/stream*", refuse)
    tab.register("Ada")
    tab.create_room("itty-bitty", 2, {1: "greedy"})
    polls: list[str] = []
    tab.page.on(
        "request", lambda r: "/events?" in r.url and "wait=25" in r.url and polls.append(r.url)
    )
    tab.page.click("#start")
    page = tab.page
    notice = page.locator("#notice.error")
    notice.wait_for()
    if status == 401:
        page.wait_for_selector("#register #name")
        assert "not for you (nope): please register again" in notice.inner_text()
        assert tab.player() is None
    else:
        page.wait_for_function("() => document.querySelector('#live')?.textContent === 'not live'")
        assert notice.inner_text() == "not for you (nope)"
    page.wait_for_timeout(4_000)  # a retry would have come by now (after 0.5 s, 1 s...)
    assert len(streams) == 1, streams
    assert polls == []
    assert tab.errors == [], tab.errors


def answer_late(page: Page, pattern: str, ms: int) -> None:
    """From now on the page reads every answer whose address matches `pattern` (a regular
    expression) `ms` late, as a slow network would bring it."""
    page.evaluate(
        """([pattern, ms]) => {
          const real = window.fetch;
          const late = new RegExp(pattern);
          window.fetch = async (url, init) => {
            const answer = await real(url, init);
            if (late.test(String(url))) await new Promise((r) => setTimeout(r, ms));
            return answer;
          };
        }""",
        [pattern, ms],
    )


def test_leaving_a_game_stops_drawing_it(tab: Tab) -> None:
    """Ada leaves for the lobby while the page awaits the game's view (bots playing on after
    she resigned; and again while it opens): the lobby stays, nothing of the game is asked."""
    tab.register("Ada")
    tab.create_room("itty-bitty", 3, {1: "random", 2: "random"})
    tab.start()
    page = tab.page
    game = tab.game_id()
    tab.offered("keep_collector")
    # the game's view answers the page 1.5 s late: a person leaves meanwhile
    answer_late(page, r"/v1/games/[^/?]+(\?|$)", 1500)
    path = f"/v1/games/{game}"  # the view, whatever min_version it says it has seen

    def view(request: Any) -> bool:
        return bool(urlsplit(request.url).path == path)

    with page.expect_request(view):  # news (her resignation): the page reloads the view
        ada = bearer(tab.player()["token"])
        assert (
            httpx.post(f"{tab.stack.game}/v1/games/{game}/resign", headers=ada).status_code == 200
        )
    page.click(".status-bar a[href='#/']")
    asked: list[str] = []
    page.on("request", lambda r: f"/v1/games/{game}" in r.url and asked.append(r.url))
    page.wait_for_selector("#my-games")
    page.wait_for_timeout(3_000)
    assert page.locator(".game").count() == 0, "the game drawn over the lobby"
    assert page.locator("#my-games").count() == 1
    # opened and left at once
    with page.expect_request(view):
        page.evaluate(f"location.hash = '#/game/{game}'")
    page.evaluate("location.hash = '#/'")
    page.wait_for_selector("#my-games")
    page.wait_for_timeout(3_000)
    assert page.locator(".game").count() == 0, "the game drawn over the lobby"
    assert page.locator("#my-games").count() == 1
    late = [u for u in asked if "/stream" in u or "/events" in u or "legal-actions" in u]
    assert late == [], late
    tab.no_errors()


def test_the_screen_left_is_taken_down_at_once(tab: Tab) -> None:
    """Ada goes from her game to its room while the room answers 3 s late (as "Play again"
    does): the game is gone from the page at once, not left standing, clickable, until the
    room has answered; the room, started, sends her back to the game."""
    tab.register("Ada")
    tab.create_room("itty-bitty", 2, {1: "greedy"})
    room = tab.page.url.split("#/room/")[1]
    tab.start()
    page = tab.page
    page.wait_for_selector(".game .moves")
    answer_late(page, "/v1/rooms/", 3000)
    page.evaluate(f"location.hash = '#/room/{room}'")
    page.wait_for_selector(".game", state="detached", timeout=1_500)
    assert page.locator("button.action").count() == 0
    page.wait_for_selector(".game .moves")  # the room has a game: the page goes back to it
    tab.no_errors()


def test_a_room_id_is_escaped_in_the_start_address(tab: Tab) -> None:
    """A room whose id needs escaping (the service's have none, an answer stands in): Start
    asks for that room, not a path of its pieces."""
    tab.register("Nia")
    me = tab.player()
    odd = "r-a/b?c#d"
    room = {
        "id": odd,
        "game": "itty-bitty",
        "status": "open",
        "host": me["id"],
        "seats": [
            {"seat": 0, "player_id": me["id"], "name": "Nia", "bot": None},
            {"seat": 1, "player_id": "p-bot", "name": "greedy bot", "bot": "greedy"},
        ],
        "timing": None,
        "game_id": None,
    }
    asked: list[str] = []

    def answer(route: Any) -> None:
        asked.append(route.request.url)
        route.fulfill(json=room)

    page = tab.page
    page.route(lambda url: "/v1/rooms/r-a" in url, answer)
    page.evaluate(f"location.hash = '#/room/' + encodeURIComponent({json.dumps(odd)})")
    page.wait_for_selector(".room #start")
    # the answer, not the request: the route's handler (which records it) has run by then
    with page.expect_response(lambda r: r.request.method == "POST"):
        page.click("#start")
    escaped = "r-a%2Fb%3Fc%23d"
    assert asked[0].endswith(f"/v1/rooms/{escaped}"), asked
    assert asked[-1].endswith(f"/v1/rooms/{escaped}/start?wait=10"), asked
    tab.no_errors()

"""Finding a table and talking at it in the web client (Chromium, Playwright, the whole
stack): two people quick-match into one game; they chat, markup shown as the text it is;
one mutes the other; a third watches from the lobby's list and speaks as a spectator; an
unlisted room's invitation is accepted from the lobby."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext

from tests.e2e.conftest import Stack
from tests.e2e.test_web_client import Tab, browser  # noqa: F401

MARKUP = "<b>bold?</b> <img src=x onerror=alert(1)>"


@pytest.fixture
def contexts(browser: Browser) -> Iterator[list[BrowserContext]]:  # noqa: F811
    made = [browser.new_context(viewport={"width": 1200, "height": 900}) for _ in range(3)]
    yield made
    for c in made:
        c.close()


def player_id(tab: Tab) -> str:
    me = tab.page.evaluate("sessionStorage.getItem('turnpost.player')")
    return str(json.loads(me)["id"])


def test_quick_match_chat_mute_and_watch(contexts: list[BrowserContext], stack: Stack) -> None:
    ada, bob, cy = (Tab(c, stack) for c in contexts)
    ada.register("Ada")
    bob.register("Bob")
    cy.register("Cy")
    for person in (ada, bob):  # two seats of itty bitty: the second caller fills the table
        form = person.page.locator('.game-entry[data-key="itty-bitty"] form')
        form.locator("select[name=seats]").select_option("2")
        person.page.click('.game-entry[data-key="itty-bitty"] [data-quick]')
    for person in (ada, bob):
        person.page.wait_for_selector(".game", timeout=30_000)
    game = ada.page.url.split("#/game/")[1]
    assert bob.page.url.endswith(game)

    ada.page.fill(".chat-form input[name=text]", MARKUP)
    ada.page.click(".chat-form button[type=submit]")
    for person in (ada, bob):  # the markup is text on the page, not an element
        said = person.page.locator(".chat li .said").first
        said.wait_for()
        assert said.inner_text() == MARKUP
        assert person.page.locator(".chat li b:text-is('bold?')").count() == 0
        assert person.page.locator(".chat img").count() == 0

    # Cy finds the game among those to watch, and speaks as a spectator
    cy.page.wait_for_selector(f'#watch [data-game="{game}"] a', timeout=15_000)
    cy.page.click(f'#watch [data-game="{game}"] a')
    cy.page.wait_for_selector(".game")
    assert cy.page.locator(".chat li .said").first.inner_text() == MARKUP
    cy.page.fill(".chat-form input[name=text]", "go Bob")
    cy.page.click(".chat-form button[type=submit]")
    bob.page.wait_for_selector(".chat li[data-channel=spectators] .said:text-is('go Bob')")

    # Bob mutes Ada: her earlier message leaves his page, her next never comes
    bob.page.click(f'.chat li[data-player="{player_id(ada)}"] [data-mute]')
    bob.page.wait_for_selector(f'.chat li[data-player="{player_id(ada)}"]', state="detached")
    ada.page.fill(".chat-form input[name=text]", "can you hear me?")
    ada.page.click(".chat-form button[type=submit]")
    ada.page.wait_for_selector(".chat li .said:text-is('can you hear me?')")
    cy.page.wait_for_selector(".chat li .said:text-is('can you hear me?')")  # others do
    # Bob's open stream has brought that version (the page read the game at it)...
    said_at = int(cy.page.get_attribute(".game", "data-version") or 0)
    bob.page.wait_for_function(
        "v => Number(document.querySelector('.game')?.dataset.version) >= v", arg=said_at
    )
    # ...and left the muted message out of the page
    assert "can you hear me?" not in bob.page.locator(".chat").inner_text()
    assert "can you hear me?" not in bob.page.locator(".log").inner_text()
    bob.page.reload()
    bob.page.wait_for_selector(".game")
    assert "can you hear me?" not in bob.page.locator(".chat").inner_text()
    # Ada hides the spectators
    ada.page.check("#hide-spectators")
    ada.page.wait_for_selector(".chat li[data-channel=spectators]", state="detached")
    for person in (ada, bob, cy):
        person.no_errors()


def test_an_unlisted_room_s_invitation_is_accepted_from_the_lobby(
    contexts: list[BrowserContext], stack: Stack
) -> None:
    ada, bob, _ = (Tab(c, stack) for c in contexts)
    ada.register("Ada")
    bob.register("Bob")
    form = ada.page.locator('.game-entry[data-key="itty-bitty"] form')
    form.locator("select[name=visibility]").select_option("unlisted")
    ada.create_room("itty-bitty", 3, {1: "", 2: "random"})
    code = ada.page.locator("#invite-code").inner_text()
    assert len(code) >= 16
    ada.page.fill("#invite input[name=player]", player_id(bob))
    ada.page.click("#invite button[type=submit]")
    ada.page.wait_for_selector(".room .seats li:has-text('held for an invited player')")
    room = ada.page.url.split("#/room/")[1]
    assert bob.page.locator(f'#open-rooms [data-room="{room}"]').count() == 0  # unlisted
    bob.page.wait_for_selector(f'#invitations [data-accept="{room}"]', timeout=15_000)
    bob.page.click(f'#invitations [data-accept="{room}"]')
    bob.page.wait_for_selector(".room")
    ada.page.wait_for_selector(".room .seats li:nth-child(2) b:text-is('Bob')")
    assert bob.page.locator("#invite-code").inner_text() == code  # a member sees it
    for person in (ada, bob):
        person.no_errors()
